"""A write is all or nothing, also when the disk fills up in the middle of it.

Two ways to run out of room: an injected ``os.write`` that takes only part of the bytes (or
fails with ENOSPC), everywhere; and a real 256 KiB tmpfs filled to the brim (root only).
"""

from __future__ import annotations

import errno
import json
import os
import shutil
from pathlib import Path

import pytest
from fault_helpers import fill_disk, needs_pi, pi_read, run_cli

from loomtui.session import store
from loomtui.session.errors import LoomError, WriteRefused
from loomtui.session.manager import SessionManager

V3 = "pi-brain-branch-summary"


def _short_writes(monkeypatch: pytest.MonkeyPatch, keep: int | None) -> list[int]:
    """A disk with room for ``keep`` more bytes: the first ``os.write`` writes that many, every
    later one fails with ENOSPC (None: every write fails)."""
    real = os.write
    calls: list[int] = []

    def write(fd: int, data: bytes | memoryview) -> int:
        calls.append(len(data))
        if keep is None or len(calls) > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, bytes(data)[:keep])

    monkeypatch.setattr(os, "write", write)
    return calls


@pytest.mark.parametrize("keep", [None, 0, 1, 17])
def test_append_line_partial_write_cuts_the_file_back(tmp_path, monkeypatch, keep):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"type":"session","version":3,"id":"a"}\n')
    before = path.read_bytes()
    _short_writes(monkeypatch, keep)
    with pytest.raises(WriteRefused, match="nothing was written"):
        store.append_line(str(path), b'{"type":"label","id":"x"}\n')
    assert path.read_bytes() == before


def test_label_on_a_disk_that_takes_half_a_line_leaves_no_fragment(pi_copy, monkeypatch, capsys):
    path = pi_copy(V3)
    before = path.read_bytes()
    leaf = SessionManager.open(str(path)).get_leaf_id()
    _short_writes(monkeypatch, 40)
    code, out, err = run_cli(capsys, "label", str(path), leaf, "keep")
    assert (code, out) == (2, "")
    assert err.startswith("loomtui: cannot write") and "nothing was written" in err and err.count("\n") == 1
    assert path.read_bytes() == before
    # another writer's next line is a line of its own, not glued to a fragment
    monkeypatch.undo()
    with open(path, "ab") as f:
        f.write(b'{"type":"custom","customType":"x","id":"zz000001","parentId":"%s","timestamp":"t"}\n' % leaf.encode())
    assert SessionManager.open(str(path)).index.by_id.get("zz000001") is not None


def test_export_branch_on_a_full_disk_leaves_no_file(pi_copy, tmp_path, monkeypatch, capsys):
    path = pi_copy(V3)
    leaf = SessionManager.open(str(path)).get_leaf_id()
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    _short_writes(monkeypatch, 100)
    code, out, err = run_cli(capsys, "export-branch", str(path), "--leaf", leaf, "--dir", str(out_dir))
    assert (code, out) == (2, "") and "nothing was written" in err and "Traceback" not in err
    assert os.listdir(out_dir) == []


def test_export_openloom_on_a_full_disk_leaves_no_file(pi_copy, tmp_path, monkeypatch, capsys):
    path = pi_copy(V3)
    _short_writes(monkeypatch, None)
    for name in ("o.json",):
        code, out, err = run_cli(capsys, "export-openloom", str(path), "-o", str(tmp_path / name))
        assert (code, out) == (2, "") and "No space left" in err or "no space left" in err
        assert not (tmp_path / name).exists()
    assert sorted(os.listdir(tmp_path)) == [f"{V3}.jsonl"]


def _v1_session(tmp_path: Path) -> Path:
    path = tmp_path / "old.jsonl"
    lines = [{"type": "session", "id": "old-1", "timestamp": "2025-12-01T10:00:00.000Z", "cwd": "/w"}]
    lines += [
        {
            "type": "message",
            "timestamp": "2025-12-01T10:00:01.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": f"m{i}"}]},
        }
        for i in range(5)
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_migrate_on_a_full_disk_writes_nothing_and_a_retry_works(tmp_path, monkeypatch, capsys):
    path = _v1_session(tmp_path)
    before = path.read_bytes()
    real = os.write
    state = {"n": 0}

    def write(fd, data):
        state["n"] += 1
        if state["n"] == 2:  # the backup goes through, the new content does not
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data)

    monkeypatch.setattr(os, "write", write)
    code, out, err = run_cli(capsys, "migrate", str(path))
    assert (code, out) == (2, "") and "nothing was written" in err
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["old.jsonl"]  # no backup left to block a retry
    monkeypatch.undo()
    code, out, err = run_cli(capsys, "migrate", str(path))
    assert code == 0, err
    assert (tmp_path / "old.jsonl.bak").read_bytes() == before
    assert SessionManager.open(str(path)).version == 3


def test_write_new_file_failure_leaves_nothing(tmp_path, monkeypatch):
    _short_writes(monkeypatch, None)
    with pytest.raises(WriteRefused, match="nothing was written"):
        store.write_new_file(str(tmp_path / "n.jsonl"), b"x" * 1000)
    assert os.listdir(tmp_path) == []


# --- a real full disk ---------------------------------------------------------------------


@needs_pi
def test_label_on_a_real_full_disk(pi_dir, small_disk, capsys):
    path = small_disk / "s.jsonl"
    shutil.copyfile(pi_dir / f"{V3}.jsonl", path)
    before = path.read_bytes()
    leaf = SessionManager.open(str(path)).get_leaf_id()
    long_label = "L" * 20000  # longer than the room left: the write is cut by the disk
    fill_disk(small_disk)
    code, out, err = run_cli(capsys, "label", str(path), leaf, long_label)
    assert code == 2 and out == "" and "nothing was written" in err
    assert path.read_bytes() == before
    (small_disk / "filler").unlink()
    code, out, err = run_cli(capsys, "label", str(path), leaf, long_label)
    assert code == 0, err
    (pi,) = pi_read(path)
    assert pi["ids"][-1] == out.strip() and len(pi["ids"]) == len(SessionManager.open(str(path)).index.entries)


def test_export_and_migrate_on_a_real_full_disk(pi_dir, small_disk, capsys, tmp_path):
    src = small_disk / "s.jsonl"
    shutil.copyfile(pi_dir / f"{V3}.jsonl", src)
    leaf = SessionManager.open(str(src)).get_leaf_id()
    old = _v1_session(tmp_path)
    shutil.copyfile(old, small_disk / "old.jsonl")
    old_before = (small_disk / "old.jsonl").read_bytes()
    fill_disk(small_disk)
    code, _, err = run_cli(capsys, "export-branch", str(src), "--leaf", leaf, "-o", str(small_disk / "b.jsonl"))
    assert code == 2 and "nothing was written" in err and not (small_disk / "b.jsonl").exists()
    code, _, err = run_cli(capsys, "export-openloom", str(src), "-o", str(small_disk / "b.zip"))
    assert code == 2 and not (small_disk / "b.zip").exists()
    code, _, err = run_cli(capsys, "migrate", str(small_disk / "old.jsonl"))
    assert code == 2 and "nothing was written" in err
    assert (small_disk / "old.jsonl").read_bytes() == old_before
    assert not (small_disk / "old.jsonl.bak").exists()
    assert not [n for n in os.listdir(small_disk) if n.startswith(".loomtui-")]


def test_loom_error_is_the_only_thing_a_store_failure_raises(tmp_path, monkeypatch):
    """EACCES, EROFS, EIO…: a one-line LoomError, never a raw OSError."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"type":"session","version":3,"id":"a"}\n')
    real = os.fsync

    def fsync(fd):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(LoomError):
        store.append_line(str(path), b'{"a":1}\n')
    monkeypatch.setattr(os, "fsync", real)
    assert path.read_bytes() == b'{"type":"session","version":3,"id":"a"}\n'
