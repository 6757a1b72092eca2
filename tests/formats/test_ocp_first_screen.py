"""A big run's first screen, made by the child before the rest (``ocp/split.first_screen``,
``ocp/tree.first_screen``), is exactly the whole run's first screen: the same rows, texts and
tree drawing, on every fixture, on bad documents, on generated and random runs, both views and
any number of rows; and it changes nothing in what the open gives after it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from loomtui.formats.detect import open_any
from loomtui.formats.ocp import run as ocp
from loomtui.formats.ocp import source as ocp_source
from loomtui.formats.ocp import split as ocp_split
from loomtui.formats.ocp import tree as ocp_tree
from loomtui.session.forked import can_fork
from loomtui.view.model import TreeModel
from tests.formats.test_ocp_preorder import random_run
from tests.formats.test_ocp_split import DOCS, generated, open_with_child, snapshot

pytestmark = [
    pytest.mark.skipif(not can_fork(), reason="needs fork, two CPUs and no other thread"),
    pytest.mark.usefixtures("ocp_checked_once"),  # the same documents, opened over and over
]

SIZES = (1, 2, 3, 5, 8, 13, 40, 200)


def made_here(doc: Any, view: str, k: int) -> ocp_split.FirstScreen:
    """What the child sends as its first message, made in this process (its own code)."""
    facts = ocp_split._facts(doc)
    child = ocp_split._Child(doc, None, view, k, facts, ocp_split._early_total(facts))
    first = ocp_split._unpacked(child.first(), view)
    assert first is not None and child.walk is not None  # made, and the walk left to go on
    return ocp_split.FirstScreen(*first)


def first_lines(first: ocp_split.FirstScreen) -> list[str]:
    model = TreeModel(ocp_source.first_screen_session(None, first.rows, first.timestamp), page_size=40)
    return [model.row_text(i) for i in range(first.shown)]


def whole_lines(doc: Any, view: str) -> tuple[list[str], int]:
    sm = ocp_source.build_session(doc, None, view=view)
    model = TreeModel(sm, page_size=40)
    return [model.row_text(i) for i in range(len(model))], len(sm.index.entries)


@pytest.mark.parametrize("view", ["dag", "lineage"])
@pytest.mark.parametrize("name,doc", DOCS, ids=[n for n, _ in DOCS])
def test_the_first_screen_is_the_whole_runs_first_screen(name: str, doc: Any, view: str) -> None:
    whole, count = whole_lines(doc, view)
    for k in SIZES:
        first = made_here(doc, view, k)
        assert first.shown == min(k, count) and first.total == count
        assert first_lines(first) == whole[: first.shown], k


@pytest.mark.parametrize("seed", range(60))
def test_the_first_screen_of_random_runs_is_theirs(seed: int) -> None:
    """Random runs bend placement every way (retries of any earlier attempt, attempts at no
    node, launches, group cycles): the rows a first screen shows are still drawn as in the
    whole run (every gutter, connector and fold marker)."""
    doc = random_run(seed)
    for view in ("dag", "lineage"):
        whole, _count = whole_lines(doc, view)
        for k in SIZES[:7]:
            assert first_lines(made_here(doc, view, k)) == whole[:k], (view, k)


def test_the_rest_of_the_walk_gives_the_rows_in_order() -> None:
    """The walk a first screen began goes on where it stopped: together, ``row_order``."""
    doc = generated()
    for k in (0, 1, 7, 200):
        run = ocp.read_run(doc, None, "dag")
        walk = ocp_tree.RowWalk(run, ocp_tree.place(run))
        _shown, taken, _pending = ocp_tree.first_screen(walk, k)
        rest = taken + list(walk)
        assert [r[:3] + r[4:] for r in rest] == [r[:3] + r[4:] for r in ocp_tree.row_order(ocp.read_run(doc, None))]


def write(tmp_path: Path, doc: Any) -> Path:
    path = tmp_path / "run.ocp.json"
    path.write_bytes(orjson.dumps(doc))
    return path


@pytest.mark.parametrize("view", ["dag", "lineage"])
def test_the_child_sends_the_first_screen_first_and_the_open_is_unchanged(
    tmp_path: Path, view: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = generated()
    path = write(tmp_path, doc)
    here = snapshot(open_any(str(path), tree_id=None if view == "dag" else view))
    whole, count = whole_lines(doc, view)
    assert ocp_split.prestart(str(path), view, min_bytes=1)
    first = ocp_split.first_screen(str(path), view)
    assert first is not None and first.total == count and first.shown >= ocp_split.FIRST_ROWS
    assert first_lines(first) == whole[: first.shown]
    assert ocp_split.first_screen(str(path), view) is None  # taken once
    sm = open_any(str(path), tree_id=None if view == "dag" else view)
    assert snapshot(sm) == here


def test_no_first_screen_for_another_view_a_changed_file_or_no_child(tmp_path: Path) -> None:
    path = write(tmp_path, generated())
    assert ocp_split.first_screen(str(path)) is None  # no child
    assert ocp_split.prestart(str(path), "dag", min_bytes=1)
    assert ocp_split.first_screen(str(path), "lineage") is None
    path.write_bytes(path.read_bytes() + b" ")
    assert ocp_split.first_screen(str(path)) is None
    open_any(str(path))  # the child is let go; the file opens as usual


def test_a_first_screen_that_fails_leaves_the_child_to_place_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child's first screen fails (an empty first message): no first screen, and its answer
    places the run anew, as without one."""
    doc = generated()
    path = write(tmp_path, doc)
    here = snapshot(open_any(str(path)))

    def broken(*_args: Any) -> Any:
        raise RuntimeError("broken")

    monkeypatch.setattr(ocp_tree, "first_screen", broken)
    sm, used = open_with_child(path, "dag", monkeypatch)  # the answer skips the empty first message
    assert used and snapshot(sm) == here
    assert ocp_split.prestart(str(path), "dag", min_bytes=1)
    assert ocp_split.first_screen(str(path)) is None
    sm, used = open_with_child(path, "dag", monkeypatch)
    assert used and snapshot(sm) == here


def test_a_run_that_drops_attempts_makes_its_own_facts_in_the_child(tmp_path: Path) -> None:
    """A duplicate attempt: the facts made before the fork (by position) are not the run's; the
    child makes its own, and the first screen still shows the run's totals."""
    doc = generated()
    doc["attempts"].append(dict(doc["attempts"][0]))
    path = write(tmp_path, doc)
    whole, _count = whole_lines(doc, "dag")
    assert ocp_split.prestart(str(path), "dag", min_bytes=1)
    first = ocp_split.first_screen(str(path))
    assert first is not None and first_lines(first) == whole[: first.shown]
    open_any(str(path))
