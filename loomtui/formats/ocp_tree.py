"""An OCP run's tree: where every row hangs, and rows whose text is made when first read.

Placement (see docs/ocp.md): groups as folders, nodes in dependency order under the parent
that settled last (``dag``) or under what launched them (``lineage``), each node's attempts as
its first children, a retry under the attempt it retries.

The rows are session skeletons (``session.entries.Entry``) made directly, without the dict
entries a loom adapter usually hands to ``SessionManager.from_entries``: a :class:`RowEntry`
knows its id, parent, kind and place at once, and writes its one-line text and its full entry
(``content``, ``details``) only when something reads them. Opening a 60k-row run therefore
costs the tree's structure only; the rows on screen are written as they are drawn, the rest
when search first needs them (the app warms search after the first paint). The texts are the
same whenever they are made: everything they say (totals, placement, findings) is fixed
before the first row is read.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from itertools import accumulate, chain, repeat
from typing import TYPE_CHECKING, Any, NamedTuple

from loomtui.formats import ocp_text as T
from loomtui.formats.common import iso_ms, parse_iso
from loomtui.session.entries import Entry
from loomtui.view.flat import subtree_ends

if TYPE_CHECKING:
    from loomtui.formats.ocp import OcpRun

RUN_ID = "run"
LINEAGE_KINDS = frozenset(("spawn", "launch"))

#: a row's maker: (run, record id) -> the entry as pi would hold it (type, customType, content,
#: details); id, parentId and timestamp are added by the row
Maker = Callable[["OcpRun", str], dict[str, Any]]

_TEXT = Entry.text  # the slots RowEntry's properties fill in
_DATA = Entry.data
_NEW = Entry.__new__


class RowEntry(Entry):
    """A custom_message skeleton whose ``text`` and ``data`` are written on first read.

    Safe to read from two threads (the app draws rows while a worker warms search): the values
    are stored before the pending marker is cleared, so a reader never sees a half-made row; at
    worst both threads make the same text.

    The fields every row has alike are class attributes (they shadow the skeleton's slots, so
    making 60k rows sets seven slots each, not eighteen; writing one of them raises).
    """

    __slots__ = ("_pending",)
    type = "custom_message"
    role = None
    offset = -1
    size = 0
    has_text = False
    stop_reason = None
    tool_name = None
    tool_calls = None
    content_is_str = True
    hidden = None

    def _make(self, pending: tuple["OcpRun", Maker, str]) -> None:
        run, make, rid = pending
        entry = make(run, rid)
        entry["id"] = self.id
        entry["parentId"] = self.parent_id
        entry["timestamp"] = self.timestamp
        _TEXT.__set__(self, entry["content"])
        _DATA.__set__(self, entry)
        self._pending = None

    @property  # type: ignore[override]
    def text(self) -> str | None:
        pending = self._pending
        if pending is not None:
            self._make(pending)
        return _TEXT.__get__(self, RowEntry)  # type: ignore[no-any-return]

    @text.setter
    def text(self, value: str | None) -> None:
        _TEXT.__set__(self, value)

    @property  # type: ignore[override]
    def data(self) -> dict[str, Any] | None:
        pending = self._pending
        if pending is not None:
            self._make(pending)
        return _DATA.__get__(self, RowEntry)  # type: ignore[no-any-return]

    @data.setter
    def data(self, value: dict[str, Any] | None) -> None:
        _DATA.__set__(self, value)


# placement -------------------------------------------------------------------------------------
def group_parents(run: "OcpRun") -> dict[str, str]:
    """Group id -> parent entry id (a group under its parent group, cycles broken)."""
    under: dict[str, str] = {}
    for gid, g in run.groups.items():
        p = g.get("parent")
        seen = {gid}
        q = p
        while isinstance(q, str) and q in run.groups and q not in seen:
            seen.add(q)
            q = run.groups[q].get("parent")
        if isinstance(p, str) and p in run.groups and not (isinstance(q, str) and q in seen):
            under[gid] = "g:" + p
        else:
            if p is not None:
                why = "a cycle" if isinstance(q, str) and q in seen else f"unknown group {p!r}"
                run.note(f"group {gid}: parent is {why}; shown under the run")
            under[gid] = RUN_ID
    return under


def _home_of(run: "OcpRun", nid: str) -> str:
    g = run.nodes.get(nid, {}).get("group")
    if g is None:
        return RUN_ID
    if isinstance(g, str) and g in run.groups:
        return "g:" + g
    run.note(f"node {nid}: group {g!r} is not defined; shown under the run")
    return RUN_ID


def place_dag(run: "OcpRun", order: list[str]) -> None:
    """A node under the dependency parent (in its group) that settled last; the others are
    the ones it is "also after"."""
    rank = {nid: i for i, nid in enumerate(order)}
    homes: dict[str, str] = {}  # a parent comes before its children: its home is known
    settled: dict[str, float] = {}
    placed_under, also_after, get_parents = run.placed_under, run.also_after, run.parents.get
    for nid in order:
        home = homes[nid] = _home_of(run, nid)
        parents = get_parents(nid)
        if not parents:
            placed_under[nid] = home
            continue
        here = rank[nid]
        candidates = [p for p in parents if rank[p] < here and homes[p] == home]
        if candidates:
            for p in candidates:
                if p not in settled:
                    settled[p] = run.settled_at(p)
            best = max(candidates, key=lambda p: (settled[p], rank[p]))
            placed_under[nid] = "n:" + best
            others = [p for p in parents if p != best]
        else:
            placed_under[nid] = home
            others = list(parents)
        if others:
            also_after[nid] = others


def _lineage_edges(run: "OcpRun") -> dict[str, list[str]]:
    """Node id -> the nodes whose spawn/launch edges point at it (document order, once each)."""
    via: dict[str, list[str]] = defaultdict(list)
    for e in run.edges:
        if e.get("kind") in LINEAGE_KINDS:
            a, b = e.get("from"), e.get("to")
            if isinstance(a, str) and isinstance(b, str) and a in run.nodes and b in run.nodes and a != b:
                if a not in via[b]:
                    via[b].append(a)
    return via


def _launcher(run: "OcpRun", nid: str) -> str | None:
    """The attempt that launched the node (the first of its attempts whose origin names one)."""
    for a in run.node_attempts(nid):
        origin = a.get("origin")
        lb = origin.get("launched_by") if isinstance(origin, dict) else None
        if isinstance(lb, str) and lb in run.attempts:
            return lb
    return None


def _break_lineage_loops(run: "OcpRun", order: list[str], parent_of: dict[str, str]) -> None:
    """Refuse the placements that close a loop: those nodes stay at the top."""
    for nid in order:
        seen = {nid}
        q = parent_of.get(nid)
        while q is not None and q not in seen:
            seen.add(q)
            q = parent_of.get(q)
        if q is not None:
            parent_of.pop(nid, None)
            run.placed_under[nid] = RUN_ID
            run.note(f"lineage of node {nid} loops; shown at the top of the lineage view")


def place_lineage(run: "OcpRun", order: list[str]) -> None:
    """spawn/launch lineage: a node under the attempt that launched it (origin.launched_by),
    else under the node whose edge spawned or launched it; lineage may loop, so a placement
    that would close a loop is refused and the node stays at the top."""
    parent_of: dict[str, str] = {}
    via = _lineage_edges(run)
    for nid in order:
        launcher = _launcher(run, nid)
        if launcher is not None:
            owner = run.attempts[launcher].get("node")
            if isinstance(owner, str) and owner in run.nodes and owner != nid:
                parent_of[nid] = owner
                run.placed_under[nid] = "a:" + launcher
        elif via.get(nid):
            parent_of[nid] = via[nid][0]
            run.placed_under[nid] = "n:" + via[nid][0]
        rest = [p for p in via.get(nid, []) if p != parent_of.get(nid)]
        if rest:
            run.also_after[nid] = rest
    _break_lineage_loops(run, order, parent_of)
    for nid in order:
        run.placed_under.setdefault(nid, RUN_ID)


def place_retries(run: "OcpRun") -> None:
    """``run.retries``: an attempt whose cause.ref names an earlier attempt at its node."""
    attempts = run.attempts
    for aids in run.attempts_of.values():
        earlier: set[str] = set()
        for aid in aids:
            cause = attempts[aid].get("cause")
            ref = cause.get("ref") if type(cause) is dict else None
            if isinstance(ref, str) and ref:
                if ref in earlier:
                    run.retries[aid] = ref
                elif ref not in attempts:
                    run.note(f"attempt {aid}: cause.ref {ref!r} names no attempt")
                elif attempts[ref].get("node") == attempts[aid].get("node"):
                    run.note(f"attempt {aid}: cause.ref {ref!r} is not an earlier attempt at its node")
            earlier.add(aid)


# the rows --------------------------------------------------------------------------------------
def run_row(run: "OcpRun", _rid: str) -> dict[str, Any]:
    return T.run_entry(run)


#: a row as the tree lists it: (entry id, parent id, kind, maker, record id)
Row = tuple[str, "str | None", str, Maker, str]


def _children(run: "OcpRun", order: list[str]) -> tuple[Row, dict[str, list[Row]], int, _AttemptRows]:
    """The run's row, entry id -> its child rows in the wanted order, the number of rows, and
    the attempts' rows (``_attempt_rows``: those already in pre-order are not in the map).

    Each parent's children come out as group folders, then attempts and retries, then nodes
    in dependency order."""
    kids: dict[str, list[Row]] = defaultdict(list)
    top: Row = (RUN_ID, None, "run" if run.view == "dag" else "run lineage", run_row, "")
    count = 1
    if run.view == "dag":
        for gid, parent in group_parents(run).items():
            kids[parent].append(("g:" + gid, parent, "group", T.group_entry, gid))
            count += 1
    for nid in run.missing_nodes:
        kids[RUN_ID].append(("n:" + nid, RUN_ID, "missing node", T.missing_node_entry, nid))
        count += 1
    attempt_rows = _attempt_rows(run, kids)
    count += len(attempt_rows.rows)
    placed_under, nodes, node_entry, node_kind = run.placed_under, run.nodes, T.node_entry, T.node_kind
    missing = set(run.missing_nodes)
    for nid in order:
        parent = placed_under.get(nid, RUN_ID)
        if not _has_row(run, parent, missing):
            parent = RUN_ID
        kids[parent].append(("n:" + nid, parent, node_kind(nodes[nid]), node_entry, nid))
    return top, kids, count + len(order), attempt_rows


class _AttemptRows(NamedTuple):
    #: every attempt's row, node by node (``run.attempts_of``'s order)
    rows: list[Row]
    #: a node's entry id -> where its attempts' rows are in ``rows``, when they are in
    #: pre-order there already (they follow the node's own row as they are)
    spans: dict[str, tuple[int, int]]


def _attempt_rows(run: "OcpRun", kids: dict[str, list[Row]]) -> _AttemptRows:
    """The attempts' rows, made in bulk: an attempt under its node (the run for an attempt
    that names none), a retry under the attempt it retries.

    A node's attempts are in pre-order as listed when every retry retries the attempt listed
    just before it (a chain of sends-back, the usual case, or no retry at all) and no node
    hangs under one of them (the lineage view): their rows are then taken as a block after
    the node's row. Any other node's attempt rows go into ``kids`` under their parents,
    ahead of the nodes that go there after them."""
    attempts_of, retries = run.attempts_of, run.retries
    aids = list(chain.from_iterable(attempts_of.values()))
    sizes = list(map(len, attempts_of.values()))
    owners = ["n:" + nid if nid else RUN_ID for nid in attempts_of]
    parents = list(chain.from_iterable(map(repeat, owners, sizes)))
    eids = list(map("a:".__add__, aids))
    refs = list(map(retries.get, aids))
    # a retry hangs under the attempt it retries; listed out of pre-order when that is not the
    # one listed just before it (a retry is never a node's first attempt)
    unordered: set[int] = set()
    for i in [i for i, ref in enumerate(refs) if ref is not None]:
        if refs[i] == aids[i - 1]:
            parents[i] = eids[i - 1]
        else:
            parents[i] = "a:" + refs[i]
            unordered.add(i)
    rows = list(zip(eids, parents, repeat("attempt"), repeat(T.attempt_entry), aids))
    # an attempt with a node under it (the lineage view) is followed by that node's rows too
    under = [eid[2:] for eid in run.placed_under.values() if eid.startswith("a:")]
    if under:
        where = dict(zip(aids, range(len(aids))))
        unordered.update(where[aid] for aid in under if aid in where)
    ends = list(accumulate(sizes))
    slow = {bisect_right(ends, i) for i in unordered}
    slow.update(k for k, owner in enumerate(owners) if owner == RUN_ID)
    spans: dict[str, tuple[int, int]] = {}
    start = 0
    for k, (owner, end) in enumerate(zip(owners, ends)):
        if k in slow:
            for row in rows[start:end]:
                kids[row[1]].append(row)
        elif end > start:
            spans[owner] = (start, end)
        start = end
    return _AttemptRows(rows, spans)


def _has_row(run: "OcpRun", eid: str, missing: set[str]) -> bool:
    """Whether the run has a row ``eid`` (what a node may be placed under)."""
    kind, rid = eid[:2], eid[2:]
    if kind == "n:":
        return rid in run.nodes or rid in missing
    if kind == "a:":
        return rid in run.attempts
    if kind == "g:":
        return run.view == "dag" and rid in run.groups
    return eid == RUN_ID


def row_order(run: "OcpRun") -> list[Row]:
    """Place every record (``run.placed_under``, ``run.retries``, …) and list the rows in
    pre-order: every parent before its children."""
    from loomtui.formats.ocp import topo_order

    order = topo_order(run) if run.view == "dag" else list(run.node_order)
    if run.view == "dag":
        place_dag(run, order)
    else:
        place_lineage(run, order)
    place_retries(run)
    top, kids, count, attempts = _children(run, order)
    out: list[Row] = []
    stack = [top]
    get, span, rows = kids.get, attempts.spans.get, attempts.rows
    while stack:
        row = stack.pop()
        out.append(row)
        eid = row[0]
        block = span(eid)
        if block is not None:  # the node's attempts, in pre-order already
            out += rows[block[0] : block[1]]
        below = get(eid)
        if below:
            stack.extend(reversed(below))
    if len(out) < count:  # rows on a loop, only through a bug: under the run, never lost
        shown = {r[0] for r in out}
        lost = [r for below in kids.values() for r in below if r[0] not in shown]
        lost += [r for eid, (start, end) in attempts.spans.items() if eid not in shown for r in rows[start:end]]
        out += [(r[0], RUN_ID, *r[2:]) for r in lost]
    return out


def parent_numbers(eids: Sequence[str], parents: Iterable[str | None]) -> list[int]:
    """Each row's parent as a row number (-1: none) for rows ``eids`` in order."""
    row_no: dict[str | None, int] = dict(zip(eids, range(len(eids))))
    row_no[None] = -1
    return list(map(row_no.__getitem__, parents))


def preorder_ends(rows: list[Entry]) -> list[int]:
    """``flat.subtree_ends`` of ``make_rows``'s rows (``row_order`` lists them in pre-order):
    what ``SessionIndex.mark_preorder`` takes."""
    return subtree_ends(parent_numbers([e.id for e in rows], [e.parent_id for e in rows]))


def make_rows(run: "OcpRun", order: Iterable[Row]) -> list[Entry]:
    """The skeletons of ``row_order``'s rows; one shared timestamp keeps each parent's children
    in that order (pi sorts siblings by time, ties in file order). Every slot of each row is
    set here (the rest are ``RowEntry``'s class attributes; ``text`` and ``data`` are written
    with the row), in one loop: a 60k-row run makes 60k of them while it opens."""
    ts = iso_ms(parse_iso(run.run.get("started_at")) or datetime(2000, 1, 1, tzinfo=UTC))
    out: list[Entry] = []
    append, new = out.append, _NEW
    for n, (eid, parent, kind, make, rid) in enumerate(order, start=1):
        e = new(RowEntry)
        e.id = eid
        e.parent_id = parent
        e.timestamp = ts
        e.index = -1
        e.line = n
        e.aux = kind
        e._pending = (run, make, rid)
        append(e)
    return out
