"""OCP run documents (Orchestration Context Protocol v0.1/v0.2/v0.3) read as a loom.

A run becomes the same session model every other loom becomes (see docs/formats.md, "OCP run
documents"): ``custom_message`` rows, made by ``tree.py`` (which writes a row's text only
when it is first read) and given to the browser by ``source.py``:

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

The leaf of the package: the rows, texts, details, check and split read import this module; it
imports only the texts (``text.py``), which import it for types alone.
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict
from dataclasses import dataclass, field
from itertools import islice
from operator import lt
from typing import Any

from loomtui.formats.ocp import text as T
from loomtui.session.manager import SessionManager
from loomtui.view.words import counted

OCP = "ocp"
#: the modes a run may have (``ocp/filters.RunFilters``): fixed ones, and ones named by model or harness
FIXED_MODES, NAMED_MODE_PREFIXES = ("failed", "gates", "in-flight", "findings"), ("model:", "harness:")
KNOWN_VERSIONS = ("0.1", "0.2", "0.3")
VIEWS = ("dag", "lineage")
DAG_KINDS = frozenset(("dep", "fan_in"))
IN_FLIGHT = frozenset(("queued", "working"))
FAILED = frozenset(("failed", "rejected"))

RUN_ID = "run"
_STR = frozenset((str,))
_INT = frozenset((int,))
_DICT = frozenset((dict,))


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
    #: attempt id -> when it ran (ocp_text.times_of), made when first asked for
    times: dict[str, Any] = field(default_factory=dict)
    node_tot: dict[str, Any] = field(default_factory=dict)
    run_tot: Any = None  # the run's totals, once made (ocp_text.run_totals)
    run_timing: Any = None  # the run's timing, once made (ocp_text.run_timing)
    #: what gives the run's timing made elsewhere (the child that placed the run), or None
    timing_later: Any = None
    group_tot: dict[str, Any] = field(default_factory=dict)  # group id -> its attempts' totals
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
        times = self.times
        known = [end for a in aids if (end := times[a][1]) is not None]
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
    """(id, record) for each object with a string id, the first of each id; a note for the rest."""
    try:
        ids = [item[key] for item in items]  # raises unless every item is an object with an id
    except (TypeError, KeyError, IndexError):
        ids = None
    if ids is not None and set(map(type, ids)) <= _STR:
        distinct = set(ids)
        if len(distinct) == len(ids) and "" not in distinct:
            return list(zip(ids, items))
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


def read_run(doc: dict[str, Any], path: str | None = None, view: str = "dag", lazy_facts: bool = False) -> OcpRun:
    """Index an OCP document (anything that is an object with an ``ocp`` key). ``lazy_facts``:
    an attempt's facts are made when first asked for (placing a run needs few of them; what
    iterates ``run.facts`` sees only those made so far)."""
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
    run.groups = dict(_records(_list(doc, "groups", run), "groups", run))
    nodes = _records(_list(doc, "nodes", run, required=True), "nodes", run)
    run.nodes = dict(nodes)
    run.node_order = list(run.nodes)
    members = run.group_members
    for nid, n in nodes:
        g = n.get("group")
        if isinstance(g, str):
            members[g].append(nid)
    _read_attempts(run, _records(_list(doc, "attempts", run), "attempts", run), lazy_facts)
    run.artifacts = dict(_records(_list(doc, "artifacts", run), "artifacts", run))
    edges = _list(doc, "edges", run)
    if set(map(type, edges)) <= _DICT:
        run.edges = list(edges)
    else:
        for i, e in enumerate(edges):
            if not isinstance(e, dict):
                run.note(f"edges[{i}] is not an object; skipped")
                continue
            run.edges.append(e)
    run.events = [e for e in _list(doc, "events", run) if isinstance(e, dict)]
    _read_dag(run)
    return run


def _read_attempts(run: OcpRun, records: list[tuple[str, dict[str, Any]]], lazy_facts: bool = False) -> None:
    """The attempts, their facts, and each node's attempts in order (``_attempt_rank``)."""
    run.attempts = attempts = dict(records)
    facts_of = T.facts_of
    run.facts = MadeOnRead(attempts, facts_of) if lazy_facts else {aid: facts_of(a) for aid, a in records}
    run.times = MadeOnRead(attempts, T.times_of)
    nodes, attempts_of = run.nodes, run.attempts_of
    missing: dict[str, None] = {}
    for aid, a in records:
        nid = a.get("node")
        if type(nid) is not str or nid not in nodes:
            if not isinstance(nid, str) or not nid:
                run.note(f"attempt {aid} names no node; shown under the run")
                nid = ""
            elif nid not in nodes:
                run.note(f"attempt {aid} is at node {nid!r}, which the document does not define")
                missing.setdefault(nid)
        attempts_of[nid].append(aid)
    run.missing_nodes = list(missing)
    for aid_list in attempts_of.values():
        if len(aid_list) > 1:
            ns = [attempts[a].get("n") for a in aid_list]
            # numbered 1, 2, 3, …: in order already (the usual case), no sort key to make
            if set(map(type, ns)) != _INT or not all(map(lt, ns, islice(ns, 1, None))):
                aid_list.sort(key=lambda a: _attempt_rank(run, a))


class MadeOnRead(dict[str, Any]):
    """attempt id -> ``make`` of its record, made when first asked for (iterating it sees only
    the ones made so far)."""

    def __init__(self, attempts: dict[str, dict[str, Any]], make: Any) -> None:
        super().__init__()
        self._attempts = attempts
        self._make = make

    def __missing__(self, aid: str) -> Any:
        value = self[aid] = self._make(self._attempts[aid])
        return value


def _attempt_rank(run: OcpRun, aid: str) -> tuple[float, float]:
    n = run.attempts[aid].get("n")
    started = run.times[aid][0]
    return (
        n if isinstance(n, (int, float)) and not isinstance(n, bool) else math.inf,
        started if started is not None else math.inf,
    )


def _read_dag(run: OcpRun) -> None:
    nodes, parents, children = run.nodes, run.parents, run.children
    for i, e in enumerate(run.edges):
        kind = e.get("kind", "dep")
        if not isinstance(kind, str) or kind not in DAG_KINDS:  # any other value: the schema's finding
            continue
        a, b = e.get("from"), e.get("to")
        if not (type(a) is str and type(b) is str and a != b and a in nodes and b in nodes):  # unusual: say why
            if not isinstance(a, str) or not isinstance(b, str) or a not in nodes or b not in nodes:
                run.note(f"edges[{i}] ({kind} {a!r} → {b!r}) names an unknown node; ignored")
                continue
            if a == b:
                run.note(f"edges[{i}]: node {a!r} depends on itself; ignored")
                continue
        up = parents[b]
        if a not in up:
            up.append(a)
            children[a].append(b)


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
        run.note(
            f"dep/fan_in edges form a cycle through {counted(len(stuck), 'node')}: {shown}; they are shown after the others"
        )
        out.extend(stuck)
    return out


def ocp_run(manager: SessionManager | None) -> OcpRun | None:
    """The OcpRun of a manager opened from an OCP document (None otherwise)."""
    run = manager.source.document if manager is not None else None
    return run if isinstance(run, OcpRun) else None
