"""pi's /tree flattening and filtering (docs/formats.md §9.2–§9.3), as flat arrays.

``flatten`` orders the whole tree once per leaf (DFS pre-order, the branch holding the leaf
first) and classifies each entry for the filter modes; ``visible_positions`` and ``drop_folded``
pick the positions a mode and the folds show. ``view/layout.py`` lays those positions out.
Linear, a few lists, not an object per row, so 100k-entry sessions refilter in milliseconds.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from itertools import chain, compress
from operator import add, attrgetter, is_not
from typing import Any

from loomtui.session.entries import MESSAGE, Entry
from loomtui.session.index import SessionIndex
from loomtui.session.jsstr import js_string

# visibility classes of a flattened entry; NEVER is shown by no mode, not even as the leaf
HIDDEN, SETTINGS, TOOL_RESULT, USER, OTHER, ALL_ONLY, NEVER = range(7)
SETTINGS_TYPES = frozenset({"label", "context_edit", "custom", "model_change", "thinking_level_change", "session_info"})
#: entry kinds pi 1.6.0's /tree never lists (model-attributed usage records)
NEVER_TYPES = frozenset({"usage"})
MODE_CLASSES = {
    "default": {TOOL_RESULT, USER, OTHER},
    "no-tools": {USER, OTHER},
    "user-only": {USER},
    "all": {SETTINGS, TOOL_RESULT, USER, OTHER, ALL_ONLY},
    "labeled-only": {SETTINGS, TOOL_RESULT, USER, OTHER},
}
_MODE_TABLES = {m: bytes(1 if c in cs else 0 for c in range(256)) for m, cs in MODE_CLASSES.items()}


class FilterKinds(frozenset[str]):
    """The kinds the default filter hides (as ``SETTINGS_TYPES``), and which entries beside the
    user's messages the user-only filter keeps: ``user_request(e)`` (omp: a prompt the user
    started with a skill or a collab peer, view/omp.py)."""

    user_request: Callable[[Entry], bool] | None = None


def _user_request(settings: frozenset[str]) -> Callable[[Entry], bool] | None:
    return settings.user_request if isinstance(settings, FilterKinds) else None


def visibility_class(e: Entry, leaf_id: str | None, settings: frozenset[str] = SETTINGS_TYPES) -> int:
    """Which filter modes may show ``e`` (rule 1 of docs/formats.md §9.3 first: tool-only assistants)."""
    t = e.type
    if e.hidden:
        return NEVER if t in NEVER_TYPES else ALL_ONLY
    request = _user_request(settings)
    if t == MESSAGE:
        role = e.role
        if role == "user":
            return USER
        if role == "toolResult":
            return TOOL_RESULT
        if role == "assistant" and e.id != leaf_id and e.is_tool_only_assistant:
            return HIDDEN
        return USER if request is not None and request(e) else OTHER
    if t in settings:
        return SETTINGS
    if t in NEVER_TYPES:
        return NEVER
    return USER if request is not None and request(e) else OTHER


_entry_id = attrgetter("id")


#: tool call id -> (name, arguments)
ToolCalls = dict[Any, tuple[Any, Any]]


class Flat:
    """The whole tree in display order for one leaf.

    Positions are list indices into ``entries``. A live append lands right after the leaf,
    i.e. at ``head``; so positions and subtree ends from ``head`` on are stored relative to the
    end of the list (``p - len - 1``, always ≤ -2) and an insertion at ``head`` shifts them
    without touching them. ``position``/``end`` decode.
    """

    __slots__ = (
        "leaf_id",
        "entries",
        "classes",
        "_calls",
        "active",
        "version",
        "head",
        "_pos",
        "_end",
        "_end_abs",
        "_leaf_at",
    )

    def __init__(
        self,
        leaf_id: str | None,
        entries: list[Entry],
        pos: dict[str, int] | None,
        end: list[int],
        classes: bytearray,
        tool_calls: ToolCalls | Callable[[], ToolCalls],
        active: set[Entry],
        version: int,
        head: int,
        leaf_at: int = -1,
    ) -> None:
        self.leaf_id = leaf_id
        self.entries = entries
        self.classes = classes
        # the tool-call map, or what makes it when first asked for (a reopen that prints rows
        # whose texts were kept needs none)
        self._calls = tool_calls
        self.active = active
        self.version = version
        self.head = head
        n1 = len(entries) + 1
        # the id -> position map is made when first asked for (``_positions``): printing a
        # tree asks only for the leaf's, which flatten already knows (``leaf_at``)
        self._pos: dict[str, int] | None = None
        if pos is not None:
            self._pos = {k: (v if v < head else v - n1) for k, v in pos.items()}
        self._leaf_at = leaf_at
        self._end = [x if x < head else x - n1 for x in end]
        self._end_abs: list[int] | None = end  # decoded ends, rebuilt lazily after an insert

    def _positions(self) -> dict[str, int]:
        """Entry id -> stored position: before ``head`` as they are, the rest relative to the end."""
        pos = self._pos
        if pos is None:
            entries = self.entries
            n1 = len(entries) + 1
            head = self.head
            encoded = chain(range(head), range(head - n1, len(entries) - n1))
            pos = self._pos = dict(zip(map(_entry_id, entries), encoded))
        return pos

    @property
    def tool_calls(self) -> ToolCalls:
        """Tool call id -> (name, arguments) as this order shows them (``tool_call_map``)."""
        calls = self._calls
        if callable(calls):
            calls = self._calls = calls()
        return calls

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self._positions()

    def position(self, entry_id: str) -> int | None:
        if self._pos is None and entry_id == self.leaf_id and self._leaf_at >= 0:
            return self._leaf_at  # nothing has moved since flatten (any insert makes the map first)
        x = self._positions().get(entry_id)
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
        pos = self._positions()  # made before the order changes
        self.entries.insert(h, e)
        self.classes.insert(h, cls)
        self._end.insert(h, h - n - 1)  # end = h + 1 = new head: stored relative to the new length
        pos[e.id] = h
        self.head = h + 1
        self._end_abs = None
        return h


def base_classes(entries: list[Entry], start: int = 0, settings: frozenset[str] = SETTINGS_TYPES) -> bytearray:
    """Visibility class of every entry, as if none were the leaf (see ``flatten``); ``settings``:
    the kinds the default filter hides (omp's list for an omp session, view/omp.py).

    ``visibility_class(e, None)`` for each entry, inlined: this runs over every entry when a
    session opens.
    """
    out: list[int] = []
    add = out.append
    request = _user_request(settings)
    for e in entries[start:] if start else entries:
        t = e.type
        if e.hidden:
            add(NEVER if t in NEVER_TYPES else ALL_ONLY)
            continue
        if t == MESSAGE:
            role = e.role
            if role == "user":
                add(USER)
            elif role == "toolResult":
                add(TOOL_RESULT)
            elif (
                role == "assistant"
                and not e.has_text
                and (not (sr := e.stop_reason) or sr == "stop" or sr == "toolUse")
            ):
                add(HIDDEN)  # the tool-only assistant rule, as ``Entry.is_tool_only_assistant``
            else:
                add(USER if request is not None and request(e) else OTHER)
        elif t in settings:
            add(SETTINGS)
        elif t in NEVER_TYPES:
            add(NEVER)
        else:
            add(USER if request is not None and request(e) else OTHER)
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


def subtree_ends(parents: Sequence[int]) -> list[int]:
    """For rows in pre-order given by their parent's row number (-1: none), one past the last
    row of each row's subtree."""
    end = list(range(1, len(parents) + 1))
    for i in range(len(parents) - 1, 0, -1):
        j = parents[i]
        if j >= 0 and end[i] > end[j]:
            end[j] = end[i]
    return end


def calls_in_order(entries: Iterable[Entry]) -> ToolCalls:
    """Tool call id → (name, arguments) over ``entries`` in display order, the last one winning
    where an id repeats (what ``flatten`` collects as it walks)."""
    out: ToolCalls = {}
    for e in entries:
        if e.tool_calls is not None:
            for call_id, name, args in e.tool_calls:
                out[call_id] = (name, args)
    return out


def classified(entries: list[Entry], classes: bytearray, settings: frozenset[str] = SETTINGS_TYPES) -> bytearray:
    """``classes`` (``base_classes`` of the first entries) extended to every entry."""
    have = len(classes)
    if have < len(entries):
        classes += base_classes(entries, have, settings)
    return classes


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
    if index.preorder_ends is not None:
        done = _preordered(index, leaf_id, classes_by_index, tool_calls)
        if done is not None:
            return done
    # the entries on the path root → leaf (a set of objects: hashed by identity, no id lookups)
    active: set[Entry] = set(index.path_to(leaf_id)) if leaf_id is not None else set()
    roots = _active_first(index.roots, active) if active and len(index.roots) > 1 else index.roots
    calls: ToolCalls = {} if tool_calls is None else tool_calls
    out, parent_pos = _walk(index, roots, active, calls, tool_calls is None)
    n = len(out)
    end = subtree_ends(parent_pos)
    if classes_by_index is None or len(classes_by_index) < len(index.entries):
        classes_by_index = base_classes(index.entries)
    cls = classes_by_index
    classes = bytearray([cls[e.index] for e in out])
    leaf_at = _leaf_position(index, leaf_id, out, active, cls, classes)
    head = end[leaf_at] if leaf_at >= 0 else n
    return Flat(leaf_id, out, None, end, classes, calls, active, index.version, head, leaf_at)


def _active_first(entries: list[Entry], active: set[Entry]) -> list[Entry]:
    """``entries`` with those on the active path first, each part in its order."""
    return [k for k in entries if k in active] + [k for k in entries if k not in active]


# the walk runs once per entry over a whole session (100k entries): each step of it stays
# inline, a helper call per entry adds measurable time (benchmarks/bench_tree.py)
def _walk(
    index: SessionIndex, roots: list[Entry], active: set[Entry], tool_calls: ToolCalls, collect_calls: bool
) -> tuple[list[Entry], list[int]]:
    """The entries under ``roots`` in display order and each one's parent's position (-1: a
    root); children on the ``active`` path first. With ``collect_calls`` every tool call is put
    in ``tool_calls`` in that order (the last one of an id wins)."""
    out: list[Entry] = []
    parent_pos: list[int] = []
    append = out.append
    append_parent = parent_pos.append
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
                ordered = _active_first(ordered, active)
            stack.extend([(k, me) for k in reversed(ordered)])
            break
    return out, parent_pos


def _leaf_position(
    index: SessionIndex, leaf_id: str | None, out: list[Entry], active: set[Entry], cls: bytearray, classes: bytearray
) -> int:
    """Where the leaf is in ``out`` (-1: no leaf); a leaf hidden by its class is shown in ``classes``."""
    if leaf_id is None or leaf_id not in index.by_id:
        return -1
    leaf_entry = index.by_id[leaf_id]
    # the leaf's position: its chain of ancestors was laid out first
    leaf_at = len(active) - 1
    if leaf_at < 0 or leaf_at >= len(out) or out[leaf_at] is not leaf_entry:
        leaf_at = out.index(leaf_entry)
    if cls[leaf_entry.index] == HIDDEN:
        classes[leaf_at] = OTHER  # the current leaf is always shown (docs/formats.md §9.3)
    return leaf_at


def _preordered(
    index: SessionIndex, leaf_id: str | None, classes_by_index: bytearray | None, tool_calls: ToolCalls | None
) -> Flat | None:
    """``flatten`` of an index whose entries are already its display order
    (``SessionIndex.mark_preorder``): the same ``Flat`` without walking the tree, when the
    leaf's path is the start of that order (then putting it first changes nothing); else None."""
    entries = index.entries
    ends = index.preorder_ends
    n = len(entries)
    if ends is None or len(ends) != n:
        return None
    path = index.path_to(leaf_id) if leaf_id is not None else []
    if len(path) > n or any(map(is_not, path, entries)):
        return None
    if classes_by_index is None or len(classes_by_index) < n:
        classes_by_index = base_classes(entries)
    classes = bytearray(classes_by_index[:n])  # each entry's index is its position
    if tool_calls is None:
        tool_calls = calls_in_order(index.with_tool_calls)  # file order is the display order
    leaf_at = len(path) - 1
    if leaf_at >= 0 and classes[leaf_at] == HIDDEN:
        classes[leaf_at] = OTHER  # the current leaf is always shown (docs/formats.md §9.3)
    head = ends[leaf_at] if leaf_at >= 0 else n
    return Flat(leaf_id, list(entries), None, list(ends), classes, tool_calls, set(path), index.version, head, leaf_at)


def insert_new_child(
    flat: Flat,
    index: SessionIndex,
    e: Entry,
    leaf_id: str | None,
    base_class: int,
    settings: frozenset[str] = SETTINGS_TYPES,
) -> int | None:
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
            flat.classes[p_old] = visibility_class(index.by_id[old_leaf], leaf_id, settings)
    if e.tool_calls is not None:
        for call_id, name, args in e.tool_calls:
            flat.tool_calls[call_id] = (name, args)
    if leaf_id == e.id:
        flat.active.add(e)
    flat.leaf_id = leaf_id
    flat.version = index.version
    return at


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


def label_matches(
    flat: Flat, labels: dict[str, Any], tokens: tuple[str, ...], candidates: list[int], out: list[int], texts: list[str]
) -> list[int]:
    """Search: positions of ``candidates`` not in ``out`` (both sorted) whose text holds every
    token once their label counts as text (pi searches the label too)."""
    extra = []
    for target, (label, _ts) in labels.items():
        p = flat.position(target)
        if p is None or _holds(out, p) or not _holds(candidates, p):
            continue
        lab = js_string(label).lower()
        s = texts[p]
        if all(t in s or t in lab for t in tokens):
            extra.append(p)
    return extra


def _holds(sorted_positions: list[int], p: int) -> bool:
    i = bisect_left(sorted_positions, p)
    return i < len(sorted_positions) and sorted_positions[i] == p


#: the flatten of a loading model, handed in by the opener (it may take a flattened tree kept
#: from an earlier open): (manager, leaf id, the entries' classes so far, the tool-call map when
#: asked, the settings kinds) -> (the flat, the same when it is still to be kept or None, classes)
Flattener = Callable[
    [Any, "str | None", bytearray, "Callable[[], ToolCalls | None]", frozenset[str]],
    "tuple[Flat, Flat | None, bytearray]",
]


def loading_flatten(
    manager: Any,
    leaf_id: str | None,
    classes: bytearray,
    tool_calls: Callable[[], ToolCalls | None],
    settings: frozenset[str] = SETTINGS_TYPES,
) -> tuple[Flat, Flat | None, bytearray]:
    """The ``Flattener`` without a cache: classified and flattened now, nothing to keep."""
    classes = classified(manager.index.entries, classes, settings)
    return flatten(manager.index, leaf_id, classes, tool_calls()), None, classes
