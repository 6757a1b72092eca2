"""The index: children order, roots, leaf, labels, name, cycles, duplicates (spec §7.1, §7.3, §7.4)."""

from __future__ import annotations

import json
import threading

import pytest
from session_helpers import PI_FIXTURES, RANDOM_ID_GOLDENS, label, msg

from loomtui.session.manager import SessionManager
from tests.context_helpers import built_context
from tests.shared_material import needs_shared


def open_(path) -> SessionManager:
    return SessionManager.open(str(path))


def kids(sm: SessionManager, entry_id: str) -> list[str]:
    return [e.id for e in sm.index.children(entry_id)]


def roots(sm: SessionManager) -> list[str]:
    return [e.id for e in sm.index.roots]


def tree_ids(sm: SessionManager) -> list[str]:
    """Every entry reached from the roots through their children (pi's getTree walk)."""
    seen: list[str] = []
    stack = list(sm.index.roots)
    while stack:
        e = stack.pop()
        seen.append(e.id)
        stack.extend(sm.index.children(e.id))
    return seen


def test_children_are_ordered_by_timestamp_with_ties_in_file_order(write_session):
    path = write_session(
        [
            msg("r", None, ts="2026-03-01T09:00:00.000Z"),
            msg("c3", "r", ts="2026-03-01T09:00:03.000Z"),
            msg("c1", "r", ts="2026-03-01T09:00:01.000Z"),
            msg("t2", "r", ts="2026-03-01T09:00:02.000Z"),
            msg("t1", "r", ts="2026-03-01T09:00:02.000Z"),
            msg("c0", "r", ts="2026-03-01T10:00:00.000+02:00"),  # 08:00Z: earliest
        ]
    )
    sm = open_(path)
    assert kids(sm, "r") == ["c0", "c1", "t2", "t1", "c3"]
    # pi's getChildren is file order
    assert [e["id"] for e in [sm.load(e) for e in sm.index.children_in_file_order("r")]] == [
        "c3",
        "c1",
        "t2",
        "t1",
        "c0",
    ]


def test_unparseable_timestamps_keep_file_order_relative_to_each_other(write_session):
    path = write_session(
        [
            msg("r", None),
            msg("x", "r", ts="not a date"),
            msg("y", "r", ts="also not"),
        ]
    )
    assert kids(open_(path), "r") == ["x", "y"]


def test_roots_null_self_and_missing_parent_in_file_order(write_session):
    path = write_session(
        [
            msg("a", None),
            msg("b", "b"),  # self-parent
            msg("c", "ghost"),  # orphan
            msg("d", "a"),
            {**msg("e", None), "parentId": None},
        ]
    )
    sm = open_(path)
    assert roots(sm) == ["a", "b", "c", "e"]
    assert [sm.load(e) for e in sm.index.path_to("b")] == [sm.get_entry("b")]
    assert [e["id"] for e in [sm.load(e) for e in sm.index.path_to("c")]] == ["c"]
    assert sm.diagnostics == []


def test_out_of_order_lines_are_linked_like_pi(write_session):
    path = write_session(
        [
            msg("c", "b", ts="2026-03-01T09:00:03.000Z"),
            msg("a", None, ts="2026-03-01T09:00:01.000Z"),
            msg("b2", "a", ts="2026-03-01T09:00:05.000Z"),
            msg("b", "a", ts="2026-03-01T09:00:02.000Z"),
        ]
    )
    sm = open_(path)
    assert roots(sm) == ["a"]
    assert kids(sm, "a") == ["b", "b2"]
    assert sm.index.children_in_file_order("a") == [sm.index.by_id["b2"], sm.index.by_id["b"]]
    assert kids(sm, "b") == ["c"]
    assert sm.get_leaf_id() == "b"
    assert [e["id"] for e in [sm.load(e) for e in sm.index.path_to("c")]] == ["a", "b", "c"]
    assert sm.diagnostics == []


def test_leaf_is_the_last_entry_in_the_file_whatever_its_type(write_session):
    path = write_session(
        [
            msg("a", None),
            msg("b", "a"),
            {
                "type": "custom",
                "customType": "ext",
                "id": "z",
                "parentId": "a",
                "timestamp": "2026-03-01T08:00:00.000Z",
            },
        ]
    )
    sm = open_(path)
    assert sm.get_leaf_id() == "z"
    assert sm.get_entry(sm.get_leaf_id() or "")["type"] == "custom"
    path2 = write_session([msg("a", None), label("l1", "a", "a", "x")])
    assert open_(path2).get_leaf_id() == "l1"


def test_labels_last_wins_and_missing_or_empty_label_clears(write_session):
    path = write_session(
        [
            msg("a", None),
            msg("b", "a"),
            label("l1", "b", "a", "first", ts="2026-03-01T09:01:00.000Z"),
            label("l2", "l1", "b", "bee", ts="2026-03-01T09:02:00.000Z"),
            label("l3", "l2", "a", "second", ts="2026-03-01T09:03:00.000Z"),
            label("l4", "l3", "b", None, ts="2026-03-01T09:04:00.000Z"),  # no label key: clear
            label("l5", "l4", "b", "again", ts="2026-03-01T09:05:00.000Z"),
            label("l6", "l5", "b", "", ts="2026-03-01T09:06:00.000Z"),  # empty: clear
            label("l7", "l6", "ghost", "nobody"),  # unknown target still counts
        ]
    )
    sm = open_(path)
    assert sm.get_label("a") == "second"
    assert sm.get_label("b") is None
    assert sm.index.label_timestamp("a") == "2026-03-01T09:03:00.000Z"
    # dict order is pi's Map order: a set first, kept its slot when overwritten
    assert list(sm.index.labels.items()) == [
        ("a", ("second", "2026-03-01T09:03:00.000Z")),
        ("ghost", ("nobody", "2026-03-01T09:00:09.000Z")),
    ]


def test_labels_on_other_branches_apply(write_session):
    path = write_session([msg("a", None), msg("b", "a"), msg("c", "a"), label("l", "c", "b", "off-branch")])
    sm = open_(path)
    assert sm.get_label("b") == "off-branch"
    assert [sm.get_label(c.id) for c in sm.index.children("a")] == ["off-branch", None]


def test_session_name_is_latest_session_info_and_empty_clears(write_session):
    def info(i, p, name):
        return {"type": "session_info", "id": i, "parentId": p, "timestamp": "2026-03-01T09:00:05.000Z", "name": name}

    assert open_(write_session([msg("a", None), info("s1", "a", "  First  ")])).get_session_name() == "First"
    assert (
        open_(write_session([msg("a", None), info("s1", "a", "First"), info("s2", "s1", "Second")])).get_session_name()
        == "Second"
    )
    assert (
        open_(write_session([msg("a", None), info("s1", "a", "First"), info("s2", "s1", "")])).get_session_name()
        is None
    )
    assert open_(write_session([msg("a", None)])).get_session_name() is None


def test_cycle_of_two_never_hangs_and_becomes_roots_with_diagnostics(write_session):
    path = write_session([msg("r", None), msg("x", "y"), msg("y", "x"), msg("z", "y")])
    sm = open_(path)
    assert roots(sm) == ["r", "x", "y"]
    assert kids(sm, "y") == ["z"]
    assert [e["id"] for e in [sm.load(e) for e in sm.index.path_to("z")]] == ["y", "z"]
    assert [e["id"] for e in [sm.load(e) for e in sm.index.path_to("x")]] == ["x"]
    assert [(d.line, d.reason) for d in sm.diagnostics] == [
        (3, "entry 'x' is on a parentId cycle; shown as a root"),
        (4, "entry 'y' is on a parentId cycle; shown as a root"),
    ]
    assert [r.id for r in sm.index.roots] == ["r", "x", "y"]


def test_long_cycle_with_tail_terminates(write_session):
    n = 50
    parts = [msg(f"c{i}", f"c{(i + 1) % n}") for i in range(n)] + [msg("tail", "c7")]
    sm = open_(write_session(parts))
    done = threading.Event()

    def walk() -> None:
        tree_ids(sm)
        for e in sm.index.entries:
            [sm.load(e) for e in sm.index.path_to(e.id)]
        built_context(sm, "tail")
        done.set()

    t = threading.Thread(target=walk, daemon=True)
    t.start()
    t.join(10)
    assert done.is_set()
    assert len(roots(sm)) == n
    assert len(sm.diagnostics) == n


def test_cycle_created_by_live_appends_is_broken_too(write_session):
    path = write_session([msg("r", None), msg("x", "y")])
    sm = open_(path)
    with open(path, "a") as f:
        f.write(json.dumps(msg("y", "x")) + "\n")
    sm.refresh()
    assert roots(sm) == ["r", "x", "y"]
    assert [e["id"] for e in [sm.load(e) for e in sm.index.path_to("x")]] == ["x"]
    assert [e["id"] for e in [sm.load(e) for e in sm.index.path_to("y")]] == ["y"]
    assert [(d.line, d.reason) for d in sm.diagnostics] == [
        (3, "entry 'x' is on a parentId cycle; shown as a root"),
        (4, "entry 'y' is on a parentId cycle; shown as a root"),
    ]


def test_duplicate_ids_first_wins_with_diagnostic(write_session):
    path = write_session([msg("a", None, text="first"), msg("b", "a"), msg("a", "b", text="second")])
    sm = open_(path)
    assert [e.id for e in sm.index.entries] == ["a", "b"]
    assert sm.get_entry("a")["message"]["content"][0]["text"] == "first"
    assert sm.get_leaf_id() == "b"
    assert [(d.line, d.reason) for d in sm.diagnostics] == [
        (4, "duplicate id 'a': the first entry with it wins, this line is kept as is")
    ]


def test_tree_nodes_carry_labels_and_sorted_children(pi_dir):
    sm = open_(pi_dir / "dnouri-browse-session.jsonl")
    assert [r.id for r in sm.index.roots] == ["aa000001"]
    assert sm.index.label_of("aa000001") == "restored"
    assert sm.index.label_timestamp("aa000001") == "2026-03-01T09:20:20.000Z"
    # every entry appears exactly once
    seen = tree_ids(sm)
    assert sorted(seen) == sorted(e.id for e in sm.index.entries)


@pytest.mark.parametrize("name", PI_FIXTURES)
def test_index_matches_pi_goldens(name, pi_dir, goldens_dir, parity_file):
    golden = json.loads((goldens_dir / f"{name}.json").read_text())
    sm = open_(parity_file(pi_dir / f"{name}.jsonl"))
    assert len(sm.index.entries) == golden["entryCount"]
    assert len(sm.index.roots) == len(golden["roots"])
    assert len([sm.load(e) for e in sm.index.path_to(sm.get_leaf_id())]) == len(golden["branch"])
    if name in RANDOM_ID_GOLDENS:
        assert golden["labels"] == {} and sm.index.labels == {}
        return
    assert sm.get_leaf_id() == golden["leafId"]
    assert roots(sm) == golden["roots"]
    assert [e["id"] for e in [sm.load(e) for e in sm.index.path_to(sm.get_leaf_id())]] == golden["branch"]
    labels = {e.id: sm.get_label(e.id) for e in sm.index.entries if sm.get_label(e.id)}
    assert list(labels.items()) == list(golden["labels"].items())


def test_depth_along_deep_chains_and_branches_in_any_order(write_session):
    # a 1000-deep chain with a branch at 700 and a second root: every depth, asked for in a
    # scattered order (so walks stop at memoised entries), is the linked path's length - 1
    parts = [msg(f"c{i:04d}", f"c{i - 1:04d}" if i else None) for i in range(1000)]
    parts += [msg(f"b{i:04d}", f"b{i - 1:04d}" if i else "c0700") for i in range(300)]
    parts += [msg("r0000", None), msg("r0001", "r0000")]
    sm = SessionManager.open(str(write_session(parts)))
    ix = sm.index
    order = sorted(ix.entries, key=lambda e: e.id[::-1])
    for e in [ix.by_id["c0999"], ix.by_id["b0299"], *order, ix.by_id["c0000"]]:
        assert ix.depth(e) == len(ix.path_to(e.id)) - 1, e.id
    assert ix.depth(ix.by_id["b0299"]) == 701 + 299


@needs_shared()
def test_the_entries_with_tool_calls_and_the_custom_ones_are_listed_as_a_pass_would_find_them(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``with_tool_calls`` and ``custom_entries`` (kept while indexing, so the tool-call map and
    the archive records need no pass over every entry) hold exactly the entries a pass over
    ``entries`` finds, in file order: built at once, added one by one, with duplicate ids,
    children before their parents and appends."""
    import json

    from loomtui.session.index import SessionIndex
    from tests.session.test_split import adversarial_session

    path = adversarial_session(tmp_path / "s.jsonl", copies=3)
    lines = path.read_bytes().split(b"\n")
    extra = [
        {"type": "custom", "id": f"c{k}", "parentId": None, "customType": "loomtui.archive", "data": {}}
        for k in range(3)
    ] + [{"type": "archive", "id": "ar1", "parentId": "c0", "targetId": "c1"}]
    path.write_bytes(b"\n".join(lines[:-1] + [json.dumps(o).encode() for o in extra]) + b"\n")
    sm = open_(path)
    index = sm.index
    with_calls = [e for e in index.entries if e.tool_calls is not None]
    custom = [e for e in index.entries if e.type in ("custom", "archive")]
    assert len(with_calls) > 10 and len(custom) >= 4
    assert index.with_tool_calls == with_calls and index.custom_entries == custom
    one_by_one = SessionIndex()
    for e in index.entries:
        one_by_one.add(e)
    assert one_by_one.with_tool_calls == with_calls and one_by_one.custom_entries == custom
    # an append after the build
    with open(path, "a") as f:
        f.write(
            json.dumps(
                {
                    "type": "message",
                    "id": "appended",
                    "parentId": "ar1",
                    "timestamp": "2026-01-02T00:00:00Z",
                    "message": {
                        "role": "assistant",
                        "content": [
                            {"type": "toolCall", "id": "call-new", "name": "bash", "arguments": {"command": "ls"}}
                        ],
                    },
                }
            )
            + "\n"
        )
    sm.refresh()
    assert index.with_tool_calls[-1].id == "appended"
    assert index.with_tool_calls == [e for e in index.entries if e.tool_calls is not None]
