"""Rows must be exactly what pi's /tree draws (goldens made by the published pi), read plainly and
from the persistent index."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from loomtui.session.manager import SessionManager
from loomtui.view.model import TreeModel
from loomtui.view.width import truncate_to_width
from tests.shared_material import SHARED, needs_shared, shared_params

FIXTURES = sorted((SHARED / "fixtures" / "pi").glob("*.jsonl"))


def golden_views(path: Path) -> list[dict]:
    golden = SHARED / "fixtures" / "pi-goldens" / (path.stem + ".json")
    return json.loads(golden.read_text())["views"]


CASES = [(f, v["mode"], v["query"]) for f in FIXTURES for v in golden_views(f)]


@pytest.mark.parametrize(
    "path,mode,query",
    shared_params([pytest.param(f, m, q, id=f"{f.stem}-{m}-{q or 'noquery'}") for f, m, q in CASES], arity=3),
)
def test_rows_match_pi_golden(path: Path, mode: str, query: str, parity_file: Callable[[Path], Path]) -> None:
    expected = next(v for v in golden_views(path) if v["mode"] == mode and v["query"] == query)
    model = TreeModel(SessionManager.open(str(parity_file(path))), filter_mode=mode, home="/home/user")
    model.type_text(query)
    assert [truncate_to_width(line, 1000) for line in model.lines()] == expected["lines"]


@needs_shared()
def test_every_fixture_has_golden_views() -> None:
    assert len(FIXTURES) == 5
    assert all(len(golden_views(f)) == 10 for f in FIXTURES)
