"""Helpers for the fault tests: pi's own reader (one node process for many files), filling a
small disk, and a CLI runner."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

PEER = Path(os.environ.get("PI_PEER", "/tmp/peer"))
PI_PACKAGE = PEER / "node_modules" / "@mariozechner" / "pi-coding-agent" / "dist" / "core" / "session-manager.js"
NODE = shutil.which("node")
HERE = Path(__file__).resolve().parent

needs_pi = pytest.mark.skipif(
    NODE is None or not PI_PACKAGE.exists(),
    reason="needs node and pi in $PI_PEER (run ../shared/oracle/ensure_peer.sh)",
)


def pi_read(*paths: Path | str) -> list[dict[str, Any]]:
    """What pi's reader makes of each file (ids, parents, types of the entries after its
    in-memory migration), all files in one node process."""
    out = subprocess.run([str(NODE), str(HERE / "pi_read_many.mjs"), str(PEER), *map(str, paths)],
                         capture_output=True, text=True, check=True, timeout=120)
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
