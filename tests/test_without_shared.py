"""A clone without the shared material beside it collects every test with no error
(``tests/shared_material.py``): the tests that need it are there, to be skipped saying why."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.shared_material import ROOT, SHARED, needs_shared, on_ci, shared_missing


def test_the_suite_collects_without_the_shared_material(tmp_path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_XDIST_WORKER", "PYTEST_ADDOPTS")}
    env["LOOMTUI_SHARED_DIR"] = str(tmp_path / "no-shared")
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-o", "addopts=", "-p", "no:cacheprovider", "tests"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    # (the exit status is the snapshot plugin's: nothing ran, so it counts every snapshot unused)
    last = out.stdout.strip().splitlines()[-1]
    assert "ERROR collecting" not in out.stdout and "error" not in last and "tests collected" in last, (
        out.stdout[-4000:] + out.stderr[-2000:]
    )
    assert "[missing-shared-material]" in out.stdout  # a parametrization over shared files stands in


def test_what_is_missing_is_named(tmp_path, monkeypatch) -> None:
    from tests import shared_material

    monkeypatch.setattr(shared_material, "SHARED", tmp_path / "gone")
    assert shared_material.shared_missing() == f"the shared material ({tmp_path / 'gone'})"
    monkeypatch.setattr(shared_material, "SHARED", tmp_path)
    assert shared_material.shared_missing(tmp_path / "x.jsonl") == f"the shared material {tmp_path / 'x.jsonl'}"
    assert shared_material.shared_missing(tmp_path) is None


def test_missing_material_skips_outside_ci_and_fails_on_ci(tmp_path) -> None:
    """The same test, run with the material gone: skipped with the reason, or failed under CI."""
    test = tmp_path / "test_needs.py"
    test.write_text(
        "from tests.shared_material import needs_shared\n"
        "from pathlib import Path\n\n"
        f"@needs_shared(Path({str(tmp_path / 'absent.jsonl')!r}))\n"
        "def test_reads_it():\n    raise AssertionError('ran without its material')\n"
    )
    (tmp_path / "conftest.py").write_text("from tests.conftest import pytest_configure, pytest_runtest_setup\n")
    base = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_XDIST_WORKER", "PYTEST_ADDOPTS")}
    base["PYTHONPATH"] = str(ROOT)
    args = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-rs",
        "-p",
        "no:xdist",
        "-p",
        "no:cacheprovider",
        "-c",
        os.devnull,
        "--rootdir",
        str(tmp_path),
        str(test),
    ]
    off = subprocess.run(args, cwd=tmp_path, env=base, capture_output=True, text=True, timeout=120)
    assert off.returncode == 0 and "1 skipped" in off.stdout, off.stdout
    assert f"the shared material {tmp_path / 'absent.jsonl'} is missing" in off.stdout
    on = subprocess.run(args, cwd=tmp_path, env={**base, "CI": "true"}, capture_output=True, text=True, timeout=120)
    assert on.returncode == 1 and "1 error" in on.stdout, on.stdout  # failed at its setup
    assert "is missing, and CI must have it" in on.stdout


@needs_shared()
def test_this_checkout_has_its_shared_material() -> None:
    assert shared_missing() is None and SHARED.is_dir()
    assert on_ci() == (os.environ.get("CI", "").lower() not in ("", "0", "false", "no"))
