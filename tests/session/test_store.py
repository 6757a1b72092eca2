"""Safe writes (architecture.md "Writes"): one-line appends, change detection, atomic new files."""

from __future__ import annotations

import json
import os

import pytest
from session_helpers import dumps, msg

from loomtui.session import store
from loomtui.session.errors import PartialLastLine, WriteConflict, WriteRefused
from loomtui.session.manager import SessionManager
from loomtui.session.resume_point import persist_resume_point


def test_append_adds_exactly_one_line_and_keeps_every_byte(write_session):
    path = write_session([msg("a", None), "garbage line", msg("b", "a")])
    original = path.read_bytes()
    sm = SessionManager.open(str(path))
    new = sm.append_label_change("a", "x")
    data = path.read_bytes()
    assert data.startswith(original)
    added = data[len(original) :]
    assert added.count(b"\n") == 1 and added.endswith(b"\n")
    assert json.loads(added)["id"] == new


def test_append_uses_a_single_write_on_an_append_descriptor(write_session, monkeypatch):
    path = write_session([msg("a", None)])
    sm = SessionManager.open(str(path))
    calls: list[tuple[int, bytes]] = []
    flags: list[int] = []
    real_write, real_open = os.write, os.open

    def spy_open(p, f, *a):
        fd = real_open(p, f, *a)
        if os.fspath(p) == str(path) and f & (os.O_WRONLY | os.O_RDWR):
            flags.append(f)
        return fd

    def spy_write(fd, data):
        calls.append((fd, bytes(data)))
        return real_write(fd, data)

    monkeypatch.setattr(os, "open", spy_open)
    monkeypatch.setattr(os, "write", spy_write)
    sm.append_custom_entry("loomtui/test", {"n": 1})
    assert len(calls) == 1 and calls[0][1].endswith(b"\n")
    assert flags and all(f & os.O_APPEND for f in flags)


#: every public way loomtui appends to a session file (the CLI, Ctrl+S, Alt+L, Alt+A, Alt+S use these)
APPENDS = {
    "label": lambda sm: sm.append_label_change("a", "x"),
    "label keeping resume": lambda sm: sm.append_label_keeping_resume("a", "x"),
    "custom entry": lambda sm: sm.append_custom_entry("loomtui.archive", {"targetId": "a", "archived": True}),
    "branch summary": lambda sm: sm.branch_with_summary("a", "a summary", "b"),
    "persist the leaf": lambda sm: persist_resume_point(sm, "b"),
}
PARTIAL = b'{"type":"message","id":"zz","parentId":"b","timestamp":"2026-03-01T09:00:09.000Z","message":{"role":"as'


@pytest.mark.parametrize("append", list(APPENDS.values()), ids=list(APPENDS))
@pytest.mark.parametrize("tail", [PARTIAL, b""], ids=["torn line", "complete line without newline"])
def test_a_file_ending_mid_line_is_never_appended_to(write_session, append, tail):
    """Another program is writing the last line: nothing is written (the agent's line would be
    cut in two), also when what is there so far parses; once the line ends, the same write works."""
    path = write_session([msg("a", None), msg("b", "a"), tail] if tail else [msg("a", None), msg("b", "a")])
    if not tail:  # a whole entry, its newline not written yet
        path.write_bytes(path.read_bytes()[:-1])
    sm = SessionManager.open(str(path))
    before = path.read_bytes()
    with pytest.raises(PartialLastLine, match="ends in a line another program is still writing; nothing was written"):
        append(sm)
    assert path.read_bytes() == before
    with open(path, "ab") as f:  # the agent finishes its line
        f.write(b'sistant","content":[]}}\n' if tail else b"\n")
    done = path.read_bytes()
    new = append(sm)
    data = path.read_bytes()
    assert data.startswith(done) and data[len(done) :].count(b"\n") == 1
    assert json.loads(data[len(done) :])["id"] == new
    again = SessionManager.open(str(path))
    assert again.diagnostics == [] and new in again.index.by_id


def test_append_line_refuses_a_file_ending_mid_line(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"type":"session","version":3,"id":"a"}\n' + PARTIAL)
    before = path.read_bytes()
    with pytest.raises(WriteConflict, match="still writing"):
        store.append_line(str(path), b'{"type":"label","id":"x"}\n')
    assert path.read_bytes() == before


def test_an_empty_file_takes_an_append(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"")
    assert store.append_line(str(path), b'{"a":1}\n') == 0
    assert path.read_bytes() == b'{"a":1}\n'


def test_loomtuis_own_file_gets_its_torn_line_ended(tmp_path):
    """The label store only loomtui writes: a torn line there is what a crash left, not a writer."""
    path = tmp_path / "labels.jsonl"
    path.write_bytes(b'{"entryId":"a","lab')
    assert store.append_line(str(path), b'{"a":1}\n', own_file=True) == 20
    assert path.read_bytes() == b'{"entryId":"a","lab\n{"a":1}\n'


def test_bytes_appended_by_another_writer_are_indexed_first(write_session):
    path = write_session([msg("a", None), msg("b", "a")])
    sm = SessionManager.open(str(path))
    with open(path, "a") as f:
        f.write(dumps(msg("c", "b", role="assistant", text="from pi")) + "\n")
    new = sm.append_label_change("b", "x")
    assert "c" in sm.index.by_id
    assert sm.get_entry(new)["parentId"] == "c"
    assert [e["id"] for e in [sm.load(e) for e in sm.index.path_to(sm.get_leaf_id())]] == ["a", "b", "c", new]


def test_other_writer_does_not_move_a_leaf_the_user_moved(write_session):
    path = write_session([msg("a", None), msg("b", "a")])
    sm = SessionManager.open(str(path))
    sm.branch("a")
    with open(path, "a") as f:
        f.write(dumps(msg("c", "b")) + "\n")
    new = sm.append_custom_entry("loomtui/test")
    assert sm.get_entry(new)["parentId"] == "a"


def test_truncated_file_is_refused_and_nothing_written(write_session):
    path = write_session([msg("a", None), msg("b", "a")])
    sm = SessionManager.open(str(path))
    shorter = path.read_bytes()[:-20]
    path.write_bytes(shorter)
    with pytest.raises(WriteConflict, match="truncated by another program"):
        sm.append_label_change("a", "x")
    assert path.read_bytes() == shorter


def test_rewritten_file_is_refused_and_nothing_written(write_session):
    path = write_session([msg("a", None), msg("b", "a", text="xx")])
    sm = SessionManager.open(str(path))
    st = os.stat(path)
    rewritten = path.read_bytes().replace(b'"text":"xx"', b'"text":"yy"')
    assert len(rewritten) == st.st_size
    with open(path, "r+b") as f:  # same inode, same size, other bytes
        f.write(rewritten)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000))
    with pytest.raises(WriteConflict, match="rewritten by another program"):
        sm.append_label_change("a", "x")
    assert path.read_bytes() == rewritten


def test_replaced_file_is_refused_and_nothing_written(write_session, tmp_path):
    path = write_session([msg("a", None)])
    sm = SessionManager.open(str(path))
    other = tmp_path / "other.jsonl"
    other.write_bytes(path.read_bytes() + dumps(msg("b", "a")).encode() + b"\n")
    os.replace(other, path)
    replaced = path.read_bytes()
    with pytest.raises(WriteConflict, match="replaced by another program"):
        sm.append_label_change("a", "x")
    assert path.read_bytes() == replaced


def test_removed_file_is_refused(write_session):
    path = write_session([msg("a", None)])
    sm = SessionManager.open(str(path))
    path.unlink()
    with pytest.raises(WriteConflict, match="no longer exists"):
        sm.append_label_change("a", "x")
    assert not path.exists()


def test_refresh_indexes_appended_lines_and_completes_a_torn_line(write_session):
    path = write_session([msg("a", None), b'{"type":"message","id":"b","parentId":"a",'])
    sm = SessionManager.open(str(path))
    assert [e.id for e in sm.index.entries] == ["a"]
    with open(path, "ab") as f:
        f.write(b'"timestamp":"2026-03-01T09:00:02.000Z","message":{"role":"user","content":"x"}}\n')
    fresh = sm.refresh()
    assert [e.id for e in fresh] == ["b"]
    assert sm.get_leaf_id() == "b"


def test_every_original_byte_survives_many_writes(pi_copy):
    path = pi_copy("dnouri-browse-session")
    original = path.read_bytes()
    sm = SessionManager.open(str(path))
    sm.append_label_change("aa000002", "one")
    sm.append_custom_entry("loomtui/test", {"n": 0})
    sm.branch("aa000008")
    sm.append_custom_entry("loomtui/test", {"n": 1})
    sm.append_label_change("aa000002", None)
    data = path.read_bytes()
    assert data.startswith(original)
    assert data[len(original) :].count(b"\n") == 4


def test_write_new_file_never_replaces_an_existing_file(tmp_path):
    target = tmp_path / "x.jsonl"
    target.write_bytes(b"keep me\n")
    with pytest.raises(WriteRefused, match="already exists"):
        store.write_new_file(str(target), b"new\n")
    assert target.read_bytes() == b"keep me\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.jsonl"]


def test_write_new_file_gives_plain_file_permissions(tmp_path):
    target = tmp_path / "n.jsonl"
    store.write_new_file(str(target), b"data\n")
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(target).st_mode & 0o777 == 0o666 & ~umask
    assert target.read_bytes() == b"data\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["n.jsonl"]


def test_write_new_file_into_missing_directory_is_refused(tmp_path):
    with pytest.raises(WriteRefused, match="does not exist"):
        store.write_new_file(str(tmp_path / "nope" / "x.jsonl"), b"x\n")
