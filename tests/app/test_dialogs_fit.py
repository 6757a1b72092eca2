"""A dialog whose text is taller than a small terminal keeps its buttons on the screen: the text
scrolls, the buttons stay under it, and Escape still closes it."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from app_helpers import browser, make_app, screen_text
from textual.containers import VerticalScroll
from textual.widgets import Button, Static

from loomtui.app.screens.dialogs import ConfirmDialog
from loomtui.session.locations import sample_dir
from tests.waits import settled, until

#: a bundled pi sample whose resume plan is long: a label to append, a long path, a gone directory
PI_SAMPLE = "2026-03-02T09-14-05-120Z_5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19.jsonl"


def _wholly_shown(pilot: Any, widget: Any) -> bool:
    """``widget`` is displayed and every cell of it is on the screen, inside its dialog's box."""
    box = pilot.app.screen.children[0]
    return (
        widget.display
        and widget.region.area > 0
        and pilot.app.screen.region.contains_region(widget.region)
        and box.region.contains_region(widget.region)
    )


@pytest.mark.parametrize("height", [24, 20])
async def test_the_resume_dialog_without_pi_keeps_close_on_an_80_column_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, height: int
) -> None:
    monkeypatch.delenv("LOOMTUI_PI", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))  # no pi
    path = tmp_path / PI_SAMPLE
    shutil.copyfile(Path(sample_dir()) / PI_SAMPLE, path)
    before = path.read_bytes()
    app = make_app(path)
    async with app.run_test(size=(80, height)) as pilot:
        screen = await browser(pilot)
        await pilot.press("end")
        await settled(pilot)
        await pilot.press("alt+w")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog), what="the resume dialog")
        await settled(pilot)
        dialog = app.screen
        assert dialog.title_text.startswith("Cannot resume pi at ")
        close = dialog.query_one("#no", Button)
        assert str(close.label) == "Close"
        assert _wholly_shown(pilot, close), (close.region, screen_text(app))
        assert " Close " in screen_text(app)
        # the text is taller than the box: it scrolls (the keys reach the box from the focused
        # Close), and its end (why pi cannot run) can be read
        body = dialog.children[0]
        assert isinstance(body, VerticalScroll) and body.max_scroll_y > 0 and close.has_focus
        await pilot.press("end")
        await until(pilot, lambda: body.scroll_y == body.max_scroll_y, what="the text scrolled to its end")
        reason = dialog.query_one("#unavailable", Static)
        assert body.region.contains_region(reason.region), (reason.region, body.region)
        assert _wholly_shown(pilot, close)
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, what="the dialog closed")
    assert path.read_bytes() == before
