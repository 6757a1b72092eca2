"""Saving label edits back into OpenLoom / socketteer files as bookmarks."""

from __future__ import annotations

import json
import shutil
import zipfile

import pytest
from loomkit import OPENLOOM_V1, PI_SESSION, PNG, SOCKETTEER_DEMO, write_json

from loomtui.formats.base.common import dump_like
from loomtui.formats.detect import open_any
from loomtui.formats.looms.bookmarks import pending_changes, save_bookmarks
from loomtui.session.errors import WriteConflict, WriteRefused
from tests.shared_material import needs_shared


def labels(sm):
    return {k: v[0] for k, v in sm.index.labels.items()}


@needs_shared()
def test_fixture_styles_are_reproduced_byte_for_byte():
    for path in (OPENLOOM_V1, SOCKETTEER_DEMO):
        raw = path.read_bytes()
        assert dump_like(raw, json.loads(raw)) == raw


def test_v2_labels_are_saved_as_bookmarks_keeping_a_backup(tmp_path, v2doc):
    p = write_json(tmp_path / "doc.json", v2doc)
    original = p.read_bytes()
    sm = open_any(str(p))
    sm.append_label_change("a", "turn")
    sm.append_label_change("c", "bookmark")
    sm.append_label_change("r", None)
    assert pending_changes(sm) == {"r": None, "a": "turn", "c": "bookmark"}
    result = save_bookmarks(sm)
    assert (result.changed, result.backup) == (3, str(p) + ".bak")
    assert (tmp_path / "doc.json.bak").read_bytes() == original
    saved = json.loads(p.read_bytes())
    nodes = saved["trees"][0]["nodes"]
    assert nodes["a"]["meta"] == {"bookmarked": True, "bookmarkLabel": "turn"}
    assert nodes["c"]["meta"] == {
        "excluded": True,
        "tags": ["keeper"],
        "rating": 2,
        "note": "good turn",
        "bookmarked": True,
    }
    assert nodes["r"]["meta"] == {}
    expected = v2doc
    for k in ("a", "c", "r"):
        expected["trees"][0]["nodes"][k] = nodes[k]
    assert saved == expected
    assert p.read_text().startswith('{\n  "format"')  # indent kept
    assert pending_changes(sm) == {}
    assert labels(open_any(str(p))) == {"a": "turn", "c": "bookmark"}


def test_second_save_keeps_the_first_backup(tmp_path, v2doc):
    p = write_json(tmp_path / "doc.json", v2doc)
    sm = open_any(str(p))
    sm.append_label_change("a", "one")
    save_bookmarks(sm)
    sm.append_label_change("a", "two")
    assert save_bookmarks(sm).backup == str(p) + ".bak.2"
    assert json.loads((tmp_path / "doc.json.bak.2").read_bytes())["trees"][0]["nodes"]["a"]["meta"] == {
        "bookmarked": True,
        "bookmarkLabel": "one",
    }
    assert labels(open_any(str(p)))["a"] == "two"


def test_nothing_to_save_writes_nothing(tmp_path, v2doc):
    p = write_json(tmp_path / "doc.json", v2doc)
    sm = open_any(str(p))
    sm.append_label_change("a", "x")
    sm.append_label_change("a", None)
    assert (save_bookmarks(sm).changed, save_bookmarks(sm).backup) == (0, None)
    assert not (tmp_path / "doc.json.bak").exists()


def test_file_changed_on_disk_is_refused(tmp_path, v2doc):
    p = write_json(tmp_path / "doc.json", v2doc)
    sm = open_any(str(p))
    sm.append_label_change("a", "x")
    p.write_text(p.read_text() + " ")
    with pytest.raises(WriteConflict, match="changed on disk since it was opened"):
        save_bookmarks(sm)
    assert not (tmp_path / "doc.json.bak").exists()


@needs_shared()
def test_pi_sessions_have_no_bookmarks_to_save():
    with pytest.raises(WriteRefused, match="pi sessions keep label entries"):
        save_bookmarks(open_any(str(PI_SESSION)))


@needs_shared()
def test_v1_bookmarks_update_the_node_and_the_bookmarked_nodes_copy(tmp_path):
    p = shutil.copy(OPENLOOM_V1, tmp_path / "v1.json")
    before = json.loads(OPENLOOM_V1.read_bytes())
    sm = open_any(str(p))
    root = "3A9C24F6-5791-4C5A-A9A7-F31C65064DA9"
    old = next(iter(before["bookmarkedNodes"]))
    sm.append_label_change(root, "the start")
    sm.append_label_change(old, None)
    save_bookmarks(sm)
    after = json.loads(p.read_bytes())
    assert after["nodes"][root]["isBookmarked"] is True
    assert after["nodes"][root]["bookmarkTitle"] == "the start"
    assert after["bookmarkedNodes"][root] == after["nodes"][root]
    assert after["nodes"][old]["isBookmarked"] is False and "bookmarkTitle" not in after["nodes"][old]
    assert old not in after["bookmarkedNodes"]
    # everything else is as it was, in the original style
    expected = before
    expected["nodes"][root] = after["nodes"][root]
    expected["nodes"][old] = after["nodes"][old]
    expected["bookmarkedNodes"] = after["bookmarkedNodes"]
    assert after == expected
    assert p.read_bytes() == dump_like(OPENLOOM_V1.read_bytes(), after)
    back = open_any(str(p))
    assert back.get_label(root) == "the start" and back.get_label(old) is None


@needs_shared()
def test_socketteer_bookmarks_are_tags(tmp_path):
    p = shutil.copy(SOCKETTEER_DEMO, tmp_path / "demo.json")
    sm = open_any(str(p))
    marked = next(iter(sm.index.labels))
    target = "af4931cc-165f-11ec-b847-acde48001122"
    sm.append_label_change(target, "welcome")
    sm.append_label_change(marked, None)
    save_bookmarks(sm)
    back = open_any(str(p))
    assert back.get_label(target) == "welcome"
    assert back.get_label(marked) is None
    assert len(back.index.labels) == 22
    doc = json.loads(p.read_bytes())
    node = doc["root"]["children"][0]
    assert (node["id"], node["tags"], node["loomtui_label"]) == (target, ["bookmark"], "welcome")
    assert p.read_text().startswith('{\n    "root"')  # socketteer's 4-space indent


def test_bundle_bookmarks_rewrite_only_the_document(tmp_path, v2doc):
    p = tmp_path / "b.zip"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("tree.openloom", json.dumps(v2doc, indent=2))
        z.writestr("pic.png", PNG)
    sm = open_any(str(p))
    sm.append_label_change("m", "end")
    save_bookmarks(sm)
    with zipfile.ZipFile(p) as z:
        assert z.namelist() == ["tree.openloom", "pic.png"]
        assert z.read("pic.png") == PNG
        doc = json.loads(z.read("tree.openloom"))
    assert doc["trees"][0]["nodes"]["m"]["meta"] == {"bookmarked": True, "bookmarkLabel": "end"}
    assert open_any(str(p)).get_label("m") == "end"


def test_export_after_saving_carries_the_saved_bookmarks(tmp_path, v2doc):
    from loomtui.formats.looms.export import export_openloom

    p = write_json(tmp_path / "doc.json", v2doc)
    sm = open_any(str(p))
    sm.append_label_change("a", "kept")
    save_bookmarks(sm)
    export_openloom(sm, str(tmp_path / "out.openloom"))
    out = json.loads((tmp_path / "out.openloom").read_bytes())
    assert out["trees"][0]["nodes"]["a"]["meta"] == {"bookmarked": True, "bookmarkLabel": "kept"}


@needs_shared()
def test_a_bookmark_is_not_counted_as_an_entry(tmp_path):
    """The header went from 764 to 765 entries after a bookmark was set (and saved) on the
    socketteer loom: a loom's label is on its node, not an entry of its own."""
    from loomtui.view.controller import SessionController

    p = shutil.copy(SOCKETTEER_DEMO, tmp_path / "demo.json")
    controller = SessionController(open_any(str(p)))
    before = controller.title_parts(str(p))
    assert "764 entries" in before
    controller.set_label("af4931cc-165f-11ec-b847-acde48001122", "welcome")
    assert "764 entries" in controller.title_parts(str(p))
    controller.save_labels()
    assert "764 entries" in controller.title_parts(str(p))
    assert controller.manager.get_label("af4931cc-165f-11ec-b847-acde48001122") == "welcome"
