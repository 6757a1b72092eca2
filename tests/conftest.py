"""Shared fixtures: where the project's shared material (fixtures, oracle) lives
(``tests/shared_material.py`` says what a test does when it is missing)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.shared_material import MARK, ROOT, SHARED, absent, require_shared

__all__ = ["ROOT", "SHARED"]

# Compiled modules are kept (``__pycache__``, ignored by git) even where PYTHONDONTWRITEBYTECODE
# is set, as on the shared machine: otherwise each xdist worker rewrites the asserts of every test
# module anew, and each Python the tests start (``pytest`` inside a test, ``python -m loomtui``,
# the tmux app) compiles Textual, Rich, pytest and loomtui again, seconds of every run. Set here,
# before the workers start and the test modules are collected, so both inherit it.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARK}(missing): the test needs material outside the repository; "
        "skipped (failed on CI) when `missing` names what is absent",
    )


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Keep ``xdist_group`` working (``--dist loadgroup``, pyproject's addopts): pytest-xdist 3.8
    names a grouped test's group by writing ``test_id@group`` into ``item._nodeid``, which pytest
    9.2 no longer reads (its ids are structured), so every group was spread over both workers.
    Where xdist has written it and the id does not carry it, the id is made from it; once xdist
    sets the group itself, nothing is left to do here."""
    for item in items:
        grouped = item.__dict__.get("_nodeid")
        if isinstance(grouped, str) and grouped != item.nodeid and grouped.startswith(item.nodeid + "@"):
            from _pytest.nodeid import NodeId

            item._id = NodeId.parse(grouped)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers(MARK):
        if mark.args and mark.args[0]:
            absent(mark.args[0])


@pytest.fixture(autouse=True)
def _index_cache_in_tmp(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The persistent index (session/indexcache.py) and the picker's catalog
    (session/catalog.py) never write to the user's cache dir."""
    monkeypatch.setenv("LOOMTUI_CACHE_DIR", str(tmp_path_factory.mktemp("loomtui-cache")))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))
    monkeypatch.delenv("LOOMTUI_NO_CACHE", raising=False)


_real_fsync = os.fsync


def _fsync_where_it_can_fail(fd: Any) -> None:
    """``os.fsync`` in the tests: on a regular file or a directory only the descriptor is
    checked (a closed one fails as before); anything else (a pipe, a device) is synced as
    usual. What a sync adds, that the bytes survive a power cut, no test can see, and on this
    disk each one waits milliseconds: the suite's writes (labels, exports, migrations, safe
    writes) make thousands."""
    mode = os.fstat(fd if isinstance(fd, int) else fd.fileno()).st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        _real_fsync(fd)


@pytest.fixture(autouse=True)
def _no_wait_for_the_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "fsync", _fsync_where_it_can_fail)


@pytest.fixture
def ocp_checked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each OCP document's conformance check is made once for the whole run
    (``tests/ocp_checks.py``): for modules that open the same documents many times."""
    from tests.ocp_checks import check_each_document_once

    check_each_document_once(monkeypatch)


#: what the test tools themselves keep at the top (snapshot report, Hypothesis' examples, pytest's cache)
TEST_TOOLS_OWN = {"snapshot_report.html", ".hypothesis", ".pytest_cache"}


@pytest.fixture(scope="session", autouse=True)
def _nothing_left_in_the_checkout() -> Iterator[None]:
    """No test leaves a file at the top of the checkout (an export written "here" when a test
    did not run in its own directory)."""
    before = {p.name for p in ROOT.iterdir()}
    yield
    left = sorted({p.name for p in ROOT.iterdir()} - before - TEST_TOOLS_OWN)
    assert left == [], f"tests left files in {ROOT}: {left}"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    require_shared()
    return SHARED


# --- session files (session core and command tests) -------------------------------------------

#: the header ``write_session`` puts first (tests/session/session_helpers.py has the same)
SESSION_HEADER = {
    "type": "session",
    "version": 3,
    "id": "sess-0001",
    "timestamp": "2026-03-01T09:00:00.000Z",
    "cwd": "/srv/demo",
}


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

    def write(
        parts: list[Any], header: Any = SESSION_HEADER, name: str | None = None, trailing_newline: bool = True
    ) -> Path:
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


#: what ``parity_file`` writes for a file (path, size, mtime): its bytes as version 3 (an older
#: file migrated), so a file opened by many parity tests is read and migrated once
_VERSION_3_BYTES: dict[tuple[str, int, int], bytes] = {}


@pytest.fixture
def parity_file(cache_mode: str, tmp_path: Path) -> Callable[[Path], Path]:
    """The file a parity test opens, for ``cache_mode``: with the cache on, a version 3 copy
    (older files are migrated while read and never cached) whose index is written by a first
    open and verified to load, so the test's own open really comes from the index."""

    def prepare(path: Path) -> Path:
        if cache_mode == "no-cache":
            return path
        from loomtui.session import cache_io, indexcache
        from loomtui.session.fileio import open_regular
        from loomtui.session.manager import SessionManager
        from loomtui.session.migrate import migrated_bytes

        dst = tmp_path / "indexed" / path.name
        dst.parent.mkdir(exist_ok=True)
        st = path.stat()
        key = (str(path), st.st_size, st.st_mtime_ns)
        if key not in _VERSION_3_BYTES:  # the same shared files, test after test: made once
            old = SessionManager.open(str(path)).version < 3
            _VERSION_3_BYTES[key] = migrated_bytes(str(path))[0] if old else path.read_bytes()
        dst.write_bytes(_VERSION_3_BYTES[key])
        SessionManager.open(str(dst))  # cold: writes the index
        cache_io.reap(block=True)
        fd = open_regular(str(dst))
        try:
            cached = indexcache.load(str(dst), fd)
        finally:
            os.close(fd)
        assert cached is not None and cached.unchanged, f"no usable index for {dst}"
        return dst

    return prepare
