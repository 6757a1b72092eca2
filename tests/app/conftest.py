"""App tests: a fixed environment (HOME, TZ, no user config) so screens are deterministic."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
#: snapshots show the file's path: copy fixtures to one fixed place
SNAP_DIR = Path("/tmp/loomtui-snapshots")


@pytest.fixture(autouse=True)
def fixed_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setenv("HOME", "/home/user")
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")
    monkeypatch.delenv("LOOMTUI_THEME", raising=False)
    monkeypatch.delenv("TEXTUAL_THEME", raising=False)
    time.tzset()
    yield
    errors = tmp_path / "state" / "loomtui" / "errors.log"
    assert not errors.exists(), "internal error logged:\n" + errors.read_text()


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
    SNAP_DIR.mkdir(parents=True, exist_ok=True)
    dst = SNAP_DIR / name
    shutil.copyfile(FIXTURES / name, dst)
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
