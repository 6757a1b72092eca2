"""What the picker's full-text search says: a hit's row in the tree's words, and the status line
in the width it has. Pure (no Textual): ``app/screens/picker.py`` draws them.
"""

from __future__ import annotations

from loomtui.view.text import FIELD_WORDS, field_brackets
from loomtui.view.width import text_width
from loomtui.view.words import counted

#: the tree's word for an entry kind whose row shows its text after the brackets (``view/text.py``)
_KIND_WORDS = {
    "compaction": "compaction",
    "branch_summary": "branch summary",
    "bashExecution": "bash",
    "thinking": "thinking",
    "tool": "tool call",
}


def hit_words(kind: str, name: str = "") -> tuple[str, str]:
    """What a hit row says before and after its snippet, as the tree words the entry's row:
    ``user: `` and ``assistant: ``; a label's and a session name's field in the brackets
    (``[label: `` … ``]``, ``[title: `` … ``]``, the tree's own ``field_brackets``); else the
    bracketed word (``[compaction]: ``, ``[branch summary]: ``, a tool result's ``[read]: ``, a
    custom message's ``[its type]: ``). ``name``: the tool's or the custom message's type."""
    if kind in FIELD_WORDS:
        return field_brackets(kind)
    return _hit_head(kind, name), ""


def _hit_head(kind: str, name: str) -> str:
    if kind in ("user", "assistant"):
        return f"{kind}: "
    if kind in ("toolResult", "custom_message"):
        word = name or ("tool" if kind == "toolResult" else "custom message")
    else:
        word = _KIND_WORDS.get(kind) or (kind.replace("_", " ") if kind else "entry")
    return f"[{word}]: "


#: the search's hints, in full, short and shortest
HINTS = ("Enter open at entry  ·  Esc back to the list  ·  ^Q quit", "Enter open  ·  Esc back  ·  ^Q quit", "Esc back")


def found(hits: int, sessions: int, plus: bool) -> str:
    """``62+ hits in 4 sessions`` (``plus``: there are more than were shown)."""
    return f"{hits:,}{'+' if plus else ''} {'hit' if hits == 1 else 'hits'} in {counted(sessions, 'session')}"


def search_status(hits: int, sessions: int, capped: int, capped_all: bool, plus: bool) -> list[str]:
    """The finished search's status line, longest first (``fit`` picks the one that fits): what
    was found and what holds more, then the keys: the keys are said shorter, then left out, before
    what was found is."""
    got = found(hits, sessions, plus)
    if not hits:
        said = ["No matches"]
    elif capped_all:
        said = [
            f"The first {got}: the search stopped there (add words, or Enter on “more” at the end)",
            f"The first {got} (add words, or Enter on “more”)",
            f"The first {got}",
        ]
    elif capped:
        hold = "holds" if capped == 1 else "hold"
        said = [
            f"{got} ({counted(capped, 'session')} {hold} more: Enter on a “more” row shows them)",
            f"{got} ({capped:,} {hold} more: Enter on “more”)",
            got,
        ]
    else:
        said = [got]
    return [c for s in said for c in (*(f"{s}  ·  {h}" for h in HINTS), s)]


def fit(choices: list[str], width: int) -> str:
    """The first of ``choices`` that fits in ``width`` columns, else the last (cut where shown)."""
    return next((c for c in choices if text_width(c) <= width), choices[-1])
