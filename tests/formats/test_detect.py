"""Detection by content: every format opens under any file name; the rest is refused clearly."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest
from loomkit import OPENLOOM_V1, PI_SESSION, SOCKETTEER_DEMO, write_json

from loomtui.formats.base.common import loom_source
from loomtui.formats.detect import classify, open_any
from loomtui.session.errors import SessionFormatError
from tests.shared_material import needs_shared


def node_count(sm) -> int:
    return sum(1 for e in sm.index.entries if "openloom" in sm.load(e))


@needs_shared()
def test_socketteer_demo_is_found_under_a_jsonl_name(tmp_path):
    p = shutil.copy(SOCKETTEER_DEMO, tmp_path / "session.jsonl")
    sm = open_any(str(p))
    assert (sm.source_format, node_count(sm)) == ("socketteer", 764)


@needs_shared()
def test_openloom_v1_is_found_under_a_txt_name(tmp_path):
    p = shutil.copy(OPENLOOM_V1, tmp_path / "notes.txt")
    sm = open_any(str(p))
    assert (sm.source_format, node_count(sm)) == ("openloom-v1", 81)


@needs_shared()
def test_pi_session_is_found_under_an_openloom_name(tmp_path):
    p = shutil.copy(PI_SESSION, tmp_path / "tree.openloom")
    sm = open_any(str(p))
    assert sm.source_format == "pi"
    assert sm.path == str(p)
    assert loom_source(sm) is None


def test_v2_container_and_bare_tree_are_found_under_any_name(tmp_path, v2doc):
    sm = open_any(str(write_json(tmp_path / "a.jsonl", v2doc)))
    assert sm.source_format == "openloom-v2"
    sm = open_any(str(write_json(tmp_path / "b.zip.txt", v2doc["trees"][0])))
    assert sm.source_format == "openloom-v2-tree"
    assert node_count(sm) == 9


def test_bundle_is_found_under_a_json_name(tmp_path, v2doc):
    p = tmp_path / "bundle.json"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("tree.openloom", __import__("json").dumps(v2doc))
    sm = open_any(str(p))
    assert sm.source_format == "openloom-v2"
    assert loom_source(sm).is_bundle


def test_classify_by_content(v2doc):
    assert classify(v2doc) == "openloom-v2"
    assert classify(v2doc["trees"][0]) == "openloom-v2-tree"
    assert classify({"nodes": {}, "rootNodeId": "x", "bookmarkedNodes": {}}) == "openloom-v1"
    assert classify({"root": {"text": "", "children": []}}) == "socketteer"
    assert classify({"text": "a", "children": []}) == "socketteer"
    assert classify([{"text": "a", "children": []}]) == "socketteer"
    assert classify({"type": "session", "version": 3}) == "pi"
    assert classify({"format": "other"}) is None
    assert classify({"a": 1}) is None


#: every kind of file loomtui reads, named when a file is none of them (it named pi, OpenLoom
#: and socketteer only, not Claude Code, Codex, OCP runs)
NONE_OF_THEM = (
    "none of the files loomtui reads (pi and oh-my-pi sessions, OCP runs, OpenLoom and socketteer looms, "
    "Codex sessions, Claude Code sessions, Maitento loom configurations)"
)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"a": 1, "b": 2}', f"is {NONE_OF_THEM}: a JSON object with keys a, b"),
        (b"hello world\n", f"is {NONE_OF_THEM} (neither JSON nor JSONL)"),
        (b"", "is empty"),
        (b"\n\n", "is empty"),
        (
            b'{"format": "open-loom", "version": "3.1", "trees": []}',
            "OpenLoom version 3.1 is not supported (loomtui reads 2.x); a newer loomtui may read it",
        ),
        (b'{"format": "open-loom", "version": "2.0", "trees": []}', "OpenLoom document without trees"),
        (b'{"format": "tapestry"}', "its format is 'tapestry', not \"open-loom\""),
        (b'{"loomTree": {"nodeStore": {}}, "focus": {}}', "looks like a MiniLoom file, which loomtui cannot read yet"),
        (b'{"loomType": "Exoloom", "tree": {}}', "looks like an Exoloom export, which loomtui cannot read yet"),
        (b"VersionedTapestryWeave__\x00\x00", "is a Tapestry Loom weave (binary), which loomtui cannot read"),
        (b"PK\x03\x04garbage", "starts like a ZIP but cannot be read as one"),
    ],
)
def test_unreadable_files_raise_a_clear_error(tmp_path, content, message):
    p = tmp_path / "file.json"
    p.write_bytes(content)
    with pytest.raises(SessionFormatError) as err:
        open_any(str(p))
    assert message in str(err.value)
    assert str(p) in str(err.value)


def test_jsonl_without_header_gets_the_pi_readers_error(tmp_path):
    p = tmp_path / "x.json"
    p.write_text('{"type":"message","id":"a"}\n{"type":"message","id":"b"}\n')
    with pytest.raises(SessionFormatError, match="no session header"):
        open_any(str(p))


def test_zip_without_tree_openloom_is_refused(tmp_path):
    p = tmp_path / "x.zip"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("readme.txt", "hi")
    with pytest.raises(SessionFormatError, match="ZIP without tree.openloom at its root"):
        open_any(str(p))


def test_unknown_tree_id_lists_the_trees(tmp_path, v2doc):
    p = write_json(tmp_path / "d.json", v2doc)
    with pytest.raises(SessionFormatError, match=r"no tree with id 'nope' \(trees: tree-1, tree-2\)"):
        open_any(str(p), tree_id="nope")


def test_directory_is_refused(tmp_path):
    with pytest.raises(SessionFormatError, match="is a directory"):
        open_any(str(tmp_path))


def test_missing_file_is_refused(tmp_path):
    with pytest.raises(SessionFormatError, match="cannot open"):
        open_any(str(tmp_path / "nope.json"))


def test_formats_do_not_import_textual_or_rich():
    import subprocess
    import sys

    code = (
        "import sys, loomtui.formats.detect, loomtui.formats.looms.export, loomtui.formats.looms.bookmarks, "
        "loomtui.commands.export_openloom; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')]; print(bad)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert out.stdout.strip() == "[]"


def test_pi_v4_log_gets_the_v4_message_even_with_only_its_header(tmp_path):
    path = tmp_path / "v4.jsonl"
    path.write_text('{"kind":"header","version":4,"id":"x","createdAt":1,"cwd":"/"}\n')
    with pytest.raises(SessionFormatError, match="pi v4 session log"):
        open_any(str(path))
