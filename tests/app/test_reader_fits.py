"""Reader mode at 80x24: the header keeps where the reading is (and how far laying out got) and
cuts the title with an ellipsis; the footer shortens its words and always shows the way back.
Both were cut at the edge, losing "entries", the progress and "(at the entry read)"."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from app_helpers import browser, make_app, screen_text
from test_reader_lazy import long_branch

from loomtui.app.screens.reader import ReaderScreen, ReaderView
from tests.waits import until

ROOT = Path(__file__).resolve().parents[2]
WEATHER = ROOT / "sample_sessions" / "2026-03-02T09-14-05-120Z_5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19.jsonl"


async def _reader(pilot: Any) -> ReaderView:
    app = pilot.app
    await pilot.press("ctrl+r")
    await until(pilot, lambda: isinstance(app.screen, ReaderScreen), what="reader mode")
    view = app.screen.query_one(ReaderView)
    await until(pilot, lambda: view.current >= 0, what="the reader's first screen")
    await pilot.pause()
    return view


async def test_the_header_and_footer_fit_80_columns(tmp_path: Path) -> None:
    path = tmp_path / WEATHER.name
    shutil.copyfile(WEATHER, path)
    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        await browser(pilot)
        view = await _reader(pilot)
        await pilot.press("home")
        await until(pilot, lambda: screen_text(app).splitlines()[0].startswith(" Reader · entry 1 of 32 "))
        lines = screen_text(app).splitlines()
        head, foot = lines[0].strip(), lines[-1].strip()
        # where the reading is first, the title last, cut with an ellipsis
        assert head.startswith("Reader · entry 1 of 32 · the active branch · Fix forecast crash"), head
        assert head.endswith("…"), head
        # the footer in words that fit: nothing cut mid-word, the way back and where it lands
        assert foot == "↑↓ scroll  PgUp/PgDn page  n/p entry  Home/End  Esc to the tree, at this entry", foot
        await pilot.press("n", "n")
        await until(pilot, lambda: "entry 3 of 32" in screen_text(app).splitlines()[0], what="the header follows")
        assert view.transcript.entry_id(view.current) == view.transcript.entries[2].id
        await pilot.resize_terminal(120, 24)
        await until(pilot, lambda: "(at the entry read)" in screen_text(app).splitlines()[-1], what="wide words")
        assert screen_text(app).splitlines()[0].rstrip().endswith("Fix forecast crash, add response cache")


async def test_the_progress_stays_in_view_at_80_columns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from loomtui.app.screens import reader

    monkeypatch.setattr(reader, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(reader, "MEASURE_SLICE", 0.0)  # one block a frame: laying out is slow
    path = long_branch(tmp_path / "a-long-session-file-name-that-does-not-fit-beside-the-progress.jsonl", 400)
    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        await browser(pilot)
        await pilot.press("ctrl+r")
        await until(pilot, lambda: "laying out" in screen_text(app).splitlines()[0], what="the progress")
        head = screen_text(app).splitlines()[0].strip()
        assert re.match(r"Reader · entry \d+ of 400 · laying out \d+%… · the active branch · a-long-sess", head), head
        assert head.endswith("…"), head  # the title is cut, not left out


async def test_an_ocp_run_reads_the_selected_rows_branch(tmp_path: Path) -> None:
    """A run has no conversation: the reader showed its run row alone, whatever was selected.
    It reads the rows down to the selected node and the node's attempts, and says so."""
    from app_helpers import select

    path = tmp_path / "review.ocp.json"
    shutil.copyfile(ROOT / "tests" / "fixtures" / "ocp" / "review-loop-v03.ocp.json", path)
    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "n:B1")
        view = await _reader(pilot)
        assert view.transcript.entry_id(view.current) == "n:B1"  # all of it on screen: B1 is the one read
        text = screen_text(app)
        lines = text.splitlines()
        assert lines[0].strip().startswith("Reader · row 4 of 7 · the selected row with the rows above and under it")
        assert "── [impl]" in text and "#1 failed (verified)" in text and "#2 rejected (reported)" in text
        assert "#3 done (verified)" in text and "[review]" not in text  # B1's attempts, not the other group
        assert lines[-1].strip().endswith("Esc to the tree, at this row")
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ReaderScreen), what="the tree")
        await select(pilot, screen, "run")
        view = await _reader(pilot)
        assert len(view.transcript) == 17  # the run row: the whole run


async def test_the_entry_read_stays_where_the_end_of_the_branch_is_on_screen(tmp_path: Path) -> None:
    """Opened at the leaf, the last screen cannot scroll the leaf to the top: the entry at the top
    became the one read, and Esc left the tree six entries above the leaf."""
    path = tmp_path / WEATHER.name
    shutil.copyfile(WEATHER, path)
    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await browser(pilot)
        leaf = screen.model.selected_id
        view = await _reader(pilot)
        assert view.transcript.entry_id(view.current) == leaf
        assert "entry 32 of 32" in screen_text(app).splitlines()[0]
        await pilot.press("p")  # the one above it, on the same screen
        await until(pilot, lambda: "entry 31 of 32" in screen_text(app).splitlines()[0], what="p")
        above = view.transcript.entry_id(31 - 1)
        await pilot.press("n", "escape")
        await until(pilot, lambda: not isinstance(app.screen, ReaderScreen), what="the tree")
        assert screen.model.selected_id == leaf != above
        view = await _reader(pilot)
        await pilot.press("home")
        await until(pilot, lambda: "entry 1 of 32" in screen_text(app).splitlines()[0], what="Home")
        await pilot.press("end")
        await until(pilot, lambda: "entry 32 of 32" in screen_text(app).splitlines()[0], what="End")


async def test_at_200_columns_the_prose_keeps_a_readable_measure(tmp_path: Path) -> None:
    """The transcript ran the whole 200-column width: it is laid out at most 100 columns wide,
    in a centred column; the header and footer keep the whole width."""
    from loomtui.view.reader import READING_WIDTH

    path = tmp_path / WEATHER.name
    shutil.copyfile(WEATHER, path)
    app = make_app(path)
    async with app.run_test(size=(200, 50)) as pilot:
        await browser(pilot)
        view = await _reader(pilot)
        await pilot.press("home")
        await until(pilot, lambda: "entry 1 of 32" in screen_text(app).splitlines()[0], what="Home")
        assert view.transcript.width == READING_WIDTH == 100
        body = [line[:-1].rstrip() for line in screen_text(app).splitlines()[1:-1]]  # the scrollbar's column off
        text = [line for line in body if line.strip()]
        left = min(len(line) - len(line.lstrip()) for line in text)  # the column's left edge
        width = view.scrollable_content_region.width
        assert left == 1 + (width - READING_WIDTH) // 2  # centred in the view, beside its padding
        assert max(len(line) for line in text) - left <= READING_WIDTH
        assert any(len(line) - left > 90 for line in text)  # prose does fill the column
        assert "(at the entry read)" in screen_text(app).splitlines()[-1]
