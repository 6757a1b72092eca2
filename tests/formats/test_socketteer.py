"""socketteer loom JSON: the 764-node demo and the legacy / bare variants."""

from __future__ import annotations

import json
from collections import Counter

from loomkit import SOCKETTEER_DEMO, write_json

from loomtui.formats.base.common import loom_source
from loomtui.formats.detect import open_any
from loomtui.formats.looms.openloom import path_text
from tests.shared_material import needs_shared

SELECTED = "af4931cc-165f-11ec-b847-acde48001122"
ROOT = "af49303c-165f-11ec-b847-acde48001122"


def raw_nodes():
    """(node, parent id, ancestors' texts) for every demo node, walked independently."""
    doc = json.loads(SOCKETTEER_DEMO.read_bytes())
    out = []
    stack = [(doc["root"], None, "")]
    while stack:
        n, parent, before = stack.pop()
        out.append((n, parent, before))
        for c in reversed(n["children"]):
            stack.append((c, n["id"], before + n["text"]))
    return doc, out


def loom_entries(sm):
    return [e for e in sm.index.entries if "openloom" in sm.load(e)]


@needs_shared()
def test_demo_has_764_nodes_and_the_selected_node_is_the_leaf():
    sm = open_any(str(SOCKETTEER_DEMO))
    assert len(loom_entries(sm)) == 764
    assert len(sm.index.entries) == 764  # bookmarks and the title are labels and the name, not entries
    assert len(sm.index.labels) == 22
    assert [r.id for r in sm.index.roots] == [ROOT]
    assert sm.get_leaf_id() == SELECTED
    assert sm.index.entries[-1].id == SELECTED
    assert sm.diagnostics == []
    assert sm.get_session_name() == "socketteer-loom_demo"
    assert loom_source(sm).mode == "buffer"


@needs_shared()
def test_sources_map_to_roles():
    sm = open_any(str(SOCKETTEER_DEMO))
    entries = loom_entries(sm)
    roles = Counter((e.role, sm.load(e)["message"].get("humanEdited", False)) for e in entries if e.type == "message")
    # AI 374, mixed 24 (human-edited), prompt 42; the 324 nodes without a source have no role:
    # no author, shown as [node] rather than as the user's
    assert roles == {("assistant", False): 374, ("assistant", True): 24, ("user", False): 42}
    roleless = [e for e in entries if e.type != "message"]
    assert len(roleless) == 324 and {(e.type, sm.load(e)["customType"]) for e in roleless} == {
        ("custom_message", "node")
    }
    assert sm.diagnostics == []


@needs_shared()
def test_bookmark_tags_become_labels():
    _doc, nodes = raw_nodes()
    sm = open_any(str(SOCKETTEER_DEMO))
    expected = {n["id"]: "bookmark" for n, _p, _b in nodes if "bookmark" in n.get("tags", [])}
    assert len(expected) == 22
    assert {k: v[0] for k, v in sm.index.labels.items()} == expected


@needs_shared()
def test_archived_and_hidden_tags_hide_their_branch():
    doc, nodes = raw_nodes()
    hiding = {k for k, v in doc["tags"].items() if v["hide"]}
    assert hiding == {"archived", "note"}
    expected = {}
    for n, parent, _b in nodes:  # pre-order: parents first
        if hiding & set(n.get("tags", [])):
            expected[n["id"]] = "pruned"
        elif parent in expected:
            expected[n["id"]] = "pruned-branch"
    sm = open_any(str(SOCKETTEER_DEMO))
    got = {e.id: sm.load(e)["hidden"] for e in loom_entries(sm) if "hidden" in sm.load(e)}
    assert got == expected
    assert Counter(got.values())["pruned"] == 107


@needs_shared()
def test_children_keep_their_order_and_text_is_a_segment():
    _doc, nodes = raw_nodes()
    sm = open_any(str(SOCKETTEER_DEMO))
    for n, _parent, _before in nodes:
        kids = [c.id for c in sm.index.children(n["id"]) if "openloom" in sm.load(c)]
        assert kids == [c["id"] for c in n["children"]]
    deep = max(nodes, key=lambda t: len(t[2]) + len(t[0]["text"]))
    assert path_text(sm, deep[0]["id"]) == deep[2] + deep[0]["text"]


@needs_shared()
def test_node_fields_are_kept_and_chapters_shown():
    doc, nodes = raw_nodes()
    sm = open_any(str(SOCKETTEER_DEMO))
    by_id = {n["id"]: n for n, _p, _b in nodes}
    media = next(n for n in by_id.values() if "multimedia" in n)
    e = sm.get_entry(media["id"])
    ext = e["openloom"]["node"]["extensions"]["socketteer-loom"]
    assert ext == {k: v for k, v in media.items() if k not in ("children", "text", "id")}
    assert e["openloom"]["socketteer"]["multimedia"] == media["multimedia"]
    chapter = doc["chapters"][media["chapter_id"]]["title"]
    assert e["openloom"]["socketteer"]["chapter"] == chapter
    gen = next(n for n in by_id.values() if "generation" in n)
    assert sm.get_entry(gen["id"])["openloom"]["node"]["generation"] == {
        "requestId": gen["generation"]["id"],
        "completionIndex": gen["generation"]["index"],
    }
    starts = [e for e in loom_entries(sm) if "chapterStart" in sm.load(e)["openloom"].get("socketteer", {})]
    assert len(starts) == len({c["root_id"] for c in doc["chapters"].values()} & set(by_id))


def test_legacy_flags_bare_node_and_minted_ids(tmp_path):
    doc = {
        "text": "Once",
        "children": [
            {"text": " upon", "bookmark": True, "children": [], "meta": {"source": "AI"}},
            {
                "id": "x",
                "text": " a",
                "archived": True,
                "children": [{"id": "x", "text": " time", "children": []}],
            },  # duplicate id
        ],
    }
    p = write_json(tmp_path / "bare.json", doc)
    sm = open_any(str(p))
    by_text = {e.text: e.id for e in loom_entries(sm)}
    root, upon, time = by_text["Once"], by_text[" upon"], by_text[" time"]
    assert by_text[" a"] == "x"
    assert [str(d) for d in sm.diagnostics] == [
        f"the root has no id; given {root}",
        f"child #0 of {root} has no id; given {upon}",
        f"duplicate node id 'x' (child #0 of x); this one is given {time}",
    ]
    assert [e.id for e in open_any(str(p)).index.entries] == [e.id for e in sm.index.entries]  # stable
    assert sm.get_leaf_id() == upon  # no selected node: the end of the first branch
    assert sm.get_label(upon) == "bookmark"
    assert sm.get_entry(upon)["message"]["role"] == "assistant"
    assert sm.get_entry("x")["hidden"] == "pruned"
    assert sm.get_entry(time)["hidden"] == "pruned-branch"
    assert sm.get_entry(time)["openloom"]["node"]["extensions"]["socketteer-loom"]["originalId"] == "x"
    assert path_text(sm, time) == "Once a time"


def test_bare_list_of_nodes_gets_an_empty_root(tmp_path):
    sm = open_any(
        str(write_json(tmp_path / "list.json", [{"text": "a", "children": []}, {"text": "b", "children": []}]))
    )
    roots = sm.index.roots
    assert len(roots) == 1 and roots[0].text == ""
    assert [c.text for c in sm.index.children(roots[0].id) if "openloom" in sm.load(c)] == ["a", "b"]
    first = sm.index.children(roots[0].id)[0].id
    assert sm.diagnostics[0].reason == f"child #0 of {roots[0].id} has no id; given {first}"


def test_a_chain_deeper_than_orjson_reads_opens_exports_and_saves(tmp_path):
    depth = 3000  # 6000 JSON levels: past orjson's 1024
    text = (
        '{"root": '
        + "".join(f'{{"id": "n{i}", "text": "{i % 10}", "children": [' for i in range(depth))
        + '{"id": "end", "text": "!", "children": []}'
        + "]}" * depth
        + ', "selected_node_id": "end"}'
    )
    p = tmp_path / "deep.json"
    p.write_text(text)
    sm = open_any(str(p))
    assert (len(loom_entries(sm)), sm.get_leaf_id(), sm.diagnostics) == (depth + 1, "end", [])
    assert path_text(sm, "end") == "".join(str(i % 10) for i in range(depth)) + "!"
    from loomtui.formats.looms.bookmarks import save_bookmarks
    from loomtui.formats.looms.export import export_openloom

    assert export_openloom(sm, str(tmp_path / "deep.openloom")).edges == depth
    sm.append_label_change("n1500", "middle")
    save_bookmarks(sm)
    assert open_any(str(p)).get_label("n1500") == "middle"
