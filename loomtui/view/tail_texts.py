"""Row texts made by the child that parses a big session's tail (``session/split.py``).

`loomtui tree` on a cold 100k-entry session spends about a fifth of its time writing each
entry's row text (``display_text``). The child that parses the second part of the
file is idle once it has, while this process is still reading the first part; so it also writes
the row texts of its own entries (``child_work``) and they come back with them. The one text it
cannot know is a tool result's whose call is in the first part: left None, written here as
usual. A child's text is used only where it is certainly the text this process would write
(``texts_by_index``): every tool call id in the session is unique, so the call the child found
is the one the tree's map holds.
"""

from __future__ import annotations

from collections.abc import Callable

from loomtui.session.entries import Entry
from loomtui.session.jsstr import js_truthy
from loomtui.view import flat as F
from loomtui.view.text import display_text


def child_work(home: str) -> Callable[[list[Entry]], list[str | None] | None]:
    """What the tail child runs on its entries: their row texts for ``home`` (None for a tool
    result whose call it has not seen), or None when a call id repeats among them."""

    def work(entries: list[Entry]) -> list[str | None] | None:
        calls = F.tool_call_map(entries)
        if calls is None:
            return None
        out: list[str | None] = []
        append = out.append
        for e in entries:
            if e.role == "toolResult" and e.type == "message" and js_truthy(e.aux) and e.aux not in calls:
                append(None)
            else:
                append(display_text(e, calls, home))
        return out

    def guarded(entries: list[Entry]) -> list[str | None] | None:
        try:
            return work(entries)
        except Exception:  # an odd value (an unhashable call id): this process writes them all
            return None

    return guarded


def texts_by_index(entries: list[Entry], result: tuple[list[Entry], object] | None,
                   calls_unique: bool) -> list[str | None] | None:
    """The child's texts placed by entry index (``model.row_texts``; None where this process
    writes the text), or None when they cannot be used."""
    if result is None or not calls_unique:
        return None
    tail, texts = result
    if not isinstance(texts, list) or len(texts) != len(tail):
        return None
    out: list[str | None] = [None] * len(entries)
    n = len(entries)
    for e, text in zip(tail, texts):
        i = e.index
        if text is not None and 0 <= i < n and entries[i] is e:
            out[i] = text
    return out
