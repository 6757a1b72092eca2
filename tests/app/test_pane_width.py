"""The detail pane's width is remembered as a fraction of the screen: a width chosen on a wide
terminal leaves a narrow one its tree (an older state's columns are read sensibly)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from app_helpers import browser, make_app

from loomtui.app import ui_state


async def _widths(app: Any, size: tuple[int, int]) -> tuple[int, int]:
    async with app.run_test(size=size) as pilot:
        screen = await browser(pilot)
        await pilot.pause()
        return screen.tree.outer_size.width, screen.detail.outer_size.width


async def test_a_width_chosen_at_160_columns_is_the_same_share_at_80(fixture_copy: Any) -> None:
    path = fixture_copy("kinds.jsonl")
    app = make_app(path)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        await pilot.pause()
        for _ in range(5):
            await screen.run_action("resize_detail(4)")
        await pilot.pause()
        wide = screen.detail.outer_size.width
        assert wide > 64
    stored = ui_state.load()
    assert abs(stored["detail_fraction"] - wide / 160) < 0.01
    tree, detail = await _widths(make_app(path), (80, 24))
    assert abs(detail - round(wide / 2)) <= 1
    assert tree >= 30 and tree + detail == 80


async def test_an_old_absolute_width_does_not_crowd_out_the_tree(fixture_copy: Any) -> None:
    state = Path(os.environ["XDG_STATE_HOME"]) / "loomtui" / "ui.json"
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_text(json.dumps({"detail_width": 52}))  # chosen on a 130-column terminal
    tree, detail = await _widths(make_app(fixture_copy("kinds.jsonl")), (80, 24))
    assert tree >= 40 and detail >= 30
    assert 0 < ui_state.load()["detail_fraction"] <= 0.5
