"""Reader mode: the active branch as one transcript, wrapped for a width, built as it is read.

Rows without a conversation leaf (an OCP run, the loom map) have no active branch: there the
transcript is the selected row's branch, the rows above it and every row under it in the tree's
order (a node with its attempts, a group with its nodes, the run row with the whole run).

The transcript uses the same entry texts as a comparison (``compare.entry_item``): one block
per conversation entry, a header line (``user``, ``assistant``, ``read result``…) and its text.
Long tool output is cut to ``RESULT_LINES`` lines (the detail pane shows it whole). Lines keep
the index of the entry they belong to, so the reader and the tree can follow each other.

A branch can hold tens of thousands of entries, so nothing is decoded up front: a block is
built and wrapped when it comes on screen (``lines_of``), and until then its height is an
estimate from the entry's size. ``advance`` replaces the estimates with exact heights a slice
at a time (the screen runs it between frames and keeps the block at the top of the screen
where it is as the heights above it change).
"""

from __future__ import annotations

import time
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Iterator
from itertools import accumulate, count
from operator import attrgetter
from typing import Any, NamedTuple

from loomtui.session.entries import Entry
from loomtui.session.locations import home_dir
from loomtui.session.manager import SessionManager
from loomtui.view.compare import SKIPPED_TYPES, Item, entry_item, iter_loaded
from loomtui.view.wrap import wrap_text

#: tool output lines shown per entry in the transcript
RESULT_LINES = 12
#: blocks whose wrapped lines are kept (the rest keep only their height)
KEPT_BLOCKS = 2048
#: the widest the transcript is laid out: prose longer than this per line is hard to read (a
#: wider screen centres the column)
READING_WIDTH = 100


class ReaderLine(NamedTuple):
    item: int  # index into ``Transcript.entries``
    style: str  # a theme role: accent (user), success (assistant), muted, error, dim
    text: str


class Transcript:
    """The blocks of one branch and their lines at one width."""

    def __init__(
        self, manager: SessionManager, leaf_id: str | None, home: str | None = None, *, under: bool = False
    ) -> None:
        """The branch ending at ``leaf_id``; ``under``: and every entry under it (rows that have
        no conversation leaf)."""
        path = manager.index.path_to(leaf_id) if leaf_id is not None else []
        if under and path:
            path.extend(_subtree(manager, path[-1]))
        #: the selected row's branch and what is under it, not a conversation's active branch
        self.under = under
        self.manager = manager
        self.home = home_dir() if home is None else home
        #: the branch's conversation entries, one block each
        self.entries: list[Entry] = [e for e in path if e.type not in SKIPPED_TYPES]
        self._items: list[Item | None] = [None] * len(self.entries)
        self._row_of_id: dict[str, int] = dict(zip(map(attrgetter("id"), self.entries), count()))
        self.index = manager.index
        self.width = 0
        self.heights: list[int] = []
        self.exact: list[bool] = []
        self.exact_count = 0
        self._starts: list[int] | None = None
        self._lines: OrderedDict[int, list[ReaderLine]] = OrderedDict()
        self._next = 0  # the next block ``advance`` measures
        self._feed: Iterator[dict[str, Any]] | None = None

    def __len__(self) -> int:
        return len(self.entries)

    # blocks -------------------------------------------------------------------------------
    def item(self, k: int) -> Item:
        it = self._items[k]
        if it is None:
            obj = next(iter_loaded(self.manager, self.entries[k : k + 1]), {})
            it = self._make_item(k, obj)
        return it

    def _make_item(self, k: int, obj: dict[str, Any]) -> Item:
        e = self.entries[k]
        it = entry_item(e, obj, self.home, self.manager)
        if it is None:  # not reached: bookkeeping entries are not blocks
            it = Item(e, e.type, e.type, "", False, 0)
        self._items[k] = it
        return it

    @property
    def built(self) -> int:
        """How many blocks were decoded so far."""
        return sum(1 for it in self._items if it is not None)

    @property
    def done(self) -> bool:
        return self.exact_count >= len(self.entries)

    # layout -------------------------------------------------------------------------------
    def layout(self, width: int) -> None:
        """Lay the transcript out for ``width`` (heights estimated until measured)."""
        width = max(10, width)
        if width == self.width:
            return
        self.width = width
        self.heights = self._estimates()
        self.exact = [False] * len(self.entries)
        self.exact_count = 0
        self._starts = None
        self._lines.clear()
        self._next = 0
        self.close()

    def _estimates(self) -> list[int]:
        """Each block's height guessed from its entry's size: a header, the text, a blank."""
        per_line = max(20, self.width)
        most = 2 + RESULT_LINES + 1
        return [min(most, 3 + size // per_line) for size in map(attrgetter("size"), self.entries)]

    def lines_of(self, k: int) -> list[ReaderLine]:
        """Block ``k``'s lines (built now if it was not yet)."""
        lines = self._lines.get(k)
        if lines is not None:
            self._lines.move_to_end(k)
            return lines
        lines = self._block_lines(k, self.item(k))
        self._set_height(k, len(lines))
        self._lines[k] = lines
        while len(self._lines) > KEPT_BLOCKS:
            self._lines.popitem(last=False)
        return lines

    def _block_lines(self, k: int, it: Item) -> list[ReaderLine]:
        lines = [ReaderLine(k, "error" if it.error else _STYLE.get(it.key, "muted"), f"── {it.head}")]
        text_lines = it.text.split("\n")
        cut = it.key.startswith("tool:") or it.key == "bash"
        more = 0
        if cut and len(text_lines) > RESULT_LINES:
            more = len(text_lines) - RESULT_LINES
            text_lines = text_lines[:RESULT_LINES]
        style = "error" if it.error else ("muted" if cut else "text")
        for t in text_lines:
            for piece in wrap_text(t, self.width):
                lines.append(ReaderLine(k, style, piece))
        if more:
            lines.append(ReaderLine(k, "dim", f"… {more} more line{'s' if more != 1 else ''} (detail pane)"))
        lines.append(ReaderLine(k, "text", ""))
        return lines

    def _set_height(self, k: int, height: int) -> None:
        if not self.exact[k]:
            self.exact[k] = True
            self.exact_count += 1
        if self.heights[k] != height:
            self.heights[k] = height
            self._starts = None

    def advance(self, budget: float) -> bool:
        """Measure blocks not measured yet for about ``budget`` seconds; True when all are."""
        deadline = time.perf_counter() + budget
        n = len(self.entries)
        while self._next < n:
            k = self._next
            if self.exact[k]:
                self._next += 1
                if self._feed is not None:
                    next(self._feed, None)
                continue
            if self._feed is None:
                self._feed = iter_loaded(self.manager, self.entries[k:])
            obj = next(self._feed, {})
            it = self._items[k] or self._make_item(k, obj)
            self._set_height(k, len(self._block_lines(k, it)))
            self._next += 1
            if time.perf_counter() >= deadline:
                break
        if self._next >= n:
            self.close()
        return self.done

    def close(self) -> None:
        """Let go of the open file of ``advance``."""
        feed, self._feed = self._feed, None
        if feed is not None:
            feed.close()  # type: ignore[attr-defined]

    # positions ----------------------------------------------------------------------------
    @property
    def starts(self) -> list[int]:
        """The first line of each block."""
        if self._starts is None:
            self._starts = [0, *accumulate(self.heights)][:-1] if self.heights else []
        return self._starts

    @property
    def line_count(self) -> int:
        s = self.starts
        return s[-1] + self.heights[-1] if s else 0

    def line(self, y: int) -> ReaderLine | None:
        """Line ``y`` of the transcript (its block built if needed)."""
        if not 0 <= y < self.line_count:
            return None
        k = self.item_at_line(y)
        off = y - self.starts[k]
        lines = self.lines_of(k)
        return lines[off] if off < len(lines) else None

    def measure(self, first: int, last: int) -> None:
        """Build blocks ``first``..``last`` (their heights become exact)."""
        for k in range(max(0, first), min(len(self.entries), last + 1)):
            self.lines_of(k)

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
        return self.entries[k].id if 0 <= k < len(self.entries) else None

    def all_items(self) -> list[Item]:
        """Every block's item (builds the rest)."""
        return [self.item(k) for k in range(len(self.entries))]


def _subtree(manager: SessionManager, top: Entry) -> Iterator[Entry]:
    """The entries under ``top``, each before its children (the tree's order), ``top`` not included."""
    children = manager.index.children
    stack = list(reversed(children(top.id)))
    seen = {top.id}
    while stack:
        e = stack.pop()
        if e.id in seen:
            continue
        seen.add(e.id)
        yield e
        stack.extend(reversed(children(e.id)))


def head_text(at: int, total: int, title: str, measured: int | None = None, under: bool = False) -> str:
    """Reader mode's header: the block read (``at``, from 0) of ``total`` and how far laying
    them out got, first, so a narrow screen keeps them; what is read (``under``: the selected
    row's branch and the rows under it); the session's title last, the part an ellipsis cuts."""
    one, many = ("row", "rows") if under else ("entry", "entries")
    parts = ["Reader", f"{one} {min(at, total - 1) + 1:,} of {total:,}" if total > 0 else f"no {many}"]
    if measured is not None and measured < total:
        parts.append(f"laying out {measured * 100 // total}%…")
    what = "the selected row with the rows above and under it" if under else "the active branch"
    return " · ".join(part for part in (*parts, what, title) if part)


_STYLE = {"user": "accent", "assistant": "success", "compaction": "borderAccent", "branch summary": "warning"}
