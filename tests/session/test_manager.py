"""SessionManager: pi's API in Python names (pi-session-spec §7), on a real file."""

from __future__ import annotations

import re

import pytest
from session_helpers import label, msg

from loomtui.session.errors import LoomError
from loomtui.session.manager import SessionManager
from loomtui.session.source import Source
from tests.agent_writer import AgentWriter
from tests.context_helpers import built_context

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
HEX8 = re.compile(r"^[0-9a-f]{8}$")


@pytest.fixture
def sm(write_session) -> SessionManager:
    path = write_session(
        [
            msg("a", None, ts="2026-03-01T09:00:01.000Z"),
            msg(
                "b",
                "a",
                role="assistant",
                text="reply",
                ts="2026-03-01T09:00:02.000Z",
                provider="anthropic",
                model="claude-x",
                stopReason="stop",
            ),
            msg("c", "b", text="second question", ts="2026-03-01T09:00:03.000Z"),
            msg("d", "a", text="edited question", ts="2026-03-01T09:00:04.000Z"),
        ]
    )
    return SessionManager.open(str(path))


def last_line(sm: SessionManager) -> str:
    assert sm.path is not None
    return open(sm.path, encoding="utf-8").read().splitlines()[-1]


def test_reading_api(sm):
    assert sm.get_leaf_id() == "d"
    assert sm.get_entry(sm.get_leaf_id() or "")["id"] == "d"
    assert sm.get_entry("b")["message"]["model"] == "claude-x"
    assert sm.get_entry("nope") is None
    assert [e["id"] for e in [sm.load(e) for e in sm.index.children_in_file_order("a")]] == ["b", "d"]
    assert [sm.load(e) for e in sm.index.children_in_file_order("d")] == []
    assert [e["id"] for e in [sm.load(e) for e in sm.index.path_to(sm.get_leaf_id())]] == ["a", "d"]
    assert [e["id"] for e in [sm.load(e) for e in sm.index.path_to("c")]] == ["a", "b", "c"]
    assert [sm.load(e) for e in sm.index.path_to("nope")] == []
    assert [e.id for e in sm.index.roots] == ["a"]
    assert [e.id for e in sm.index.children("a")] == ["b", "d"]
    assert [e.id for e in sm.index.children("b")] == ["c"]
    assert sm.get_label("a") is None
    assert sm.get_session_name() is None
    assert [e["id"] for e in [sm.load(e) for e in sm.index.entries]] == ["a", "b", "c", "d"]
    assert sm.get_header()["id"] == "sess-0001"


def test_branch_moves_the_leaf_in_memory_only(sm):
    before = open(sm.path, "rb").read()
    sm.branch("c")
    assert sm.get_leaf_id() == "c"
    assert [e["id"] for e in [sm.load(e) for e in sm.index.path_to(sm.get_leaf_id())]] == ["a", "b", "c"]
    assert sm.leaf_moved
    assert open(sm.path, "rb").read() == before
    with pytest.raises(LoomError, match="entry nope not found"):
        sm.branch("nope")
    assert sm.get_leaf_id() == "c"


def test_reset_leaf_makes_the_next_append_a_new_root(sm):
    sm.reset_leaf()
    assert sm.get_leaf_id() is None
    assert sm.get_entry(sm.get_leaf_id() or "") is None
    assert built_context(sm).messages == []
    new = sm.append_custom_entry("loomtui/test")
    assert sm.get_entry(new)["parentId"] is None
    assert [r.id for r in sm.index.roots] == ["a", new]
    assert sm.get_leaf_id() == new


def test_an_append_is_child_of_leaf_and_becomes_leaf(sm):
    sm.branch("c")
    new = sm.append_custom_entry("loomtui/test", {"k": 1})
    assert HEX8.match(new)
    line = last_line(sm)
    assert line.startswith(
        '{"type":"custom","customType":"loomtui/test","data":{"k":1},"id":"' + new + '","parentId":"c"'
    )
    entry = sm.get_entry(new)
    assert ISO.match(entry["timestamp"])
    assert sm.get_leaf_id() == new
    assert not sm.leaf_moved
    assert [c.id for c in sm.index.children("c")] == [new]


def test_every_append_kind_writes_pi_key_order(sm):
    """What loomtui appends: archive records (custom entries) and labels, in pi's key order,
    each the child of the previous one."""
    ids = [
        sm.append_custom_entry("ext/state", {"k": 1}),
        sm.append_custom_entry("ext/none"),
        sm.append_label_change("a", "x"),
        sm.append_label_change("a", None),
    ]
    entries = [sm.get_entry(i) for i in ids]
    assert [list(e) for e in entries] == [
        ["type", "customType", "data", "id", "parentId", "timestamp"],
        ["type", "customType", "id", "parentId", "timestamp"],
        ["type", "id", "parentId", "timestamp", "targetId", "label"],
        ["type", "id", "parentId", "timestamp", "targetId"],
    ]
    assert [e["parentId"] for e in entries] == ["d", *ids[:-1]]
    assert sm.get_leaf_id() == ids[-1]
    assert sm.get_label("a") is None
    # custom entries and labels are not context
    assert [m["role"] for m in built_context(sm).messages] == ["user", "user"]


def test_append_label_change_sets_and_clears_and_becomes_leaf(sm):
    set_id = sm.append_label_change("b", "checkpoint")
    entry = sm.get_entry(set_id)
    assert list(entry) == ["type", "id", "parentId", "timestamp", "targetId", "label"]
    assert entry["parentId"] == "d"
    assert sm.get_label("b") == "checkpoint"
    assert sm.get_leaf_id() == set_id
    # the label entry hangs off the old leaf: the conversation path is unchanged
    assert [e["id"] for e in [sm.load(e) for e in sm.index.path_to(sm.get_leaf_id())]] == ["a", "d", set_id]

    clear_id = sm.append_label_change("b", None)
    cleared = sm.get_entry(clear_id)
    assert "label" not in cleared
    assert cleared["parentId"] == set_id
    assert sm.get_label("b") is None
    assert sm.get_leaf_id() == clear_id
    assert '"label":' not in last_line(sm)
    sm.append_label_change("b", "")
    assert '"label":' not in last_line(sm)


def test_a_label_keeping_resume_hangs_off_the_file_leaf_and_keeps_the_moved_leaf(sm):
    sm.branch("b")  # the user looked at another branch (not saved)
    first = sm.append_label_keeping_resume("c", "looked")
    assert sm.get_entry(first)["parentId"] == "d"  # the file's last entry: pi resumes there
    assert sm.get_leaf_id() == "b" and sm.leaf_moved
    second = sm.append_label_keeping_resume("b", None)
    assert sm.get_entry(second)["parentId"] == first
    assert sm.index.leaf_id == second and sm.get_leaf_id() == "b"
    # a reopened file resumes on the same conversation
    again = SessionManager.open(sm.path)
    assert [e["id"] for e in [again.load(e) for e in again.index.path_to(again.get_leaf_id())]] == [
        "a",
        "d",
        first,
        second,
    ]
    # not moved: the label becomes the leaf, as in pi
    sm.branch(second)
    third = sm.append_label_keeping_resume("a", "x")
    assert sm.get_entry(third)["parentId"] == second and sm.get_leaf_id() == third
    # another writer appended first: the label goes after its line
    with open(sm.path, "a", encoding="utf-8") as f:
        import json

        f.write(json.dumps(msg("e", "d", text="pi went on", ts="2026-03-01T09:00:05.000Z")) + "\n")
    sm.branch("b")
    fourth = sm.append_label_keeping_resume("a", "y")
    assert sm.get_entry(fourth)["parentId"] == "e" and sm.get_leaf_id() == "b"


def test_append_refusal_names_old_formats_and_read_only_sources(sm):
    assert sm.append_refusal() is None
    sm.state.version = 1
    assert "migrate" in (sm.append_refusal() or "")
    mem = SessionManager.from_entries({"type": "session", "version": 3}, [])
    assert mem.append_refusal() is None
    ro = SessionManager.from_entries(
        {"type": "session", "version": 3},
        [],
        source=Source("claude", "/x.jsonl", labels="none", read_only_reason="a Claude Code transcript"),
    )
    assert ro.append_refusal() == "a Claude Code transcript"


def test_append_label_change_on_unknown_entry_writes_nothing(sm):
    before = open(sm.path, "rb").read()
    with pytest.raises(LoomError, match="entry ghost not found"):
        sm.append_label_change("ghost", "x")
    assert open(sm.path, "rb").read() == before


def test_session_context_at_unknown_leaf_falls_back_to_last_entry(sm):
    plan = sm.session_context_plan("nope")
    assert [m["content"] for m in (item.message() for item in plan.items) if m is not None] == [
        [{"type": "text", "text": "hi"}],
        [{"type": "text", "text": "edited question"}],
    ]


def test_reopened_file_sees_appends_in_order(sm):
    a = sm.append_label_change("a", "root")
    b = AgentWriter(sm.path).append_message({"role": "user", "content": "more"})
    again = SessionManager.open(sm.path)
    assert again.get_leaf_id() == b
    assert again.get_label("a") == "root"
    assert [e["id"] for e in [again.load(e) for e in again.index.path_to(again.get_leaf_id())]] == ["a", "d", a, b]


def test_in_memory_session_appends_stay_in_memory():
    sm = SessionManager.from_entries(
        {"type": "session", "version": 3, "id": "m", "timestamp": "t", "cwd": "/"},
        [msg("a", None), label("l", "a", "a", "x")],
    )
    assert sm.get_label("a") == "x"
    new = sm.append_custom_entry("loomtui/test")
    assert sm.get_entry(new)["parentId"] == "l"
    assert sm.get_leaf_id() == new


def test_new_ids_are_8_hex_not_in_the_file_and_full_uuid_after_100_collisions(monkeypatch):
    import uuid

    from loomtui.session import manager

    # every random draw starts with the same 4 bytes: ids collide, as in pi's generateId
    monkeypatch.setattr(manager.os, "urandom", lambda n: bytes.fromhex("abcdef01") + bytes(n - 4))
    assert manager.new_entry_id({"00000000"}) == "abcdef01"
    fallback = manager.new_entry_id({"abcdef01"})
    assert fallback == str(uuid.UUID("abcdef01-0000-4000-8000-000000000000"))


def test_an_entry_read_after_the_file_was_cut_under_it_is_a_clear_error_not_a_decode_crash(sm):
    """The background readers (the header's token count, the detail pane) load entries after
    the open; a file cut or rewritten meanwhile says so and names the line."""
    from loomtui.session.errors import FileChanged

    assert sm.path is not None
    last = sm.index.by_id["d"]
    with open(sm.path, "r+b") as f:
        f.truncate(last.offset)  # the last entry's line is gone
    with pytest.raises(FileChanged, match=r"changed on disk: line \d+ no longer holds entry d; reopen it"):
        sm.load(last)
    assert isinstance(FileChanged("x"), LoomError)
    assert sm.load(sm.index.by_id["a"])["id"] == "a"  # what is still there still reads
