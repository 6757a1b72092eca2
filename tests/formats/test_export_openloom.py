"""OpenLoom v2 export: lossless re-export, branches, pi sessions, bundles, invariants."""

from __future__ import annotations

import argparse
import base64
import copy
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from loomkit import OPENLOOM_V1, PNG, SOCKETTEER_DEMO, check_invariants, png_uri, write_json

from loomtui.commands import export_openloom as command
from loomtui.formats.base.common import loom_source
from loomtui.formats.detect import open_any
from loomtui.formats.looms.export import export_openloom
from loomtui.session.errors import LoomError, WriteRefused
from tests.shared_material import needs_shared


def export(sm, out: Path, **kw: Any) -> dict[str, Any]:
    export_openloom(sm, str(out), **kw)
    return json.loads(out.read_bytes())


def without_updated_at(doc: dict[str, Any]) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    for t in doc["trees"]:
        t.pop("updatedAt", None)
    return doc


def read_bundle(path: Path) -> tuple[dict[str, Any], dict[str, bytes]]:
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    return json.loads(members.pop("tree.openloom")), members


# OpenLoom v2 ---------------------------------------------------------------------------------
def test_reexport_of_a_v2_document_is_lossless_apart_from_updated_at(tmp_path, v2doc):
    sm = open_any(str(write_json(tmp_path / "in.json", v2doc)))
    out = export(sm, tmp_path / "out.openloom")
    assert without_updated_at(out) == without_updated_at(v2doc)
    # same key order too, not just the same mapping
    assert json.dumps(without_updated_at(out)) == json.dumps(without_updated_at(v2doc))
    assert out["trees"][0]["updatedAt"] != v2doc["trees"][0]["updatedAt"]
    assert out["trees"][1] == v2doc["trees"][1]
    check_invariants(out)


def test_reexport_of_the_second_tree_keeps_the_first(tmp_path, v2doc):
    sm = open_any(str(write_json(tmp_path / "in.json", v2doc)), tree_id="tree-2")
    out = export(sm, tmp_path / "out.openloom")
    assert out["trees"][0] == v2doc["trees"][0]
    assert without_updated_at(out) == without_updated_at(v2doc)


def test_label_edits_become_bookmarks_and_nothing_else_changes(tmp_path, v2doc):
    sm = open_any(str(write_json(tmp_path / "in.json", v2doc)))
    sm.append_label_change("a", "mine")
    sm.append_label_change("r", None)
    out = export(sm, tmp_path / "out.openloom")
    nodes, before = out["trees"][0]["nodes"], v2doc["trees"][0]["nodes"]
    assert nodes["a"]["meta"] == {"bookmarked": True, "bookmarkLabel": "mine"}
    assert nodes["r"]["meta"] == {}
    assert {k: v for k, v in nodes.items() if k not in ("a", "r")} == {
        k: v for k, v in before.items() if k not in ("a", "r")
    }
    assert out["trees"][0]["currentNodeId"] == "m"  # the label entry is the leaf; its node is m
    # the session's own copy of the document is untouched
    assert sm.get_entry("r")["openloom"]["node"]["meta"] == {"bookmarked": True, "bookmarkLabel": "start"}


def test_moving_the_leaf_changes_current_node(tmp_path, v2doc):
    sm = open_any(str(write_json(tmp_path / "in.json", v2doc)))
    sm.branch("b1")
    out = export(sm, tmp_path / "out.openloom")
    assert out["trees"][0]["currentNodeId"] == "b1"


def test_bare_tree_is_exported_in_a_container(tmp_path, v2doc):
    tree = v2doc["trees"][0]
    sm = open_any(str(write_json(tmp_path / "tree.json", tree)))
    out = export(sm, tmp_path / "out.openloom")
    assert (out["format"], out["version"], out["generator"]["name"]) == ("open-loom", "2.0", "loomtui")
    assert len(out["trees"]) == 1
    expected = dict(tree)
    expected.pop("updatedAt")
    # without the document's registry the agent id dangles: reported, and a stub keeps it resolvable
    assert [str(d) for d in sm.diagnostics] == [
        f"node {n}: author agentId 'claude' is not in the agent registry" for n in ("b", "a", "c", "m")
    ]
    expected["agents"] = {"claude": {"name": "claude", "type": "model"}}
    assert without_updated_at(out)["trees"][0] == expected
    check_invariants(out)


def test_branch_export_is_a_new_tree_with_the_path(tmp_path, v2doc):
    sm = open_any(str(write_json(tmp_path / "in.json", v2doc)))
    out = export(sm, tmp_path / "branch.openloom", leaf_id="s")
    check_invariants(out)
    tree = out["trees"][0]
    assert tree["id"] not in ("tree-1", "tree-2")
    assert list(tree["nodes"]) == ["r", "a", "c", "s"]
    assert [e["id"] for e in tree["edges"]] == ["e2", "e3", "e6"]
    # the hyperedge's context source b is not in the branch: only the resolvable source stays
    assert tree["edges"][2]["sources"] == [{"nodeId": "c", "role": "primary"}]
    assert (tree["rootNodeIds"], tree["currentNodeId"]) == (["r"], "s")
    assert tree["extensions"] == {
        "com.example": {"hoisted": ["a"]},
        "loomtui": {"source": {"treeId": "tree-1", "nodeId": "s"}},
    }
    assert tree["tags"] == [{"name": "keeper", "color": "#7A9E7E"}]
    assert list(out["agents"]) == ["claude"]
    assert out["generator"]["name"] == "loomtui"
    assert tree["nodes"]["c"] == v2doc["trees"][0]["nodes"]["c"]


def test_branch_export_of_an_unknown_entry_fails(tmp_path, v2doc):
    sm = open_any(str(write_json(tmp_path / "in.json", v2doc)))
    with pytest.raises(LoomError, match="entry nope not found"):
        export_openloom(sm, str(tmp_path / "x.openloom"), leaf_id="nope")


def test_no_system_context_drops_system_context_and_system_prompts(tmp_path, v2doc):
    sm = open_any(str(write_json(tmp_path / "in.json", v2doc)))
    out = export(sm, tmp_path / "private.openloom", no_system_context=True)
    assert "systemContext" not in out["trees"][0]
    assert out["agents"]["claude"]["configuration"] == {"temperature": 0.7}
    again = export(sm, tmp_path / "full.openloom")
    assert again["trees"][0]["systemContext"] == "Speak plainly."
    assert again["agents"]["claude"]["configuration"]["systemPrompt"] == "You are helpful."


def test_repaired_document_exports_valid_and_keeps_what_it_dropped(tmp_path):
    def node(nid):
        return {
            "id": nid,
            "content": [{"type": "text", "text": nid}],
            "author": {"role": "human"},
            "meta": {"tags": ["undeclared"]},
        }

    edges = [
        {"id": "e1", "type": "continuation", "sources": [{"nodeId": "r"}], "targetNodeId": "a"},
        {"id": "e2", "type": "continuation", "sources": [{"nodeId": "b"}], "targetNodeId": "a"},
        {"id": "e3", "type": "continuation", "sources": [{"nodeId": "r"}], "targetNodeId": "ghost"},
    ]
    doc = {
        "format": "open-loom",
        "version": "2.1",
        "trees": [
            {
                "id": "t",
                "title": "",
                "rootNodeIds": ["r"],
                "nodes": {k: node(k) for k in ("r", "a", "b")},
                "edges": edges,
            }
        ],
    }
    sm = open_any(str(write_json(tmp_path / "in.json", doc)))
    out = export(sm, tmp_path / "out.openloom")
    check_invariants(out)
    tree = out["trees"][0]
    assert [e["id"] for e in tree["edges"]] == ["e1"]
    assert sorted(tree["rootNodeIds"]) == ["b", "r"]
    assert tree["tags"] == [{"name": "undeclared"}]
    assert [(r["index"], r["reason"]) for r in tree["extensions"]["loomtui"]["repairs"]] == [
        (1, "extra"),
        (2, "unknown target"),
    ]
    assert out["version"] == "2.1"


def test_export_never_overwrites(tmp_path, v2doc):
    sm = open_any(str(write_json(tmp_path / "in.json", v2doc)))
    target = tmp_path / "exists.openloom"
    target.write_text("keep me")
    with pytest.raises(WriteRefused, match="already exists"):
        export_openloom(sm, str(target))
    assert target.read_text() == "keep me"


# the loom fixtures -------------------------------------------------------------------------------
@needs_shared()
def test_openloom_v1_fixture_exports_a_valid_tree_that_reads_back(tmp_path):
    sm = open_any(str(OPENLOOM_V1))
    out = export(sm, tmp_path / "v1.openloom")
    children = check_invariants(out)
    tree = out["trees"][0]
    assert (len(tree["nodes"]), len(tree["edges"])) == (81, 80)
    assert tree["id"] == "E686F6DB-928F-4D2D-B4F7-18324969227D"
    raw = json.loads(OPENLOOM_V1.read_bytes())
    for key, n in raw["nodes"].items():
        assert children[tree["id"]].get(key, []) == n["childrenIds"]
    back = open_any(str(tmp_path / "v1.openloom"))
    assert back.index.labels.keys() == sm.index.labels.keys()
    assert {k: v[0] for k, v in back.index.labels.items()} == {k: v[0] for k, v in sm.index.labels.items()}
    assert back.get_leaf_id() == sm.get_leaf_id()
    assert back.diagnostics == []


@needs_shared()
def test_socketteer_fixture_exports_a_valid_buffer_tree(tmp_path):
    sm = open_any(str(SOCKETTEER_DEMO))
    out = export(sm, tmp_path / "st.openloom")
    children = check_invariants(out)
    tree = out["trees"][0]
    assert (tree["mode"], len(tree["nodes"]), len(tree["edges"])) == ("buffer", 764, 763)
    raw = json.loads(SOCKETTEER_DEMO.read_bytes())
    stack = [raw["root"]]
    while stack:
        n = stack.pop()
        assert children[tree["id"]].get(n["id"], []) == [c["id"] for c in n["children"]]
        stack.extend(n["children"])
    assert set(tree["extensions"]["socketteer-loom"]) == set(raw) - {"root"}
    pruned = sum(1 for n in tree["nodes"].values() if n.get("meta", {}).get("pruned"))
    assert pruned == 107
    back = open_any(str(tmp_path / "st.openloom"))
    assert back.get_leaf_id() == sm.get_leaf_id()
    assert len(back.index.labels) == 22


# pi sessions -------------------------------------------------------------------------------------
def pi_session(tmp_path: Path) -> Path:
    def line(**kw: Any) -> str:
        return json.dumps(kw)

    img = base64.b64encode(PNG).decode()
    lines = [
        line(type="session", version=3, id="sess-1", timestamp="2025-02-01T10:00:00.000Z", cwd="/srv"),
        line(
            type="model_change",
            id="mc",
            parentId=None,
            timestamp="2025-02-01T10:00:00.100Z",
            provider="anthropic",
            modelId="claude-x",
        ),
        line(
            type="thinking_level_change",
            id="tl",
            parentId="mc",
            timestamp="2025-02-01T10:00:00.200Z",
            thinkingLevel="off",
        ),
        line(
            type="message",
            id="u1",
            parentId="tl",
            timestamp="2025-02-01T10:00:01.000Z",
            message={"role": "user", "content": "fix the build", "timestamp": 1},
        ),
        line(
            type="message",
            id="a1",
            parentId="u1",
            timestamp="2025-02-01T10:00:02.000Z",
            message={
                "role": "assistant",
                "provider": "anthropic",
                "model": "claude-x",
                "stopReason": "toolUse",
                "usage": {"input": 100, "output": 20, "totalTokens": 120},
                "content": [
                    {"type": "thinking", "thinking": "hmm"},
                    {"type": "text", "text": "looking"},
                    {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "ls"}},
                ],
                "timestamp": 2,
            },
        ),
        line(
            type="message",
            id="t1",
            parentId="a1",
            timestamp="2025-02-01T10:00:03.000Z",
            message={
                "role": "toolResult",
                "toolCallId": "c1",
                "toolName": "bash",
                "content": [{"type": "text", "text": "ok"}],
                "isError": False,
                "timestamp": 3,
            },
        ),
        line(
            type="message",
            id="a2",
            parentId="t1",
            timestamp="2025-02-01T10:00:04.000Z",
            message={
                "role": "assistant",
                "provider": "anthropic",
                "model": "claude-x",
                "stopReason": "stop",
                "content": [{"type": "text", "text": "done"}],
                "timestamp": 4,
            },
        ),
        line(
            type="message",
            id="u2",
            parentId="u1",
            timestamp="2025-02-01T10:00:05.000Z",
            message={"role": "user", "content": "try B", "timestamp": 5},
        ),
        line(
            type="message",
            id="b2",
            parentId="u2",
            timestamp="2025-02-01T10:00:06.000Z",
            message={
                "role": "assistant",
                "provider": "openai",
                "model": "gpt-y",
                "stopReason": "stop",
                "content": [{"type": "text", "text": "B done"}],
                "timestamp": 6,
            },
        ),
        line(
            type="message",
            id="x1",
            parentId="a2",
            timestamp="2025-02-01T10:00:07.000Z",
            message={
                "role": "bashExecution",
                "command": "ls",
                "output": "file",
                "exitCode": 0,
                "cancelled": False,
                "truncated": False,
                "excludeFromContext": True,
                "timestamp": 7,
            },
        ),
        line(type="label", id="l1", parentId="x1", timestamp="2025-02-01T10:00:08.000Z", targetId="u1", label="start"),
        line(type="session_info", id="si", parentId="l1", timestamp="2025-02-01T10:00:09.000Z", name="Build fixed"),
        line(
            type="message",
            id="u3",
            parentId="si",
            timestamp="2025-02-01T10:00:10.000Z",
            message={
                "role": "user",
                "content": [{"type": "text", "text": "see"}, {"type": "image", "data": img, "mimeType": "image/png"}],
                "timestamp": 10,
            },
        ),
    ]
    p = tmp_path / "session.jsonl"
    p.write_text("\n".join(lines) + "\n")
    return p


def test_pi_session_exports_messages_as_nodes(tmp_path):
    sm = open_any(str(pi_session(tmp_path)))
    out = export(sm, tmp_path / "pi.openloom")
    children = check_invariants(out)
    tree = out["trees"][0]
    assert list(tree["nodes"]) == ["u1", "a1", "t1", "a2", "u2", "b2", "x1", "u3"]
    assert children["sess-1"] == {
        "u1": ["a1", "u2"],
        "a1": ["t1"],
        "t1": ["a2"],
        "a2": ["x1"],
        "u2": ["b2"],
        "x1": ["u3"],
    }
    assert (tree["rootNodeIds"], tree["currentNodeId"], tree["title"]) == (["u1"], "u3", "Build fixed")
    assert tree["createdAt"] == "2025-02-01T10:00:00.000Z"
    n = tree["nodes"]
    assert {k: v["author"]["role"] for k, v in n.items()} == {
        "u1": "human",
        "a1": "model",
        "t1": "system",
        "a2": "model",
        "u2": "human",
        "b2": "model",
        "x1": "system",
        "u3": "human",
    }
    assert n["u1"]["meta"] == {"bookmarked": True, "bookmarkLabel": "start"}
    assert n["a1"]["content"] == [
        {"type": "thinking", "thinking": "hmm"},
        {"type": "text", "text": "looking"},
        {"type": "text", "text": "\n[bash: ls]"},
    ]
    assert n["a1"]["extensions"]["loomtui"] == {
        "piBlocks": {"2": {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "ls"}}}
    }
    assert n["a1"]["generation"] == {
        "provider": "anthropic",
        "model": "claude-x",
        "usage": {"promptTokens": 100, "completionTokens": 20, "totalTokens": 120},
    }
    assert n["a1"]["author"] == {"role": "model", "agentId": "anthropic:claude-x"}
    assert n["a1"]["extensions"]["pi"]["message"]["stopReason"] == "toolUse"
    assert n["x1"]["content"] == [{"type": "text", "text": "$ ls\nfile"}]
    assert n["x1"]["meta"] == {"excluded": True}
    assert n["u3"]["content"][1] == {"type": "image", "ref": png_uri(), "mimeType": "image/png"}
    assert tree["agents"] == {
        "anthropic:claude-x": {"name": "claude-x", "type": "model", "modelRef": "anthropic:claude-x"},
        "openai:gpt-y": {"name": "gpt-y", "type": "model", "modelRef": "openai:gpt-y"},
    }
    assert tree["extensions"]["pi"]["header"]["cwd"] == "/srv"
    back = open_any(str(tmp_path / "pi.openloom"))
    assert back.get_leaf_id() == "u3" and back.get_label("u1") == "start"
    assert back.get_entry("a1")["message"]["content"] == sm.get_entry("a1")["message"]["content"]


def test_pi_branch_export_holds_the_path(tmp_path):
    path = pi_session(tmp_path)
    sm = open_any(str(path))
    out = export(sm, tmp_path / "b.openloom", leaf_id="b2")
    check_invariants(out)
    tree = out["trees"][0]
    assert list(tree["nodes"]) == ["u1", "u2", "b2"]
    assert tree["id"] != "sess-1"
    assert tree["currentNodeId"] == "b2"
    assert tree["extensions"]["loomtui"] == {"source": {"sessionId": "sess-1", "path": str(path), "nodeId": "b2"}}
    assert tree["nodes"]["u1"]["meta"] == {"bookmarked": True, "bookmarkLabel": "start"}


# bundles -----------------------------------------------------------------------------------------
def big_png(size: int = 1_500_000) -> bytes:
    return PNG + bytes(i % 251 for i in range(size - len(PNG)))


def media_doc(data: bytes) -> dict[str, Any]:
    node = {
        "id": "pic",
        "author": {"role": "human"},
        "content": [
            {"type": "text", "text": "look"},
            {"type": "image", "ref": png_uri(data), "mimeType": "image/png", "altText": "noise"},
        ],
    }
    return {
        "format": "open-loom",
        "version": "2.0",
        "trees": [{"id": "t", "title": "media", "rootNodeIds": ["pic"], "nodes": {"pic": node}, "edges": []}],
    }


def test_large_media_goes_into_a_zip_bundle_and_back(tmp_path):
    data = big_png()
    sm = open_any(str(write_json(tmp_path / "in.json", media_doc(data))))
    result = export_openloom(sm, str(tmp_path / "out.zip"))
    assert (result.bundle, result.media_files) == (True, 1)
    doc, members = read_bundle(tmp_path / "out.zip")
    check_invariants(doc)
    assert doc["trees"][0]["nodes"]["pic"]["content"][1]["ref"] == "pic-1.png"
    assert members == {"pic-1.png": data}

    bundle = open_any(str(tmp_path / "out.zip"))
    assert bundle.diagnostics == []
    ph = bundle.get_entry("pic")["message"]["content"][1]["loomPlaceholder"]
    assert (ph["source"], ph["bytes"], ph["member"]) == ("bundle", len(data), "pic-1.png")

    # bundle media exported to plain JSON is embedded again, byte for byte
    plain = export_openloom(bundle, str(tmp_path / "plain.openloom"))
    assert plain.notes == ["embedded media is 1.4 MB; an output name ending in .zip writes an OpenLoom bundle instead"]
    again = json.loads((tmp_path / "plain.openloom").read_bytes())
    assert again["trees"][0]["nodes"]["pic"]["content"][1]["ref"] == png_uri(data)

    # a bundle re-exported as a bundle is the same bundle
    export_openloom(bundle, str(tmp_path / "again.zip"))
    doc2, members2 = read_bundle(tmp_path / "again.zip")
    assert without_updated_at(doc2) == without_updated_at(doc)
    assert members2 == members


def test_small_media_stays_inline_in_a_bundle(tmp_path):
    sm = open_any(str(write_json(tmp_path / "in.json", media_doc(PNG))))
    result = export_openloom(sm, str(tmp_path / "out.zip"))
    doc, members = read_bundle(tmp_path / "out.zip")
    assert (result.media_files, members) == (0, {})
    assert doc["trees"][0]["nodes"]["pic"]["content"][1]["ref"] == png_uri(PNG)


def test_hand_made_bundle_resolves_refs_inside_the_zip(tmp_path):
    node = {
        "id": "r",
        "author": {"role": "human"},
        "content": [
            {"type": "audio", "ref": "media/clip.ogg", "mimeType": "audio/mpeg", "transcript": "hi"},
            {"type": "image", "ref": "./pic.png", "mimeType": "image/png"},
            {"type": "image", "ref": "../escape.png", "mimeType": "image/png"},
        ],
    }
    doc = {
        "format": "open-loom",
        "version": "2.0",
        "trees": [{"id": "t", "title": "", "rootNodeIds": ["r"], "nodes": {"r": node}, "edges": []}],
    }
    p = tmp_path / "hand.openloom.zip"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("tree.openloom", json.dumps(doc))
        z.writestr("media/clip.ogg", b"OggS" + bytes(20))
        z.writestr("pic.png", PNG)
    sm = open_any(str(p))
    assert [str(d) for d in sm.diagnostics] == [
        "node r: audio declared 'audio/mpeg' but its bytes look like audio/ogg",
        "node r: image ref '../escape.png' is neither a data: URI nor a relative bundle path",
    ]
    blocks = sm.get_entry("r")["message"]["content"]
    assert [b["text"] for b in blocks] == ["[audio: hi] ", " [image image/png] ", " [image image/png]"]
    assert [b["loomPlaceholder"]["source"] for b in blocks] == ["bundle", "bundle", "invalid"]
    from loomtui.formats.looms.media import media_bytes

    assert media_bytes(sm, node["content"][1]) == PNG
    assert loom_source(sm).bundle_members == {
        "tree.openloom": len(json.dumps(doc)),
        "media/clip.ogg": 24,
        "pic.png": len(PNG),
    }


# the command -------------------------------------------------------------------------------------
def test_export_openloom_command(tmp_path, v2doc, capsys):
    src = write_json(tmp_path / "in.json", v2doc)
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    out = tmp_path / "branch.openloom"
    args = parser.parse_args([str(src), "--leaf", "c", "-o", str(out), "--no-system-context"])
    assert command.run(args) == 0
    printed = capsys.readouterr()
    assert printed.out == f"wrote document {out}: 3 nodes, 2 edges\n"
    assert "1 part repaired or skipped in " in printed.err  # the two-tree note
    doc = json.loads(out.read_bytes())
    assert "systemContext" not in doc["trees"][0]
    args = parser.parse_args([str(src), "--tree", "tree-2", "-o", str(tmp_path / "t2.zip")])
    assert command.run(args) == 0
    assert capsys.readouterr().out == f"wrote bundle {tmp_path / 't2.zip'}: 1 node, 0 edges\n"
