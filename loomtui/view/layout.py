"""pi's /tree layout (docs/formats.md §9.3) of the positions ``view/flat.py`` picked, as flat
arrays.

``layout`` takes the visible positions of the flat order and recomputes pi's indentation,
connectors and gutters on the visible tree, re-parenting every row to its nearest visible
ancestor. Linear, a few lists, not an object per row, so 100k-entry sessions refilter in
milliseconds.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import islice, repeat
from operator import lt, sub
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    from loomtui.view.flat import Flat

#: Gutters as a shared chain ``(outer, position, show)``: children extend their parent's chain
#: in O(1) instead of copying a tuple as deep as the tree.
Gutters: TypeAlias = "tuple[Any, ...]"
NO_GUTTERS: Gutters = ()


class Layout:
    """Visible rows: flat positions plus pi's per-row layout fields, as parallel arrays.

    Like ``Flat``, rows from ``split`` on store their flat position and their parent's row
    relative to the end, so a row added at ``split`` (a live append after the leaf) shifts
    them for free. ``position(i)`` and ``parent_row(i)`` decode; -1 means "no parent".
    """

    def __init__(self, flat: Flat | None = None, positions: list[int] | None = None) -> None:
        self.flat = flat
        self.positions: list[int] = positions or []
        self.split = len(self.positions)
        #: False while positions and parents are plain indices (right after ``layout``); the
        #: first live append encodes them around the insertion point (``encode``)
        self.encoded = False
        self.indent: list[int] = []
        self.connector = bytearray()
        self.last = bytearray()
        self.virtual_root_child = bytearray()
        self.gutters: list[Gutters] = []
        self.parent: list[int] = []
        self.kids: list[int] = []
        self.multiple_roots = False
        #: prefix strings by (gutters, levels, connector glyph); rows of one segment share them
        self.prefix_cache: dict[Any, tuple[Any, str]] = {}

    def __len__(self) -> int:
        return len(self.positions)

    def position(self, i: int) -> int:
        x = self.positions[i]
        return x if x >= 0 else x + len(self.flat) + 1  # type: ignore[arg-type]

    def parent_row(self, i: int) -> int:
        x = self.parent[i]
        return x if x >= -1 else x + len(self.positions) + 1

    def encode(self) -> None:
        """Store rows from the flat insertion point on relative to the ends (see the class doc).

        Call before the flat order changes; linear once, after which appends at the leaf cost
        O(1) until the next full layout.
        """
        if self.encoded or self.flat is None:
            return
        self.encoded = True
        positions = self.positions
        n = len(positions)
        split = self.split = bisect_left(positions, self.flat.head)
        if split < n:
            n1 = len(self.flat) + 1
            m1 = n + 1
            self.positions = positions[:split] + list(map(sub, positions[split:], repeat(n1)))
            parent = self.parent  # rows before split have parents before split: only the tail changes
            tail = parent[split:]
            self.parent = parent[:split] + list(map(sub, tail, map(m1.__mul__, map(split.__le__, tail))))

    def find_row(self, p: int) -> int | None:
        """The row showing flat position ``p``, if visible."""
        flat = self.flat
        if flat is None:
            return None
        if not self.encoded:
            i = bisect_left(self.positions, p)
            return i if i < len(self.positions) and self.positions[i] == p else None
        if p < flat.head:
            i = bisect_left(self.positions, p, 0, self.split)
            return i if i < self.split and self.positions[i] == p else None
        key = p - len(flat) - 1
        i = bisect_left(self.positions, key, self.split)
        return i if i < len(self.positions) and self.positions[i] == key else None

    def display_indent(self, i: int) -> int:
        return max(0, self.indent[i] - 1) if self.multiple_roots else self.indent[i]

    def is_foldable(self, i: int) -> bool:
        """Has visible children and is a visible root or a segment start (pi's isFoldable)."""
        if self.kids[i] == 0:
            return False
        p = self.parent_row(i)
        return p < 0 or self.kids[p] > 1

    def drop_last_head_row(self) -> bool:
        """Remove the row just before ``split`` when it has no visible children (its entry
        stopped being shown); rows after it are stored relative to the end and shift alone."""
        r = self.split - 1
        if r < 0 or self.kids[r] != 0:
            return False
        p = self.parent_row(r)
        if p >= 0:
            if self.kids[p] != 1:
                return False
            self.kids[p] = 0
        elif self.multiple_roots or len(self.positions) == 1:
            return False
        for arr in (
            self.positions,
            self.parent,
            self.kids,
            self.indent,
            self.connector,
            self.last,
            self.virtual_root_child,
            self.gutters,
        ):
            del arr[r]
        self.split = r
        return True

    def add_only_child(self, position: int) -> int | None:
        """Add a row for a new entry just inserted at flat ``position`` (== the old head).

        Works when the row above is its visible parent and had no visible children; returns
        the new row, or None when a relayout is needed.
        """
        flat = self.flat
        r = self.split
        if flat is None or r == 0 or (r < len(self.positions) and self.positions[r] >= 0):
            return None
        i = r - 1
        if self.kids[i] != 0 or flat.end(self.position(i)) <= position:
            return None
        self.positions.insert(r, position)
        self.split = r + 1
        self.parent.insert(r, i)
        self.kids[i] = 1
        self.kids.insert(r, 0)
        pind = self.indent[i]
        self.indent.insert(r, pind + 1 if (self.connector[i] and pind > 0) else pind)
        self.connector.insert(r, 0)
        self.last.insert(r, 1)
        self.virtual_root_child.insert(r, 0)
        g = self.gutters[i]
        if self.connector[i] and not self.virtual_root_child[i]:
            d = max(0, pind - 1) if self.multiple_roots else pind
            g = (g, max(0, d - 1), not self.last[i])
        self.gutters.insert(r, g)
        return r


def layout(flat: Flat, positions: list[int]) -> Layout:
    """pi's recalculateVisualStructure over the visible rows (in display order).

    Rows are in pre-order, so a row's visible parent is the nearest row above it whose
    subtree (``flat.end``) still contains it. Almost every row sits right below its parent in
    a single-child chain; those are found with one comparison per row, and only the few rows
    that start a new branch search for their parent (binary search along the chain above:
    ``_link_breaks``). Then indent, connectors and gutters are computed per chain, not per row
    (``_shape_chains``).
    """
    n = len(positions)
    lay = Layout(flat, positions)
    if n == 0:
        return lay
    ends = flat.ends(positions)
    # continues[i] is 1 when row i lies inside row i-1's subtree: row i-1 is its parent
    continues = bytearray(1)
    continues += bytearray(map(lt, islice(positions, 1, None), ends))
    parent = list(range(-1, n - 1))
    kids = list(continues[1:])  # a continuing row is its parent's first child
    kids.append(0)
    last = bytearray(continues)
    breaks = []
    find_break = continues.find
    at = find_break(0)
    while at >= 0:  # the few rows that do not continue the row above (memchr)
        breaks.append(at)
        at = find_break(0, at + 1)
    roots, last_child = _link_breaks(positions, ends, continues, breaks, parent, kids, last)
    lay.split = n
    lay.parent = parent
    lay.kids = kids
    lay.last = last
    lay.multiple_roots = roots > 1
    _shape_chains(lay, breaks, continues, last_child)
    return lay


def _link_breaks(
    positions: list[int],
    ends: Any,
    continues: bytearray,
    breaks: list[int],
    parent: list[int],
    kids: list[int],
    last: bytearray,
) -> tuple[int, dict[int, int]]:
    """The parent of each row that does not continue the row above (``breaks``), its parent's
    child count and which rows are last children; returns the number of roots and each
    parent's last child."""
    n = len(positions)
    last_child: dict[int, int] = {}
    roots = 0
    last_root = -1
    # The rows whose subtree is still open (end > the current position) are the ancestors of
    # the current row: a stack of chain pieces [a..b] (ends fall along a chain, so the closed
    # rows of a chain are always its tail). A break's parent is the last open row.
    open_from: list[int] = []
    open_to: list[int] = []
    breaks.append(n)
    for k in range(len(breaks) - 1):
        i = breaks[k]
        p = positions[i]
        while open_from and ends[open_from[-1]] <= p:
            open_from.pop()  # the whole chain piece is closed
            open_to.pop()
        q = -1
        if open_from:
            lo, hi = open_from[-1], open_to[-1]
            while lo < hi:  # the last row of the piece whose end is past p
                mid = (lo + hi + 1) >> 1
                if ends[mid] > p:
                    lo = mid
                else:
                    hi = mid - 1
            q = lo
            open_to[-1] = q
        open_from.append(i)
        open_to.append(breaks[k + 1] - 1)
        parent[i] = q
        if q < 0:
            roots += 1
            if last_root >= 0:
                last[last_root] = 0
            last_root = i
            last[i] = 1
        else:
            kids[q] += 1
            prev = last_child.get(q, q + 1 if q + 1 < n and continues[q + 1] else -1)
            if prev >= 0:
                last[prev] = 0
            last[i] = 1
            last_child[q] = i
    breaks.pop()
    return roots, last_child


def _shape_chains(lay: Layout, breaks: list[int], continues: bytearray, last_child: dict[int, int]) -> None:
    """Indent, connectors and gutters of every row, a chain at a time: past a chain's second row
    every row looks alike."""
    n = lay.split
    parent, kids, last, multiple = lay.parent, lay.kids, lay.last, lay.multiple_roots
    indent = [0] * n
    connector = bytearray(n)
    vrc = bytearray(n)
    gutters: list[Gutters] = [NO_GUTTERS] * n
    child_gutters: dict[int, Gutters] = {}
    root_indent = 1 if multiple else 0

    def row_from_parent(i: int, q: int) -> None:
        pind = indent[q]
        if kids[q] > 1:
            indent[i] = pind + 1
            connector[i] = 1
        elif pind and connector[q]:
            indent[i] = pind + 1
        else:
            indent[i] = pind
        g = child_gutters.get(q)
        if g is None:
            g = gutters[q]
            if connector[q] and not vrc[q]:
                d = pind - 1 if multiple and pind > 0 else pind
                g = (g, d - 1 if d > 0 else 0, not last[q])
            child_gutters[q] = g
        gutters[i] = g

    # chain starts: rows whose parent is not the row above, or whose parent branches
    branching = [q for q in last_child if kids[q] > 1]
    starts = sorted(set(breaks[1:]).union(q + 1 for q in branching if continues[q + 1]))
    starts.append(n)
    prev_start = 0
    for nxt in starts:
        i = prev_start
        q = parent[i]
        if q < 0:
            indent[i] = root_indent
            if multiple:
                connector[i] = 1
                vrc[i] = 1
        else:
            row_from_parent(i, q)
        if i + 1 < nxt:
            row_from_parent(i + 1, i)
            k = nxt - i - 2
            if k > 0:
                # past a chain's second row every row looks alike (no connector, same gutters)
                indent[i + 2 : nxt] = [indent[i + 1]] * k
                gutters[i + 2 : nxt] = [gutters[i + 1]] * k
        prev_start = nxt
    lay.indent = indent
    lay.connector = connector
    lay.virtual_root_child = vrc
    lay.gutters = gutters


def prefix(lay: Layout, i: int, folded: bool, max_cols: int | None = None) -> str:
    """The gutter/connector columns of row ``i`` (3 per display level), at most ``max_cols``."""
    d = lay.display_indent(i)
    if d == 0:
        return ""
    shows_connector = bool(lay.connector[i] and not lay.virtual_root_child[i])
    glyph = ""
    if shows_connector:
        glyph = ("└" if lay.last[i] else "├") + ("⊞" if folded else ("⊟" if lay.is_foldable(i) else "─")) + " "
    levels = d if max_cols is None else min(d, max_cols // 3 + 1)
    gutters = lay.gutters[i]
    key = (id(gutters), levels, glyph, d)
    cache = lay.prefix_cache
    hit = cache.get(key)
    if hit is not None and hit[0] is gutters:
        return hit[1]
    # blank columns, the connector in its column, then the gutters over both
    parts = ["   "] * levels
    if shows_connector and d - 1 < levels:
        parts[d - 1] = glyph
    first: dict[int, bool] = {}
    chain = gutters
    while chain:  # innermost first: an outer gutter at the same position wins (pi's order)
        chain, position, show = chain
        if position < levels:
            first[position] = show
    for position, show in first.items():
        if position >= 0:
            parts[position] = "│  " if show else "   "
    text = "".join(parts)
    if len(cache) > 4096:
        cache.clear()
    cache[key] = (gutters, text)
    return text
