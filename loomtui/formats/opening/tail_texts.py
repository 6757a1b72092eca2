"""Row texts made by the child that parses a big session's tail (``session/split.py``).

`loomtui tree` on a cold 100k-entry session spends about a fifth of its time writing each
entry's row text (``display_text``). The child that parses the second part of the
file is idle once it has, while this process is still reading the first part; so it also writes
the row texts of its own entries (``child_work``) and they come back with them. The one text it
cannot know is a tool result's whose call is in the first part: left None, written here as
usual. A child's text is used only where it is certainly the text this process would write
(``texts_by_index``): every tool call id in the session is unique, so the call the child found
is the one the tree's map holds.

The parent, for its part, usually finishes its part a little before the child: while it
waits it writes the row texts of its own entries the same way (``HeadTexts``), a step at a time,
and stops as soon as the child's answer arrives; the rows it did not reach are written as usual.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from loomtui.session.entries import Entry
from loomtui.session.jsstr import js_truthy
from loomtui.view import flat as F
from loomtui.view.text import display_text

#: entries whose texts ``HeadTexts`` writes per step (a few milliseconds)
STEP = 2048


def _texts(entries: list[Entry], calls: dict[Any, tuple[Any, Any]], home: str, out: list[str | None]) -> None:
    """Append the row texts of ``entries`` to ``out`` (None for a tool result whose call is
    not in ``calls``: the tree's map may hold it)."""
    append = out.append
    for e in entries:
        if e.role == "toolResult" and e.type == "message" and js_truthy(e.aux) and e.aux not in calls:
            append(None)
        else:
            append(display_text(e, calls, home))


def child_work(home: str) -> Callable[[list[Entry]], list[str | None] | None]:
    """What the tail child runs on its entries: their row texts for ``home`` (None for a tool
    result whose call it has not seen), or None when a call id repeats among them."""

    def work(entries: list[Entry]) -> list[str | None] | None:
        calls = F.tool_call_map(entries)
        if calls is None:
            return None
        out: list[str | None] = []
        _texts(entries, calls, home, out)
        return out

    def guarded(entries: list[Entry]) -> list[str | None] | None:
        try:
            return work(entries)
        except Exception:  # an odd value (an unhashable call id): this process writes them all
            return None

    return guarded


class HeadTexts:
    """The row texts of the head's entries, written while this process waits for the tail
    child (``SplitParse.head_work``): ``steps`` is the work, ``result`` what it reached."""

    def __init__(self, home: str) -> None:
        self.home = home
        self.result: tuple[list[Entry], list[str | None]] | None = None

    def steps(self, entries: list[Entry]) -> Iterator[None]:
        head = entries[:]  # the list grows by the tail's entries afterwards
        yield
        try:
            calls = F.tool_call_map(head)
        except Exception:  # an odd value (an unhashable call id): the rows are written as usual
            return
        if calls is None:
            return
        out: list[str | None] = []
        for start in range(0, len(head), STEP):
            yield
            try:
                _texts(head[start : start + STEP], calls, self.home, out)
            except Exception:  # as above: the texts of the steps done stay (``result`` pairs them)
                return
            self.result = (head[: len(out)], out)


def texts_by_index(
    entries: list[Entry],
    result: tuple[list[Entry], object] | None,
    calls_unique: bool,
    head: tuple[list[Entry], list[str | None]] | None = None,
) -> list[str | None] | None:
    """The child's texts, and those ``HeadTexts`` wrote, placed by entry index
    (``model.row_texts``; None where this process writes the text), or None when they cannot be
    used."""
    if not calls_unique:
        return None
    if result is not None:
        tail, texts = result
        if not isinstance(texts, list) or len(texts) != len(tail):
            result = None
    if result is None and head is None:
        return None
    out: list[str | None] = [None] * len(entries)
    n = len(entries)
    parts = [p for p in (head, result) if p is not None]
    for part_entries, part_texts in parts:
        for e, text in zip(part_entries, part_texts):  # type: ignore[call-overload]
            i = e.index
            if text is not None and 0 <= i < n and entries[i] is e:
                out[i] = text
    return out
