"""A dialog whose text is taller than a small terminal keeps its buttons on the screen: the text
scrolls, the buttons stay under it, and Escape still closes it."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from app_helpers import browser, make_app, screen_text
from textual.containers import VerticalScroll
from textual.widgets import Button, Input, Label, Static

from loomtui.app.screens.dialogs import ConfirmDialog, ExportDialog
from loomtui.session.locations import sample_dir
from tests.waits import settled, until

#: a bundled pi sample whose resume plan is long: a label to append, a long path, a gone directory
PI_SAMPLE = "2026-03-02T09-14-05-120Z_5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19.jsonl"


def _wholly_shown(pilot: Any, widget: Any) -> bool:
    """``widget`` is displayed and every cell of it is on the screen, inside its dialog's box
    (within the box's border and padding, which clip what goes past them)."""
    box = pilot.app.screen.children[0]
    return (
        widget.display
        and widget.region.area > 0
        and pilot.app.screen.region.contains_region(widget.region)
        and box.content_region.contains_region(widget.region)
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
        # why pi cannot run is read first, as the dialog opens
        body = dialog.children[0]
        reason = dialog.query_one("#unavailable", Static)
        assert "Cannot run pi" in str(reason.render())
        assert body.region.contains_region(reason.region), (reason.region, body.region)
        # the plan is taller than the box: it scrolls (the keys reach the box from the focused
        # Close) to its end, Close still shown
        assert isinstance(body, VerticalScroll) and body.max_scroll_y > 0 and close.has_focus
        await pilot.press("end")
        await until(pilot, lambda: body.scroll_y == body.max_scroll_y, what="the text scrolled to its end")
        plan = dialog.query_one("#body", Static)
        assert body.region.contains_region(plan.region.intersection(body.region))
        assert _wholly_shown(pilot, close)
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, what="the dialog closed")
    assert path.read_bytes() == before


@pytest.mark.parametrize("height", [24, 20])
async def test_the_export_dialog_with_a_long_refusal_keeps_its_buttons_and_shows_it(
    tmp_path: Path, height: int
) -> None:
    path = tmp_path / PI_SAMPLE
    shutil.copyfile(Path(sample_dir()) / PI_SAMPLE, path)
    (tmp_path / "a-file").write_text("")
    dest = tmp_path / "a-file" / ("a-long-directory-name-" * 10) / "copy.jsonl"  # under a file: refused
    app = make_app(path)
    async with app.run_test(size=(80, height)) as pilot:
        screen = await browser(pilot)
        await pilot.press("end")
        await settled(pilot)
        await pilot.press("ctrl+e")
        await until(pilot, lambda: isinstance(app.screen, ExportDialog), what="the export dialog")
        dialog = app.screen
        dialog.query_one("#dest", Input).value = str(dest)
        await pilot.press("enter")
        result = dialog.query_one("#result", Static)
        await until(pilot, lambda: "Not written" in str(result.render()), what="the refusal")
        await settled(pilot)
        assert result.region.height > 4  # the refusal names the long path
        for button in ("#cancel", "#export"):
            widget = dialog.query_one(button, Button)
            assert _wholly_shown(pilot, widget), (button, widget.region, screen_text(app))
        # scrolled to when it is below the fold, above the buttons
        buttons = dialog.query_one("Horizontal.buttons")
        await until(
            pilot,
            lambda: _wholly_shown(pilot, result) and result.region.bottom <= buttons.region.y,
            what="the refusal scrolled into view, above the buttons",
        )
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, what="the dialog closed")
    assert not dest.parent.exists()


async def test_the_codex_export_title_reads_whole_on_an_80_column_screen(tmp_path: Path) -> None:
    """A source's longer title ("as a Codex session (a new file)") and the destination prompt
    wrap inside the box rather than being cut mid-word."""
    path = tmp_path / PI_SAMPLE
    shutil.copyfile(Path(sample_dir()) / PI_SAMPLE, path)
    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        await browser(pilot)
        note = "the branch's lines as Codex wrote them, under a new session id; this file is not touched"
        dialog = ExportDialog(
            "assistant: done",
            1303,
            0,
            str(tmp_path),
            lambda _dest: None,
            "a Codex session",
            note,  # type: ignore[arg-type,return-value]
        )
        app.push_screen(dialog)
        await until(pilot, lambda: app.screen is dialog, what="the export dialog")
        await settled(pilot)
        box = app.screen.children[0].content_region
        lines = screen_text(app).splitlines()
        prompt = dialog.query(Label)[1]
        for label, words in (
            (dialog.query_one(".title"), "Export the branch ending here as a Codex session (a new file)"),
            (prompt, "Destination (a directory, or a file path ending in .jsonl):"),
        ):
            assert _wholly_shown(pilot, label), (label.region, screen_text(app))
            shown = " ".join(line[box.x : box.right].strip() for line in lines[label.region.y : label.region.bottom])
            assert shown == words, screen_text(app)
