"""Reading ``keymap.toml``: the user's overrides of the bindings in ``keymap.SPECS``, and what
is wrong with the file (reported when the app starts, never fatal)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from textual.keys import Keys, _character_to_key, key_to_character

from loomtui.app.keymap import SPEC_BY_ID, SPECS, on_one_screen, typed_into
from loomtui.app.themes import config_dir
from loomtui.session.errors import LoomError
from loomtui.session.fileio import read_regular


def keymap_path() -> Path:
    return config_dir() / "keymap.toml"


def load_user_keymap(path: Path | None = None) -> tuple[dict[str, str], list[str]]:
    """The user's overrides (id → keys) and what was wrong with the file, if anything."""
    path = path or keymap_path()
    try:
        text = read_regular(str(path)).decode("utf-8", "replace")
    except FileNotFoundError:
        return {}, []
    except OSError as exc:
        return {}, [f"{path}: {exc.strerror or exc}"]
    except LoomError as exc:  # a FIFO, a device: refused, never waited on
        return {}, [str(exc)]
    file = shown_path(path)
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        return {}, [f"{file}: not valid TOML ({exc}); using the default keys"]
    lines, problems = _lines(data, file)
    keymap: dict[str, str] = {}
    for binding_id, keys in lines:
        wanted, problem = _override(binding_id, keys, file)
        if problem:
            problems.append(problem)
        if wanted:
            keymap[binding_id] = ",".join(wanted)
    keymap, clashed = clashes(keymap, file)
    return keymap, problems + clashed


def shown_path(path: Path) -> str:
    """``path`` as the notices write it: the whole path, the home as ``~``."""
    full, home = str(path.absolute()), str(Path.home())
    return "~" + full[len(home) :] if home not in ("", "/") and full.startswith(home + "/") else full


def _lines(data: dict[str, object], file: str) -> tuple[list[tuple[str, object]], list[str]]:
    """The file's (binding id, keys) lines, those at the top (before any table) first, then the
    ``[keys]`` table's, and what in the file is not read. An id written without quotes is a
    dotted TOML key (a table ``browser`` holding ``export``): it reads as the id it spells."""
    top: list[tuple[str, object]] = []
    keys: list[tuple[str, object]] = []
    problems = []
    for name, value in data.items():
        if name == "keys" and isinstance(value, dict):
            keys = _flat(value)
        elif name == "keys":
            problems.append(f"{file}: keys is not a table: the bindings go under [keys]")
        elif isinstance(value, dict) and not any(binding_id in SPEC_BY_ID for binding_id, _ in _flat(value, name)):
            n = len(_flat(value))
            problems.append(
                f"{file}: [{name}] is not a table loomtui reads (the bindings go under [keys]); "
                + ("its line is not applied" if n == 1 else f"its {n} lines are not applied")
            )
        else:
            top += _flat(value, name) if isinstance(value, dict) else [(name, value)]
    twice = {binding_id for binding_id, _ in top} & {binding_id for binding_id, _ in keys}
    problems += [
        f"{file}: {binding_id} is bound both before [keys] and in it; the [keys] line applies"
        for binding_id in sorted(twice)
    ]
    return [line for line in top if line[0] not in twice] + keys, problems


def _flat(table: dict[str, object], prefix: str = "") -> list[tuple[str, object]]:
    """A table's lines with the ids of its nested tables joined by dots."""
    out: list[tuple[str, object]] = []
    for name, value in table.items():
        binding_id = f"{prefix}.{name}" if prefix else name
        out += _flat(value, binding_id) if isinstance(value, dict) else [(binding_id, value)]
    return out


def clashes(keymap: dict[str, str], file: str) -> tuple[dict[str, str], list[str]]:
    """The keys of ``keymap`` that another binding on the same screen has too, by any of the key's
    names (``SAME_KEYS``: ctrl+i is tab). The file's line has such a key (of two lines, the later
    one), by the other binding's name of it too, and the other binding loses it, keeping its other
    keys: ``keymap`` with those bindings' keys left ("" for none), and a notice for each key."""
    lines = list(keymap)
    held = {s.id: [k for k in keymap.get(s.id, s.keys).split(",") if k] for s in SPECS}
    left = dict(keymap)
    notices: list[tuple[int, str]] = []
    for line in range(len(lines) - 1, -1, -1):  # the last line first: it has its keys whatever came before
        winner = lines[line]
        for key in list(held[winner]):
            losers = {other: names for other in held if (names := _loses(other, key, winner, line, lines, held))}
            if not losers:
                continue
            for other, names in losers.items():
                held[other] = [k for k in held[other] if k not in names]
                left[other] = ",".join(held[other])
            also = [name for names in losers.values() for name in names if name not in held[winner]]
            if also:  # the key as the other binding named it: the line has it from every terminal
                held[winner] += list(dict.fromkeys(also))
                left[winner] = ",".join(held[winner])
            notices.append((line, _clash_notice(file, key, winner, losers, held, keymap)))
    return left, [notice for _line, notice in sorted(notices, key=lambda n: n[0])]


def _loses(other: str, key: str, winner: str, line: int, lines: list[str], held: dict[str, list[str]]) -> list[str]:
    """The names by which ``other`` has ``key`` and loses it to the file's line ``line``
    (binding ``winner``): it has the key on the same screen, by default or on an earlier line."""
    names = [k for k in held[other] if same_key(k) == same_key(key)]
    if other == winner or not names:
        return []
    if other in lines and lines.index(other) > line:
        return []
    return names if on_one_screen(SPEC_BY_ID[winner], SPEC_BY_ID[other]) else []


def _clash_notice(
    file: str, key: str, winner: str, losers: dict[str, list[str]], held: dict[str, list[str]], keymap: dict[str, str]
) -> str:
    """``ctrl+x is bound to browser.export and browser.copy-message (default); browser.export
    has it, browser.copy-message has no key now``; a key the other binding names otherwise
    (``tab`` for ``ctrl+i``) is said with its names and why they are one key."""
    names = list(dict.fromkeys([key, *(name for ns in losers.values() for name in ns)]))

    def who(other: str) -> str:
        how = "an earlier line" if other in keymap else "default"
        aliases = [name for name in losers[other] if name != key]
        return f"{other} ({how}, as {' and '.join(aliases)})" if aliases else f"{other} ({how})"

    others = ", ".join(who(other) for other in losers)
    fates = ", ".join(
        f"{other} keeps {', '.join(held[other])}" if held[other] else f"{other} has no key now" for other in losers
    )
    if len(names) == 1:
        return f"{file}: {key} is bound to {winner} and {others}; {winner} has it, {fates}"
    sent = same_key(key)
    why = f"most terminals send {' and '.join(n for n in names if n != sent)} as {sent}"
    return f"{file}: {key} is bound to {winner} and {others}; {winner} has it ({' and '.join(names)}), {fates}; {why}"


def _override(binding_id: str, keys: object, file: str) -> tuple[list[str], str | None]:
    """The keys one entry of the file binds (none when it is refused) and what was wrong."""
    if binding_id not in SPEC_BY_ID:
        return [], f"{file}: unknown binding id {binding_id!r}"
    if isinstance(keys, list):
        keys = ",".join(str(k) for k in keys)
    if not isinstance(keys, str) or not keys.strip():
        return [], f'{file}: {binding_id} needs a key string like "ctrl+x"'
    named = {k.strip(): textual_key(k.strip()) for k in keys.split(",") if k.strip()}
    refused: set[str] = set()
    problems = []
    for check in (_no_keys, _never_delivered, _typing):
        keys_refused, problem = check(binding_id, named)
        refused.update(keys_refused)
        if problem:
            problems.append(problem)
    kept = list(dict.fromkeys(name for k, name in named.items() if name is not None and k not in refused))
    return kept, (f"{file}: {binding_id}: " + "; ".join(problems)) if problems else None


def _no_keys(_binding_id: str, named: dict[str, str | None]) -> tuple[list[str], str | None]:
    """The names written that are no key at all."""
    unknown = [k for k, name in named.items() if name is None]
    if not unknown:
        return [], None
    what = "is not a key name" if len(unknown) == 1 else "are not key names"
    listed = ", ".join(repr(k) for k in unknown)
    return unknown, f"{listed} {what} (Textual's key names: ctrl+x, alt+h, f5, pagedown, question_mark)"


def _never_delivered(_binding_id: str, named: dict[str, str | None]) -> tuple[list[str], str | None]:
    """The keys a terminal sends as another key."""
    lost = {k: NEVER_DELIVERED[name] for k, name in named.items() if name in NEVER_DELIVERED}
    if not lost:
        return [], None
    arrives = "; ".join(f"{k} arrives as {other}" for k, other in lost.items())
    return list(lost), f"a terminal never sends {', '.join(lost)} as such ({arrives}); use another key"


def _typing(binding_id: str, named: dict[str, str | None]) -> tuple[list[str], str | None]:
    """The keys that type, for a binding live on a screen where typing searches or filters
    (the browser's, the session picker's and the app's bindings, not compare's or the reader's)."""
    into = typed_into(SPEC_BY_ID[binding_id].scope)
    if not into:
        return [], None
    typing = [k for k, name in named.items() if name is not None and types_text(name)]
    if not typing:
        return [], None
    return typing, (
        f"{', '.join(typing)} types into {' and '.join(into)}; use a key that never types (alt+…, ctrl+…, an F-key)"
    )


#: every key Textual sends by one name (``ctrl+@`` is Ctrl+Space), and the names of their keys
KEY_VALUES = frozenset(k.value for k in Keys if not k.value.startswith("<")) - {"return"}


#: the modifiers of a Textual key name, in the order Textual writes them (``ctrl+shift+o``)
MODIFIERS = ("alt", "ctrl", "hyper", "meta", "shift", "super")
#: Textual's names of the keys that type nothing (``up``, ``pagedown``, ``f5``), and of the
#: printable ASCII characters that are not letters or digits (``question_mark``, ``full_stop``);
#: ``return`` is a name Textual never sends (Enter arrives as ``enter``)
NAMED_KEYS = frozenset({k.rpartition("+")[2] for k in KEY_VALUES} - {"ctrl-at"}) | frozenset(
    _character_to_key(chr(c)) for c in range(0x20, 0x7F) if not chr(c).isalnum()
)


def textual_key(key: str) -> str | None:
    """``key`` as Textual names it when it arrives (``F6`` → ``f6``, ``shift+ctrl+o`` →
    ``ctrl+shift+o``, ``?`` → ``question_mark``, ``shift+j`` → ``J``), None when it is no key."""
    if key in KEY_VALUES:
        return key  # ctrl+@ (Ctrl+Space), as Textual names it
    *given, base = key.split("+")
    mods = sorted(m.lower() for m in given)
    if len(set(mods)) < len(mods) or not set(mods) <= set(MODIFIERS):
        return None
    if len(base) == 1 and base.isprintable() and not base.isspace():
        if mods == ["shift"] and base.isalpha():  # Shift+J arrives as the capital J
            mods, base = [], base.upper()
        elif mods:  # "Ctrl+N", "Alt+H" as help writes them: ctrl+n, alt+h (Shift is said as shift+)
            base = base.lower()
        name = _character_to_key(base)
    elif base.lower() in NAMED_KEYS:
        name = base.lower()
    else:
        return None
    return "+".join([*mods, name])


#: Alt keys a terminal sends as ESC and a character that Textual reads as another key, so a
#: binding on them never fires: ESC b and ESC f are iTerm's natural-editing Ctrl+← / Ctrl+→
#: (what xterm and tmux send for Alt+B and Alt+F), ESC DEL is Ctrl+W, ESC Tab is Shift+Tab, ESC
#: ESC is Esc (tests/app/test_keys.py checks this against Textual's own table; ESC and a digit or
#: punctuation mark is that Alt key: ``widgets/search_keys.read_alt_sequences_as_alt``)
NEVER_DELIVERED: dict[str, str] = {
    "alt+b": "ctrl+left",
    "alt+f": "ctrl+right",
    "alt+backspace": "ctrl+w",
    "alt+tab": "shift+tab",
    "alt+escape": "escape",
}


#: keys a terminal sends as the byte of another key, which Textual then reads as that key (its
#: table of escape sequences: Ctrl+I sends Tab's byte, Ctrl+M Enter's, Ctrl+H one of
#: Backspace's, Ctrl+[ Esc's, Ctrl+Space Ctrl+@'s; Textual's ``KEY_ALIASES`` pairs most of them):
#: only a terminal speaking the kitty keyboard protocol tells them apart, so each is one key
#: with the key it arrives as when bindings clash (tests/test_keymap_file.py checks it)
SAME_KEYS: dict[str, str] = {
    "ctrl+i": "tab",
    "ctrl+m": "enter",
    "ctrl+h": "backspace",
    "ctrl+left_square_bracket": "escape",
    "ctrl+space": "ctrl+@",
    "ctrl+at": "ctrl+@",
}


def same_key(key: str) -> str:
    """``key`` by the name Textual reads it as from most terminals (``ctrl+i`` → ``tab``)."""
    return SAME_KEYS.get(key, key)


def types_text(key: str) -> bool:
    """Whether ``key`` (a Textual key name: ``m``, ``shift+a``, ``question_mark``) types a
    character, i.e. goes into a search instead of acting."""
    name = key.lower().removeprefix("shift+")
    if name in ("space", "tab", "enter", "escape", "backspace", "delete"):
        return name == "space"
    char = key_to_character(name)
    return char is not None and char.isprintable()
