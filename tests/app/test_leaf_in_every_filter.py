"""The leaf the header, the palette's persist entry and Ctrl+S name is where pi resumes, in
every one of pi's five filters and after Enter moved the leaf: the filter changes which row the
tree marks, never the entry these words name (the user-only filter marks a user message pi does
not resume at)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from app_helpers import browser, make_app, notices, select
from textual.pilot import Pilot

from loomtui.app.commands import LoomCommands
from loomtui.app.screens.dialogs import ConfirmDialog
from tests.waits import until

SAMPLE = (
    Path(__file__).resolve().parents[2]
    / "sample_sessions"
    / "2026-03-02T09-14-05-120Z_5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19.jsonl"
)
#: pi's five filters and their keys
FILTERS = {"default": "ctrl+d", "no-tools": "ctrl+t", "user-only": "ctrl+u", "labeled-only": "ctrl+l", "all": "ctrl+a"}
#: the sample's last conversation entry (a session_info and a label entry follow it)
RESUMES_AT = "8e4f5a6c"
#: the sample's last entry (the label entry), which the header names beside it
LAST_ENTRY = "a6f7a8ba"
#: an entry on another branch, an assistant message (hidden by the user-only filter)
OTHER = "d9e8f7a6"


def _copy(tmp_path: Path) -> Path:
    dst = tmp_path / SAMPLE.name
    shutil.copyfile(SAMPLE, dst)
    return dst


def _persist_title(screen) -> str:  # type: ignore[no-untyped-def]
    titles = [title for title, _cb, _help in LoomCommands(screen).commands() if title.startswith("persist the leaf")]
    assert len(titles) == 1, titles
    return titles[0]


async def _filter(pilot: Pilot, screen, mode: str) -> None:  # type: ignore[no-untyped-def,type-arg]
    await pilot.press(FILTERS[mode])
    await until(pilot, lambda: screen.model.mode == mode, what=f"the {mode} filter")


@pytest.mark.parametrize("mode", list(FILTERS))
async def test_the_leaf_named_is_where_pi_resumes_in_every_filter(tmp_path: Path, mode: str) -> None:
    path = _copy(tmp_path)
    data = path.read_bytes()
    app = make_app(path)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        await _filter(pilot, screen, mode)
        assert screen.controller.header(screen.path).leaf == f"leaf {RESUMES_AT} (last entry {LAST_ENTRY})"
        assert _persist_title(screen) == f"persist the leaf ({RESUMES_AT}) so pi resumes there…"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: any("already resumes" in n for n in notices(app)), what="Ctrl+S's notice")
        said = [n for n in notices(app) if "already resumes" in n][-1]
        assert said.startswith(f"pi already resumes at {RESUMES_AT}: the file ends there"), said
        assert "which the default filter does not show" in said, said
        assert not isinstance(app.screen, ConfirmDialog)
    assert path.read_bytes() == data


@pytest.mark.parametrize("mode", list(FILTERS))
async def test_after_a_leaf_move_every_filter_names_the_entry_ctrl_s_writes_on(tmp_path: Path, mode: str) -> None:
    path = _copy(tmp_path)
    lines = path.read_text().splitlines()
    app = make_app(path)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, OTHER)
        await pilot.press("enter")
        await until(pilot, lambda: screen.model.leaf_id == OTHER, what="the moved leaf")
        await _filter(pilot, screen, mode)
        assert screen.controller.header(screen.path).leaf == f"leaf {OTHER} (moved)"
        assert _persist_title(screen) == f"persist the leaf ({OTHER}) so pi resumes there…"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog), what="the persist question")
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        assert dialog.body.startswith(f"Append one label entry parented on {OTHER}\n"), dialog.body
        await pilot.press("enter")
        await until(pilot, lambda: len(path.read_text().splitlines()) == len(lines) + 1, what="the label entry")
        written = json.loads(path.read_text().splitlines()[-1])
        assert written["type"] == "label" and written["parentId"] == OTHER
        await until(pilot, lambda: any("Leaf persisted" in n for n in notices(app)), what="the notice")
        said = [n for n in notices(app) if "Leaf persisted" in n][-1]
        assert said.startswith(f"Leaf persisted: pi resumes at {OTHER} "), said
