"""Shared fixtures: where the project's shared material (fixtures, oracle) lives."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


@pytest.fixture(autouse=True)
def _index_cache_in_tmp(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The persistent index (session/indexcache.py) never writes to the user's cache dir."""
    monkeypatch.setenv("LOOMTUI_CACHE_DIR", str(tmp_path_factory.mktemp("loomtui-cache")))
    monkeypatch.delenv("LOOMTUI_NO_CACHE", raising=False)


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.fail(f"shared material not found at {SHARED}")
    return SHARED


# --- session files (session core and command tests) -------------------------------------------

#: the header ``write_session`` puts first (tests/session/session_helpers.py has the same)
SESSION_HEADER = {"type": "session", "version": 3, "id": "sess-0001", "timestamp": "2026-03-01T09:00:00.000Z",
                  "cwd": "/srv/demo"}


def _json_line(obj: object) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


@pytest.fixture(scope="session")
def pi_dir(shared_dir: Path) -> Path:
    """The real pi session files (read-only)."""
    return shared_dir / "fixtures" / "pi"


@pytest.fixture(scope="session")
def goldens_dir(shared_dir: Path) -> Path:
    """What the published pi computes for each file in ``pi_dir``."""
    return shared_dir / "fixtures" / "pi-goldens"


@pytest.fixture
def pi_copy(pi_dir: Path, tmp_path: Path) -> Callable[[str], Path]:
    """A writable copy of a shared pi fixture, by name without ``.jsonl``."""

    def copy(name: str) -> Path:
        dst = tmp_path / f"{name}.jsonl"
        shutil.copyfile(pi_dir / f"{name}.jsonl", dst)
        dst.chmod(0o644)
        return dst

    return copy


@pytest.fixture
def write_session(tmp_path: Path) -> Callable[..., Path]:
    """Write a session file from parts: dicts become JSON lines, str parts are written with a
    newline, bytes exactly as given; ``SESSION_HEADER`` first unless ``header`` says otherwise
    (None: no header line)."""
    counter = [0]

    def write(parts: list[Any], header: Any = SESSION_HEADER, name: str | None = None,
              trailing_newline: bool = True) -> Path:
        counter[0] += 1
        path = tmp_path / (name or f"s{counter[0]}.jsonl")
        chunks = [] if header is None else [_json_line(header)]
        for part in parts:
            if isinstance(part, bytes):
                chunks.append(part)
            elif isinstance(part, str):
                chunks.append(part.encode() + b"\n")
            else:
                chunks.append(_json_line(part))
        data = b"".join(chunks)
        if not trailing_newline and data.endswith(b"\n"):
            data = data[:-1]
        path.write_bytes(data)
        return path

    return write


# --- parity suites with and without the persistent index ---------------------------------------


@pytest.fixture(params=["no-cache", "cache"])
def cache_mode(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Runs a parity test twice: with the persistent index off, and with it on for every file
    (no size floor), so what a reopen restores is checked against pi like a plain read."""
    if request.param == "no-cache":
        monkeypatch.setenv("LOOMTUI_NO_CACHE", "1")
    else:
        monkeypatch.setenv("LOOMTUI_CACHE_DIR", str(tmp_path / "index-cache"))
        monkeypatch.setenv("LOOMTUI_CACHE_MIN_BYTES", "0")
    return str(request.param)


@pytest.fixture
def parity_file(cache_mode: str, tmp_path: Path) -> Callable[[Path], Path]:
    """The file a parity test opens, for ``cache_mode``: with the cache on, a version 3 copy
    (older files are migrated while read and never cached) whose index is written by a first
    open and verified to load, so the test's own open really comes from the index."""

    def prepare(path: Path) -> Path:
        if cache_mode == "no-cache":
            return path
        from loomtui.session import indexcache
        from loomtui.session.fileio import open_regular
        from loomtui.session.manager import SessionManager
        from loomtui.session.migrate import migrated_bytes

        dst = tmp_path / "indexed" / path.name
        dst.parent.mkdir(exist_ok=True)
        if SessionManager.open(str(path)).version < 3:
            dst.write_bytes(migrated_bytes(str(path))[0])
        else:
            shutil.copyfile(path, dst)
        SessionManager.open(str(dst))  # cold: writes the index
        indexcache.reap(block=True)
        fd = open_regular(str(dst))
        try:
            cached = indexcache.load(str(dst), fd)
        finally:
            os.close(fd)
        assert cached is not None and cached.unchanged, f"no usable index for {dst}"
        return dst

    return prepare
