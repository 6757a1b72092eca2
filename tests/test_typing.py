"""The session and view layers type-check under mypy --strict (style.md)."""

from __future__ import annotations

import sys
from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parents[1]


def test_session_and_view_pass_mypy_strict(tmp_path: Path) -> None:
    # The cache goes to the test's own directory: a fresh checkout is left as it was. mypy raises
    # the interpreter's recursion limit for good; the tests after this one run with the usual one.
    limit = sys.getrecursionlimit()
    try:
        out, err, status = api.run(
            [
                "--strict",
                "--no-incremental",
                "--cache-dir",
                str(tmp_path / "mypy-cache"),
                "--config-file",
                str(ROOT / "pyproject.toml"),
                str(ROOT / "loomtui" / "session"),
                str(ROOT / "loomtui" / "view"),
            ]
        )
    finally:
        sys.setrecursionlimit(limit)
    assert status == 0, out + err
