"""pi's /tree flattening, filtering and layout (docs/formats.md §9.2–§9.3), as flat arrays.

``flatten`` orders the whole tree once per leaf (DFS pre-order, the branch holding the leaf
first). ``layout`` takes the visible positions of that order and recomputes pi's indentation,
connectors and gutters on the visible tree, re-parenting every row to its nearest visible
ancestor. Both are linear and allocate a few lists, not an object per row, so 100k-entry
sessions refilter in milliseconds.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import chain, compress, islice, repeat
from operator import add, attrgetter, lt, sub
from typing import Any, TypeAlias

from loomtui.session.entries import MESSAGE, Entry
from loomtui.session.index import SessionIndex

FILTER_MODES = ("default", "no-tools", "user-only", "labeled-only", "all")
FILTER_TAGS = {"default": "", "no-tools": " [no-tools]", "user-only": " [user]", "labeled-only": " [labeled]",
               "all": " [all]"}

# visibility classes of a flattened entry
HIDDEN, SETTINGS, TOOL_RESULT, USER, OTHER, ALL_ONLY = range(6)
SETTINGS_TYPES = frozenset({"label", "custom", "model_change", "thinking_level_change", "session_info"})
MODE_CLASSES = {
    "default": {TOOL_RESULT, USER, OTHER},
    "no-tools": {USER, OTHER},
    "user-only": {USER},
    "all": {SETTINGS, TOOL_RESULT, USER, OTHER, ALL_ONLY},
    "labeled-only": {SETTINGS, TOOL_RESULT, USER, OTHER},
}
_MODE_TABLES = {m: bytes(1 if c in cs else 0 for c in range(256)) for m, cs in MODE_CLASSES.items()}


#: Gutters as a shared chain ``(outer, position, show)``: children extend their parent's chain
#: in O(1) instead of copying a tuple as deep as the tree.
Gutters: TypeAlias = "tuple[Any, ...]"
NO_GUTTERS: Gutters = ()


def visibility_class(e: Entry, leaf_id: str | None) -> int:
    """Which filter modes may show ``e`` (rule 1 of docs/formats.md §9.3 first: tool-only assistants)."""
    t = e.type
    if e.hidden:
        return ALL_ONLY
    if t == MESSAGE:
        role = e.role
        if role == "user":
            return USER
        if role == "toolResult":
            return TOOL_RESULT
        if role == "assistant" and e.id != leaf_id and e.is_tool_only_assistant:
            return HIDDEN
        return OTHER
    if t in SETTINGS_TYPES:
        return SETTINGS
    return OTHER


_entry_id = attrgetter("id")


class Flat:
    """The whole tree in display order for one leaf.

    Positions are list indices into ``entries``. A live append lands right after the leaf,
    i.e. at ``head``; so positions and subtree ends from ``head`` on are stored relative to the
    end of the list (``p - len - 1``, always ≤ -2) and an insertion at ``head`` shifts them
    without touching them. ``position``/``end`` decode.
    """

    __slots__ = ("leaf_id", "entries", "classes", "tool_calls", "active", "version", "head", "_pos", "_end",
                 "_end_abs")

    def __init__(
        self,
        leaf_id: str | None,
        entries: list[Entry],
        pos: dict[str, int] | None,
        end: list[int],
        classes: bytearray,
        tool_calls: dict[Any, tuple[Any, Any]],
        active: set[Entry],
        version: int,
        head: int,
    ) -> None:
        self.leaf_id = leaf_id
        self.entries = entries
        self.classes = classes
        self.tool_calls = tool_calls
        self.active = active
        self.version = version
        self.head = head
        n1 = len(entries) + 1
        if pos is None:
            # positions before ``head`` as they are, the rest relative to the end
            encoded = chain(range(head), range(head - n1, len(entries) - n1))
            self._pos: dict[str, int] = dict(zip(map(_entry_id, entries), encoded))
        else:
            self._pos = {k: (v if v < head else v - n1) for k, v in pos.items()}
        self._end = [x if x < head else x - n1 for x in end]
        self._end_abs: list[int] | None = end  # decoded ends, rebuilt lazily after an insert

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self._pos

    def position(self, entry_id: str) -> int | None:
        x = self._pos.get(entry_id)
        if x is None or x >= 0:
            return x
        return x + len(self.entries) + 1

    def end(self, p: int) -> int:
        """One past the last position of the subtree at ``p``."""
        x = self._end[p]
        return x if x >= 0 else x + len(self.entries) + 1

    def ends(self, positions: list[int]) -> list[int]:
        absolute = self._end_abs
        if absolute is None:
            n1 = len(self.entries) + 1
            vals = self._end
            absolute = self._end_abs = list(map(add, vals, map(n1.__mul__, map((0).__gt__, vals))))
        return list(map(absolute.__getitem__, positions))

    def move_head(self, head: int) -> None:
        """Re-encode around a new insertion point (linear; only when appends move elsewhere)."""
        n1 = len(self.entries) + 1
        pos = {e.id: i for i, e in enumerate(self.entries)}
        ends = [self.end(p) for p in range(len(self.entries))]
        self.head = head
        self._pos = {k: (v if v < head else v - n1) for k, v in pos.items()}
        self._end = [x if x < head else x - n1 for x in ends]
        self._end_abs = ends

    def insert_at_head(self, e: Entry, cls: int) -> int:
        """Insert a new childless entry at ``head``; every stored value stays valid."""
        h = self.head
        n = len(self.entries)
        self.entries.insert(h, e)
        self.classes.insert(h, cls)
        self._end.insert(h, h - n - 1)  # end = h + 1 = new head: stored relative to the new length
        self._pos[e.id] = h
        self.head = h + 1
        self._end_abs = None
        return h


def base_classes(entries: list[Entry], start: int = 0) -> bytearray:
    """Visibility class of every entry, as if none were the leaf (see ``flatten``).

    ``visibility_class(e, None)`` for each entry, inlined: this runs over every entry when a
    session opens.
    """
    out: list[int] = []
    add = out.append
    settings = SETTINGS_TYPES
    for e in entries[start:] if start else entries:
        if e.hidden:
            add(ALL_ONLY)
            continue
        t = e.type
        if t == MESSAGE:
            role = e.role
            if role == "user":
                add(USER)
            elif role == "toolResult":
                add(TOOL_RESULT)
            elif role == "assistant" and not e.has_text and (
                not (sr := e.stop_reason) or sr == "stop" or sr == "toolUse"
            ):
                add(HIDDEN)  # the tool-only assistant rule, as ``Entry.is_tool_only_assistant``
            else:
                add(OTHER)
        elif t in settings:
            add(SETTINGS)
        else:
            add(OTHER)
    return bytearray(out)


def tool_call_map(entries: list[Entry]) -> dict[Any, tuple[Any, Any]] | None:
    """Tool call id → (name, arguments) over all entries; None when an id repeats (then the
    flattened order decides which call wins, as in pi, and ``flatten`` builds the map itself)."""
    out: dict[Any, tuple[Any, Any]] = {}
    for e in entries:
        if e.tool_calls is not None:
            for call_id, name, args in e.tool_calls:
                if call_id in out:
                    return None
                out[call_id] = (name, args)
    return out


# radon rates this E: kept in one piece on purpose. It runs once per entry over a whole
# session (100k entries); a helper call per branch adds measurable time there
# (benchmarks/bench_tree.py, bench_open.py, bench_app.py). docs/architecture.md, "Where each rule lives".
def flatten(
    index: SessionIndex,
    leaf_id: str | None,
    classes_by_index: bytearray | None = None,
    tool_calls: dict[Any, tuple[Any, Any]] | None = None,
) -> Flat:
    """DFS pre-order; at every level the child holding the leaf goes first (pi's flattenTree).

    ``classes_by_index`` caches ``visibility_class`` per entry (file order) across flattens;
    ``tool_calls`` is a ``tool_call_map`` of the same entries, which no leaf can change.
    """
    # the entries on the path root → leaf (a set of objects: hashed by identity, no id lookups)
    active: set[Entry] = set(index.path_to(leaf_id)) if leaf_id is not None else set()
    roots = index.roots
    if active and len(roots) > 1:
        roots = [r for r in roots if r in active] + [r for r in roots if r not in active]
    out: list[Entry] = []
    parent_pos: list[int] = []
    append = out.append
    append_parent = parent_pos.append
    collect_calls = tool_calls is None
    if tool_calls is None:
        tool_calls = {}
    kids_of = index.child_lists()
    sorted_children = index.children
    stack: list[tuple[Entry, int]] = [(r, -1) for r in reversed(roots)]
    pop = stack.pop
    get_kids = kids_of.get
    while stack:
        e, pp = pop()
        while True:  # walk single-child chains without touching the stack
            me = len(out)
            append(e)
            append_parent(pp)
            if collect_calls and e.tool_calls is not None:
                for call_id, name, args in e.tool_calls:
                    tool_calls[call_id] = (name, args)  # the last one in this order wins
            kids = get_kids(e.id)
            if not kids:
                break
            if len(kids) == 1:
                e = kids[0]
                pp = me
                continue
            ordered = sorted_children(e.id)
            if active:
                ordered = [k for k in ordered if k in active] + [k for k in ordered if k not in active]
            stack.extend([(k, me) for k in reversed(ordered)])
            break
    n = len(out)
    end = list(range(1, n + 1))
    for i in range(n - 1, 0, -1):
        j = parent_pos[i]
        if j >= 0 and end[i] > end[j]:
            end[j] = end[i]
    if classes_by_index is None or len(classes_by_index) < len(index.entries):
        classes_by_index = base_classes(index.entries)
    cls = classes_by_index
    classes = bytearray([cls[e.index] for e in out])
    leaf_at = -1
    if leaf_id is not None and leaf_id in index.by_id:
        leaf_entry = index.by_id[leaf_id]
        # the leaf's position: its chain of ancestors was laid out first
        leaf_at = len(active) - 1
        if leaf_at < 0 or leaf_at >= n or out[leaf_at] is not leaf_entry:
            leaf_at = out.index(leaf_entry)
        if cls[leaf_entry.index] == HIDDEN:
            classes[leaf_at] = OTHER  # the current leaf is always shown (docs/formats.md §9.3)
    head = end[leaf_at] if leaf_at >= 0 else n
    return Flat(leaf_id, out, None, end, classes, tool_calls, active, index.version, head)


def insert_new_child(flat: Flat, index: SessionIndex, e: Entry, leaf_id: str | None, base_class: int) -> int | None:
    """Put a freshly appended entry into ``flat`` in place, when the order allows it.

    Applies when ``e``'s parent had no children before (the usual live append: a child of the
    leaf) and the leaf either stays or moves to ``e`` along the same path; then ``e`` goes
    right after its parent and nothing else moves. Returns ``e``'s position, or None when a
    full ``flatten`` is needed.
    """
    parent = index.parent_of(e)
    kids = index.child_lists()
    if parent is None or e.id in flat or len(kids.get(parent.id, ())) != 1 or kids.get(e.id):
        return None
    at_parent = flat.position(parent.id)
    if at_parent is None:
        return None
    old_leaf = flat.leaf_id
    if leaf_id == e.id:
        if old_leaf is not None and old_leaf != parent.id:
            return None
    elif leaf_id != old_leaf:
        return None
    if flat.head != at_parent + 1:
        flat.move_head(at_parent + 1)
    cls = OTHER if (leaf_id == e.id and base_class == HIDDEN) else base_class
    at = flat.insert_at_head(e, cls)
    if old_leaf is not None and leaf_id != old_leaf:
        p_old = flat.position(old_leaf)
        if p_old is not None:
            # a tool-only assistant was shown only while it was the leaf (docs/formats.md §9.3)
            flat.classes[p_old] = visibility_class(index.by_id[old_leaf], leaf_id)
    if e.tool_calls is not None:
        for call_id, name, args in e.tool_calls:
            flat.tool_calls[call_id] = (name, args)
    if leaf_id == e.id:
        flat.active.add(e)
    flat.leaf_id = leaf_id
    flat.version = index.version
    return at


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
        for arr in (self.positions, self.parent, self.kids, self.indent, self.connector, self.last,
                    self.virtual_root_child, self.gutters):
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


def visible_positions(flat: Flat, mode: str, labels: dict[str, Any]) -> list[int]:
    """Flat positions passing the tool-only rule and the filter mode."""
    if mode == "labeled-only":
        allowed = MODE_CLASSES["labeled-only"]
        hits = [flat.position(t) for t in labels if t in flat]
        return sorted(p for p in hits if p is not None and flat.classes[p] in allowed)
    table = _MODE_TABLES.get(mode, _MODE_TABLES["default"])
    return list(compress(range(len(flat.entries)), flat.classes.translate(table)))


def drop_folded(flat: Flat, positions: list[int], folded: set[str]) -> list[int]:
    """Hide every row below a folded entry (descendants in the full tree)."""
    at = [flat.position(f) for f in folded if f in flat]
    ranges = sorted((p + 1, flat.end(p)) for p in at if p is not None)
    if not ranges:
        return positions
    out = []
    k = 0
    for p in positions:
        while k < len(ranges) and ranges[k][1] <= p:
            k += 1
        inside = False
        j = k
        while j < len(ranges) and ranges[j][0] <= p:
            if p < ranges[j][1]:
                inside = True
                break
            j += 1
        if not inside:
            out.append(p)
    return out


# radon rates this D: kept in one piece on purpose. It runs once per visible row over a whole
# session (100k entries); a helper call per branch adds measurable time there
# (benchmarks/bench_tree.py, bench_open.py, bench_app.py). docs/architecture.md, "Where each rule lives".
def layout(flat: Flat, positions: list[int]) -> Layout:
    """pi's recalculateVisualStructure over the visible rows (in display order).

    Rows are in pre-order, so a row's visible parent is the nearest row above it whose
    subtree (``flat.end``) still contains it. Almost every row sits right below its parent in
    a single-child chain; those are found with one comparison per row, and only the few rows
    that start a new branch search for their parent (binary search along the chain above).
    Then indent, connectors and gutters are computed per chain, not per row.
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
    multiple = roots > 1
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
    lay.split = n
    lay.parent = parent
    lay.kids = kids
    lay.indent = indent
    lay.connector = connector
    lay.last = last
    lay.virtual_root_child = vrc
    lay.gutters = gutters
    lay.multiple_roots = multiple
    return lay


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
    cpos = d - 1 if shows_connector else -1
    first: dict[int, bool] = {}
    chain = gutters
    while chain:  # innermost first: an outer gutter at the same position wins (pi's order)
        chain, position, show = chain
        if position < levels:
            first[position] = show
    parts = []
    for level in range(levels):
        shown = first.get(level)
        if shown is not None:
            parts.append("│  " if shown else "   ")
        elif level == cpos:
            parts.append(glyph)
        else:
            parts.append("   ")
    text = "".join(parts)
    if len(cache) > 4096:
        cache.clear()
    cache[key] = (gutters, text)
    return text
