"""The in-memory index of a session: ids, parent links, roots, leaf, labels, name.

docs/formats.md §7.1/§7.3/§7.4. Built in one pass over the entries and then kept up to date
entry by entry, so live appends cost what was appended. Unlike pi it never hangs on a
``parentId`` cycle: entries on a cycle become roots, with a diagnostic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from functools import cmp_to_key
from operator import attrgetter, lt
from typing import Any

from loomtui.session.entries import Entry
from loomtui.session.errors import Diagnostic


def timestamp_ms(value: Any) -> float:
    """``new Date(value).getTime()`` for the timestamps sessions hold (NaN when unparseable)."""
    if isinstance(value, bool) or value is None:
        return math.nan
    if isinstance(value, (int, float)):
        return float(value)
    if not isinstance(value, str):
        return math.nan
    s = value.strip()
    try:
        if s.endswith("Z") or s.endswith("z"):
            s = s[:-1] + "+00:00"
        dt = datetime.fromisoformat(s)
    except ValueError:
        return math.nan
    if dt.tzinfo is None:
        # ECMAScript: date-only forms are UTC, date-time forms without offset are local time
        dt = dt.astimezone() if "T" in s or " " in s else dt.replace(tzinfo=None).astimezone()
    return dt.timestamp() * 1000.0


def _compare(a: tuple[float, int], b: tuple[float, int]) -> int:
    d = a[0] - b[0]
    if d < 0:
        return -1
    if d > 0:
        return 1
    return 0  # equal or NaN: V8's sort keeps the pair's order, as does Python's stable sort


_KEY = cmp_to_key(_compare)


def _by_index(e: Entry) -> int:
    return e.index


_timestamp = attrgetter("timestamp")


#: the entry types ``SessionIndex.build`` notes as it goes
_NOTED = frozenset(("label", "session_info", "custom", "archive"))

#: ``SessionIndex.depth`` memoises one entry in this many along a walked chain
DEPTH_STRIDE = 256


class SessionIndex:
    """Entries by id, children in pi's order, roots in file order, labels and the leaf."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.by_id: dict[str, Entry] = {}
        #: children in file order by parent id: a tuple for an only child (the usual: 48 bytes
        #: where a list takes 72), a list once there are more
        self._children: dict[str, Sequence[Entry]] = {}
        self._sorted: dict[str, list[Entry]] = {}
        self.roots: list[Entry] = []
        self._root_set: set[str] = set()
        #: entries whose parent id is not (yet) in the file, by that missing id
        self._waiting: dict[str, list[Entry]] = {}
        #: target id -> (label, label entry timestamp); dict order is pi's Map order
        self.labels: dict[str, tuple[Any, Any]] = {}
        self.leaf_id: str | None = None
        self.session_name: str | None = None
        self.diagnostics: list[Diagnostic] = []
        self.version = 0  # bumped on every change, so views can tell they are stale
        #: memo of ``depth`` (cleared when a link changes an existing entry's ancestors)
        self._depth: dict[str, int] = {}
        #: first toolResult entry per toolCallId, and how many entries were scanned for it
        self._results: dict[Any, Entry] = {}
        self._results_scanned = 0
        #: the entries that hold tool calls, and the custom and archive entries, in file order:
        #: what the tool-call map and the archive records need, without a pass over every entry
        self.with_tool_calls: list[Entry] = []
        self.custom_entries: list[Entry] = []
        #: set by ``mark_preorder`` while the entries (file order) are the tree's display order
        #: for its first root: one past the last entry of each entry's subtree; any change drops it
        self.preorder_ends: list[int] | None = None

    # building -----------------------------------------------------------------------------
    def add(self, e: Entry, link: bool = True) -> bool:
        """Index ``e`` (the next entry in file order). Returns False for a duplicate id."""
        self.preorder_ends = None
        if e.id in self.by_id:
            self.diagnostics.append(
                Diagnostic(e.line, f"duplicate id {e.id!r}: the first entry with it wins, this line is kept as is")
            )
            return False
        e.index = len(self.entries)
        self.entries.append(e)
        self.by_id[e.id] = e
        self.leaf_id = e.id
        if e.tool_calls is not None:
            self.with_tool_calls.append(e)
        if e.type in _NOTED:
            self._note(e)
        if link:
            self._link(e)
        self.version += 1
        return True

    def _note(self, e: Entry) -> None:
        """What an entry of a ``_NOTED`` type says: a custom or archive record, a label set or
        cleared, the session's name."""
        t = e.type
        if t == "custom" or t == "archive":
            self.custom_entries.append(e)
        elif t == "label":
            target = e.aux
            if target is not None:
                key = target if isinstance(target, str) else str(target)
                if e.text:
                    self.labels[key] = (e.text, e.timestamp)
                else:
                    self.labels.pop(key, None)
        else:
            name = e.text
            self.session_name = name.strip() or None if isinstance(name, str) else None

    def _link(self, e: Entry) -> None:
        p = e.parent_id
        if p is None or p == e.id:
            self._add_root(e)
        elif p in self.by_id:
            self._add_child(p, e)
        else:
            self._add_root(e)
            self._waiting.setdefault(p, []).append(e)
        waiting = self._waiting.pop(e.id, None)
        if waiting:
            self._depth.clear()  # the orphans (and all below them) now sit deeper
            for orphan in waiting:
                if self._is_ancestor(orphan, e):
                    # e's ancestors lead back to the orphan: the whole loop becomes roots, as
                    # when the file is indexed at once (``_break_cycles``)
                    cycle = []
                    cur: Entry | None = e
                    while cur is not None and cur is not orphan:
                        cycle.append(cur)
                        cur = self.parent_of(cur)
                    for c in cycle:
                        siblings = self._children.get(c.parent_id) if c.parent_id is not None else None
                        if siblings is not None:
                            self._children[c.parent_id] = [k for k in siblings if k is not c]  # type: ignore[index]
                            self._sorted.pop(c.parent_id, None)  # type: ignore[arg-type]
                        self._add_root(c)
                    self.roots.sort(key=_by_index)
                    for c in sorted([orphan, *cycle], key=_by_index):
                        self.diagnostics.append(
                            Diagnostic(c.line, f"entry {c.id!r} is on a parentId cycle; shown as a root")
                        )
                    continue
                self._remove_root(orphan)
                self._add_child(e.id, orphan)

    def _is_ancestor(self, maybe: Entry, e: Entry) -> bool:
        cur: Entry | None = e
        while cur is not None:
            if cur is maybe:
                return True
            cur = self.parent_of(cur)
        return False

    def _add_root(self, e: Entry) -> None:
        self.roots.append(e)
        self._root_set.add(e.id)

    def _remove_root(self, e: Entry) -> None:
        self._root_set.discard(e.id)
        self.roots = [r for r in self.roots if r is not e]

    def _add_child(self, parent: str, e: Entry) -> None:
        kids = self._children.get(parent)
        if kids is None:
            self._children[parent] = (e,)
        else:
            more = kids if isinstance(kids, list) else [*kids]
            more.append(e)
            more.sort(key=_by_index)
            self._children[parent] = more
            self._sorted.pop(parent, None)

    def build(self, entries: list[Entry]) -> bool:
        """Index a whole file's entries at once (faster than ``add`` one by one).

        Returns True when every parent came before its children and was found: then building
        the rest of the file with a second call gives exactly what one call over all of it
        would (``SessionManager.open`` builds the head of a split read that way).
        """
        # ``add`` and linking in one loop without per-call overhead (the hot loop of opening a
        # big file). A parent usually precedes its children; the others are linked afterwards.
        self.preorder_ends = None
        by_id = self.by_id
        own = self.entries
        children = self._children
        roots = self.roots
        root_set = self._root_set
        later: list[Entry] = []
        with_calls = self.with_tool_calls.append
        n = len(own)
        for e in entries:
            eid = e.id
            if eid in by_id:
                self.add(e, link=False)  # records the duplicate
                continue
            e.index = n
            n += 1
            own.append(e)
            by_id[eid] = e
            if e.tool_calls is not None:
                with_calls(e)
            p = e.parent_id
            if p is None or p == eid:
                roots.append(e)
                root_set.add(eid)
            else:
                kids = children.get(p)
                if kids is not None:
                    if isinstance(kids, list):
                        kids.append(e)
                    else:
                        children[p] = kids = [*kids, e]
                    e.parent_id = kids[0].parent_id  # one string per parent, not one per child
                elif p in by_id:
                    e.parent_id = p = by_id[p].id
                    children[p] = (e,)
                else:
                    later.append(e)
            if e.type in _NOTED:
                self._note(e)
        if own:
            self.leaf_id = own[-1].id
        if later:
            forward = self._link_later(later)
            self._depth.clear()
            if forward:
                # parent indices strictly decrease along every chain otherwise, so no cycle exists
                self._break_cycles()
        self.version += 1
        return not later

    def _link_later(self, later: list[Entry]) -> bool:
        """Link the entries ``build`` met before their parent (or whose parent is missing: they
        wait for it, roots meanwhile). True when some parent comes later in the file (then a
        cycle is possible)."""
        by_id = self.by_id
        children = self._children
        forward = False
        resort: set[str] = set()
        for e in later:
            p = e.parent_id
            if p in by_id:
                forward = True
                kids = children.get(p)
                if kids is None:
                    children[p] = (e,)
                else:
                    if isinstance(kids, list):
                        kids.append(e)
                    else:
                        children[p] = [*kids, e]
                    resort.add(p)
            elif p is not None:
                self._waiting.setdefault(p, []).append(e)
        for p in resort:
            children[p] = sorted(children[p], key=_by_index)
        # roots stay in file order
        orphans = [e for e in later if e.parent_id not in by_id]
        if orphans:
            for e in orphans:
                self._root_set.add(e.id)
            self.roots.extend(orphans)
            self.roots.sort(key=_by_index)
        return forward

    def mark_preorder(self, ends: list[int]) -> bool:
        """Record that the entries, in file order, are already the tree in pre-order (every
        entry's subtree right after it, siblings in the order ``children`` gives) and that
        ``ends[i]`` is one past the last entry of entry ``i``'s subtree: an adapter that placed
        its rows itself says so, and ``view/flat.py`` takes that order instead of walking the
        tree. Kept only when it can hold: one build of every entry, each parent before its
        children, one shared timestamp (siblings then stay in file order), ends that fit. Call
        it right after a ``build`` of a new index that returned True."""
        entries = self.entries
        n = len(entries)
        ok = (
            len(ends) == n
            and self.version == 1
            and not self._waiting
            and n > 0
            and bool(self.roots)
            and self.roots[0] is entries[0]
            and ends[0] == n
            and len(set(map(_timestamp, entries))) == 1
            and all(map(lt, range(n), ends))
            and max(ends) <= n
        )
        self.preorder_ends = ends if ok else None
        return ok

    def _break_cycles(self) -> None:
        """Entries not reachable from a root sit on (or below) a parentId cycle."""
        seen: set[str] = set()
        self._mark_reachable(list(self.roots), seen)
        if len(seen) == len(self.entries):
            return
        for e in self.entries:
            if e.id in seen:
                continue
            path, cur = self._walk_up(e, seen)
            if cur is not None and cur.id not in seen:
                # the repeat starts the cycle: each entry on it becomes a root
                self._make_roots(path[path.index(cur) :])
            self._mark_reachable(list(path), seen)

    def _mark_reachable(self, stack: list[Entry], seen: set[str]) -> None:
        """Add to ``seen`` every entry under ``stack``'s entries (not crossing ``seen`` ones)."""
        children = self._children
        while stack:
            x = stack.pop()
            if x.id in seen:
                continue
            seen.add(x.id)
            kids = children.get(x.id)
            if kids:
                stack.extend(kids)

    def _walk_up(self, e: Entry, seen: set[str]) -> tuple[list[Entry], Entry | None]:
        """Parents from ``e`` up to a reached entry, a missing parent or a repeat on the path (the
        one returned with the path: a repeat is neither None nor in ``seen``)."""
        path: list[Entry] = []
        on_path: set[str] = set()
        cur: Entry | None = e
        while cur is not None and cur.id not in seen and cur.id not in on_path:
            path.append(cur)
            on_path.add(cur.id)
            cur = self.by_id.get(cur.parent_id) if cur.parent_id is not None else None
        return path, cur

    def _make_roots(self, cycle: list[Entry]) -> None:
        children = self._children
        for c in cycle:
            parent = c.parent_id
            kids = children.get(parent) if parent is not None else None
            if kids is not None:
                children[parent] = [k for k in kids if k is not c]  # type: ignore[index]
            self.roots.append(c)
            self._root_set.add(c.id)
            self.diagnostics.append(Diagnostic(c.line, f"entry {c.id!r} is on a parentId cycle; shown as a root"))
        self.roots.sort(key=lambda r: r.index)

    # queries ------------------------------------------------------------------------------
    def parent_of(self, e: Entry) -> Entry | None:
        """The linked parent (None for roots, orphans and cycle-broken entries)."""
        if e.id in self._root_set:
            return None
        return self.by_id.get(e.parent_id) if e.parent_id is not None else None

    def is_root(self, e: Entry) -> bool:
        return e.id in self._root_set

    def children(self, entry_id: str) -> list[Entry]:
        """Children sorted by entry timestamp, ties in file order (pi's getTree)."""
        kids = self._children.get(entry_id)
        if not kids:
            return []
        if len(kids) == 1:
            return list(kids)
        s = self._sorted.get(entry_id)
        if s is None:
            first = kids[0].timestamp
            if all(k.timestamp == first for k in kids):
                s = list(kids)  # one timestamp (a loom's rows share one): the stable sort keeps this order
            else:
                s = sorted(kids, key=lambda k: _KEY((timestamp_ms(k.timestamp), k.index)))
            self._sorted[entry_id] = s
        return s

    def child_lists(self) -> dict[str, Sequence[Entry]]:
        """Children in file order by parent id (read-only; for fast traversals): a tuple for an
        only child, a list for more."""
        return self._children

    def children_in_file_order(self, entry_id: str) -> list[Entry]:
        return list(self._children.get(entry_id, ()))

    def path_to(self, entry_id: str | None) -> list[Entry]:
        """Root → entry along linked parents (pi's getBranch, cycle-safe)."""
        out: list[Entry] = []
        by_id = self.by_id
        roots = self._root_set
        cur = by_id.get(entry_id) if entry_id is not None else None
        while cur is not None:
            out.append(cur)
            if cur.id in roots or cur.parent_id is None:
                break
            cur = by_id.get(cur.parent_id)
        out.reverse()
        return out

    def label_of(self, entry_id: str) -> Any:
        hit = self.labels.get(entry_id)
        return hit[0] if hit else None

    def label_timestamp(self, entry_id: str) -> Any:
        hit = self.labels.get(entry_id)
        return hit[1] if hit else None

    def depth(self, e: Entry) -> int:
        """Entries above ``e`` on its linked path (chains are tens of thousands deep: the walk
        stops at the nearest memoised ancestor, and every ``DEPTH_STRIDE``-th entry on the way is
        memoised, so a later walk is short without a dict entry per entry)."""
        cache = self._depth
        hit = cache.get(e.id)
        if hit is not None:
            return hit
        by_id = self.by_id
        roots = self._root_set
        chain: list[str] = []
        cur: Entry | None = e
        base = -1
        while cur is not None:  # parent_of, inlined
            eid = cur.id
            d = cache.get(eid)
            if d is not None:
                base = d
                break
            chain.append(eid)
            if eid in roots or cur.parent_id is None:
                break
            cur = by_id.get(cur.parent_id)
        n = len(chain)
        for k in range(n - DEPTH_STRIDE, 0, -DEPTH_STRIDE):  # chain[k] lies n - k below the base
            cache[chain[k]] = base + n - k
        cache[e.id] = base + n
        return base + n

    def tool_result(self, call_id: Any) -> Entry | None:
        """The first toolResult entry answering ``call_id`` (in file order), if any."""
        entries = self.entries
        if self._results_scanned < len(entries):
            results = self._results
            for e in entries[self._results_scanned :]:
                if e.role == "toolResult" and e.type == "message" and e.aux is not None:
                    try:
                        results.setdefault(e.aux, e)
                    except TypeError:  # an unhashable id: such a call has no findable result
                        pass
            self._results_scanned = len(entries)
        try:
            return self._results.get(call_id)
        except TypeError:
            return None

    def calling_entry(self, e: Entry, call_id: Any, limit: int = 200) -> Entry | None:
        """The assistant entry above ``e`` whose tool calls include ``call_id`` (usually a few
        entries up the chain; the walk stops after ``limit`` steps)."""
        cur = self.parent_of(e)
        steps = 0
        while cur is not None and steps < limit:
            if cur.tool_calls:
                for cid, _name, _args in cur.tool_calls:
                    if cid == call_id:
                        return cur
            cur = self.parent_of(cur)
            steps += 1
        return None
