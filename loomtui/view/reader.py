"""Reader mode: the active branch as one transcript, wrapped for a width.

The transcript uses the same entry texts as a comparison (``compare.branch_items``): one block
per conversation entry, a header line (``user``, ``assistant``, ``read result``…) and its text.
Long tool output is cut to ``RESULT_LINES`` lines (the detail pane shows it whole). Lines keep
the index of the entry they belong to, so the reader and the tree can follow each other.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import NamedTuple

from loomtui.session.entries import Entry
from loomtui.session.manager import SessionManager
from loomtui.view.compare import Item, branch_items
from loomtui.view.width import char_width

#: tool output lines shown per entry in the transcript
RESULT_LINES = 12


class ReaderLine(NamedTuple):
    item: int  # index into ``Transcript.items``
    style: str  # a theme role: accent (user), success (assistant), muted, error, dim
    text: str


class Transcript:
    """The items of one branch and their lines at one width."""

    def __init__(self, manager: SessionManager, leaf_id: str | None, home: str | None = None) -> None:
        path = manager.index.path_to(leaf_id) if leaf_id is not None else []
        self.items: list[Item] = branch_items(manager, path, home)
        self.width = 0
        self.lines: list[ReaderLine] = []
        self.starts: list[int] = []  # first line of each item
        self._row_of_id = {it.entry.id: k for k, it in enumerate(self.items)}
        self.index = manager.index

    def layout(self, width: int) -> None:
        if width == self.width and self.lines:
            return
        self.width = width = max(10, width)
        lines: list[ReaderLine] = []
        starts: list[int] = []
        for k, it in enumerate(self.items):
            starts.append(len(lines))
            lines.append(ReaderLine(k, "error" if it.error else _STYLE.get(it.key, "muted"), f"── {it.head}"))
            text_lines = it.text.split("\n")
            cut = it.key.startswith("tool:") or it.key == "bash"
            more = 0
            if cut and len(text_lines) > RESULT_LINES:
                more = len(text_lines) - RESULT_LINES
                text_lines = text_lines[:RESULT_LINES]
            body = "error" if it.error else "text"
            for t in text_lines:
                for piece in wrap(t, width):
                    lines.append(ReaderLine(k, body if not cut else ("error" if it.error else "muted"), piece))
            if more:
                lines.append(ReaderLine(k, "dim", f"… {more} more line{'s' if more != 1 else ''} (detail pane)"))
            lines.append(ReaderLine(k, "text", ""))
        self.lines = lines
        self.starts = starts

    def item_at_line(self, y: int) -> int:
        return max(0, bisect_right(self.starts, y) - 1)

    def item_of_entry(self, entry: Entry | None) -> int | None:
        """The block showing ``entry``, or its nearest ancestor in the transcript (an entry off
        the branch, or bookkeeping such as a label, shows where it hangs off)."""
        cur = entry
        while cur is not None:
            k = self._row_of_id.get(cur.id)
            if k is not None:
                return k
            cur = self.index.parent_of(cur)
        return None

    def line_of_entry(self, entry: Entry | None) -> int | None:
        k = self.item_of_entry(entry)
        return self.starts[k] if k is not None and k < len(self.starts) else None

    def entry_id(self, k: int) -> str | None:
        return self.items[k].entry.id if 0 <= k < len(self.items) else None


_STYLE = {"user": "accent", "assistant": "success", "compaction": "borderAccent", "branch summary": "warning"}


def wrap(text: str, width: int) -> list[str]:
    """``text`` cut into lines of at most ``width`` cells (by characters; tabs as 4 spaces)."""
    text = text.replace("\t", "    ")
    if len(text) <= width and text.isascii():
        return [text]
    out: list[str] = []
    cur: list[str] = []
    used = 0
    for ch in text:
        w = char_width(ch)
        if used + w > width and cur:
            out.append("".join(cur))
            cur, used = [], 0
        cur.append(ch)
        used += w
    out.append("".join(cur))
    return out
