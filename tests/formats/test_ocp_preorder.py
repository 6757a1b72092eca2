"""An OCP run's rows come in display order (``ocp_tree.row_order``: pre-order, each parent's
children in the wanted order), so the tree view takes that order as it is instead of walking
the tree (``SessionIndex.mark_preorder``, ``view/flat.py``). The shortcut must not change
anything: the same order, subtree ends, classes, rows in every filter mode, search results and
folds as the walk gives, on every fixture, bad documents and a generated run, both views."""

from __future__ import annotations

from typing import Any

import pytest

from loomtui.formats import ocp
from loomtui.view import flat as F
from loomtui.view.model import TreeModel
from tests.formats.test_ocp_split import DOCS

QUERIES = ("done", "a:", "n:1", "retry", "attempt failed", "zz-nothing", "g")


def flat_of(model: TreeModel) -> tuple[Any, ...]:
    flat = model.flat
    return ([e.id for e in flat.entries], [flat.end(p) for p in range(len(flat))], bytes(flat.classes), flat.head,
            flat.position(flat.leaf_id) if flat.leaf_id else None, sorted(e.id for e in flat.active),
            flat.tool_calls)


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
    sm = ocp.build_session(doc, None, view=view)
    assert sm.index.preorder_ends is not None  # the shortcut applies to every run
    fast = TreeModel(sm, page_size=40)
    ends, sm.index.preorder_ends = sm.index.preorder_ends, None
    walked = TreeModel(sm, page_size=40)
    assert flat_of(fast) == flat_of(walked)
    assert ends == [walked.flat.end(p) for p in range(len(walked.flat))]
    assert screens(fast) == screens(walked)


def test_the_order_is_walked_when_the_leaf_is_elsewhere_or_entries_change() -> None:
    doc = DOCS[-1][1]
    sm = ocp.build_session(doc, None)
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
