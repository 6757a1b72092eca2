"""OpenLoom v1 (Loom Swift) files: the real 81-node fixture and hand-made repair cases."""

from __future__ import annotations

import json
from collections import Counter

from loomkit import OPENLOOM_V1, write_json

from loomtui.formats.base.common import loom_source
from loomtui.formats.detect import open_any
from loomtui.formats.looms.openloom import path_text
from tests.shared_material import needs_shared

ROOT = "3A9C24F6-5791-4C5A-A9A7-F31C65064DA9"
CURRENT = "B8446448-CBCA-4592-95F8-9DDD61A3026A"


def nodes(sm):
    return [e for e in sm.index.entries if "openloom" in sm.load(e)]


@needs_shared()
def test_fixture_has_81_nodes_one_root_and_the_current_node_as_leaf():
    sm = open_any(str(OPENLOOM_V1))
    assert len(nodes(sm)) == 81
    assert len(sm.index.entries) == 81  # bookmarks and the title are labels and the name, not entries
    assert len(sm.index.labels) == 8
    assert [r.id for r in sm.index.roots] == [ROOT]
    assert sm.get_leaf_id() == CURRENT
    assert sm.index.entries[-1].id == CURRENT
    assert sm.diagnostics == []
    assert sm.get_session_name() == "The Existence of Claude"
    assert loom_source(sm).mode == "dialogue"


@needs_shared()
def test_authors_and_branch_points():
    sm = open_any(str(OPENLOOM_V1))
    assert Counter(e.role for e in nodes(sm)) == {"user": 36, "assistant": 45}
    branch_points = [
        e.id for e in nodes(sm) if sum(1 for c in sm.index.children(e.id) if "openloom" in sm.load(c)) >= 2
    ]
    assert len(branch_points) == 8


@needs_shared()
def test_bookmark_titles_become_labels():
    raw = json.loads(OPENLOOM_V1.read_bytes())
    sm = open_any(str(OPENLOOM_V1))
    expected = {k: n["bookmarkTitle"] for k, n in raw["nodes"].items() if n["isBookmarked"]}
    assert len(expected) == 8
    assert {k: v[0] for k, v in sm.index.labels.items()} == expected


@needs_shared()
def test_children_follow_children_ids_order():
    raw = json.loads(OPENLOOM_V1.read_bytes())
    sm = open_any(str(OPENLOOM_V1))
    for key, n in raw["nodes"].items():
        kids = [c.id for c in sm.index.children(key) if "openloom" in sm.load(c)]
        assert kids == n["childrenIds"]


@needs_shared()
def test_node_mapping_dates_model_and_extensions():
    sm = open_any(str(OPENLOOM_V1))
    root = sm.get_entry(ROOT)
    assert root["message"]["role"] == "user"
    assert root["message"]["timestamp"] == 1734039840360  # 755732640.360085 s after 2001-01-01Z
    node = root["openloom"]["node"]
    assert node["createdAt"] == "2024-12-12T21:44:00.360Z"
    assert "generation" not in node  # a user node's placeholder modelId is not provenance
    assert node["extensions"]["openloom-v1"] == {
        "rememberedChildId": "0BCF580D-7391-4CB3-99A4-606A7ABE0960",
        "modelId": "<model identifier>",
    }
    assert root["openloom"]["rememberedChildId"] == "0BCF580D-7391-4CB3-99A4-606A7ABE0960"
    cur = sm.get_entry(CURRENT)
    assert cur["message"]["model"] == "anthropic/claude-3.5-sonnet:beta"
    assert cur["openloom"]["node"]["generation"] == {"model": "anthropic/claude-3.5-sonnet:beta"}


@needs_shared()
def test_path_text_is_the_conversation_to_the_leaf():
    raw = json.loads(OPENLOOM_V1.read_bytes())
    sm = open_any(str(OPENLOOM_V1))
    chain = []
    nid = CURRENT
    while nid:
        chain.append(raw["nodes"][nid]["text"])
        nid = raw["nodes"][nid].get("parentId")
    assert path_text(sm, CURRENT) == "\n\n".join(reversed(chain))


def test_inconsistent_children_ids_are_repaired(tmp_path):
    doc = {
        "id": "T",
        "title": "t",
        "rootNodeId": "r",
        "currentNodeId": "b",
        "nodes": {
            "r": {"id": "r", "text": "root", "author": "user", "childrenIds": ["b", "a", "zz"]},
            "a": {"id": "a", "text": "A", "author": "assistant", "parentId": "r", "childrenIds": []},
            "b": {"id": "b", "text": "B", "author": "assistant", "childrenIds": []},  # no parentId
            "c": {"id": "c", "text": "C", "author": "system", "parentId": "r", "childrenIds": []},  # unlisted
        },
        "bookmarkedNodes": {},
    }
    sm = open_any(str(write_json(tmp_path / "v1.json", doc)))
    assert [str(d) for d in sm.diagnostics] == [
        "node b has no parentId but is listed as a child of r; r is taken as its parent",
        "node r lists unknown child 'zz'; ignored",
    ]
    assert [c.id for c in sm.index.children("r")][:3] == ["b", "a", "c"]
    assert sm.get_entry("c")["customType"] == "system"
