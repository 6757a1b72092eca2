"""Helpers for the fault tests: pi's own reader (one node process for many files), filling a
small disk, and a CLI runner."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.oracle import NODE, PI_CURRENT, session_manager_js
from tests.oracle import needs_pi as _needs

HERE = Path(__file__).resolve().parent

#: pi 1.6.0's reader (tests/oracle.py)
needs_pi = _needs(PI_CURRENT)


def pi_read(*paths: Path | str, package: str = PI_CURRENT) -> list[dict[str, Any]]:
    """What pi's reader makes of each file (ids, parents, types of the entries after its
    in-memory migration), all files in one node process."""
    out = subprocess.run(
        [str(NODE), str(HERE / "pi_read_many.mjs"), str(session_manager_js(package)), *map(str, paths)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    from loomtui.cli import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def fill_disk(directory: Path) -> None:
    """Fill the file system of ``directory`` to the last byte (a tmpfs counts whole pages: the
    files already there keep only the slack of their last page)."""
    with open(directory / "filler", "wb", buffering=0) as f:
        block = b"\0" * 4096
        try:
            while True:
                if f.write(block) < len(block):
                    break
        except OSError:
            pass
        try:
            while f.write(b"\0"):
                pass
        except OSError:
            pass
