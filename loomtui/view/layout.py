"""pi's /tree flattening, filtering and layout (pi-session-spec §9.2–§9.3), as flat arrays.

``flatten`` orders the whole tree once per leaf (DFS pre-order, the branch holding the leaf
first). ``layout`` takes the visible positions of that order and recomputes pi's indentation,
connectors and gutters on the visible tree, re-parenting every row to its nearest visible
ancestor. Both are linear and allocate a few lists, not an object per row, so 100k-entry
sessions refilter in milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import compress
from typing import Any

from loomtui.session.entries import MESSAGE, Entry
from loomtui.session.index import SessionIndex

FILTER_MODES = ("default", "no-tools", "user-only", "labeled-only", "all")
FILTER_TAGS = {"default": "", "no-tools": " [no-tools]", "user-only": " [user]", "labeled-only": " [labeled]",
               "all": " [all]"}

# visibility classes of a flattened entry
HIDDEN, SETTINGS, TOOL_RESULT, USER, OTHER, ALL_ONLY = range(6)
SETTINGS_TYPES = frozenset({"label", "custom", "model_change", "thinking_level_change", "session_info"})
_MODE_CLASSES = {
    "default": {TOOL_RESULT, USER, OTHER},
    "no-tools": {USER, OTHER},
    "user-only": {USER},
    "all": {SETTINGS, TOOL_RESULT, USER, OTHER, ALL_ONLY},
    "labeled-only": {SETTINGS, TOOL_RESULT, USER, OTHER},
}
_MODE_TABLES = {m: bytes(1 if c in cs else 0 for c in range(256)) for m, cs in _MODE_CLASSES.items()}


def visibility_class(e: Entry, leaf_id: str | None) -> int:
    """Which filter modes may show ``e`` (rule 1 of §9.3 first: tool-only assistants)."""
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


@dataclass
class Flat:
    """The whole tree in display order for one leaf."""

    leaf_id: str | None
    entries: list[Entry]
    pos: dict[str, int]
    end: list[int]  # one past the last position of each entry's subtree
    classes: bytearray
    tool_calls: dict[Any, tuple[Any, Any]]
    active: frozenset[str]
    version: int


def base_classes(entries: list[Entry], start: int = 0) -> bytearray:
    """Visibility class of every entry, as if none were the leaf (see ``flatten``)."""
    return bytearray(visibility_class(e, None) for e in entries[start:])


def flatten(index: SessionIndex, leaf_id: str | None, classes_by_index: bytearray | None = None) -> Flat:
    """DFS pre-order; at every level the child holding the leaf goes first (pi's flattenTree).

    ``classes_by_index`` caches ``visibility_class`` per entry (file order) across flattens.
    """
    active = frozenset(e.id for e in index.path_to(leaf_id)) if leaf_id is not None else frozenset()
    roots = index.roots
    if active and len(roots) > 1:
        roots = [r for r in roots if r.id in active] + [r for r in roots if r.id not in active]
    out: list[Entry] = []
    parent_pos: list[int] = []
    append = out.append
    append_parent = parent_pos.append
    tool_calls: dict[Any, tuple[Any, Any]] = {}
    kids_of = index.child_lists()
    sorted_children = index.children
    stack: list[tuple[Entry, int]] = [(r, -1) for r in reversed(roots)]
    pop = stack.pop
    push = stack.append
    while stack:
        e, pp = pop()
        me = len(out)
        append(e)
        append_parent(pp)
        if e.tool_calls is not None:
            for call_id, name, args in e.tool_calls:
                tool_calls[call_id] = (name, args)
        kids = kids_of.get(e.id)
        if kids:
            if len(kids) == 1:
                push((kids[0], me))
            else:
                ordered = sorted_children(e.id)
                if active:
                    ordered = [k for k in ordered if k.id in active] + [k for k in ordered if k.id not in active]
                stack.extend([(k, me) for k in reversed(ordered)])
    n = len(out)
    pos = {e.id: i for i, e in enumerate(out)}
    end = list(range(1, n + 1))
    for i in range(n - 1, 0, -1):
        j = parent_pos[i]
        if j >= 0 and end[i] > end[j]:
            end[j] = end[i]
    if classes_by_index is None or len(classes_by_index) < len(index.entries):
        classes_by_index = base_classes(index.entries)
    cls = classes_by_index
    classes = bytearray([cls[e.index] for e in out])
    if leaf_id is not None and leaf_id in pos:
        leaf = out[pos[leaf_id]]
        if cls[leaf.index] == HIDDEN:
            classes[pos[leaf_id]] = OTHER  # the current leaf is always shown (§9.3 rule 1)
    return Flat(leaf_id, out, pos, end, classes, tool_calls, active, index.version)


@dataclass
class Layout:
    """Visible rows: flat positions plus pi's per-row layout fields."""

    positions: list[int]
    indent: list[int] = field(default_factory=list)
    connector: bytearray = field(default_factory=bytearray)
    last: bytearray = field(default_factory=bytearray)
    virtual_root_child: bytearray = field(default_factory=bytearray)
    gutters: list[tuple[tuple[int, bool], ...]] = field(default_factory=list)
    parent: list[int] = field(default_factory=list)  # visible index of the visible parent, -1 for roots
    kids: list[int] = field(default_factory=list)  # number of visible children
    multiple_roots: bool = False
    #: prefix strings by (gutters, levels, connector glyph); rows of one segment share them
    prefix_cache: dict[Any, tuple[Any, str]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.positions)

    def display_indent(self, i: int) -> int:
        return max(0, self.indent[i] - 1) if self.multiple_roots else self.indent[i]

    def children_of(self, i: int) -> list[int]:
        """Visible children of row ``i`` (-1: the visible roots), in row order."""
        if i >= 0 and self.kids[i] == 0:
            return []
        out = []
        parent = self.parent
        start = i + 1 if i >= 0 else 0
        n = len(self.positions)
        want = self.kids[i] if i >= 0 else n
        j = start
        while j < n and len(out) < want:
            if parent[j] == i:
                out.append(j)
            elif i >= 0 and parent[j] < i:
                break
            j += 1
        return out

    def is_foldable(self, i: int) -> bool:
        """Has visible children and is a visible root or a segment start (pi's isFoldable)."""
        if self.kids[i] == 0:
            return False
        p = self.parent[i]
        return p < 0 or self.kids[p] > 1


def visible_positions(flat: Flat, mode: str, labels: dict[str, Any]) -> list[int]:
    """Flat positions passing the tool-only rule and the filter mode."""
    if mode == "labeled-only":
        pos = flat.pos
        allowed = _MODE_CLASSES["labeled-only"]
        hits = [pos[t] for t in labels if t in pos]
        return sorted(p for p in hits if flat.classes[p] in allowed)
    table = _MODE_TABLES.get(mode, _MODE_TABLES["default"])
    return list(compress(range(len(flat.entries)), flat.classes.translate(table)))


def drop_folded(flat: Flat, positions: list[int], folded: set[str]) -> list[int]:
    """Hide every row below a folded entry (descendants in the full tree)."""
    ranges = sorted((flat.pos[f] + 1, flat.end[flat.pos[f]]) for f in folded if f in flat.pos)
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


def layout(flat: Flat, positions: list[int]) -> Layout:
    """pi's recalculateVisualStructure over the visible rows (in display order).

    Rows are in pre-order, so a row's visible parent is the nearest row above it whose
    subtree (``flat.end``) still contains it: one stack pass finds parents and child counts,
    a second pass assigns indent, connectors and gutters top-down.
    """
    n = len(positions)
    lay = Layout(positions)
    if n == 0:
        return lay
    full_end = flat.end
    ends = [full_end[p] for p in positions]
    parent = [-1] * n
    kids = [0] * n
    last_child = [-1] * n
    stack: list[int] = []
    pop = stack.pop
    push = stack.append
    roots = 0
    last_root = -1
    for i, p in enumerate(positions):
        while stack and p >= ends[stack[-1]]:
            pop()
        if stack:
            q = stack[-1]
            parent[i] = q
            kids[q] += 1
            last_child[q] = i
        else:
            roots += 1
            last_root = i
        push(i)
    multiple = roots > 1
    indent = [0] * n
    connector = bytearray(n)
    last = bytearray(n)
    vrc = bytearray(n)
    empty: tuple[tuple[int, bool], ...] = ()
    gutters: list[tuple[tuple[int, bool], ...]] = [empty] * n
    child_gutters: list[tuple[tuple[int, bool], ...] | None] = [None] * n
    root_indent = 1 if multiple else 0
    for i in range(n):
        q = parent[i]
        if q < 0:
            indent[i] = root_indent
            if multiple:
                connector[i] = 1
                vrc[i] = 1
            if i == last_root:
                last[i] = 1
            continue
        pind = indent[q]
        if kids[q] > 1:
            indent[i] = pind + 1
            connector[i] = 1
        elif pind and connector[q]:
            indent[i] = pind + 1
        else:
            indent[i] = pind
        if last_child[q] == i:
            last[i] = 1
        g = child_gutters[q]
        if g is None:
            g = gutters[q]
            if connector[q] and not vrc[q]:
                d = pind - 1 if multiple and pind > 0 else pind
                g = g + ((d - 1 if d > 0 else 0, not last[q]),)
            child_gutters[q] = g
        gutters[i] = g
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
    for position, show in gutters:
        if position < levels and position not in first:
            first[position] = show
    parts = []
    for level in range(levels):
        show = first.get(level)
        if show is not None:
            parts.append("│  " if show else "   ")
        elif level == cpos:
            parts.append(glyph)
        else:
            parts.append("   ")
    text = "".join(parts)
    if len(cache) > 4096:
        cache.clear()
    cache[key] = (gutters, text)
    return text
