"""An OCP run's rows come in display order (``ocp/tree.row_order``: pre-order, each parent's
children in the wanted order), so the tree view takes that order as it is instead of walking
the tree (``SessionIndex.mark_preorder``, ``view/flat.py``). The shortcut must not change
anything: the same order, subtree ends, classes, rows in every filter mode, search results and
folds as the walk gives, on every fixture, bad documents and a generated run, both views."""

from __future__ import annotations

from typing import Any

import pytest

from loomtui.formats.ocp import run as ocp
from loomtui.formats.ocp import source as ocp_source
from loomtui.view import flat as F
from loomtui.view.model import TreeModel
from tests.formats.test_ocp_split import DOCS

#: the same documents, opened over and over
pytestmark = pytest.mark.usefixtures("ocp_checked_once")

QUERIES = ("done", "a:", "n:1", "retry", "attempt failed", "zz-nothing", "g")


def flat_of(model: TreeModel) -> tuple[Any, ...]:
    flat = model.flat
    return (
        [e.id for e in flat.entries],
        [flat.end(p) for p in range(len(flat))],
        bytes(flat.classes),
        flat.head,
        flat.position(flat.leaf_id) if flat.leaf_id else None,
        sorted(e.id for e in flat.active),
        flat.tool_calls,
    )


def screens(model: TreeModel) -> list[list[str]]:
    """The rows of every filter mode, of a few searches, and with a few rows folded."""
    out = []
    for mode in model.modes:
        model.set_filter(mode)
        out.append(model.lines())
    model.set_filter("default")
    for q in QUERIES:
        model.set_query(q)
        out.append(model.lines())
    model.set_query("")
    for row in (0, 1, 3, 7, 20):
        model.select_row(row)
        model.fold_or_up()
        out.append(model.lines())
    for row in (5, 2):
        model.select_row(row)
        model.unfold_or_down()
        out.append(model.lines())
    return out


@pytest.mark.parametrize("view", ["dag", "lineage"])
@pytest.mark.parametrize("name,doc", DOCS, ids=[n for n, _ in DOCS])
def test_the_rows_order_is_taken_as_the_walk_would_give_it(name: str, doc: Any, view: str) -> None:
    sm = ocp_source.build_session(doc, None, view=view)
    assert sm.index.preorder_ends is not None  # the shortcut applies to every run
    fast = TreeModel(sm, page_size=40)
    ends, sm.index.preorder_ends = sm.index.preorder_ends, None
    walked = TreeModel(sm, page_size=40)
    assert flat_of(fast) == flat_of(walked)
    assert ends == [walked.flat.end(p) for p in range(len(walked.flat))]
    assert screens(fast) == screens(walked)


def test_the_order_is_walked_when_the_leaf_is_elsewhere_or_entries_change() -> None:
    doc = DOCS[-1][1]
    sm = ocp_source.build_session(doc, None)
    index = sm.index
    deep = index.entries[-1]
    assert F._preordered(index, deep.id, None, {}) is None  # its path is not the order's start
    model = TreeModel(sm)
    model.set_leaf(deep.id)
    ends = index.preorder_ends
    index.preorder_ends = None
    assert flat_of(model) == flat_of(TreeModel(sm, leaf_id=deep.id, use_manager_leaf=False))
    index.preorder_ends = ends
    assert not index.mark_preorder(ends[:-1])  # ends that do not fit are refused
    assert index.mark_preorder(ends)
    from loomtui.session.entries import Entry

    e = Entry("new", "run", "custom_message")
    e.timestamp = deep.timestamp
    index.add(e)
    assert index.preorder_ends is None  # any change drops it: the tree is walked again


def random_run(seed: int) -> dict[str, Any]:
    """A small run with everything that bends placement: retries of any earlier attempt (or of
    none), attempts at unknown nodes or none, launches, group cycles, duplicate ids."""
    import random

    r = random.Random(seed)
    n = r.randint(1, 12)
    nodes = [
        {"id": f"N{i}", "kind": r.choice(["impl", "review", "gate"]), "group": r.choice([None, "g0", "g1", "gx"])}
        for i in range(n)
    ]
    edges = [
        {
            "from": f"N{r.randrange(n + 1)}",
            "to": f"N{r.randrange(n + 1)}",
            "kind": r.choice(["dep", "fan_in", "spawn", "launch", "artifact"]),
        }
        for _ in range(r.randint(0, 15))
    ]
    attempts: list[dict[str, Any]] = []
    for j in range(r.randint(0, 30)):
        a: dict[str, Any] = {
            "id": f"A{j}",
            "node": r.choice([f"N{r.randrange(n)}", f"N{r.randrange(n)}", "M1", None]),
            "n": r.choice([j, r.randint(1, 5), None]),
            "status": r.choice(["done", "failed", "working"]),
            "started_at": f"2026-01-01T00:{r.randint(0, 59):02d}:00Z",
        }
        if attempts and r.random() < 0.6:
            a["cause"] = {"type": "sent_back", "ref": r.choice(attempts)["id"] if r.random() < 0.9 else "nope"}
        if attempts and r.random() < 0.3:
            a["origin"] = {"launched_by": r.choice(attempts)["id"]}
        attempts.append(a)
    if attempts and r.random() < 0.2:
        attempts.append(dict(attempts[0]))
    groups = [{"id": "g0"}, {"id": "g1", "parent": r.choice([None, "g0", "g1"])}]
    return {"ocp": "0.3", "run": {"id": "r"}, "groups": groups, "nodes": nodes, "edges": edges, "attempts": attempts}


@pytest.mark.parametrize("seed", range(200))
def test_every_row_hangs_where_placed_and_siblings_come_in_the_wanted_order(seed: int) -> None:
    """``row_order`` (attempts' rows made in bulk, a node's chain of retries taken as a block)
    against the rules themselves: every record once, under its placement, in pre-order, and
    each parent's children as group folders, missing nodes, attempts (node by node, in order),
    then nodes in dependency (or document) order."""
    from itertools import chain

    from loomtui.formats.ocp.tree import RUN_ID

    doc = random_run(seed)
    for view in ("dag", "lineage"):
        run, rows = ocp_source.place_run(doc, None, view, check=False)
        attempts = list(chain.from_iterable(run.attempts_of.values()))
        nodes = ocp.topo_order(run) if view == "dag" else run.node_order
        groups = list(run.groups) if view == "dag" else []
        rank = {
            **{"g:" + g: (0, i) for i, g in enumerate(groups)},
            **{"n:" + m: (1, i) for i, m in enumerate(run.missing_nodes)},
            **{"a:" + a: (2, i) for i, a in enumerate(attempts)},
            **{"n:" + nid: (3, i) for i, nid in enumerate(nodes)},
        }
        assert len(rows) == len({r[0] for r in rows}) and sorted(r[0] for r in rows[1:]) == sorted(rank)
        ancestors: list[str] = []
        seen: dict[str, list[tuple[int, int]]] = {}
        for eid, parent, *_ in rows:
            while ancestors and ancestors[-1] != parent:
                ancestors.pop()  # a subtree ends only once: its rows are contiguous
            assert (parent is None) == (eid == RUN_ID) and (parent is None or ancestors)
            ancestors.append(eid)
            if parent is not None:
                seen.setdefault(parent, []).append(rank[eid])
            kind, rid = eid[:2], eid[2:]
            if kind == "a:":
                ref, nid = run.retries.get(rid), next(k for k, v in run.attempts_of.items() if rid in v)
                assert parent == ("a:" + ref if ref else "n:" + nid if nid else RUN_ID)
            elif kind == "n:" and rid in run.nodes:
                placed = run.placed_under.get(rid, RUN_ID)
                assert parent == (placed if placed in rank or placed == RUN_ID else RUN_ID)
        for parent, ranks in seen.items():
            assert ranks == sorted(ranks), (view, parent)
