"""App tests: a fixed environment (HOME, TZ, no user config) so screens are deterministic."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
#: snapshots show the file's path: copy fixtures to one fixed place
SNAP_DIR = Path("/tmp/loomtui-snapshots")


#: what the screens show as ``~`` (snapshots shorten /home/user/... paths); nothing may be
#: written there: every place the app writes is redirected into the test's tmp_path
SHOWN_HOME = "/home/user"
#: the home of the user running the tests
REAL_HOME = pwd.getpwuid(os.getuid()).pw_dir
#: where loomtui, pi and omp would write under a home
_WRITABLE = (".cache/loomtui", ".config/loomtui", ".local/state/loomtui", ".local/share/loomtui", ".pi", ".omp")


def _home_state() -> dict[str, int]:
    """mtime of each place loomtui could write under the homes, and of the files in it."""
    state: dict[str, int] = {}
    for home in {SHOWN_HOME, REAL_HOME}:
        for rel in _WRITABLE:
            where = os.path.join(home, rel)
            try:
                state[where] = os.stat(where).st_mtime_ns
                with os.scandir(where) as it:
                    for entry in it:
                        state[entry.path] = entry.stat(follow_symlinks=False).st_mtime_ns
            except OSError:
                continue
    return state


@pytest.fixture(autouse=True)
def fixed_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setenv("HOME", SHOWN_HOME)
    monkeypatch.chdir(tmp_path)  # what the app writes "here" (an HTML page, a screenshot) stays in the test's own place
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    # pi's and omp's session roots (the picker lists them, "open parent" searches them)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "pi-agent"))
    monkeypatch.setenv("OMP_CODING_AGENT_DIR", str(tmp_path / "omp-agent"))
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")
    monkeypatch.delenv("LOOMTUI_THEME", raising=False)
    monkeypatch.delenv("TEXTUAL_THEME", raising=False)
    time.tzset()
    homes_before = _home_state()
    yield
    errors = tmp_path / "state" / "loomtui" / "errors.log"
    assert not errors.exists(), "internal error logged:\n" + errors.read_text()
    assert _home_state() == homes_before, "the test wrote under a home directory instead of tmp_path"


@pytest.fixture
def fixture_copy(tmp_path: Path) -> Callable[[str], Path]:
    """A writable copy of ``tests/app/fixtures/NAME``."""

    def copy(name: str) -> Path:
        dst = tmp_path / name
        shutil.copyfile(FIXTURES / name, dst)
        return dst

    return copy


@pytest.fixture
def config_dir(tmp_path: Path) -> Path:
    d = tmp_path / "config" / "loomtui"
    d.mkdir(parents=True, exist_ok=True)
    return d


def snap_fixture(name: str) -> str:
    """The fixture at a fixed path (the title bar shows it)."""
    return snap_file(name, (FIXTURES / name).read_bytes())


def snap_file(name: str, data: bytes) -> str:
    """``data`` at a fixed path, put in place whole (a new file renamed over the old one, and
    only when it differs): an app of the test before, whose threads may still read the file,
    never sees it cut to nothing."""
    SNAP_DIR.mkdir(parents=True, exist_ok=True)
    dst = SNAP_DIR / name
    if not dst.exists() or dst.read_bytes() != data:
        part = dst.with_name(f".{name}.{os.getpid()}")
        part.write_bytes(data)
        os.replace(part, dst)
    return str(dst)


def read_jsonl(path: Path | str) -> list[dict[str, Any]]:
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                out.append(json.loads(line))
    return out


def env_ready() -> None:
    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
