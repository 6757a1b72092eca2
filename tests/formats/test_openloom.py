"""OpenLoom v2 documents as sessions: mapping, layout and repairs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from loomkit import PNG, write_json

from loomtui.formats.base.common import loom_source
from loomtui.formats.detect import open_any
from loomtui.formats.looms.openloom import path_text
from loomtui.session.manager import SessionManager


def open_doc(tmp_path: Path, doc: Any, name: str = "doc.json", tree_id: str | None = None) -> SessionManager:
    return open_any(str(write_json(tmp_path / name, doc)), tree_id=tree_id)


def reasons(sm: SessionManager) -> list[str]:
    return [str(d) for d in sm.diagnostics]


def tree_doc(nodes: dict[str, Any], edges: list[Any], **tree: Any) -> dict[str, Any]:
    full = {"id": "t", "title": "", "nodes": nodes, "edges": edges}
    full.update(tree)
    return {"format": "open-loom", "version": "2.0", "trees": [full]}


def text_node(nid: str, text: str, role: str = "human") -> dict[str, Any]:
    return {"id": nid, "content": [{"type": "text", "text": text}], "author": {"role": role}}


def cont(eid: str, src: str, dst: str) -> dict[str, Any]:
    return {"id": eid, "type": "continuation", "sources": [{"nodeId": src, "role": "primary"}], "targetNodeId": dst}


# layout --------------------------------------------------------------------------------------
def test_entries_are_in_depth_first_edge_order_with_the_current_node_last(tmp_path, v2doc):
    sm = open_doc(tmp_path, v2doc)
    ids = [e.id for e in sm.index.entries]
    assert ids == ["r", "b", "b1", "a", "c", "s", "n", "u", "m"]
    assert not [e for e in sm.index.entries if e.type in ("session_info", "label")]
    assert sm.get_leaf_id() == "m"
    assert sm.source_format == "openloom-v2"
    assert reasons(sm) == ["document holds 2 trees; showing the first (tree-1); open another by its tree id"]


def test_sibling_order_is_edge_order(tmp_path, v2doc):
    sm = open_doc(tmp_path, v2doc)
    assert [c.id for c in sm.index.children("r")] == ["b", "a"]
    assert [e.id for e in sm.index.path_to("m")] == ["r", "a", "c", "s", "m"]


def test_several_roots_keep_root_node_ids_order(tmp_path, v2doc):
    sm = open_doc(tmp_path, v2doc)
    assert [r.id for r in sm.index.roots] == ["r", "n", "u"]


def test_title_and_bookmarks_become_session_name_and_labels(tmp_path, v2doc):
    sm = open_doc(tmp_path, v2doc)
    assert sm.get_session_name() == "Demo"
    assert {k: v[0] for k, v in sm.index.labels.items()} == {"r": "start"}
    assert loom_source(sm).labels == {"r": "start"}


def test_bookmark_without_label_text_is_labelled_bookmark(tmp_path):
    node = text_node("r", "x")
    node["meta"] = {"bookmarked": True}
    sm = open_doc(tmp_path, tree_doc({"r": node}, [], rootNodeIds=["r"]))
    assert sm.get_label("r") == "bookmark"


# mapping -------------------------------------------------------------------------------------
def test_authors_map_to_pi_roles(tmp_path, v2doc):
    sm = open_doc(tmp_path, v2doc)
    got = {e.id: (e.type, e.role) for e in sm.index.entries if e.id in "r a b b1 c s n u m".split()}
    assert got == {
        "r": ("message", "user"),
        "a": ("message", "assistant"),
        "b": ("message", "assistant"),
        "b1": ("message", "user"),
        "c": ("message", "assistant"),
        "s": ("custom_message", None),
        "n": ("message", "user"),
        "u": ("custom_message", None),
        "m": ("message", "assistant"),
    }
    assert sm.get_entry("s")["customType"] == "system"
    assert sm.get_entry("s")["content"] == [{"type": "text", "text": "Be terse."}]
    assert sm.get_entry("u")["customType"] == "tool"


def test_model_node_message_carries_provider_model_usage_and_time(tmp_path, v2doc):
    sm = open_doc(tmp_path, v2doc)
    assert sm.get_entry("a")["message"] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "there was a loom"}],
        "provider": "openrouter",
        "model": "anthropic/claude-sonnet-4.5",
        "usage": {"input": 10, "output": 5, "totalTokens": 15},
        "stopReason": "stop",
        "timestamp": 1735689602000,
    }


def test_mixed_author_is_an_assistant_marked_human_edited(tmp_path, v2doc):
    sm = open_doc(tmp_path, v2doc)
    msg = sm.get_entry("c")["message"]
    assert msg["humanEdited"] is True
    # the model comes from the agent registry's modelRef
    assert (msg["provider"], msg["model"]) == ("openrouter", "anthropic/claude-sonnet-4.5")
    assert "humanEdited" not in sm.get_entry("a")["message"]


def test_tags_rating_note_excluded_and_edit_lineage_are_on_the_entry(tmp_path, v2doc):
    sm = open_doc(tmp_path, v2doc)
    c = sm.get_entry("c")
    ol = c["openloom"]
    assert (ol["tags"], ol["rating"], ol["note"], ol["excluded"], ol["editedFrom"]) == (
        ["keeper"],
        2,
        "good turn",
        True,
        "a",
    )
    assert c["excluded"] is True
    assert ol["node"] is v2doc["trees"][0]["nodes"]["c"] or ol["node"] == v2doc["trees"][0]["nodes"]["c"]
    assert ol["author"]["name"] == "Claude"


def test_pruned_node_and_its_branch_are_hidden(tmp_path, v2doc):
    sm = open_doc(tmp_path, v2doc)
    hidden = {e.id: sm.load(e).get("hidden") for e in sm.index.entries if sm.load(e).get("hidden")}
    assert hidden == {"b": "pruned", "b1": "pruned-branch"}
    assert sm.get_entry("b")["openloom"]["pruned"] is True


def test_media_and_unknown_blocks_become_placeholders_with_details(tmp_path, v2doc):
    sm = open_doc(tmp_path, v2doc)
    assert sm.get_entry("n")["message"]["content"] == [
        {"type": "text", "text": "a note"},
        {
            "type": "text",
            "text": " [image: a cat]",
            "loomPlaceholder": {
                "blockType": "image",
                "index": 1,
                "mimeType": "image/png",
                "width": 2,
                "height": 2,
                "altText": "a cat",
                "source": "data",
                "bytes": len(PNG),
            },
        },
    ]
    assert sm.get_entry("u")["content"] == [
        {"type": "text", "text": "[diagram block] ", "loomPlaceholder": {"blockType": "diagram", "index": 0}},
        {"type": "text", "text": "tool output"},
    ]
    assert sm.index.by_id["n"].text == "a note [image: a cat]"


def test_media_whose_bytes_disagree_with_the_mime_type_is_reported(tmp_path):
    node = {
        "id": "r",
        "author": {"role": "human"},
        "content": [{"type": "image", "ref": "data:image/jpeg;base64,iVBORw0KGgoAAAAA", "mimeType": "image/jpeg"}],
    }
    sm = open_doc(tmp_path, tree_doc({"r": node}, [], rootNodeIds=["r"]))
    assert reasons(sm) == ["node r: image declared 'image/jpeg' but its bytes look like image/png"]
    assert sm.get_entry("r")["message"]["content"][0]["loomPlaceholder"]["sniffedType"] == "image/png"


def test_relative_media_ref_outside_a_bundle_is_a_placeholder_and_a_diagnostic(tmp_path):
    node = {
        "id": "r",
        "author": {"role": "human"},
        "content": [{"type": "audio", "ref": "clip.ogg", "mimeType": "audio/ogg", "transcript": "hello"}],
    }
    sm = open_doc(tmp_path, tree_doc({"r": node}, [], rootNodeIds=["r"]))
    assert reasons(sm) == [
        "node r: audio ref 'clip.ogg' is not in a bundle (this file is not one); shown as a placeholder"
    ]
    block = sm.get_entry("r")["message"]["content"][0]
    assert block["text"] == "[audio: hello]"
    assert block["loomPlaceholder"]["source"] == "missing"


def test_annotation_edges_are_listed_on_both_ends_not_as_children(tmp_path, v2doc):
    sm = open_doc(tmp_path, v2doc)
    assert sm.get_entry("a")["openloom"]["annotations"] == [{"nodeId": "n", "type": "annotation", "edgeId": "e5"}]
    assert sm.get_entry("n")["openloom"]["annotates"] == [
        {"nodeId": "a", "type": "annotation", "role": "primary", "edgeId": "e5"}
    ]
    # an unknown edge type is kept and traversed as an annotation
    assert sm.get_entry("u")["openloom"]["annotates"] == [
        {"nodeId": "c", "type": "x-link", "role": "primary", "edgeId": "e8"}
    ]
    assert sm.get_entry("n")["parentId"] is None
    assert [c.id for c in sm.index.children("a")] == ["c"]


def test_hyperedge_primary_source_is_the_parent_and_the_others_are_listed(tmp_path, v2doc):
    sm = open_doc(tmp_path, v2doc)
    s = sm.get_entry("s")
    assert s["parentId"] == "c"
    assert s["openloom"]["otherSources"] == [{"nodeId": "b", "role": "context"}]
    assert s["openloom"]["parentEdge"] == 5
    assert [rec["edge"]["id"] for rec in s["openloom"]["edges"]] == ["e6"]


def test_version_node_edge_with_two_primary_sources_takes_the_first(tmp_path):
    nodes = {k: text_node(k, k) for k in ("r", "v5", "v5b", "n6")}
    edges = [
        cont("e1", "r", "v5"),
        cont("e2", "r", "v5b"),
        {
            "id": "e3",
            "type": "continuation",
            "targetNodeId": "n6",
            "sources": [{"nodeId": "v5", "role": "primary"}, {"nodeId": "v5b", "role": "primary"}],
        },
    ]
    sm = open_doc(tmp_path, tree_doc(nodes, edges, rootNodeIds=["r"]))
    assert sm.get_entry("n6")["parentId"] == "v5"
    assert sm.get_entry("n6")["openloom"]["otherSources"] == [{"nodeId": "v5b", "role": "primary"}]
    assert reasons(sm) == []


def test_current_node_becomes_the_leaf_and_without_it_the_first_branch_end(tmp_path):
    nodes = {k: text_node(k, k) for k in ("r", "x", "y", "x1")}
    edges = [cont("e1", "r", "x"), cont("e2", "r", "y"), cont("e3", "x", "x1")]
    sm = open_doc(tmp_path, tree_doc(nodes, edges, rootNodeIds=["r"], currentNodeId="y"), "a.json")
    assert (sm.get_leaf_id(), sm.index.entries[-1].id) == ("y", "y")
    sm = open_doc(tmp_path, tree_doc(nodes, edges, rootNodeIds=["r"]), "b.json")
    assert sm.get_leaf_id() == "x1"
    assert reasons(sm) == []


def test_path_text_joins_messages_in_dialogue_mode(tmp_path, v2doc):
    sm = open_doc(tmp_path, v2doc)
    assert path_text(sm, "m") == "Once upon a time\n\nthere was a loom\n\nwoven by hand\n\nBe terse.\n\nThe end."


def test_path_text_concatenates_segments_in_buffer_mode(tmp_path):
    nodes = {
        "r": text_node("r", "The cat"),
        "x": text_node("x", " sat", "model"),
        "y": text_node("y", " on the mat.", "model"),
    }
    edges = [cont("e1", "r", "x"), cont("e2", "x", "y")]
    sm = open_doc(tmp_path, tree_doc(nodes, edges, rootNodeIds=["r"], mode="buffer"))
    assert path_text(sm, "y") == "The cat sat on the mat."
    assert path_text(sm, "x") == "The cat sat"


def test_path_text_works_on_pi_sessions(tmp_path):
    lines = [
        '{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}',
        '{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z",'
        '"message":{"role":"user","content":"hi","timestamp":1}}',
        '{"type":"message","id":"a1","parentId":"u1","timestamp":"2025-01-01T00:00:02.000Z",'
        '"message":{"role":"assistant","content":[{"type":"text","text":"hello"}],"timestamp":2}}',
    ]
    p = tmp_path / "s.jsonl"
    p.write_text("\n".join(lines) + "\n")
    assert path_text(open_any(str(p)), "a1") == "hi\n\nhello"


def test_a_second_tree_opens_by_id(tmp_path, v2doc):
    sm = open_doc(tmp_path, v2doc, tree_id="tree-2")
    assert [e.id for e in sm.index.entries if "openloom" in sm.load(e)] == ["x"]
    assert loom_source(sm).tree_index == 1
    assert reasons(sm) == []


# repairs -------------------------------------------------------------------------------------
def test_repairs_are_diagnostics_and_never_raise(tmp_path):
    nodes = {k: text_node(k, k) for k in ("r", "a", "b", "p", "q", "o")}
    nodes["bad"] = "not a node"
    edges = [
        cont("e0", "r", "zz-missing"),  # dangling target
        cont("e1", "r", "a"),
        cont("e2", "b", "a"),  # second continuation into a
        {"id": "e3", "type": "continuation", "sources": [{"nodeId": "ghost"}], "targetNodeId": "b"},  # dangling source
        cont("e4", "p", "q"),
        cont("e5", "q", "p"),  # cycle p <-> q
        "not an edge",
        {"type": "continuation", "sources": [{"nodeId": "r", "role": "context"}], "targetNodeId": "o"},
    ]
    sm = open_doc(tmp_path, tree_doc(nodes, edges, rootNodeIds=["r", "nope", "a"], currentNodeId="gone"))
    assert reasons(sm) == [
        "node 'bad' is not an object; ignored",
        "edge #0 (e0) targets unknown node 'zz-missing'; ignored",
        "edge #2 (e2) is a second continuation edge into a; the first (edge #1) is kept, this one is listed "
        "as an extra parent",
        "edge #3 (e3) into b names unknown source node 'ghost'; that source is ignored",
        "edge #3 (e3) into b has no known source; b becomes a root",
        "edge #6 is not an object; ignored",
        "edge #7 into o has no primary source; r is taken as the parent",
        "continuation edges form a cycle (p, q); edge #5 into p is ignored and p becomes a root",
        "rootNodeIds names unknown node 'nope'; ignored",
        "rootNodeIds names a, which has a parent edge; it is not shown as a root",
        "node b has no incoming continuation edge but is not in rootNodeIds; shown as a root",
        "node p has no incoming continuation edge but is not in rootNodeIds; shown as a root",
        "currentNodeId 'gone' is not a node; the leaf is the end of the first branch",
    ]
    parents = {e.id: e.parent_id for e in sm.index.entries if "openloom" in sm.load(e)}
    assert parents == {"r": None, "a": "r", "b": None, "p": None, "q": "p", "o": "r"}
    assert [r.id for r in sm.index.roots] == ["r", "b", "p"]
    assert sm.get_entry("a")["openloom"]["extraParents"] == ["b"]
    assert sm.get_leaf_id() == "a"
    src = loom_source(sm)
    assert [(r["index"], r["reason"]) for r in src.repairs] == [(0, "unknown target"), (6, "not an object")]
    assert src.root_ids is None


def test_missing_root_node_ids_are_recomputed(tmp_path):
    nodes = {"r": text_node("r", "r"), "x": text_node("x", "x")}
    sm = open_doc(tmp_path, tree_doc(nodes, [cont("e1", "r", "x")]))
    assert reasons(sm) == ["rootNodeIds is missing or empty; roots recomputed from the edges"]
    assert [r.id for r in sm.index.roots] == ["r"]


def test_nodes_given_as_a_list_and_missing_edges_are_tolerated(tmp_path):
    doc = tree_doc([text_node("r", "r"), text_node("x", "x")], [], rootNodeIds=["r", "x"])
    del doc["trees"][0]["edges"]
    sm = open_doc(tmp_path, doc)
    assert reasons(sm) == [
        "tree nodes is a list, not a map of id to node; read in list order",
        "tree has 2 nodes but no edges list; every node is a root",
    ]
    # the leaf (end of the first branch: r itself) is the last entry, so its root moves last in
    # file order; pi's layout lists the root holding the leaf first anyway
    assert sm.get_leaf_id() == "r"
    assert [r.id for r in sm.index.roots] == ["x", "r"]


def test_unknown_author_role_and_missing_author(tmp_path):
    nodes = {
        "r": {"id": "r", "content": [{"type": "text", "text": "?"}]},
        "x": {"id": "x", "content": "plain string", "author": {"role": "critic"}},
    }
    sm = open_doc(tmp_path, tree_doc(nodes, [cont("e1", "r", "x")], rootNodeIds=["r"]))
    assert reasons(sm) == ["node r has no author; shown as [node]"]
    assert (sm.get_entry("r")["customType"], sm.get_entry("x")["customType"]) == ("node", "critic")
    assert sm.get_entry("x")["content"] == [{"type": "text", "text": "plain string"}]


def test_empty_model_node_stays_visible(tmp_path):
    nodes = {"r": text_node("r", ""), "x": text_node("x", "  ", "model")}
    sm = open_doc(tmp_path, tree_doc(nodes, [cont("e1", "r", "x")], rootNodeIds=["r"], currentNodeId="r"))
    assert sm.index.by_id["x"].is_tool_only_assistant is False
    assert sm.get_entry("x")["message"]["stopReason"] == "empty"
