"""``Flat`` makes its id -> position map only when first asked for (view/flat.py): printing the
tree asks only for the leaf's position, which flatten knows; every other question, and a live
insert, gives the same positions as a map made at once."""

from __future__ import annotations

import shutil
from pathlib import Path

from loomtui.session.entries import Entry
from loomtui.session.manager import SessionManager
from loomtui.view import flat as F
from loomtui.view.model import TreeModel
from tests.agent_writer import AgentWriter
from tests.session.test_split import adversarial_session
from tests.shared_material import FIXTURES, needs_shared

BROWSE = FIXTURES / "pi" / "dnouri-browse-session.jsonl"


@needs_shared()
def test_positions_are_those_of_the_flattened_order_and_made_only_when_asked(tmp_path: Path) -> None:
    path = adversarial_session(tmp_path / "s.jsonl", copies=2)
    manager = SessionManager.open(str(path))
    index = manager.index
    leaves = [manager.get_leaf_id(), index.entries[len(index.entries) // 2].id, None]
    for leaf in leaves:
        flat = F.flatten(index, leaf)
        if leaf is not None:
            assert flat.position(leaf) == flat.entries.index(index.by_id[leaf])
        assert flat._pos is None  # the leaf's position did not need the map
        expected = {}
        for i, e in enumerate(flat.entries):
            expected.setdefault(e.id, i)
        assert {eid: flat.position(eid) for eid in expected} == expected
        assert flat._pos is not None
        assert "no such id" not in flat and flat.position("no such id") is None


@needs_shared()
def test_printing_the_tree_does_not_make_the_map(tmp_path: Path) -> None:
    path = adversarial_session(tmp_path / "s.jsonl", copies=2)
    model = TreeModel(SessionManager.open(str(path)), use_manager_leaf=True)
    rows = list(model.plain_rows(120))
    assert len(rows) == len(model) > 10
    assert model.flat._pos is None


@needs_shared()
def test_a_live_append_after_a_lazy_start_keeps_every_position(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    shutil.copyfile(BROWSE, path)
    manager = SessionManager.open(str(path))
    model = TreeModel(manager, use_manager_leaf=True)
    new = AgentWriter(path).append_message({"role": "user", "content": "appended", "timestamp": 11})
    model.entries_changed(manager.refresh(), leaf_id=manager.get_leaf_id())
    assert manager.get_leaf_id() == new
    fresh = F.flatten(manager.index, new)
    assert [e.id for e in model.flat.entries] == [e.id for e in fresh.entries]
    assert {e.id: model.flat.position(e.id) for e in fresh.entries} == {
        e.id: fresh.position(e.id) for e in fresh.entries
    }
    assert model.flat.position(new) == fresh.entries.index(manager.index.by_id[new])


@needs_shared()
def test_an_insert_into_a_lazy_flat_makes_the_map_first(tmp_path: Path) -> None:
    path = adversarial_session(tmp_path / "s.jsonl", copies=1)
    manager = SessionManager.open(str(path))
    leaf = manager.get_leaf_id()
    flat = F.flatten(manager.index, leaf)
    assert flat._pos is None
    extra = Entry("inserted", leaf, "custom")
    at = flat.insert_at_head(extra, F.OTHER)
    assert flat.entries[at] is extra and flat.position("inserted") == at
    first: dict[str, int] = {}
    for i, e in enumerate(flat.entries):
        first.setdefault(e.id, i)
    assert {eid: flat.position(eid) for eid in first} == first
