"""Fixtures for the loom format tests; the material lives in ``loomkit``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from loomkit import check_invariants, sample_v2


@pytest.fixture
def v2doc() -> dict[str, Any]:
    return sample_v2()


@pytest.fixture
def invariants() -> Callable[[dict[str, Any]], dict[str, dict[str, list[str]]]]:
    return check_invariants
