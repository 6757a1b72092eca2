"""socketteer looms opened with a small skeleton per node (formats/looms/socketteer_read.py).

What the session holds must be what the whole-tree conversion (``socketteer.to_tree`` then
``openloom.build_session``) gives — skeletons, full entries, labels, leaf, diagnostics, the
source — for the demo and for any generated loom; and a deep loom must open in memory bounded
by its size, without recursion.
"""

from __future__ import annotations

import json
import tracemalloc
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from loomkit import SOCKETTEER_DEMO

from loomtui.formats.base.common import SOCKETTEER, loom_source
from loomtui.formats.detect import open_any
from loomtui.formats.looms import openloom, socketteer, socketteer_read
from loomtui.formats.looms.bookmarks import save_bookmarks
from loomtui.formats.looms.export import export_openloom
from loomtui.session.entries import Entry
from loomtui.session.jsonvalue import dumps_bytes
from loomtui.view.model import TreeModel
from loomtui.view.plain_rows import plain_rows

#: every field (the timestamp as read: a loom node's is made when asked, its slot stays empty)
SLOTS = ["timestamp" if s == "stamp" else s for s in Entry.__struct_fields__ if s != "data"]


def whole_tree(doc: Any, name: str = "loom") -> Any:
    diag: list[Any] = []
    tree, extras = socketteer.to_tree(doc, name, diag)
    return openloom.build_session(tree, SOCKETTEER, path="/looms/a.json", sha="digest", diagnostics=diag, extras=extras)


def per_node(doc: Any, name: str = "loom") -> Any:
    return socketteer_read.open_socketteer(
        doc, name, path="/looms/a.json", sha="digest", bundle_members=None, bundle_heads=None, diag=[]
    )


def assert_same(doc: Any) -> int:
    a, b = whole_tree(json.loads(json.dumps(doc))), per_node(json.loads(json.dumps(doc)))
    assert [(d.line, d.reason) for d in a.diagnostics] == [(d.line, d.reason) for d in b.diagnostics]
    assert len(a.index.entries) == len(b.index.entries)
    for x, y in zip(a.index.entries, b.index.entries):
        assert {s: getattr(x, s) for s in SLOTS} == {s: getattr(y, s) for s in SLOTS}
        assert dumps_bytes(a.load(x)) == dumps_bytes(b.load(y))  # same values, same key order
    assert a.header == b.header
    assert loom_source(a) == loom_source(b)
    assert a.index.labels == b.index.labels
    assert (a.get_leaf_id(), a.get_session_name()) == (b.get_leaf_id(), b.get_session_name())
    assert [r.id for r in a.index.roots] == [r.id for r in b.index.roots]
    return len(b.index.entries)


def test_the_demo_is_what_the_whole_tree_conversion_gives():
    assert assert_same(json.loads(SOCKETTEER_DEMO.read_bytes())) == 764


ids = st.one_of(st.none(), st.sampled_from(["a", "b", "e-a", "e-b", "e-a-2", "1", 1, 2, True, "", [1]]))
tags = st.lists(st.sampled_from(["bookmark", "archived", "note", "canonical", "x", 3]), max_size=3)


def node_strategy() -> Any:
    leaf = st.fixed_dictionaries(
        {"text": st.one_of(st.text(max_size=12), st.none(), st.integers())},
        optional={
            "id": ids,
            "tags": tags,
            "bookmark": st.booleans(),
            "archived": st.booleans(),
            "loomtui_label": st.one_of(st.text(max_size=6), st.integers()),
            "meta": st.one_of(
                st.fixed_dictionaries(
                    {}, optional={"source": st.sampled_from(["AI", "prompt", "mixed", "other", "", 5])}
                ),
                st.integers(),
            ),
            "generation": st.one_of(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "id": st.sampled_from(["g1", "g2", 4]),
                        "index": st.one_of(st.integers(0, 3), st.booleans()),
                    },
                )
            ),
            "chapter_id": st.sampled_from(["c1", "c2", 7]),
            "visited": st.booleans(),
            "multimedia": st.lists(st.fixed_dictionaries({"file": st.just("/x.png")}), max_size=1),
            "open": st.booleans(),
        },
    )
    return st.recursive(
        leaf,
        lambda kids: st.builds(
            lambda n, cs: {**n, "children": cs},
            leaf,
            st.one_of(st.lists(st.one_of(kids, st.integers()), max_size=4), st.just("not a list")),
        ),
        max_leaves=25,
    )


documents = st.one_of(
    st.builds(
        lambda root, top: {"root": root, **top},
        node_strategy(),
        st.fixed_dictionaries(
            {},
            optional={
                "selected_node_id": st.sampled_from(["a", "b", "missing", "", 3]),
                "tags": st.just({"note": {"hide": True}, "bookmark": {"hide": False}}),
                "model_responses": st.just({"g1": {"model": "davinci"}, "g2": {}}),
                "chapters": st.just({"c1": {"id": "c1", "root_id": "a", "title": "One"}, "c2": {"root_id": ["x"]}}),
            },
        ),
    ),
    node_strategy(),
    st.lists(node_strategy(), min_size=1, max_size=3),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents)
def test_any_loom_is_what_the_whole_tree_conversion_gives(doc):
    assert_same(doc)


def deep_loom(path: Any, n: int) -> int:
    """One chain of ``n`` nodes without ids (the shape of a million-node loom); its size."""
    path.write_text('{"root": ' + '{"text":"x","children":[' * n + "]}" * n + "}")
    return path.stat().st_size


def test_a_deep_loom_opens_in_memory_bounded_by_its_size(tmp_path):
    n = 100_000  # 200,000 levels of JSON: far past any recursion limit
    path = tmp_path / "deep.json"
    size = deep_loom(path, n)
    tracemalloc.start()
    try:
        sm = open_any(str(path))
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    entries = sm.index.entries
    assert len(entries) == n
    assert (sm.index.depth(entries[0]), sm.index.depth(entries[-1])) == (0, n - 1)
    assert sm.get_leaf_id() == entries[-1].id
    assert sm.load(entries[-1])["openloom"]["position"] == n - 1
    # the whole-tree conversion allocated about 3,100 bytes a node at its peak (130 per input
    # byte); a skeleton per node, the parsed document included, about 830 (33 per input byte)
    assert peak / size < 50, f"{peak / size:.0f} bytes allocated per input byte"
    model = TreeModel(sm)
    assert len(model) == n
    rows = list(plain_rows(model, 80))
    assert len(rows) == n and all(r.endswith("\u2022 [node]: x") for r in rows)
    assert rows[-1].startswith("\u203a")  # the leaf is selected


def test_saved_bookmarks_survive_an_entry_made_again(tmp_path):
    path = tmp_path / "loom.json"
    path.write_text(
        json.dumps(
            {
                "root": {
                    "id": "r",
                    "text": "a",
                    "children": [
                        {"id": f"n{i}", "text": f"t{i}", "children": []}
                        for i in range(socketteer_read.KEPT_ENTRIES + 10)
                    ],
                }
            }
        )
    )
    sm = open_any(str(path))
    sm.append_label_change("n3", "mine")
    assert save_bookmarks(sm).changed == 1
    for e in sm.index.entries:  # every entry made once: n3's is no longer kept
        sm.load(e)
    node = sm.get_entry("n3")["openloom"]["node"]
    assert node["meta"]["bookmarked"] is True and node["meta"]["bookmarkLabel"] == "mine"
    out = tmp_path / "out.openloom"
    export_openloom(sm, str(out))
    written = json.loads(out.read_text())["trees"][0]["nodes"]["n3"]
    assert written["meta"]["bookmarkLabel"] == "mine"


def test_a_node_id_holding_a_lone_surrogate_opens(tmp_path: Any) -> None:
    """An id JSON escapes as half a surrogate pair is kept as written: the loom opens, its
    generated ids differ from a neighbour's, and nothing raises."""
    doc = b'{"root": {"id": "a\\ud83d", "text": "hi", "children": [{"id": "b", "text": " there", "children": []}]}}'
    path = tmp_path / "lone.json"
    path.write_bytes(doc)
    manager = open_any(str(path))
    texts = [e.text for e in manager.index.entries if e.text]
    assert any("there" in t for t in texts)
