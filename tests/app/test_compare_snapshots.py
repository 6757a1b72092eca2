"""Snapshots of the compare screen: side by side at 160x50, stacked at 80x24; and reader mode.
Update with ``--snapshot-update`` after checking ``snapshot_report.html``."""

from __future__ import annotations

from typing import Any

import pytest
from app_helpers import make_app
from conftest import snap_fixture

from loomtui.app.screens.browser import BrowserScreen
from tests.waits import settled, until

#: the snapshots copy their fixtures to one fixed directory (the title bar shows the path): one
#: worker runs them all
pytestmark = pytest.mark.xdist_group("snapshots")


async def _wait(pilot: Any) -> BrowserScreen:
    def loaded() -> bool:
        screen = pilot.app.screen
        return isinstance(screen, BrowserScreen) and screen.model is not None

    await until(pilot, loaded, what="the browser")
    return pilot.app.screen


def _compare(a: str, b: str) -> Any:
    async def run_before(pilot: Any) -> None:
        screen = await _wait(pilot)
        screen.model.select_id(a)
        screen.tree.selection_changed()
        await pilot.press("alt+m")
        screen.model.select_id(b)
        screen.tree.selection_changed()
        await pilot.press("alt+c")
        pilot.app.clear_notifications()
        await settled(pilot)

    return run_before


@pytest.mark.parametrize("size", [(160, 50), (80, 24)], ids=["160x50", "80x24"])
def test_compare_screen(snap_compare: Any, size: tuple[int, int]) -> None:
    app = make_app(snap_fixture("kinds.jsonl"))
    assert snap_compare(app, terminal_size=size, run_before=_compare("a1000005", "b1000001"))


def test_reader_screen(snap_compare: Any) -> None:
    app = make_app(snap_fixture("kinds.jsonl"))

    async def run_before(pilot: Any) -> None:
        screen = await _wait(pilot)
        screen.model.select_id("u1000002")
        screen.tree.selection_changed()
        await pilot.press("ctrl+r")
        await settled(pilot)

    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)


def test_hoisted_tree_with_breadcrumb(snap_compare: Any) -> None:
    app = make_app(snap_fixture("kinds.jsonl"))

    async def run_before(pilot: Any) -> None:
        screen = await _wait(pilot)
        screen.model.select_id("u1000002")
        screen.tree.selection_changed()
        await pilot.press("alt+h")
        await settled(pilot)

    assert snap_compare(app, terminal_size=(130, 36), run_before=run_before)
