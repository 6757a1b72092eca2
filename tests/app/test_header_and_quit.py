"""The header keeps the leaf visible on long paths; Ctrl+Q asks when a moved leaf is unsaved."""

from __future__ import annotations

import shutil
from pathlib import Path

from app_helpers import browser, make_app, screen_text, select
FIXTURES = Path(__file__).parent / "fixtures"

from loomtui.app.screens.dialogs import ConfirmDialog
from loomtui.view.width import fit_parts, text_width


def test_fit_parts_shortens_the_path_first() -> None:
    parts = ["Parser fix", "/home/user/projects/a-very-long-directory-name/with/many/levels/below/it",
             "26 entries", "leaf s1000001 (moved)"]
    for width in (200, 90, 70, 60):
        out = fit_parts(parts, width, 1)
        assert text_width(out) <= width
        assert out.endswith("leaf s1000001 (moved)"), out
        assert out.startswith("Parser fix")
    assert "…" in fit_parts(parts, 90, 1) and "/it" in fit_parts(parts, 90, 1)
    assert fit_parts(parts, 200, 1) == "  ·  ".join(parts)
    assert text_width(fit_parts(parts, 20, 1)) <= 20


async def test_a_long_path_at_160_columns_keeps_the_leaf_and_the_moved_mark(tmp_path: Path) -> None:
    deep = tmp_path / ("a-directory-with-a-long-name/" * 5) / "sessions" / "--home-user-projects-something--"
    deep.mkdir(parents=True)
    path = deep / "2026-01-01T00-00-00-000Z_0199e0a5-aaaa-7bbb-8ccc-123456789abc.jsonl"
    shutil.copyfile(FIXTURES / "kinds.jsonl", path)
    app = make_app(path)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "r1000004")
        await pilot.press("enter")
        await pilot.pause(0.1)
        header = screen_text(app).splitlines()[0]
        assert header.rstrip().endswith("leaf r1000004 (moved)"), header
        assert "…" in header and "26 entries" in header
        await pilot.resize_terminal(100, 30)
        await pilot.pause(0.1)
        header = screen_text(app).splitlines()[0]
        assert header.rstrip().endswith("leaf r1000004 (moved)"), header


async def test_ctrl_q_asks_before_leaving_a_moved_unsaved_leaf(fixture_copy) -> None:
    path = fixture_copy("kinds.jsonl")
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "r1000004")
        await pilot.press("enter")
        await pilot.press("ctrl+q")
        await pilot.pause(0.1)
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        assert "r1000004" in dialog.body and "s1000001" in dialog.body
        await pilot.press("escape")  # stay
        await pilot.pause(0.1)
        assert app.screen is screen and app.is_running
        await pilot.press("ctrl+q")
        await pilot.pause(0.1)
        await pilot.press("y")
        await pilot.pause(0.1)
    assert app.return_code == 0


async def test_ctrl_q_quits_at_once_without_a_moved_leaf(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        await browser(pilot)
        await pilot.press("down", "ctrl+q")
        await pilot.pause(0.1)
        assert not app.is_running or not isinstance(app.screen, ConfirmDialog)
