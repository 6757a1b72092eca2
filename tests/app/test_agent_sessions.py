"""Claude Code sessions in the browser: a subagent row opens its run (Esc returns), labels go to
loomtui's store and never into the file, the detail pane shows where an entry comes from."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from app_helpers import browser, make_app, notices, select
from textual.widgets import Input

from loomtui.app.screens.browser import BrowserScreen
from loomtui.app.screens.dialogs import LabelDialog
from loomtui.formats.detect import open_any
from tests.waits import until

EF95 = "claude-code-log__ef958aa1-0e93-49f0-bb71-150f63befcd1"


@pytest.fixture
def claude_copy(shared_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    src = shared_dir / "fixtures" / "claude"
    shutil.copyfile(src / f"{EF95}.jsonl", tmp_path / f"{EF95}.jsonl")
    shutil.copytree(src / EF95, tmp_path / EF95)
    return tmp_path / f"{EF95}.jsonl"


async def test_enter_on_a_subagent_row_opens_it_and_escape_returns(claude_copy: Path) -> None:
    app = make_app(claude_copy)
    async with app.run_test(size=(150, 40)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "agent:a4ca7529859c158c2")
        assert "Enter opens this subagent" in screen.detail.text
        await pilot.press("enter")
        await pilot.pause()
        top = app.screen
        assert isinstance(top, BrowserScreen) and top is not screen
        assert top.manager is not None and len(top.manager.index.entries) == 56
        assert top.path.endswith("agent-a4ca7529859c158c2.jsonl")
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        assert screen.model is not None and screen.model.leaf_id == screen.manager.get_leaf_id()  # type: ignore[union-attr]


async def test_label_goes_to_the_store_and_the_file_is_untouched(claude_copy: Path) -> None:
    before = hashlib.sha256(claude_copy.read_bytes()).hexdigest()
    app = make_app(claude_copy)
    async with app.run_test(size=(150, 40)) as pilot:
        screen = await browser(pilot)
        assert screen.model is not None
        target = screen.model.entry_at(1).id
        await select(pilot, screen, target)
        # the tool by its name, not loomtui's id for it ("from the claude-code file")
        assert "from the Claude Code session file: line" in screen.detail.text
        assert "claude-code" not in screen.detail.text
        await pilot.press("alt+l")
        dialog: Any = app.screen
        assert isinstance(dialog, LabelDialog)
        dialog.query_one(Input).value = "the plan"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, BrowserScreen)
        assert "[the plan]" in screen.model.row_text(screen.model.selected)
        assert any("the session file is not touched" in n for n in notices(app))
    assert hashlib.sha256(claude_copy.read_bytes()).hexdigest() == before
    assert open_any(str(claude_copy)).index.label_of(target) == "the plan"


async def test_the_browser_takes_over_the_tail_child_started_before_it(
    claude_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``loomtui FILE`` starts the child for a big Claude file before Textual's threads; the
    browser's read (in a worker thread, where no fork is allowed) uses its scan."""
    from loomtui.formats.claude import split as claude_split

    merged: list[bool] = []
    real = claude_split.merge

    def merge(head: Any, tail: Any) -> bool:
        merged.append(real(head, tail))
        return merged[-1]

    monkeypatch.setattr(claude_split, "merge", merge)
    whole = open_any(str(claude_copy))
    claude_split.prestart(str(claude_copy), 0.35, min_bytes=0)
    app = make_app(claude_copy)
    async with app.run_test(size=(150, 40)) as pilot:
        screen = await browser(pilot)
        assert merged == [True]
        assert screen.manager is not None
        assert [(e.id, e.parent_id, e.hidden) for e in screen.manager.index.entries] == [
            (e.id, e.parent_id, e.hidden) for e in whole.index.entries
        ]
    assert claude_split.take(str(claude_copy)) is None


async def test_export_html_inside_an_inline_subagent_run(
    shared_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 1.0.x subagent run lives inside its parent's file: the page is made of the run as it
    is open (reading the file again gives the parent's conversation, where the run's leaf is not)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    name = "claude-code-viewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
    path = tmp_path / name
    shutil.copyfile(shared_dir / "fixtures" / "claude" / name, path)
    out_dir = tmp_path / "cwd"
    out_dir.mkdir()
    monkeypatch.chdir(out_dir)
    app = make_app(path)
    async with app.run_test(size=(150, 40)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "agent:6690d10e-f521-4ac0-800d-e5eb7a2d8072")
        await pilot.press("enter")
        await pilot.pause()
        top = app.screen
        assert isinstance(top, BrowserScreen) and top is not screen and top.model is not None
        leaf = top.model.leaf_id
        top.action_export_html()
        await until(
            pilot,
            lambda: any("Wrote" in n or "not done" in n or "no entry" in n for n in notices(app)),
            what="the export's notice",
        )
        pages = list(out_dir.glob("*.html"))
        assert len(pages) == 1, notices(app)
        side = re.search(r'id="d-side">([^<]*)<', pages[0].read_text())
        assert side is not None
        data = json.loads(gzip.decompress(base64.b64decode(side.group(1))))
        assert data["ids"][data["leaf"]] == leaf
