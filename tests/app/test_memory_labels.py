"""A label kept in memory (an OCP run's, the loom map's) is a bookmark: Alt+L puts it on the
row, and no row moves, nor the cursor, nor the leaf."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import browser, make_app, rows, select
from textual.widgets import Input

from loomtui.app.screens.browser import BrowserScreen
from loomtui.app.screens.dialogs import LabelDialog
from tests.waits import until

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("path", "row"),
    [
        (ROOT / "tests" / "fixtures" / "ocp" / "run-with-session" / "run.ocp.json", 1),
        (ROOT / "tests" / "formats" / "maitento", 0),
    ],
    ids=["ocp-run", "loom-map"],
)
async def test_a_label_in_memory_moves_no_row_and_keeps_the_cursor(path: Path, row: int) -> None:
    app = make_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await browser(pilot)
        model = screen.model
        assert model is not None
        before = rows(screen)
        target = before[row]
        await select(pilot, screen, target)
        leaf = model.leaf_id
        await pilot.press("alt+l")
        await until(pilot, lambda: isinstance(app.screen, LabelDialog), what="the label dialog")
        app.screen.query_one(Input).value = "x"
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, BrowserScreen), what="the browser again")
        await until(pilot, lambda: "[x]" in model.row_text(model.selected), what="the label on the row")
        assert rows(screen) == before
        assert model.selected_id == target
        assert model.leaf_id == leaf
