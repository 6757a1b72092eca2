"""A write checks that the header line still ends where it ended when the file was read."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from loomtui.session.errors import LoomError
from loomtui.session.manager import SessionManager


def test_label_refused_when_the_header_newline_was_overwritten(tmp_path: Path, pi_dir: Path) -> None:
    path = tmp_path / "s.jsonl"
    shutil.copy(pi_dir / "dnouri-browse-session.jsonl", path)
    manager = SessionManager.open(str(path))
    data = path.read_bytes()
    end = data.index(b"\n")
    glued = data[:end] + b"*" + data[end + 1 :]  # same size, same header bytes, lines glued
    with open(path, "r+b") as f:
        f.write(glued)
    target = manager.index.entries[0].id
    with pytest.raises(LoomError):
        manager.append_label_change(target, "mine")
    assert path.read_bytes() == glued


def test_label_accepted_on_an_unchanged_file(tmp_path: Path, pi_dir: Path) -> None:
    path = tmp_path / "s.jsonl"
    shutil.copy(pi_dir / "dnouri-browse-session.jsonl", path)
    manager = SessionManager.open(str(path))
    before = path.read_bytes()
    manager.append_label_change(manager.index.entries[0].id, "mine")
    assert path.read_bytes().startswith(before)
    assert SessionManager.open(str(path)).get_label(manager.index.entries[0].id) == "mine"
