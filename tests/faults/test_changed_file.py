"""Every write checks, at the moment of writing, that the bytes it relies on are the bytes it
read: a file truncated or rewritten in place (even at the same size and mtime) is refused
with nothing written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from fault_helpers import run_cli

from loomtui.session.errors import WriteConflict
from loomtui.session.manager import SessionManager

V3 = "dnouri-browse-session"


def _rewrite_same_size_same_mtime(path: Path, data: bytes) -> None:
    st = path.stat()
    assert len(data) == st.st_size
    with open(path, "r+b") as f:  # in place: same inode
        f.write(data)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _other_session_same_size(path: Path) -> bytes:
    """Another session's entries under a new header, padded to ``path``'s size."""
    size = path.stat().st_size
    header = {"type": "session", "version": 3, "id": "other", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/o"}
    lines = [json.dumps(header)]
    parent = None
    i = 0
    while sum(len(x) + 1 for x in lines) < size - 400:
        eid = f"o{i:07d}"
        lines.append(
            json.dumps(
                {
                    "type": "message",
                    "id": eid,
                    "parentId": parent,
                    "timestamp": "t",
                    "message": {"role": "user", "content": "x" * 50},
                }
            )
        )
        parent = eid
        i += 1
    data = "\n".join(lines).encode() + b"\n"
    pad = size - len(data) - 1
    return data + b" " * pad + b"\n"


@pytest.mark.parametrize("change", ["other-session", "torn", "truncated", "rewritten-middle"])
def test_export_branch_refuses_a_changed_file(pi_copy, tmp_path, change, capsys):
    path = pi_copy(V3)
    sm = SessionManager.open(str(path))
    leaf = sm.get_leaf_id()
    original = path.read_bytes()
    if change == "other-session":
        _rewrite_same_size_same_mtime(path, _other_session_same_size(path))
    elif change == "torn":  # a line in the middle lost its end, same size
        mid = original.index(b"\n", len(original) // 2)
        data = original[: mid - 30] + b" " * 30 + original[mid:]
        _rewrite_same_size_same_mtime(path, data)
    elif change == "truncated":
        os.truncate(path, len(original) // 2)
    else:  # an entry's id changed in the middle, same size
        first = sm.index.path_to(leaf)[1]  # on the copied branch
        data = original.replace(f'"id":"{first.id}"'.encode(), f'"id":"{"z" * len(first.id)}"'.encode(), 1)
        _rewrite_same_size_same_mtime(path, data)
    out = tmp_path / "branch.jsonl"
    with pytest.raises(WriteConflict):
        sm.create_branched_session(leaf, out=str(out))
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


def test_label_refuses_a_file_rewritten_in_place_and_writes_nothing(pi_copy):
    path = pi_copy(V3)
    sm = SessionManager.open(str(path))
    target = sm.get_leaf_id()
    replaced = _other_session_same_size(path)
    _rewrite_same_size_same_mtime(path, replaced)
    with pytest.raises(WriteConflict):
        sm.append_label_change(target, "mine")
    assert path.read_bytes() == replaced


def test_label_refuses_when_the_line_parented_on_changed(pi_copy):
    """Only the last line changed (same length, same mtime): the label would hang on an entry
    that is no longer there."""
    path = pi_copy(V3)
    sm = SessionManager.open(str(path))
    leaf = sm.index.by_id[sm.get_leaf_id()]
    original = path.read_bytes()
    data = original.replace(f'"id":"{leaf.id}"'.encode(), f'"id":"{"q" * len(leaf.id)}"'.encode())
    _rewrite_same_size_same_mtime(path, data)
    with pytest.raises(WriteConflict):
        sm.append_label_change(leaf.id, "mine")
    assert path.read_bytes() == data


def test_label_still_works_after_another_writer_appended(pi_copy):
    path = pi_copy(V3)
    sm = SessionManager.open(str(path))
    leaf = sm.get_leaf_id()
    with open(path, "ab") as f:
        f.write(
            json.dumps(
                {"type": "custom", "customType": "x", "id": "app00001", "parentId": leaf, "timestamp": "t"}
            ).encode()
            + b"\n"
        )
    new_id = sm.append_label_change(leaf, "fine")
    assert sm.index.by_id[new_id].parent_id == "app00001"


def test_export_branch_cli_on_a_file_swapped_between_read_and_write(pi_copy, tmp_path, monkeypatch, capsys):
    """The copy is checked after it was read: a swap during the export leaves no file."""
    path = pi_copy(V3)
    leaf = SessionManager.open(str(path)).get_leaf_id()
    replaced = _other_session_same_size(path)
    from loomtui.session import store

    real = store.write_new_file_with

    def swap_then_write(out, fill, mode=None):
        _rewrite_same_size_same_mtime(path, replaced)
        return real(out, fill, mode)

    monkeypatch.setattr(store, "write_new_file_with", swap_then_write)
    code, out, err = run_cli(capsys, "export-branch", str(path), "--leaf", leaf, "--dir", str(tmp_path))
    assert (code, out) == (2, "") and "rewritten" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def test_export_branch_refuses_a_copied_span_whose_text_changed_while_writing(pi_copy, tmp_path, monkeypatch):
    """Same ids, same size, same mtime, only a message's text differs: the hash of the copied
    spans, taken again once the new file exists, tells; the new file is removed."""
    path = pi_copy(V3)
    sm = SessionManager.open(str(path))
    leaf = sm.get_leaf_id()
    original = path.read_bytes()
    on_path = sm.index.path_to(leaf)[1]
    line = original[on_path.offset : on_path.offset + on_path.size]
    assert b'"text":"' in line
    at = on_path.offset + line.index(b'"text":"') + len(b'"text":"')
    changed = original[:at] + bytes([original[at] ^ 0x01]) + original[at + 1 :]
    from loomtui.session import store

    real = store.write_new_file_with

    def edit_then_write(out, fill, mode=None):
        real(out, fill, mode)
        _rewrite_same_size_same_mtime(path, changed)

    monkeypatch.setattr(store, "write_new_file_with", edit_then_write)
    out = tmp_path / "branch.jsonl"
    with pytest.raises(WriteConflict):
        sm.create_branched_session(leaf, out=str(out))
    assert not out.exists()


def test_live_follow_survives_a_deep_line_and_keeps_following(pi_copy):
    path = pi_copy(V3)
    sm = SessionManager.open(str(path))
    leaf = sm.get_leaf_id()
    deep = "[" * 5000 + "]" * 5000
    with open(path, "ab") as f:
        f.write(
            (
                '{"type":"custom","customType":"x","id":"deep0001","parentId":"%s","timestamp":"t","data":%s}\n'  # noqa: UP031 (a JSON template: braces everywhere)
                % (leaf, deep)
            ).encode()
        )
    assert [e.id for e in sm.refresh()] == ["deep0001"]
    assert sm.load(sm.index.by_id["deep0001"])["customType"] == "x"
    with open(path, "ab") as f:
        f.write(b'{"type":"custom","customType":"x","id":"next0001","parentId":"deep0001","timestamp":"t"}\n')
    assert [e.id for e in sm.refresh()] == ["next0001"]
    assert sm.get_leaf_id() == "next0001"
