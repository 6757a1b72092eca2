"""Notices and the search line show text exactly as written: a ``[word]`` in a notice (the
``[agents]`` table of config.toml) and a ``\\[`` typed into the search are never read as markup."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from app_helpers import browser, make_app, screen_text, select
from textual.widgets._toast import Toast

from loomtui.app.screens.dialogs import ConfirmDialog
from tests.waits import settled, until


def _toasts(app: object) -> list[str]:
    """The notices as drawn (what the user reads), not as they were handed in."""
    return [str(toast.render()) for toast in app.screen.query(Toast)]  # type: ignore[attr-defined]


def _session(tmp_path: Path) -> Path:
    lines = [
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-03-01T09:00:00.000Z", "cwd": str(tmp_path)},
        {
            "type": "message",
            "id": "u1",
            "parentId": None,
            "timestamp": "2026-03-01T09:00:01.000Z",
            "message": {"role": "user", "content": "first [restored] question", "timestamp": 1},
        },
        {
            "type": "message",
            "id": "a1",
            "parentId": "u1",
            "timestamp": "2026-03-01T09:00:02.000Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "an answer"}], "timestamp": 2},
        },
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


async def test_a_notice_naming_the_agents_table_shows_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Alt+W with no pi on the machine: the resume dialog says where to name its command as it
    opens, ``[agents]`` included (Textual's ``Widget.notify`` asks for markup, which ate the
    table's name; the dialog draws the text as written too)."""
    monkeypatch.delenv("LOOMTUI_PI", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    app = make_app(_session(tmp_path))
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "a1")
        await pilot.press("alt+w")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog), what="the resume dialog")
        await pilot.pause()
        # said as the dialog opens, drawn as written
        drawn = screen_text(app)
        assert "is not found" in drawn and "[agents]" in " ".join(drawn.split()), drawn


async def test_any_notice_text_is_drawn_as_written(tmp_path: Path) -> None:
    app = make_app(_session(tmp_path))
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        screen = await browser(pilot)
        for text in ("[agents] [b]bold[/b] \\[x]", "a trailing backslash \\", "[@click=app.quit]quit[/]"):
            screen.notify(text, title="[title]")
            await until(pilot, lambda t=text: any(t in d for d in _toasts(app)), what=f"{text!r} drawn")
            assert any(d.startswith("[title]") for d in _toasts(app))
        assert app.is_running


async def test_the_search_line_shows_a_backslash_bracket_as_typed(tmp_path: Path) -> None:
    app = make_app(_session(tmp_path))
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        await browser(pilot)
        await pilot.press(*"\\[restored]")
        await settled(pilot)
        assert "Search: \\[restored]▏" in screen_text(app)
        await pilot.press("backspace", *" \\")  # a query ending in a backslash
        await settled(pilot)
        assert "Search: \\[restored \\▏" in screen_text(app)
