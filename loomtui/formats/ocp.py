"""OCP run documents (Orchestration Context Protocol v0.1/v0.2/v0.3) read as a loom.

A run becomes the same session model every other loom becomes: entries for
``SessionManager.from_entries`` (see docs/formats.md, "OCP run documents"). The entries are ``custom_message`` rows:

* the run (root), then its groups as folders (``group.parent`` nests them);
* nodes in dependency order: ``dep``/``fan_in`` edges form a DAG and a node with several
  parents appears once, under the parent that settled last (within its group), its row
  saying "also after: …" for the others;
* each node's attempts as its first children; an attempt whose ``cause.ref`` names an earlier
  attempt at the same node is a child of that attempt (a retry branches from what it retries).

``tree_id="lineage"`` gives the second view: nodes under the node (or attempt) that spawned or
launched them. What the session model cannot hold — the document, the indexes, the totals,
the filters — stays in an :class:`OcpRun`, the ``document`` of the manager's typed source. Bad documents
(unknown versions, null lists, dangling references, dependency cycles) open with what could be
read and a diagnostic for each thing that could not.
"""

from __future__ import annotations

import os

import heapq
import math
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from loomtui.formats import ocp_text as T
from loomtui.formats.common import iso_ms, parse_iso
from loomtui.session.errors import Diagnostic
from loomtui.session.manager import SessionManager
from loomtui.session.source import Source

OCP = "ocp"
KNOWN_VERSIONS = ("0.1", "0.2", "0.3")
VIEWS = ("dag", "lineage")
DAG_KINDS = frozenset(("dep", "fan_in"))
LINEAGE_KINDS = frozenset(("spawn", "launch"))
IN_FLIGHT = frozenset(("queued", "working"))
FAILED = frozenset(("failed", "rejected"))

RUN_ID = "run"


def looks_like_ocp(doc: Any) -> bool:
    """A JSON object with an ``ocp`` version key (detection is by content, never by name)."""
    return isinstance(doc, dict) and "ocp" in doc


def node_eid(nid: str) -> str:
    return "n:" + nid


def attempt_eid(aid: str) -> str:
    return "a:" + aid


def group_eid(gid: str) -> str:
    return "g:" + gid


@dataclass
class OcpRun:
    """One run document, indexed; what the detail pane, filters, totals and checks read."""

    doc: dict[str, Any]
    path: str | None
    version: str
    view: str = "dag"
    run: dict[str, Any] = field(default_factory=dict)
    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    node_order: list[str] = field(default_factory=list)
    #: node ids some record names that the document does not define (shown as placeholders)
    missing_nodes: list[str] = field(default_factory=list)
    attempts: dict[str, dict[str, Any]] = field(default_factory=dict)
    attempts_of: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    #: attempt id -> what totals need of it (ocp_text.facts_of), node id -> its totals
    facts: dict[str, Any] = field(default_factory=dict)
    node_tot: dict[str, Any] = field(default_factory=dict)
    #: group id -> its nodes (document order)
    group_members: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    groups: dict[str, dict[str, Any]] = field(default_factory=dict)
    artifacts: dict[str, dict[str, Any]] = field(default_factory=dict)
    edges: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    #: dep/fan_in parents and children (known nodes only, document order)
    parents: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    children: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    #: node id -> tree parent entry id, and the dependency parents it is "also after"
    placed_under: dict[str, str] = field(default_factory=dict)
    also_after: dict[str, list[str]] = field(default_factory=dict)
    #: attempt id -> the attempt it retries (same node, earlier), when cause.ref names one
    retries: dict[str, str] = field(default_factory=dict)
    #: entry id -> conformance findings on that row ((level, code, path, message))
    findings: dict[str, list[tuple[str, str, str, str]]] = field(default_factory=dict)
    #: attempt.session -> the file found for it (None: looked, not found)
    session_paths: dict[str, str | None] = field(default_factory=dict)
    checked: str = ""  # how findings were computed ("loopmath", "jsonschema", "" = not checked)
    problems: list[str] = field(default_factory=list)
    #: filter mode -> (footer tag, entry ids shown)
    filters: dict[str, tuple[str, frozenset[str]]] = field(default_factory=dict)

    def note(self, message: str) -> None:
        self.problems.append(message)

    # facts derived from attempts (never from node.state) ---------------------------------
    def node_attempts(self, nid: str) -> list[dict[str, Any]]:
        return [self.attempts[a] for a in self.attempts_of.get(nid, ())]

    def node_status(self, nid: str) -> str | None:
        """The node's status as its attempts give it: in flight if any is, else the last one's."""
        aids = self.attempts_of.get(nid)
        if not aids:
            return None
        statuses = [self.facts[a][0] for a in aids]
        for s in statuses:
            if s in IN_FLIGHT:
                return s
        return statuses[-1]

    def settled_at(self, nid: str) -> float:
        """When the node settled (latest attempt end); +inf while in flight or without attempts."""
        aids = self.attempts_of.get(nid)
        if not aids or any(self.facts[a][0] in IN_FLIGHT for a in aids):
            return math.inf
        known = [self.facts[a][4] for a in aids if self.facts[a][4] is not None]
        return max(known) if known else -math.inf


# reading ------------------------------------------------------------------------------------
def _list(doc: dict[str, Any], key: str, run: OcpRun, required: bool = False) -> list[Any]:
    value = doc.get(key)
    if value is None:
        if key in doc:
            run.note(f"'{key}' is null; read as an empty list")
        elif required:
            run.note(f"no '{key}' list")
        return []
    if not isinstance(value, list):
        run.note(f"'{key}' is a {type(value).__name__}, not a list; ignored")
        return []
    return value


def _records(items: list[Any], what: str, run: OcpRun, key: str = "id") -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    seen: set[str] = set()
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            run.note(f"{what}[{i}] is not an object; skipped")
            continue
        rid = item.get(key)
        if not isinstance(rid, str) or not rid:
            run.note(f"{what}[{i}] has no {key}; skipped")
            continue
        if rid in seen:
            run.note(f"{what}[{i}]: duplicate id {rid!r}; the first one is shown")
            continue
        seen.add(rid)
        out.append((rid, item))
    return out


def read_run(doc: dict[str, Any], path: str | None = None, view: str = "dag") -> OcpRun:
    """Index an OCP document (anything that is an object with an ``ocp`` key)."""
    raw_version = doc.get("ocp")
    version = str(raw_version) if isinstance(raw_version, (str, int, float)) else ""
    run = OcpRun(doc=doc, path=path, version=version, view=view)
    if version not in KNOWN_VERSIONS:
        run.note(f"unknown OCP version {raw_version!r} (loomtui reads 0.1, 0.2, 0.3); read as 0.3")
    r = doc.get("run")
    if isinstance(r, dict):
        run.run = r
    else:
        run.note("no 'run' object")
    for gid, g in _records(_list(doc, "groups", run), "groups", run):
        run.groups[gid] = g
    for nid, n in _records(_list(doc, "nodes", run, required=True), "nodes", run):
        run.nodes[nid] = n
        run.node_order.append(nid)
        g = n.get("group")
        if isinstance(g, str):
            run.group_members[g].append(nid)
    missing: dict[str, None] = {}
    for aid, a in _records(_list(doc, "attempts", run), "attempts", run):
        run.attempts[aid] = a
        run.facts[aid] = T.facts_of(a)
        nid = a.get("node")
        if not isinstance(nid, str) or not nid:
            run.note(f"attempt {aid} names no node; shown under the run")
            nid = ""
        elif nid not in run.nodes:
            run.note(f"attempt {aid} is at node {nid!r}, which the document does not define")
            missing.setdefault(nid)
        run.attempts_of[nid].append(aid)
    run.missing_nodes = [m for m in missing]
    for aid_list in run.attempts_of.values():
        if len(aid_list) > 1:
            aid_list.sort(key=lambda a: _attempt_rank(run, a))
    for rid, art in _records(_list(doc, "artifacts", run), "artifacts", run):
        run.artifacts[rid] = art
    for i, e in enumerate(_list(doc, "edges", run)):
        if not isinstance(e, dict):
            run.note(f"edges[{i}] is not an object; skipped")
            continue
        run.edges.append(e)
    run.events = [e for e in _list(doc, "events", run) if isinstance(e, dict)]
    _read_dag(run)
    return run


def _attempt_rank(run: OcpRun, aid: str) -> tuple[float, float]:
    n = run.attempts[aid].get("n")
    started = run.facts[aid][3]
    return (n if isinstance(n, (int, float)) and not isinstance(n, bool) else math.inf,
            started if started is not None else math.inf)


def _read_dag(run: OcpRun) -> None:
    for i, e in enumerate(run.edges):
        kind = e.get("kind", "dep")
        if kind not in DAG_KINDS:
            continue
        a, b = e.get("from"), e.get("to")
        bad = [x for x in (a, b) if not isinstance(x, str) or x not in run.nodes]
        if bad:
            run.note(f"edges[{i}] ({kind} {a!r} → {b!r}) names an unknown node; ignored")
            continue
        if a == b:
            run.note(f"edges[{i}]: node {a!r} depends on itself; ignored")
            continue
        if a not in run.parents[b]:
            run.parents[b].append(a)
            run.children[a].append(b)


def topo_order(run: OcpRun) -> list[str]:
    """Nodes in dependency order (document order among the ready ones); nodes on a cycle come
    last, in document order, with a diagnostic naming them."""
    pos = {nid: i for i, nid in enumerate(run.node_order)}
    indeg = {nid: len(run.parents.get(nid, ())) for nid in run.node_order}
    ready = [pos[n] for n, d in indeg.items() if d == 0]
    heapq.heapify(ready)
    out: list[str] = []
    while ready:
        nid = run.node_order[heapq.heappop(ready)]
        out.append(nid)
        for c in run.children.get(nid, ()):
            indeg[c] -= 1
            if indeg[c] == 0:
                heapq.heappush(ready, pos[c])
    if len(out) < len(run.node_order):
        done = set(out)
        stuck = [n for n in run.node_order if n not in done]
        shown = ", ".join(stuck[:10]) + (" …" if len(stuck) > 10 else "")
        run.note(f"dep/fan_in edges form a cycle through {len(stuck)} node(s): {shown}; "
                 "they are shown after the others")
        out.extend(stuck)
    return out


# the tree -----------------------------------------------------------------------------------
def _group_parents(run: OcpRun) -> dict[str, str]:
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
            under[gid] = group_eid(p)
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
        return group_eid(g)
    run.note(f"node {nid}: group {g!r} is not defined; shown under the run")
    return RUN_ID


def _place_dag(run: OcpRun, order: list[str]) -> None:
    rank = {nid: i for i, nid in enumerate(order)}
    for nid in order:
        home = _home_of(run, nid)
        parents = run.parents.get(nid, [])
        candidates = [p for p in parents if rank[p] < rank[nid] and _home_of_quiet(run, p) == home]
        if candidates:
            best = max(candidates, key=lambda p: (run.settled_at(p), rank[p]))
            run.placed_under[nid] = node_eid(best)
            others = [p for p in parents if p != best]
        else:
            run.placed_under[nid] = home
            others = list(parents)
        if others:
            run.also_after[nid] = others


def _home_of_quiet(run: OcpRun, nid: str) -> str:
    g = run.nodes.get(nid, {}).get("group")
    return group_eid(g) if isinstance(g, str) and g in run.groups else RUN_ID


def _place_lineage(run: OcpRun, order: list[str]) -> None:
    """spawn/launch lineage: a node under the attempt that launched it (origin.launched_by),
    else under the node whose edge spawned or launched it; lineage may loop, so a placement
    that would close a loop is refused and the node stays at the top."""
    parent_of: dict[str, str] = {}
    via: dict[str, list[str]] = defaultdict(list)
    for e in run.edges:
        if e.get("kind") in LINEAGE_KINDS:
            a, b = e.get("from"), e.get("to")
            if isinstance(a, str) and isinstance(b, str) and a in run.nodes and b in run.nodes and a != b:
                if a not in via[b]:
                    via[b].append(a)
    for nid in order:
        launcher = None
        for a in run.node_attempts(nid):
            origin = a.get("origin")
            lb = origin.get("launched_by") if isinstance(origin, dict) else None
            if isinstance(lb, str) and lb in run.attempts:
                launcher = lb
                break
        if launcher is not None:
            owner = run.attempts[launcher].get("node")
            if isinstance(owner, str) and owner in run.nodes and owner != nid:
                parent_of[nid] = owner
                run.placed_under[nid] = attempt_eid(launcher)
        elif via.get(nid):
            parent_of[nid] = via[nid][0]
            run.placed_under[nid] = node_eid(via[nid][0])
        rest = [p for p in via.get(nid, []) if p != parent_of.get(nid)]
        if rest:
            run.also_after[nid] = rest
    for nid in order:  # refuse placements that close a loop
        seen = {nid}
        q = parent_of.get(nid)
        while q is not None and q not in seen:
            seen.add(q)
            q = parent_of.get(q)
        if q is not None:
            parent_of.pop(nid, None)
            run.placed_under[nid] = RUN_ID
            run.note(f"lineage of node {nid} loops; shown at the top of the lineage view")
    for nid in order:
        run.placed_under.setdefault(nid, RUN_ID)


def _place_retries(run: OcpRun) -> None:
    for nid, aids in run.attempts_of.items():
        earlier: set[str] = set()
        for aid in aids:
            cause = run.attempts[aid].get("cause")
            ref = cause.get("ref") if isinstance(cause, dict) else None
            if isinstance(ref, str) and ref:
                if ref in earlier:
                    run.retries[aid] = ref
                elif ref not in run.attempts:
                    run.note(f"attempt {aid}: cause.ref {ref!r} names no attempt")
                elif run.attempts[ref].get("node") == run.attempts[aid].get("node"):
                    run.note(f"attempt {aid}: cause.ref {ref!r} is not an earlier attempt at its node")
            earlier.add(aid)


def build_entries(run: OcpRun) -> list[dict[str, Any]]:
    """The run as pi-style entries, parents first; timestamps give the sibling order."""
    order = topo_order(run) if run.view == "dag" else list(run.node_order)
    if run.view == "dag":
        _place_dag(run, order)
    else:
        _place_lineage(run, order)
    _place_retries(run)
    kids: dict[str, list[str]] = defaultdict(list)
    made: dict[str, dict[str, Any]] = {}

    def add(eid: str, parent: str | None, entry: dict[str, Any]) -> None:
        entry["id"] = eid
        entry["parentId"] = parent
        made[eid] = entry
        if parent is not None:
            kids[parent].append(eid)

    add(RUN_ID, None, T.run_entry(run))
    if run.view == "dag":
        gparents = _group_parents(run)
        for gid in run.groups:
            add(group_eid(gid), gparents[gid], T.group_entry(run, gid))
    for nid in run.missing_nodes:
        add(node_eid(nid), RUN_ID, T.missing_node_entry(run, nid))
    node_entries = {nid: T.node_entry(run, nid) for nid in order}
    attempt_parent: dict[str, str] = {}
    for nid, aids in run.attempts_of.items():
        owner = node_eid(nid) if nid else RUN_ID
        for aid in aids:
            ref = run.retries.get(aid)
            attempt_parent[aid] = attempt_eid(ref) if ref else owner
    # nodes are made in dependency order and hung under their parents after the attempts, so
    # every parent lists its attempts before the nodes that depend on it
    for nid in order:
        add(node_eid(nid), None, node_entries[nid])
    for nid in list(run.attempts_of):
        for aid in run.attempts_of[nid]:
            add(attempt_eid(aid), attempt_parent[aid], T.attempt_entry(run, aid))
    for nid in order:
        parent = run.placed_under.get(nid, RUN_ID)
        if parent not in made:
            parent = RUN_ID
        made[node_eid(nid)]["parentId"] = parent
        kids[parent].append(node_eid(nid))
    # pre-order: every parent before its children; each parent's children are already in the
    # wanted order (group folders, then attempts and retries, then nodes in dependency order),
    # so one shared timestamp keeps them there (pi sorts siblings by time, ties in file order)
    ts = iso_ms(parse_iso(run.run.get("started_at")) or datetime(2000, 1, 1, tzinfo=UTC))
    out: list[dict[str, Any]] = []
    stack = [RUN_ID]
    while stack:
        eid = stack.pop()
        e = made[eid]
        e["timestamp"] = ts
        out.append(e)
        below = kids.get(eid)
        if below:
            stack.extend(reversed(below))
    if len(out) < len(made):  # unreachable only through a bug; never lose a row
        placed = {e["id"] for e in out}
        for eid, e in made.items():
            if eid not in placed:
                e["parentId"] = RUN_ID
                e["timestamp"] = ts
                out.append(e)
    return out


def build_session(doc: dict[str, Any], path: str | None, sha: str | None = None, view: str = "dag",
                  diagnostics: list[Diagnostic] | None = None, check: bool = True,
                  findings: list[Any] | None = None, checked_with: str = "") -> SessionManager:
    """A SessionManager for one OCP run (``view``: ``dag`` or ``lineage``); ``findings``: the
    conformance findings already known (another view of the same run), else checked now."""
    from loomtui.formats import ocp_check

    if view not in VIEWS:
        from loomtui.session.errors import SessionFormatError

        raise SessionFormatError(f"OCP runs have two views, {' and '.join(VIEWS)}; not {view!r}")
    diag = diagnostics if diagnostics is not None else []
    run = read_run(doc, path, view)
    if findings is not None:
        ocp_check.attach_findings(run, [ocp_check.Finding(*f) for f in findings])
        run.checked = checked_with
    elif check:
        ocp_check.attach_findings(run)
    entries = build_entries(run)
    run.filters = T.filters(run)
    for p in run.problems:
        diag.append(Diagnostic(0, p))
    for eid, fs in run.findings.items():
        for level, code, where, message in fs:
            diag.append(Diagnostic(0, f"{code} ({level}) {where} [{eid}]: {message}"))
    r = run.run
    title = r.get("title") if isinstance(r.get("title"), str) else None
    started = parse_iso(r.get("started_at"))
    header: dict[str, Any] = {
        "type": "session", "version": 3, "id": str(r.get("id") or ""),
        "timestamp": iso_ms(started or datetime(2000, 1, 1, tzinfo=UTC)),
        "cwd": str(r.get("workspace") or ""),
        "loom": {"format": OCP, "title": title or "", "view": view, "ocp": run.version,
                 "nodes": len(run.nodes), "attempts": len(run.attempts)},
    }
    source = Source(OCP, os.path.abspath(path) if path else None, labels="memory", document=run, leaf_moves=False,
                    filters=run.filters, describe=lambda eid: describe_row(run, eid))
    # the leaf is the run root: sibling order stays the dependency order
    return SessionManager.from_entries(header, entries, diag, session_name=T.run_name(run), source=source,
                                       leaf=RUN_ID)


def describe_row(run: OcpRun, eid: str) -> str | None:
    """The Markdown detail of a row (what every renderer shows: the pane, the HTML export)."""
    from loomtui.formats.ocp_detail import describe

    details = run.attempts.get(eid[2:]) if eid.startswith("a:") else None
    session = details.get("session") if details is not None else None
    return describe(run, eid, run.session_paths.get(session) if isinstance(session, str) else None)


def ocp_run(manager: SessionManager | None) -> OcpRun | None:
    """The OcpRun of a manager opened from an OCP document (None otherwise)."""
    run = manager.source.document if manager is not None else None
    return run if isinstance(run, OcpRun) else None
