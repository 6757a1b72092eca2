"""Rough edges a new user hit: the detail pane after archiving, the help's marks, a screenshot
on a fresh home, the header's leaf."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from app_helpers import browser, make_app, notices, screen_text, select
from textual.containers import VerticalScroll

from loomtui.app.keymap import SPECS
from loomtui.app.screens.dialogs import ConfirmDialog
from loomtui.app.screens.help import MARKS, HelpScreen
from tests.waits import TIMEOUT, until


async def _until(pilot: Any, cond: Any, seconds: float = 10.0) -> None:
    await until(pilot, cond, max(seconds, TIMEOUT))


async def test_archiving_a_branch_refreshes_the_detail_pane(fixture_copy: Any) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "u1000003")
        assert screen.detail.entry_id == "u1000003"
        await screen.run_action("archive")
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await _until(pilot, lambda: screen.model.selected_id != "u1000003")
        await pilot.pause()
        # the cursor left the hidden branch and the detail pane shows where it is now
        assert screen.detail.entry_id == screen.model.selected_id


async def test_help_shows_every_mark_and_description_as_written(tmp_path: Path) -> None:
    app = make_app(None)
    async with app.run_test(size=(160, 50)) as pilot:
        app.push_screen(HelpScreen())
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        help_text = app.screen.text
        for mark, _meaning in MARKS:
            assert any(line.startswith(mark + " ") for line in help_text.splitlines()), mark
        app.screen.query_one(VerticalScroll).scroll_end(animate=False)
        await pilot.pause()
        assert any("│ [text] " in line and "a label" in line for line in screen_text(app).splitlines())
        for spec in SPECS:
            assert " ".join(spec.description.split()) in " ".join(help_text.split()), spec.description


def _help_marks(help_text: str) -> list[str]:
    """The marks column of the help's Marks section."""
    lines = help_text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "Marks")
    return [line.split("  ")[0].strip() for line in lines[start + 1 :] if line.strip()]


async def test_help_lists_every_mark_the_tree_draws(fixture_copy: Any) -> None:
    """The help's Marks left out the compare mark (Alt+M) and the compact depth: every glyph the
    tree draws, taken from the names the tree draws them by, is listed there (a deep row's
    indentation is panned as pi pans it, with no mark of its own)."""
    from loomtui.app.widgets.tree_view import _PREFIX_CHARS
    from loomtui.view.compact import depth_tag
    from loomtui.view.loom_state import ARCHIVED_TAG, MARK
    from loomtui.view.text import HIDDEN_MARKS

    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await browser(pilot)
        # the mark as the tree draws it, on the marked row
        await pilot.press("alt+m")
        await pilot.pause()
        row = screen.model.selected - int(screen.tree.scroll_offset.y)
        drawn = "".join(seg.text for seg in screen.tree.render_line(row))
        assert MARK.strip() in drawn, drawn
        app.push_screen(HelpScreen())
        await pilot.pause()
        listed = _help_marks(app.screen.text)
        shown = " ".join(listed)
    glyphs = {MARK.strip(), ARCHIVED_TAG.strip(), depth_tag(0).rstrip("0"), "›", "•"}
    glyphs |= {mark.strip() for mark in HIDDEN_MARKS.values()}
    glyphs |= set(_PREFIX_CHARS) - {" "}
    for glyph in sorted(glyphs):
        assert glyph in shown, (glyph, listed)
    # each mark on its own row, not only inside another's
    for glyph in (MARK.strip(), ARCHIVED_TAG.strip()):
        assert any(mark.startswith(glyph) for mark in listed), (glyph, listed)
    assert any(mark.startswith(depth_tag(0).rstrip("0")) for mark in listed), listed


async def test_a_screenshot_without_a_downloads_folder_goes_to_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    assert not os.path.isdir(os.path.expanduser("~/Downloads"))
    app = make_app(None)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        command = next(c for c in app.get_system_commands(app.screen) if c.title.startswith("screenshot"))
        command.callback()
        await _until(pilot, lambda: any(here.iterdir()))
        saved = next(here.iterdir())
        assert saved.suffix == ".svg" and "<svg" in saved.read_text(encoding="utf-8")[:2000]
        await _until(pilot, lambda: any(str(saved) in n for n in notices(app)))
        assert any("current directory" in n for n in notices(app))


async def test_the_header_leaf_is_the_entry_the_tree_marks(fixture_copy: Any) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(160, 34)) as pilot:
        screen = await browser(pilot)
        model = screen.model
        assert model.leaf_id == "s1000001"  # the file ends with a session name entry, hidden in the tree
        marked = [model.entry_at(i).id for i in range(len(model)) if model.entry_at(i) in model.flat.active]
        head = screen_text(app).split("\n")[0]
        # the leaf named is the marked entry; the hidden entry is named only as the file's last
        assert f"leaf {marked[-1]} (last entry s1000001)" in head, head


async def test_the_mark_notice_does_not_cover_the_comparison_totals(fixture_copy: Any) -> None:
    from loomtui.app.screens.compare import CompareScreen

    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(160, 40), notifications=True) as pilot:  # toasts drawn
        screen = await browser(pilot)
        await select(pilot, screen, "a1000005")
        await screen.run_action("mark")
        await _until(pilot, lambda: any(n.startswith("Marked") for n in notices(app)))
        await select(pilot, screen, "b1000001")
        await screen.run_action("compare")
        await _until(pilot, lambda: isinstance(app.screen, CompareScreen))
        await pilot.pause()
        text = screen_text(app)
        assert "Marked" not in text
        totals = [line for line in text.splitlines() if "turn" in line and "tool call" in line]
        assert totals and all("│" in line for line in totals)  # both columns of the totals show
