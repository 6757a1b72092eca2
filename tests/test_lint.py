"""ruff (configured in pyproject.toml) finds nothing, and the tree is formatted as ``ruff format``
writes it: the lint and the formatter run with the tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def ruff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_ruff_check_finds_nothing() -> None:
    out = ruff("check", "--no-cache", "--output-format", "concise", ".")
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_tree_is_formatted() -> None:
    out = ruff("format", "--no-cache", "--check", ".")
    assert out.returncode == 0, "run `uv run ruff format .`:\n" + out.stdout + out.stderr
