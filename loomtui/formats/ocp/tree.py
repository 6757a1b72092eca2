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

The rows are listed by a lazy walk (:class:`RowWalk`), so a big run's first screen can be
taken from it before the rest (``first_screen``, ``made_rows``: docs/ocp.md, "Opening a big
run").
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain, islice
from typing import Any

from loomtui.formats.base.common import iso_ms, parse_iso
from loomtui.formats.ocp import text as T
from loomtui.formats.ocp.run import OcpRun, topo_order
from loomtui.session.entries import LINE_AT, Entry
from loomtui.view.flat import subtree_ends

RUN_ID = "run"
LINEAGE_KINDS = frozenset(("spawn", "launch"))

#: a row's maker: (run, record id) -> the entry as pi would hold it (type, customType, content,
#: details); id, parentId and timestamp are added by the row
Maker = Callable[["OcpRun", str], dict[str, Any]]

_TEXT = Entry.text  # the fields RowEntry's properties fill in
_DATA = Entry.data


class RowEntry(Entry, gc=True):
    """A custom_message skeleton whose ``text`` and ``data`` are written on first read.

    Safe to read from two threads (the app draws rows while a worker warms search): the values
    are stored before the pending marker is cleared, so a reader never sees a half-made row; at
    worst both threads make the same text.

    The fields every row has alike are class attributes (they shadow the skeleton's fields;
    writing one of them raises). Tracked by the collector, unlike ``Entry``: ``_pending`` holds
    the run.
    """

    #: (run, maker, record id) until the text is made
    _pending: Any = None
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

    def _make(self, pending: tuple[OcpRun, Maker, str]) -> None:
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
def group_parents(run: OcpRun) -> dict[str, str]:
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


def _home_of(run: OcpRun, nid: str) -> str:
    g = run.nodes.get(nid, {}).get("group")
    if g is None:
        return RUN_ID
    if isinstance(g, str) and g in run.groups:
        return "g:" + g
    run.note(f"node {nid}: group {g!r} is not defined; shown under the run")
    return RUN_ID


def place_dag(run: OcpRun, order: list[str]) -> None:
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


def _lineage_edges(run: OcpRun) -> dict[str, list[str]]:
    """Node id -> the nodes whose spawn/launch edges point at it (document order, once each)."""
    via: dict[str, list[str]] = defaultdict(list)
    for e in run.edges:
        if e.get("kind") in LINEAGE_KINDS:
            a, b = e.get("from"), e.get("to")
            if isinstance(a, str) and isinstance(b, str) and a in run.nodes and b in run.nodes and a != b:
                if a not in via[b]:
                    via[b].append(a)
    return via


def _launcher(run: OcpRun, nid: str) -> str | None:
    """The attempt that launched the node (the first of its attempts whose origin names one)."""
    for a in run.node_attempts(nid):
        origin = a.get("origin")
        lb = origin.get("launched_by") if isinstance(origin, dict) else None
        if isinstance(lb, str) and lb in run.attempts:
            return lb
    return None


def _break_lineage_loops(run: OcpRun, order: list[str], parent_of: dict[str, str]) -> None:
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


def place_lineage(run: OcpRun, order: list[str]) -> None:
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


def node_retries(run: OcpRun, aids: list[str]) -> list[str]:
    """``run.retries`` for one node's attempts: an attempt whose cause.ref names an earlier
    attempt at its node; the notes on the refs that do not (``RowWalk.finish`` adds them)."""
    attempts, retries = run.attempts, run.retries
    notes: list[str] = []
    earlier: set[str] = set()
    for aid in aids:
        cause = attempts[aid].get("cause")
        ref = cause.get("ref") if type(cause) is dict else None
        if isinstance(ref, str) and ref:
            if ref in earlier:
                retries[aid] = ref
            elif ref not in attempts:
                notes.append(f"attempt {aid}: cause.ref {ref!r} names no attempt")
            elif attempts[ref].get("node") == attempts[aid].get("node"):
                notes.append(f"attempt {aid}: cause.ref {ref!r} is not an earlier attempt at its node")
        earlier.add(aid)
    return notes


# the rows --------------------------------------------------------------------------------------
def run_row(run: OcpRun, _rid: str) -> dict[str, Any]:
    return T.run_entry(run)


#: a row as the tree lists it: (entry id, parent id, kind, maker, record id)
Row = tuple[str, "str | None", str, Maker, str]


class RowWalk:
    """The rows in pre-order, made as the walk reaches them (``row_order`` takes them all, the
    first screen of a big run takes its first rows: ``first_screen``).

    Each parent's children come out as group folders, then missing nodes (under the run), then
    attempts and retries, then nodes in dependency order. A node's attempts are in pre-order
    as listed when every retry retries the attempt listed just before it (a chain of
    sends-back, the usual case, or no retry at all) and no node hangs under one of them (the
    lineage view): they are then taken as one block after the node's row; any other node's
    attempts hang under their parents one by one.

    ``stack`` holds the rows not yet reached, the next one last: each is a later sibling of a
    row already given or of one of its ancestors."""

    def __init__(self, run: OcpRun, order: list[str]) -> None:
        self.run = run
        groups: dict[str, list[Row]] = defaultdict(list)
        if run.view == "dag":
            for gid, parent in group_parents(run).items():
                groups[parent].append(("g:" + gid, parent, "group", T.group_entry, gid))
        self.groups = groups
        self.missing: list[Row] = [
            ("n:" + nid, RUN_ID, "missing node", T.missing_node_entry, nid) for nid in run.missing_nodes
        ]
        missing = set(run.missing_nodes)
        nodes_under: dict[str, list[Row]] = defaultdict(list)
        get, nodes, node_entry, node_kind = run.placed_under.get, run.nodes, T.node_entry, T.node_kind
        for nid in order:
            parent = get(nid, RUN_ID)
            if not _has_row(run, parent, missing):
                parent = RUN_ID
            nodes_under[parent].append(("n:" + nid, parent, node_kind(nodes[nid]), node_entry, nid))
        self.nodes_under = nodes_under
        #: the attempts' rows nodes hang under (the lineage view)
        self.launched = {p for p in nodes_under if p.startswith("a:")}
        #: an attempt's row -> the retries hanging under it when they are not in a block
        self.below_attempt: dict[str, list[Row]] = {}
        #: node id (the run's own attempts: "") -> the notes on its retries, once they are
        #: placed (``node_retries``: a node's when the walk reaches it, the others' in ``finish``)
        self.retried: dict[str, list[str]] = {}
        self.finished = False
        #: how many rows the run has (``row_order`` checks that the walk reached them all)
        self.count = (
            1
            + sum(map(len, groups.values()))
            + len(self.missing)
            + len(order)
            + sum(map(len, run.attempts_of.values()))
        )
        top: Row = (RUN_ID, None, "run" if run.view == "dag" else "run lineage", run_row, "")
        self.stack: list[Row] = [top]
        self._rows = self._walk()

    def finish(self) -> None:
        """Place the retries of the nodes the walk has not reached yet (every retry is then in
        ``run.retries``) and note the refs that are no retries, node by node in the run's
        order, whichever were reached first. Once."""
        if self.finished:
            return
        self.finished = True
        run, retried = self.run, self.retried
        for nid, aids in run.attempts_of.items():
            notes = retried.get(nid)
            if notes is None:
                notes = node_retries(run, aids)
            for note in notes:
                run.note(note)

    def rows_after(self, taken: list[Row]) -> list[Row]:
        """``taken`` (the rows taken from this walk so far) and the rest of them; every retry
        placed (``finish``); rows on a loop, only through a bug, under the run, never lost."""
        out = taken + list(self)
        self.finish()
        if len(out) < self.count:
            out += _lost_rows(self, {r[0] for r in out})
        return out

    def _attempts(self, owner: str, nid: str, aids: list[str]) -> tuple[list[Row], list[Row]]:
        """(block, own): the rows of ``owner``'s attempts as one block in pre-order, or those
        hanging right under ``owner`` (the others are put under their attempts)."""
        if nid not in self.retried and not self.finished:
            self.retried[nid] = node_retries(self.run, aids)
        retries, below, launched = self.run.retries, self.below_attempt, self.launched
        rows: list[Row] = []
        ordered = owner != RUN_ID  # the run's own attempts always go one by one
        prev = None
        for aid in aids:
            ref = retries.get(aid)
            if ref is None:
                parent = owner
            else:
                parent = "a:" + ref
                if ref != prev:
                    ordered = False
            rows.append(("a:" + aid, parent, "attempt", T.attempt_entry, aid))
            prev = aid
        if ordered and launched and any(r[0] in launched for r in rows):
            ordered = False
        if ordered:
            return rows, []
        own: list[Row] = []
        for r in rows:
            up = r[1]
            if up == owner or up is None:
                own.append(r)
            else:
                below.setdefault(up, []).append(r)
        return [], own

    def __iter__(self) -> Iterator[Row]:
        """The rows not taken yet (one walk: every iteration goes on where the last stopped)."""
        return self._rows

    def _walk(self) -> Iterator[Row]:
        attempts_of, nodes_under, groups = self.run.attempts_of, self.nodes_under, self.groups
        below, launched = self.below_attempt, self.launched
        stack = self.stack
        pop, extend = stack.pop, stack.extend
        empty: list[Row] = []
        while stack:
            row = pop()
            yield row
            eid = row[0]
            kind = eid[:2]
            if kind == "a:":
                if below or launched:
                    kids = below.get(eid, empty) + nodes_under.get(eid, empty)
                    if kids:
                        extend(reversed(kids))
                continue
            if kind == "n:":
                kids = nodes_under.get(eid, empty)
                aids = attempts_of.get(row[4])
                if aids:
                    block, own = self._attempts(eid, row[4], aids)
                    if kids:
                        extend(reversed(kids))
                    if block:
                        extend(reversed(block))  # next: the block, then the nodes under it
                    elif own:
                        extend(reversed(own))
                    continue
            elif kind == "g:":
                kids = groups.get(eid, empty) + nodes_under.get(eid, empty)
            else:  # the run
                kids = groups.get(eid, empty) + self.missing
                aids = attempts_of.get("")
                if aids:
                    kids += self._attempts(RUN_ID, "", aids)[1]
                kids += nodes_under.get(eid, empty)
            if kids:
                extend(reversed(kids))


def _has_row(run: OcpRun, eid: str, missing: set[str]) -> bool:
    """Whether the run has a row ``eid`` (what a node may be placed under)."""
    kind, rid = eid[:2], eid[2:]
    if kind == "n:":
        return rid in run.nodes or rid in missing
    if kind == "a:":
        return rid in run.attempts
    if kind == "g:":
        return run.view == "dag" and rid in run.groups
    return eid == RUN_ID


def row_order(run: OcpRun) -> list[Row]:
    """Place every record (``run.placed_under``, ``run.retries``, …) and list the rows in
    pre-order: every parent before its children."""
    return RowWalk(run, place(run)).rows_after([])


def place(run: OcpRun) -> list[str]:
    """Place every node (``place_dag`` or ``place_lineage``; the retries are placed by the walk,
    ``RowWalk``); the nodes in the order they are listed under their parents."""
    order = topo_order(run) if run.view == "dag" else list(run.node_order)
    if run.view == "dag":
        place_dag(run, order)
    else:
        place_lineage(run, order)
    return order


def first_screen(walk: RowWalk, k: int) -> tuple[list[Row], list[Row], list[Row]]:
    """The first ``k`` rows of a walk just begun (``shown``), the rows taken from it
    (``taken``: one more, so that the last shown row's children are known) and the rows not
    yet reached that the layout of the shown ones depends on (``pending``: the first child
    not yet reached of each parent, so that every row knows whether a sibling follows it).
    ``taken`` then ``pending`` is a tree in pre-order whose first ``k`` rows are laid out as
    in the whole run; the walk goes on after ``taken``."""
    taken = list(islice(walk, k + 1))
    reached = {row[0] for row in taken}
    firsts: dict[str | None, Row] = {}
    for row in reversed(walk.stack):  # the next one first; a block's rows may hang under rows not reached
        if row[1] in reached:
            firsts.setdefault(row[1], row)
    return taken[:k], taken, list(firsts.values())


def _lost_rows(walk: RowWalk, shown: set[str]) -> list[Row]:
    """The rows a walk did not reach (on a loop, only through a bug), each under the run."""
    run = walk.run
    rows = [*chain.from_iterable(walk.groups.values()), *walk.missing, *chain.from_iterable(walk.nodes_under.values())]
    for aids in run.attempts_of.values():
        rows += [("a:" + aid, RUN_ID, "attempt", T.attempt_entry, aid) for aid in aids]
    return [(r[0], RUN_ID, *r[2:]) for r in rows if r[0] not in shown]


def parent_numbers(eids: Sequence[str], parents: Iterable[str | None]) -> list[int]:
    """Each row's parent as a row number (-1: none) for rows ``eids`` in order."""
    row_no: dict[str | None, int] = dict(zip(eids, range(len(eids))))
    row_no[None] = -1
    return list(map(row_no.__getitem__, parents))


def preorder_ends(rows: list[Entry]) -> list[int]:
    """``flat.subtree_ends`` of ``make_rows``'s rows (``row_order`` lists them in pre-order):
    what ``SessionIndex.mark_preorder`` takes."""
    return subtree_ends(parent_numbers([e.id for e in rows], [e.parent_id for e in rows]))


def make_rows(run: OcpRun, order: Iterable[Row]) -> list[Entry]:
    """The skeletons of ``row_order``'s rows; one shared timestamp keeps each parent's children
    in that order (pi sorts siblings by time, ties in file order). Every field of each row is
    set here (the rest are ``RowEntry``'s class attributes; ``text`` and ``data`` are written
    with the row), in one loop: a 60k-row run makes 60k of them while it opens."""
    return _skeletons(run, order, rows_timestamp(run))


def _skeletons(run: OcpRun | None, order: Iterable[Row], ts: str | None) -> list[Entry]:
    """``make_rows``'s loop: each row's text is made by its maker when first read."""
    # ``span``: the line number; offset -1, size 0 (``entries.span``); a string timestamp is
    # its own ``stamp``
    return [
        RowEntry(eid, parent, "custom_message", None, ts, -1, n << LINE_AT, None, kind, _pending=(run, make, rid))
        for n, (eid, parent, kind, make, rid) in enumerate(order, start=1)
    ]


def rows_timestamp(run: OcpRun) -> str | None:
    """The timestamp every row has: the run's start (None when the run gives none)."""
    started = parse_iso(run.run.get("started_at"))
    return iso_ms(started) if started is not None else None


def made_rows(rows: Iterable[tuple[str, str | None, str, str]], ts: str | None) -> list[Entry]:
    """Rows whose texts were made already (entry id, parent id, kind, text), as ``make_rows``
    makes them: a run's first screen made by the process that placed it."""
    rows = list(rows)
    out = _skeletons(None, [(eid, parent, kind, None, "") for eid, parent, kind, _text in rows], ts)  # type: ignore[misc]
    for e, (eid, parent, kind, text) in zip(out, rows):
        e._pending = None  # type: ignore[attr-defined]
        e.text = text
        e.data = {
            "type": "custom_message",
            "customType": kind,
            "content": text,
            "display": True,
            "details": None,
            "id": eid,
            "parentId": parent,
            "timestamp": ts,
        }
    return out
