"""pi 1.6.0's new kinds in the app: Enter on a context edit goes to the entry it edits, whose
detail says it is edited on this branch; a system message's detail lists its sections and tools;
the header counts usage entries in its token figure."""

from __future__ import annotations

import shutil
from pathlib import Path

from app_helpers import browser, make_app, select
from textual.widgets import Static

from loomtui.app.widgets.filter_bar import FilterBar


def flat(text: str) -> str:
    """The pane's text with its wrapping undone."""
    return " ".join(text.split())


NEW_KINDS = Path(__file__).resolve().parents[1] / "fixtures" / "pi160" / "new-kinds.jsonl"


async def test_enter_on_a_context_edit_jumps_to_its_target(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    shutil.copy(NEW_KINDS, path)
    app = make_app(path, filter_mode="all")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "ced00001")
        assert "context edit: omits entry ast00001" in flat(screen.detail.text)
        assert "Enter jumps to that entry" in flat(screen.detail.text)
        leaf = screen.model.leaf_id  # type: ignore[union-attr]
        await pilot.press("enter")
        await pilot.pause()
        assert screen.model is not None and screen.model.selected_id == "ast00001"
        assert screen.model.leaf_id == leaf  # a jump, not a leaf move
        screen._update_detail(immediate=True)
        await pilot.pause()
        assert "edited on this branch: context edit ced00001 omits this entry" in flat(screen.detail.text)
        assert path.read_bytes() == NEW_KINDS.read_bytes()  # nothing written
        await select(pilot, screen, "usr00003")
        await pilot.press("enter")  # an ordinary entry: Enter still moves the leaf (a user message: to its parent)
        await pilot.pause()
        assert screen.model.leaf_id == "ast00001"


async def test_system_message_detail_and_the_header_tokens(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    shutil.copy(NEW_KINDS, path)
    app = make_app(path, filter_mode="all")
    async with app.run_test(size=(200, 40)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "sys00002")
        text = flat(screen.detail.text)
        assert "system prompt update" in text and "section skills: removed" in text
        assert "tools removed (1): write" in text
        await app.workers.wait_for_complete()
        await pilot.pause()
        bar = screen.query_one(FilterBar)
        shown = " ".join(str(w.render()) for w in bar.query(Static))
        assert "↑1.2k ↓300 R90k W2.0k $0.043" in shown
