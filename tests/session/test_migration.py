"""v1 → v2 → v3 migration (pi-session-spec §6): in memory on every open, and `migrate_file`."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from session_helpers import dumps

from loomtui.session.errors import WriteRefused
from loomtui.session.manager import SessionManager
from loomtui.session.migrate import migrate_file, migrated_bytes
from loomtui.session.reader import migrated_id
from tests.context_helpers import built_context

V1_HEADER = {
    "type": "session",
    "id": "v1-sess",
    "timestamp": "2025-12-01T10:00:00.000Z",
    "cwd": "/w",
    "provider": "anthropic",
    "modelId": "claude",
    "thinkingLevel": "off",
}


def _entries(sm: SessionManager) -> list[dict[str, Any]]:
    """Every entry as decoded, in file order."""
    return [sm.load(e) for e in sm.index.entries]


def v1_msg(role: str, text: str, ts: str = "2025-12-01T10:00:01.000Z") -> dict:
    return {"type": "message", "timestamp": ts, "message": {"role": role, "content": [{"type": "text", "text": text}]}}


def v1_parts() -> list:
    return [
        v1_msg("user", "one"),  # index 1
        v1_msg("assistant", "two"),  # index 2
        {"type": "thinking_level_change", "timestamp": "2025-12-01T10:00:03.000Z", "thinkingLevel": "high"},  # 3
        v1_msg("user", "four"),  # index 4
        {
            "type": "compaction",
            "timestamp": "2025-12-01T10:00:05.000Z",
            "summary": "S",
            "firstKeptEntryIndex": 4,
            "tokensBefore": 100,
        },  # 5
        {
            "type": "message",
            "timestamp": "2025-12-01T10:00:06.000Z",
            "message": {"role": "hookMessage", "customType": "hook", "content": "h", "display": True},
        },  # 6
        v1_msg("assistant", "seven"),  # index 7
    ]


def test_v1_entries_get_deterministic_ids_and_a_single_chain(write_session):
    path = write_session(v1_parts(), header=V1_HEADER)
    first = SessionManager.open(str(path))
    second = SessionManager.open(str(path))
    ids = [e.id for e in first.index.entries]
    assert ids == [e.id for e in second.index.entries]
    assert len(ids) == 7 and len(set(ids)) == 7
    assert all(len(i) == 8 and int(i, 16) >= 0 for i in ids)
    assert [e.parent_id for e in first.index.entries] == [None] + ids[:-1]
    assert first.version == 1
    assert first.get_leaf_id() == ids[-1]
    assert [r.id for r in first.index.roots] == [ids[0]]


def test_v1_ids_depend_on_session_id_and_position_only(write_session):
    path = write_session(v1_parts(), header=V1_HEADER)
    sm = SessionManager.open(str(path))
    taken: set[str] = set()
    expected = []
    for index in range(1, 8):  # pi's array index; the header is index 0
        eid = migrated_id("v1-sess", index, taken)
        taken.add(eid)
        expected.append(eid)
    assert [e.id for e in sm.index.entries] == expected


def test_v1_entry_keys_follow_pi_order_with_id_and_parent_appended(write_session):
    path = write_session(v1_parts(), header=V1_HEADER)
    sm = SessionManager.open(str(path))
    first = [sm.load(e) for e in sm.index.entries][0]
    assert list(first) == ["type", "timestamp", "message", "id", "parentId"]
    assert first["parentId"] is None


def test_first_kept_entry_index_becomes_first_kept_entry_id(write_session):
    path = write_session(v1_parts(), header=V1_HEADER)
    sm = SessionManager.open(str(path))
    entries = [sm.load(e) for e in sm.index.entries]
    compaction = entries[4]
    assert list(compaction) == ["type", "timestamp", "summary", "tokensBefore", "id", "parentId", "firstKeptEntryId"]
    assert compaction["firstKeptEntryId"] == entries[3]["id"]  # pi's index 4 = the 4th entry


def test_first_kept_entry_index_pointing_at_header_or_later_entry_is_dropped(write_session):
    parts = v1_parts()
    parts[4] = {**parts[4], "firstKeptEntryIndex": 0}
    parts.append(
        {
            "type": "compaction",
            "timestamp": "2025-12-01T10:00:08.000Z",
            "summary": "T",
            "firstKeptEntryIndex": 99,
            "tokensBefore": 5,
        }
    )
    path = write_session(parts, header=V1_HEADER)
    entries = _entries(SessionManager.open(str(path)))
    assert "firstKeptEntryId" not in entries[4] and "firstKeptEntryIndex" not in entries[4]
    assert "firstKeptEntryId" not in entries[7] and "firstKeptEntryIndex" not in entries[7]


def test_first_kept_entry_index_that_is_not_a_number_stays_like_pi(write_session):
    parts = v1_parts()
    parts[4] = {**parts[4], "firstKeptEntryIndex": "4"}
    path = write_session(parts, header=V1_HEADER)
    compaction = _entries(SessionManager.open(str(path)))[4]
    assert compaction["firstKeptEntryIndex"] == "4"
    assert "firstKeptEntryId" not in compaction


def test_hook_message_role_becomes_custom_in_v1_and_v2(write_session):
    path = write_session(v1_parts(), header=V1_HEADER)
    sm = SessionManager.open(str(path))
    assert [sm.load(e) for e in sm.index.entries][5]["message"]["role"] == "custom"
    assert sm.index.entries[5].role == "custom"

    v2 = {"type": "session", "version": 2, "id": "v2-sess", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}
    hook = {
        "type": "message",
        "id": "b1",
        "parentId": None,
        "timestamp": "2026-01-01T00:00:01.000Z",
        "message": {"role": "hookMessage", "customType": "x", "content": "c", "display": False},
    }
    sm2 = SessionManager.open(str(write_session([hook], header=v2)))
    assert sm2.version == 2
    assert sm2.get_entry("b1")["message"]["role"] == "custom"
    assert [e.id for e in sm2.index.entries] == ["b1"]  # v2 ids are kept


def test_v1_file_is_never_rewritten_by_opening(write_session):
    path = write_session(v1_parts(), header=V1_HEADER)
    before = path.read_bytes()
    sm = SessionManager.open(str(path))
    [sm.load(e) for e in sm.index.entries]
    built_context(sm)
    assert path.read_bytes() == before


def test_real_v1_file_migrates_like_pi(pi_dir):
    sm = SessionManager.open(str(pi_dir / "pi-mono-before-compaction.jsonl"))
    assert sm.version == 1
    entries = [sm.load(e) for e in sm.index.entries]
    assert len(entries) == 1002
    assert [e["parentId"] for e in entries] == [None] + [e["id"] for e in entries[:-1]]
    compactions = [e for e in entries if e["type"] == "compaction"]
    raw = [json.loads(line) for line in (pi_dir / "pi-mono-before-compaction.jsonl").read_text().splitlines() if line]
    indices = [r["firstKeptEntryIndex"] for r in raw if r.get("type") == "compaction"]
    assert indices == [293, 551]
    # pi's array index counts the header as 0, so index i is entries[i - 1]
    assert [c["firstKeptEntryId"] for c in compactions] == [entries[292]["id"], entries[550]["id"]]


# --- migrate_file ---------------------------------------------------------------------------


def test_migrate_rewrites_v1_as_v3_and_keeps_the_original_as_bak(write_session):
    path = write_session(v1_parts(), header=V1_HEADER)
    original = path.read_bytes()
    before = SessionManager.open(str(path))
    backup = migrate_file(str(path))
    assert backup == str(path) + ".bak"
    assert open(backup, "rb").read() == original
    after = SessionManager.open(str(path))
    assert after.version == 3
    assert after.header == {**V1_HEADER, "version": 3}
    assert [e.id for e in after.index.entries] == [e.id for e in before.index.entries]
    assert [after.load(e) for e in after.index.entries] == [before.load(e) for e in before.index.entries]
    assert after.diagnostics == []


def test_migrated_file_is_what_pi_writes(write_session):
    path = write_session(v1_parts(), header=V1_HEADER)
    before = _entries(SessionManager.open(str(path)))
    migrate_file(str(path))
    lines = path.read_text().split("\n")
    assert lines[-1] == ""
    assert lines[0] == dumps({**V1_HEADER, "version": 3})
    assert lines[1:-1] == [dumps(e) for e in before]


def test_migrate_keeps_opaque_title_and_torn_lines_in_place(write_session):
    title = dumps({"type": "title", "v": 1, "title": "T", "updatedAt": "2025-12-01T10:00:00.000Z", "pad": "  "})
    parts = [
        title,
        dumps(V1_HEADER),
        v1_msg("user", "one"),
        "not json at all\r",
        "",
        "[1,2]",
        v1_msg("assistant", "two"),
        {**V1_HEADER, "id": "other"},
        b'{"type":"message","timest',
    ]
    path = write_session(parts, header=None)
    before = SessionManager.open(str(path))
    migrate_file(str(path))
    lines = path.read_bytes().split(b"\n")
    e1, e2 = [before.load(e) for e in before.index.entries]
    assert lines == [
        title.encode(),
        dumps({**V1_HEADER, "version": 3}).encode(),
        dumps(e1).encode(),
        b"not json at all\r",
        b"[1,2]",
        dumps(e2).encode(),
        dumps({**V1_HEADER, "id": "other"}).encode(),
        b'{"type":"message","timest',
        b"",
    ]
    after = SessionManager.open(str(path))
    assert [e.id for e in after.index.entries] == [e1["id"], e2["id"]]
    assert after.title is not None and after.title["title"] == "T"


def test_migrate_v2_renames_hook_messages_and_keeps_ids(write_session):
    v2 = {"type": "session", "version": 2, "id": "v2-sess", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}
    hook = {
        "type": "message",
        "id": "b1",
        "parentId": None,
        "timestamp": "2026-01-01T00:00:01.000Z",
        "message": {"role": "hookMessage", "customType": "x", "content": "c", "display": False},
    }
    path = write_session([hook], header=v2)
    migrate_file(str(path))
    assert path.read_text().splitlines() == [
        dumps({**v2, "version": 3}),
        dumps({**hook, "message": {**hook["message"], "role": "custom"}}),
    ]


def test_migrate_refuses_v3_files_and_writes_nothing(write_session):
    path = write_session([{"type": "custom", "customType": "x", "id": "a1", "parentId": None, "timestamp": "t"}])
    before = path.read_bytes()
    with pytest.raises(WriteRefused, match="already version 3"):
        migrate_file(str(path))
    assert path.read_bytes() == before
    assert not os.path.exists(str(path) + ".bak")


def test_migrate_refuses_when_backup_exists(write_session):
    path = write_session(v1_parts(), header=V1_HEADER)
    before = path.read_bytes()
    (path.parent / (path.name + ".bak")).write_bytes(b"older backup")
    with pytest.raises(WriteRefused, match=r"backup .*\.bak already exists"):
        migrate_file(str(path))
    assert path.read_bytes() == before
    assert (path.parent / (path.name + ".bak")).read_bytes() == b"older backup"


def test_migrate_keeps_file_permissions(write_session):
    path = write_session(v1_parts(), header=V1_HEADER)
    path.chmod(0o640)
    backup = migrate_file(str(path))
    assert os.stat(path).st_mode & 0o777 == 0o640
    assert os.stat(backup).st_mode & 0o777 == 0o640


def test_migrate_real_v1_file_gives_ids_seen_before(pi_copy):
    path = pi_copy("pi-mono-before-compaction")
    before = SessionManager.open(str(path))
    migrate_file(str(path))
    after = SessionManager.open(str(path))
    assert after.version == 3
    assert [e.id for e in after.index.entries] == [e.id for e in before.index.entries]
    assert [after.load(e) for e in after.index.path_to(after.get_leaf_id())] == [
        before.load(e) for e in before.index.path_to(before.get_leaf_id())
    ]
    assert [m["role"] for m in built_context(after).messages] == [m["role"] for m in built_context(before).messages]


def test_migrated_bytes_of_real_file_match_pi_byte_for_byte_except_ids(pi_dir):
    """pi's own rewrite differs only in its random ids (checked with the oracle's pi build)."""
    data, _, _ = migrated_bytes(str(pi_dir / "pi-mono-before-compaction.jsonl"))
    lines = data.decode().split("\n")
    assert len(lines) == 1004 and lines[-1] == ""
    header = json.loads(lines[0])
    assert list(header)[-1] == "version" and header["version"] == 3
    # numbers are written as JavaScript prints them
    assert '"input":0.000005,' in data.decode()
    assert "e-06" not in data.decode()
