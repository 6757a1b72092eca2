"""The session and view layers type-check under mypy --strict (style.md)."""

from __future__ import annotations

from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parents[1]


def test_session_and_view_pass_mypy_strict() -> None:
    out, err, status = api.run(
        [
            "--strict",
            "--no-incremental",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            str(ROOT / "loomtui" / "session"),
            str(ROOT / "loomtui" / "view"),
        ]
    )
    assert status == 0, out + err
