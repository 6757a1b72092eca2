"""Facts in words: counts ("1 turn", "2 turns", "3 usage entries"), why a reply ended, what a
session that is not a fork is — one rule (and one wording) for every screen and command that
says them."""

from __future__ import annotations

from collections.abc import Iterable

from loomtui.view.width import text_width, truncate_to_width


def counted(n: int, noun: str, nouns: str | None = None) -> str:
    """``n`` and the noun, plural unless ``n`` is 1 (``nouns`` when the plural is not noun + s);
    the number as every count is shown, with thousands separators (``1,303 entries``)."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {nouns or noun + 's'}"


def grouped(v: float | int) -> str:
    """A figure with thousands separators, as every command prints a big one: 65,583,000
    (a whole float as an int; another float as it is, grouped)."""
    return f"{int(v):,}" if float(v).is_integer() else f"{v:,}"


def theme_choices(files: Iterable[str], textual: Iterable[str] = ()) -> str:
    """The names ``--theme`` takes, in the words of its help: light, dark, a theme file's name
    (the names the theme files give) and, in the browser, Textual's own themes."""
    named = ", ".join(sorted(files)) or "none found"
    builtin = sorted(textual)
    if builtin:
        return f"light, dark, a theme file's name ({named}) or a Textual theme ({', '.join(builtin)})"
    return f"light, dark or a theme file's name ({named})"


def capital(text: str) -> str:
    """``text`` starting with a capital ("An OCP run …" from ``Source.a_name``)."""
    return text[:1].upper() + text[1:]


def sentence(text: str) -> str:
    """A refusal worded for a command line ("a version 1 session: … first") as a notice's
    sentence: a capital first, a full stop last."""
    text = capital(text.strip())
    return text if text.endswith((".", "!", "?")) else text + "."


def clip(text: str, width: int) -> str:
    """``text`` in at most ``width`` columns for a dialog's preview: cut at the last word that
    fits, with "…", so a preview never ends mid-word and always says it was cut (a single word
    longer than the room is cut inside it)."""
    if text_width(text) <= width:
        return text
    room = max(1, width - 1)
    cut = truncate_to_width(text, room, ellipsis="")
    space = cut.rfind(" ")
    if space >= room // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"


def branch_copy(entries: int, labels: int, named: bool) -> str:
    """What a branch export holds, said the same way before (its dialog) and after (its notice):
    the path's entries, the label entries made again, the ``session_info`` entry that keeps the
    session's name (pi's fork would lose it)."""
    parts = [counted(entries, "entry", "entries")]
    if labels:
        parts.append(counted(labels, "label entry", "label entries"))
    if named:
        parts.append("the session's name (a session_info entry)")
    return " + ".join(parts)


#: what is said wherever the parent session of a session that is not a fork is asked for (the
#: picker, the browser, the palette): a pi or omp session (its header has no ``parentSession``)
NOT_A_FORK = "This session is not a fork: its header names no parent session."


def not_a_fork(name: str | None = None) -> str:
    """``NOT_A_FORK`` for a file of another kind, named as the user calls it ("Claude Code
    session", "OCP run"): such a file has no pi header to speak of (None: a pi or omp session)."""
    return NOT_A_FORK if name is None else f"This {name} is not a fork: it names no parent session."


#: how a reply ended, by the stop reason pi writes (``stopReason``; Claude Code's are mapped to it)
_ENDINGS = {
    "stop": "ended normally",
    "toolUse": "ended to call tools",
    "length": "cut off at the token limit",
    "error": "ended with an error",
    "aborted": "aborted by the user",
    "empty": "ended with no text",
}


def ending(stop_reason: str) -> str:
    """Why a reply ended, in words ("ended normally", not "stop stop"); an unknown reason is
    quoted as written."""
    return _ENDINGS.get(stop_reason, f"ended: {stop_reason}")


def reloaded_words(name: str, change: str, entries: int, lost: str | None, selected: str | None) -> str:
    """Live follow's notice for a file rewritten under it and reloaded: how it changed (``change``,
    such as ``"truncated"``; empty: not known), what it holds now, and the selected entry ``lost``
    with the change (None: it is still there) with the one ``selected`` instead."""
    how = f"was {change} by another program" if change else "changed on disk"
    text = f"{name} {how}; reloaded it ({counted(entries, 'entry', 'entries')} now)."
    if lost is not None:
        text += f" The selected entry {lost} is no longer in it" + (f"; selected {selected}." if selected else ".")
    return text
