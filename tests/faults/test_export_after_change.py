"""Exports of a session whose file changed after it was opened: every export, for every
source, checks the bytes it copies when it copies them and refuses (WriteConflict, nothing
written) when they are no longer the lines that were read — never lines of the new bytes cut
at the old offsets."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loomtui.formats.detect import open_any
from loomtui.formats.html.export import export_html
from loomtui.formats.looms.export import export_openloom
from loomtui.session.errors import WriteConflict
from loomtui.session.manager import SessionManager
from loomtui.session.migrate import migrated_bytes


def sources(shared_dir: Path) -> dict[str, Path]:
    return {
        "pi": shared_dir / "fixtures" / "pi" / "pi-mono-large-session.jsonl",
        "claude": shared_dir / "fixtures" / "claude" / "claude-code-log__03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl",
        "codex": shared_dir / "fixtures" / "codex" / "agtrace__codex_session.jsonl",
    }


def copy_of(shared_dir: Path, source: str, work: Path) -> Path:
    """A writable copy of the source's file (the pi one migrated to version 3: exports need it)."""
    src = sources(shared_dir)[source]
    path = work / src.name
    if source == "pi":
        path.write_bytes(migrated_bytes(str(src))[0])
    else:
        shutil.copyfile(src, path)
        path.chmod(0o644)
    return path


def leaf_of(sm: SessionManager) -> str:
    leaf = sm.index.leaf_id
    assert leaf is not None
    return leaf


EXPORTS: dict[str, Callable[[SessionManager, Path], Any]] = {
    "branch": lambda sm, out: sm.create_branched_session(leaf_of(sm), out=str(out / "branch.jsonl")),
    "openloom": lambda sm, out: export_openloom(sm, str(out / "loom.json")),
    "openloom-branch": lambda sm, out: export_openloom(sm, str(out / "loom-b.json"), leaf_id=leaf_of(sm)),
    "html": lambda sm, out: export_html(sm, str(out / "page.html")),
}


def shifted(data: bytes, at: float, by: int) -> bytes:
    """The same size, every line after a point moved ``by`` bytes: bytes cut near ``at``
    and as many spaces put back inside a later JSON string (still valid lines, other offsets)."""
    lines = data.split(b"\n")
    n = max(1, int(at * (len(lines) - 2)))
    cut = sum(len(x) + 1 for x in lines[:n])
    line = lines[n]
    q = line.find(b'":"') if b'":"' in line else line.find(b'": "')
    q = q + (3 if line[q : q + 3] == b'":"' else 4)
    k = min(by, max(0, len(lines[n - 1]) - 2))
    # drop k bytes at the end of the line before (its last characters), add k spaces in this one
    prev_end = cut - 1
    return data[: prev_end - k] + data[prev_end : cut + q] + b" " * k + data[cut + q :]


def check(shared_dir: Path, tmp_path: Path, source: str, export: str, at: float, by: int, how: str) -> None:
    work = Path(tempfile.mkdtemp(prefix=f"{source}-{export}-{how}-", dir=tmp_path))
    out = work / "out"
    out.mkdir()
    path = copy_of(shared_dir, source, work)
    sm = open_any(str(path))
    data = path.read_bytes()
    if how == "shift":
        new = shifted(data, at, by)
        assert len(new) == len(data) and new != data
    elif how == "truncate":
        new = data[: int(len(data) * at)]
    else:  # the lines in another order
        lines = data.rstrip(b"\n").split(b"\n")
        new = b"\n".join([lines[0], *reversed(lines[1:])]) + b"\n"
    st0 = os.stat(path)
    with open(path, "r+b") as f:
        f.write(new)
        f.truncate(len(new))
    os.utime(path, ns=(st0.st_atime_ns, st0.st_mtime_ns))
    try:
        EXPORTS[export](sm, out)
    except WriteConflict as exc:
        assert "\n" not in str(exc) and ("nothing was written" in str(exc) or "reopen it" in str(exc))
        assert os.listdir(out) == [], "nothing written"
        return
    # not refused: then every line it wrote is JSON and is a line of the file as it is now
    for name in os.listdir(out):
        body = (out / name).read_bytes()
        if name.endswith(".jsonl"):
            for raw in body.splitlines():
                json.loads(raw)


KINDS = ["shift", "truncate", "reorder"]


@pytest.mark.parametrize("source", ["pi", "claude", "codex"])
@pytest.mark.parametrize("export", list(EXPORTS))
def test_an_export_after_a_same_size_rewrite_is_refused(
    shared_dir: Path, tmp_path: Path, source: str, export: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("LOOMTUI_NO_CACHE", "1")
    with pytest.raises(WriteConflict):
        check_refused(shared_dir, tmp_path, source, export)


def check_refused(shared_dir: Path, tmp_path: Path, source: str, export: str) -> None:
    """The lines in another order: every span lands in another line; the export must refuse."""
    work = tmp_path / "r"
    work.mkdir()
    out = work / "out"
    out.mkdir()
    path = copy_of(shared_dir, source, work)
    sm = open_any(str(path))
    data = path.read_bytes()
    lines = data.rstrip(b"\n").split(b"\n")
    new = b"\n".join([lines[0], *reversed(lines[1:])]) + b"\n"
    with open(path, "r+b") as f:
        f.write(new)
    try:
        EXPORTS[export](sm, out)
    finally:
        assert os.listdir(out) == []


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    source=st.sampled_from(["pi", "claude", "codex"]),
    export=st.sampled_from(list(EXPORTS)),
    at=st.floats(0.05, 0.95),
    by=st.integers(1, 40),
    how=st.sampled_from(KINDS),
)
def test_any_change_is_refused_or_copied_as_valid_lines(
    shared_dir: Path,
    tmp_path: Path,
    source: str,
    export: str,
    at: float,
    by: int,
    how: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("LOOMTUI_NO_CACHE", "1")
    check(shared_dir, tmp_path, source, export, at, by, how)
