"""Archived branches: append-only records, hidden subtrees, the show toggle, refusals."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from loomtui.cli import main
from loomtui.session.manager import SessionManager
from loomtui.view.archive import ARCHIVE_TYPE, ArchiveRefused, ArchiveState, set_archived
from loomtui.view.model import TreeModel
from tests.shared_material import SHARED, needs_shared

BROWSE = SHARED / "fixtures" / "pi" / "dnouri-browse-session.jsonl"


@pytest.fixture()
def browse(tmp_path: Path) -> Path:
    f = tmp_path / "s.jsonl"
    shutil.copy(BROWSE, f)
    return f


def ids(model: TreeModel) -> list[str]:
    return [model.entry_at(i).id for i in range(len(model))]


@needs_shared()
def test_archive_appends_one_custom_entry_parented_on_the_resume_leaf(browse: Path) -> None:
    before = browse.read_bytes()
    sm = SessionManager.open(str(browse))
    last = sm.index.leaf_id
    new_id = set_archived(sm, "aa000019", True)
    after = browse.read_bytes()
    assert after.startswith(before)  # appended, never rewritten
    record = json.loads(after[len(before) :])
    assert record["type"] == "custom" and record["customType"] == ARCHIVE_TYPE
    assert record["data"] == {"targetId": "aa000019", "archived": True}
    assert record["parentId"] == last and record["id"] == new_id


@needs_shared()
def test_archived_subtree_is_hidden_and_the_toggle_shows_it(browse: Path) -> None:
    sm = SessionManager.open(str(browse))
    model = TreeModel(sm)
    shown = ids(model)
    assert "aa000019" in shown and "aa00001e" in shown
    set_archived(sm, "aa000019", True)
    model.entries_changed(sm.index.entries[-1:], leaf_id=sm.get_leaf_id())
    subtree = {"aa000019", "aa00001a", "aa00001b", "aa00001c", "aa00001d", "aa00001e"}
    assert ids(model) == [x for x in shown if x not in subtree]
    model.set_show_archived(True)
    assert ids(model) == shown
    row = model.row_of("aa000019")
    assert row is not None and "[archived] assistant: Trying the other angle" in model.row_text(row)
    assert model.footer().endswith("[+archived]")
    # the bulk row path agrees with the segments
    assert model.row_line(row, 200) == model.row_text(row)


@needs_shared()
def test_restore_and_last_record_wins(browse: Path) -> None:
    sm = SessionManager.open(str(browse))
    set_archived(sm, "aa000019", True)
    set_archived(sm, "aa000019", False)
    assert not ArchiveState(sm).ids()
    reopened = TreeModel(SessionManager.open(str(browse)))
    assert reopened.row_of("aa000019") is not None


@needs_shared()
def test_archive_is_refused_on_the_active_path(browse: Path) -> None:
    sm = SessionManager.open(str(browse))
    before = browse.read_bytes()
    with pytest.raises(ArchiveRefused, match="active path"):
        set_archived(sm, "aa000009", True)
    # the path the view shows after a leaf move is protected too
    with pytest.raises(ArchiveRefused):
        set_archived(sm, "aa00001b", True, view_leaf="aa00001e")
    assert browse.read_bytes() == before


@needs_shared()
def test_moved_leaf_is_kept_and_pi_resumes_where_it_did(browse: Path) -> None:
    sm = SessionManager.open(str(browse))
    sm.branch("aa00001e")
    new_id = set_archived(sm, "aa00000e", True, view_leaf="aa00001e")
    assert sm.get_leaf_id() == "aa00001e"  # the in-memory leaf stays
    reopened = SessionManager.open(str(browse))
    assert reopened.get_leaf_id() == new_id
    original = SessionManager.open(str(BROWSE))
    assert [e.id for e in reopened.index.path_to(reopened.get_leaf_id())][:-1] == [
        e.id for e in original.index.path_to(original.get_leaf_id())
    ]


@needs_shared()
def test_omp_archive_records_are_honoured(tmp_path: Path) -> None:
    f = tmp_path / "omp.jsonl"
    lines = BROWSE.read_text().splitlines()
    last = json.loads(lines[-1])["id"]
    lines.append(
        json.dumps(
            {
                "type": "archive",
                "id": "ff000001",
                "parentId": last,
                "timestamp": "2026-03-01T10:00:00.000Z",
                "targetId": "aa000019",
                "archived": True,
            }
        )
    )
    f.write_text("\n".join(lines) + "\n")
    model = TreeModel(SessionManager.open(str(f)))
    assert model.row_of("aa000019") is None


@needs_shared()
def test_tree_command_hides_archived_unless_asked(browse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    set_archived(SessionManager.open(str(browse)), "aa000019", True)
    main(["tree", str(browse), "--ids", "--width", "200"])
    assert "aa00001e" not in capsys.readouterr().out
    main(["tree", str(browse), "--ids", "--width", "200", "--show-archived"])
    out = capsys.readouterr().out
    assert "aa00001e\t" in out and "[archived] assistant: Trying" in out


@needs_shared()
def test_hoist_shows_only_the_subtree_and_search_works_inside(browse: Path) -> None:
    model = TreeModel(SessionManager.open(str(browse)))
    assert model.hoist("aa000019")
    assert ids(model) == ["aa000019", "aa00001a", "aa00001b", "aa00001c", "aa00001d", "aa00001e"]
    assert model.row_text(0).startswith("› assistant: Trying") or model.row_text(0).startswith("  assistant: Trying")
    assert model.footer().endswith("[hoisted]")
    model.type_text("log")
    assert ids(model) == ["aa000019"]
    model.set_filter("user-only")
    assert ids(model) == []
    model.set_filter("default")
    model.type_text("")
    assert model.hoist(None)
    fresh = TreeModel(SessionManager.open(str(browse)))
    fresh.type_text("log")
    assert ids(model) == ids(fresh) and len(ids(fresh)) > 2  # the same search, everywhere
    assert not model.footer().endswith("[hoisted]")
    assert not model.hoist("nope")


@needs_shared()
def test_hoist_keeps_the_selection_inside(browse: Path) -> None:
    model = TreeModel(SessionManager.open(str(browse)))
    model.select_id("aa00001c")
    model.hoist("aa000019")
    assert model.selected_id == "aa00001c"
    model.select_id("aa000019")
    model.hoist("aa000008")
    assert model.selected_id == "aa000019"
    model.hoist("aa00000f")
    assert model.selected_id == "aa00000f"  # outside: the hoisted entry


@needs_shared()
def test_mark_shows_in_the_row() -> None:
    model = TreeModel(SessionManager.open(str(BROWSE)))
    model.select_id("aa000019")
    assert model.toggle_mark() == "aa000019"
    row = model.row_of("aa000019")
    assert row is not None
    assert model.row_text(row).startswith("› └⊟ ✦ assistant: Trying")
    assert model.row_line(row, 200) == model.row_text(row)
    assert model.toggle_mark() is None
