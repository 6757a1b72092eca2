"""Where the tests find the material that lives outside the repository, and what a test does
when it is not there.

The shared material (real session files, pi's goldens, the oracle scripts, the benchmark
generator) sits in ``shared`` beside the checkout; ``LOOMTUI_SHARED_DIR`` names another place.
pi's code (the oracle's judge) is found by ``tests/oracle.py``.

A clone without that material still runs every test that does not need it: a test that needs it
is skipped with a reason naming what is missing. On CI (``CI`` set to anything but ``0``/``false``)
the material must be there, so the same test fails instead of skipping.

Use ``needs_shared`` (a mark, for a test or a module's ``pytestmark``), ``require_shared`` (inside a
test or fixture), ``shared_params`` (a parametrization over shared files) or the ``shared_dir``
fixture (``tests/conftest.py``): each of them ends in ``absent``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NoReturn

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: the shared material: ``../shared`` from the checkout unless ``LOOMTUI_SHARED_DIR`` says otherwise
SHARED = Path(os.environ.get("LOOMTUI_SHARED_DIR") or ROOT.parent / "shared")
FIXTURES = SHARED / "fixtures"

#: the mark ``tests/conftest.py`` checks before each test runs
MARK = "needs_material"


def on_ci() -> bool:
    """Whether this run is CI's, where nothing may be missing."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def absent(what: str) -> NoReturn:
    """Skip the running test because ``what`` is missing (fail it on CI)."""
    if on_ci():
        pytest.fail(f"{what} is missing, and CI must have it", pytrace=False)
    pytest.skip(f"{what} is missing")


def shared_missing(*paths: Path | str) -> str | None:
    """What is missing among ``paths`` (the whole shared directory, or one file of it), or None."""
    if not SHARED.is_dir():
        return f"the shared material ({SHARED})"
    for path in paths:
        if not Path(path).exists():
            return f"the shared material {path}"
    return None


def require_shared(*paths: Path | str) -> None:
    """Skip (fail on CI) unless the shared directory and each of ``paths`` exist."""
    missing = shared_missing(*paths)
    if missing is not None:
        absent(missing)


def needs(missing: str | None) -> pytest.MarkDecorator:
    """A mark: the test needs something, and ``missing`` says what is absent (None: all there).
    Checked when the test is set up (``tests/conftest.py``), so collection never fails."""
    return getattr(pytest.mark, MARK)(missing)


def needs_shared(*paths: Path | str) -> pytest.MarkDecorator:
    """A mark: the test needs the shared directory (and ``paths`` in it)."""
    return needs(shared_missing(*paths))


def shared_params(paths: Iterable[Any], *, where: Path | str = SHARED, arity: int = 1) -> list[Any]:
    """``paths`` (listed from the shared material) as a parametrization of ``arity`` names; when
    ``where`` is missing, one placeholder that skips (fails on CI) saying so, instead of an empty
    list (which pytest would skip without saying what is missing)."""
    listed = list(paths)
    missing = shared_missing(where)
    if missing is None:
        return listed
    return [pytest.param(*[Path(where)] * arity, marks=needs(missing), id="missing-shared-material")]


def shared_glob(where: Path, pattern: str) -> list[Path]:
    """The files matching ``pattern`` in ``where`` (sorted; none when ``where`` is missing)."""
    return sorted(where.glob(pattern)) if where.is_dir() else []
