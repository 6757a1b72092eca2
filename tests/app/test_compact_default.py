"""Deep trees: compact indentation is picked by itself when the rows are too deep for the pane
(pi's rows would be cut from the left), and the user's Ctrl+W choice is remembered between runs."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

from app_helpers import browser, make_app, screen_text
from test_loom_tools import deep_session

from loomtui.app import ui_state
from loomtui.app.screens.help import HelpScreen
from tests.waits import until

REVIEW_RUN = Path(__file__).resolve().parents[1] / "fixtures" / "ocp" / "review-loop-v03.ocp.json"


def _tree_rows(app: Any) -> list[str]:
    return [line.split("▏")[0] for line in screen_text(app).splitlines()[2:-1]]


async def test_deep_rows_pick_compact_indentation_and_shallow_ones_do_not(tmp_path: Any, fixture_copy: Any) -> None:
    app = make_app(deep_session(tmp_path, levels=60))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await browser(pilot)
        await pilot.press("end")
        await pilot.pause()
        assert screen.model.compact
        rows = [r for r in _tree_rows(app) if "user:" in r]
        assert any("⋯" in r for r in rows)
        # no row is cut from the left: the gutters line up
        assert not any(r.lstrip("› ").startswith("…") for r in rows), rows
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await browser(pilot)
        await pilot.pause()
        assert not screen.model.compact  # shallow: pi's rows


async def test_the_users_choice_is_remembered(tmp_path: Any) -> None:
    path = deep_session(tmp_path, levels=60)
    app = make_app(path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await browser(pilot)
        assert screen.model.compact
        await screen.run_action("compact")  # the user wants pi's rows
        await pilot.pause()
        assert not screen.model.compact
        await pilot.resize_terminal(90, 30)  # a resize keeps the choice
        await pilot.pause()
        assert not screen.model.compact
    assert ui_state.load()["compact"] is False
    app = make_app(path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await browser(pilot)
        await pilot.pause()
        assert not screen.model.compact  # the next run too
        await screen.run_action("compact")
        await pilot.pause()
        assert screen.model.compact
    assert ui_state.load()["compact"] is True


async def test_the_compact_mark_and_the_detail_pane_name_what_they_count(tmp_path: Any) -> None:
    """``⋯N`` counts indentation levels (branch points above the row), the detail pane's depth
    counts every entry above it: each says which, so the two numbers do not read as one."""
    app = make_app(deep_session(tmp_path, levels=60))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await browser(pilot)
        await pilot.press("end")
        await pilot.pause()
        screen._update_detail(immediate=True)
        await until(pilot, lambda: "sibling" in screen.detail.text, what="the detail pane")
        assert re.search(r"\bdepth \d+ from the root\b", screen.detail.text), screen.detail.text
        await pilot.press("f1")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
        help_text = " ".join(app.screen.text.replace("│", " ").split())
        assert "a row indented 12 levels" in help_text
        assert "depth from the root" in help_text


async def test_a_small_run_whose_rows_fit_keeps_pis_rows_at_80x24(tmp_path: Any) -> None:
    """No choice saved yet (a fresh state directory): the run's deepest row is indented 15
    columns of the 50-column tree pane, so compact indentation stays off and every row keeps
    the guides that join it to its parent."""
    path = tmp_path / "review.ocp.json"
    shutil.copyfile(REVIEW_RUN, path)
    assert "compact" not in ui_state.load()
    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await browser(pilot)
        await until(pilot, lambda: "rejected" in screen_text(app), what="the run's rows")
        assert screen.tree.scrollable_content_region.width <= 50
        assert not screen.model.compact
        rows = _tree_rows(app)
        assert not any("⋯" in r for r in rows), rows
        assert any(r.startswith("  │     │  │     [attempt]: ⊘ #2 rejected") for r in rows), rows
        assert any(r.startswith("  │     │  └─ [attempt]: ✓ #3 done") for r in rows), rows
