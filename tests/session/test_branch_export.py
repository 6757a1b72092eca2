"""create_branched_session: what pi's createBranchedSession (/fork) writes (pi-session-spec §7.5)."""

from __future__ import annotations

import json
import os
import re
import uuid

import pytest
from session_helpers import dumps, label, msg

from loomtui.session.errors import LoomError, WriteRefused
from loomtui.session.manager import SessionManager
from tests.context_helpers import built_context

NAME = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z)_([0-9a-f-]{36})\.jsonl$")


def read_lines(path: str) -> list[dict]:
    return [json.loads(line) for line in open(path, encoding="utf-8").read().splitlines()]


@pytest.fixture
def labelled(write_session):
    parts = [
        msg("a", None, ts="2026-03-01T09:00:01.000Z"),
        msg("b", "a", role="assistant", text="r", ts="2026-03-01T09:00:02.000Z"),
        label("l1", "b", "c", "see-c", ts="2026-03-01T09:01:00.000Z"),  # before c exists
        msg("c", "l1", ts="2026-03-01T09:00:03.000Z"),
        label("l2", "c", "a", "start", ts="2026-03-01T09:02:00.000Z"),
        label("l3", "l2", "b", "bee", ts="2026-03-01T09:03:00.000Z"),
        label("l4", "l3", "c", "see-c-again", ts="2026-03-01T09:04:00.000Z"),  # keeps c's slot
        label("l5", "l4", "b", None, ts="2026-03-01T09:05:00.000Z"),  # clears b
        msg("d", "l5", role="assistant", text="end", ts="2026-03-01T09:00:06.000Z"),
        msg("x", "a", text="other branch", ts="2026-03-01T09:00:07.000Z"),
        label("l6", "x", "x", "elsewhere", ts="2026-03-01T09:06:00.000Z"),
    ]
    return write_session(parts, name="source.jsonl")


def test_branch_file_has_pi_header_path_without_labels_and_label_chain(labelled):
    sm = SessionManager.open(str(labelled))
    out = sm.create_branched_session("d")
    lines = read_lines(out)
    header = lines[0]
    assert list(header) == ["type", "version", "id", "timestamp", "cwd", "parentSession"]
    assert header["type"] == "session" and header["version"] == 3
    assert header["cwd"] == "/srv/demo"
    assert header["parentSession"] == str(labelled.resolve())
    assert uuid.UUID(header["id"]).version == 7
    # the path root → d, label entries dropped; lines copied byte for byte unless their parent
    # was a dropped label entry: then re-linked to the entry before them (pi 1.6.0)
    source_lines = labelled.read_text().splitlines()
    out_lines = open(out, encoding="utf-8").read().splitlines()
    assert out_lines[1:3] == [source_lines[i] for i in (1, 2)]
    assert out_lines[3:5] == [
        source_lines[4].replace('"parentId":"l1"', '"parentId":"b"'),
        source_lines[9].replace('"parentId":"l5"', '"parentId":"c"'),
    ]
    assert [(e["id"], e["parentId"]) for e in lines[1:5]] == [("a", None), ("b", "a"), ("c", "b"), ("d", "c")]
    # labels of path entries, in Map order (c set first, then a), with their last timestamps
    new_labels = lines[5:]
    assert [(e["targetId"], e["label"], e["timestamp"]) for e in new_labels] == [
        ("c", "see-c-again", "2026-03-01T09:04:00.000Z"),
        ("a", "start", "2026-03-01T09:02:00.000Z"),
    ]
    assert [list(e) for e in new_labels] == [["type", "id", "parentId", "timestamp", "targetId", "label"]] * 2
    assert new_labels[0]["parentId"] == "d"
    assert new_labels[1]["parentId"] == new_labels[0]["id"]
    assert all(re.match(r"^[0-9a-f]{8}$", e["id"]) and e["id"] not in "abcd" for e in new_labels)


def test_branch_file_name_and_default_directory(labelled):
    sm = SessionManager.open(str(labelled))
    out = sm.create_branched_session("c")
    assert os.path.dirname(out) == str(labelled.parent.resolve())
    m = NAME.match(os.path.basename(out))
    assert m is not None
    header = read_lines(out)[0]
    assert m.group(1) == header["timestamp"].replace(":", "-").replace(".", "-")
    assert m.group(2) == header["id"]


def test_reopened_branch_file_is_one_connected_chain_when_a_label_was_dropped(labelled):
    """An entry whose parent was a label entry (the user labelled, then went on) is re-linked to
    the entry before it, as pi 1.6.0 does: one root, the whole branch on the leaf's path."""
    sm = SessionManager.open(str(labelled))
    out = sm.create_branched_session("d")
    branch = SessionManager.open(out)
    last = read_lines(out)[-1]["id"]
    assert branch.get_leaf_id() == last
    assert [r.id for r in branch.index.roots] == ["a"]
    assert [e["id"] for e in [branch.load(e) for e in branch.index.path_to(branch.get_leaf_id())]] == [
        "a",
        "b",
        "c",
        "d",
        read_lines(out)[-2]["id"],
        last,
    ]
    sm.branch("d")
    branch.branch("d")
    assert built_context(branch) == built_context(sm)
    assert branch.get_label("c") == "see-c-again" and branch.get_label("a") == "start"
    assert branch.get_label("b") is None and branch.get_label("x") is None
    assert branch.diagnostics == []


def test_reopened_branch_of_plain_path_has_same_context(write_session):
    path = write_session(
        [
            msg("a", None),
            msg("b", "a", role="assistant", text="r"),
            msg("c", "b"),
            label("l", "c", "b", "mark"),
            msg("z", "a", text="other"),
        ]
    )
    sm = SessionManager.open(str(path))
    out = sm.create_branched_session("c")
    branch = SessionManager.open(out)
    sm.branch("c")
    assert [
        e["id"] for e in [branch.load(e) for e in branch.index.path_to(branch.get_leaf_id())] if e["type"] != "label"
    ] == ["a", "b", "c"]
    assert built_context(branch) == built_context(sm)
    assert branch.get_label("b") == "mark"


def test_branch_without_labels_ends_at_the_leaf(write_session):
    path = write_session([msg("a", None), msg("b", "a"), msg("c", "a")])
    out = SessionManager.open(str(path)).create_branched_session("b")
    assert [e["id"] for e in read_lines(out)[1:]] == ["a", "b"]


def test_branch_leaf_that_is_a_label_entry(labelled):
    sm = SessionManager.open(str(labelled))
    out = sm.create_branched_session("l4")
    lines = read_lines(out)
    assert [e["id"] for e in lines[1:4]] == ["a", "b", "c"]
    assert [e["targetId"] for e in lines[4:]] == ["c", "a"]
    assert lines[4]["parentId"] == "c"


def test_branch_into_dir_or_exact_path(labelled, tmp_path):
    sm = SessionManager.open(str(labelled))
    d = tmp_path / "elsewhere"
    d.mkdir()
    out = sm.create_branched_session("d", dir=str(d))
    assert os.path.dirname(out) == str(d)
    exact = tmp_path / "exact.jsonl"
    assert sm.create_branched_session("d", out=str(exact)) == str(exact)
    assert read_lines(str(exact))[0]["parentSession"] == str(labelled.resolve())


def test_branch_never_writes_over_an_existing_file(labelled, tmp_path):
    sm = SessionManager.open(str(labelled))
    exact = tmp_path / "taken.jsonl"
    exact.write_text("mine\n")
    with pytest.raises(WriteRefused, match="already exists"):
        sm.create_branched_session("d", out=str(exact))
    assert exact.read_text() == "mine\n"


def test_branch_of_unknown_entry_is_an_error_and_source_is_untouched(labelled):
    before = labelled.read_bytes()
    listing = sorted(os.listdir(labelled.parent))
    sm = SessionManager.open(str(labelled))
    with pytest.raises(LoomError, match="entry nope not found"):
        sm.create_branched_session("nope")
    sm.create_branched_session("d")
    assert labelled.read_bytes() == before
    assert len(os.listdir(labelled.parent)) == len(listing) + 1


def test_branch_from_old_version_file_is_copied_as_migrated(write_session):
    """A branch export only writes a new file: a version 1 session's branch is its entries as
    migrated in memory (ids and all), and the old file stays as it is."""
    v1 = {"type": "session", "id": "v1", "timestamp": "2025-12-01T10:00:00.000Z", "cwd": "/w"}
    path = write_session(
        [{"type": "message", "timestamp": "t", "message": {"role": "user", "content": "x"}}], header=v1
    )
    before = path.read_bytes()
    sm = SessionManager.open(str(path))
    leaf = sm.get_leaf_id()
    out = sm.create_branched_session(leaf)
    lines = [json.loads(x) for x in open(out, encoding="utf-8").read().splitlines()]
    assert lines[0]["version"] == 3 and lines[0]["parentSession"] == str(path)
    assert [(x["id"], x["parentId"]) for x in lines[1:]] == [(leaf, None)]
    assert lines[1]["message"] == {"role": "user", "content": "x"}
    assert path.read_bytes() == before


def test_branch_header_cwd_comes_from_source_header(write_session):
    header = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-03-01T09:00:00.000Z", "cwd": "/elsewhere"}
    path = write_session([msg("a", None)], header=header)
    out = SessionManager.open(str(path)).create_branched_session("a")
    assert (
        open(out).readline()
        == dumps(
            {
                "type": "session",
                "version": 3,
                "id": read_lines(out)[0]["id"],
                "timestamp": read_lines(out)[0]["timestamp"],
                "cwd": "/elsewhere",
                "parentSession": str(path.resolve()),
            }
        )
        + "\n"
    )


def test_branch_header_cwd_not_a_string_is_the_current_directory(write_session, tmp_path, monkeypatch):
    """pi 1.6.0 takes the source header's cwd only when it is a string."""
    header = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-03-01T09:00:00.000Z", "cwd": 7}
    path = write_session([msg("a", None)], header=header)
    monkeypatch.chdir(tmp_path)
    out = SessionManager.open(str(path)).create_branched_session("a")
    assert read_lines(out)[0]["cwd"] == str(tmp_path)
