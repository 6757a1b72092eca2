"""Reader mode on a long branch: the first screen is drawn from the blocks it shows, the rest is
laid out afterwards (with progress), and text wraps at word boundaries."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from app_helpers import browser, make_app, screen_text, select

from loomtui.app.screens.reader import ReaderScreen, ReaderView
from loomtui.view import compare
from tests.waits import TIMEOUT, until

ENTRIES = 3000


def long_branch(path: Path, n: int = ENTRIES) -> Path:
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}
    ]
    parent = None
    for k in range(n):
        role = "user" if k % 2 == 0 else "assistant"
        content: Any = (
            f"message {k} " + "lorem ipsum dolor " * 6
            if role == "user"
            else [{"type": "text", "text": f"reply {k} " + "sit amet consectetur " * 8}]
        )
        msg: dict[str, Any] = {"role": role, "content": content}
        if role == "assistant":
            msg.update(
                stopReason="stop",
                usage={
                    "input": 1,
                    "output": 1,
                    "cacheRead": 0,
                    "cacheWrite": 0,
                    "totalTokens": 2,
                    "cost": {"total": 0},
                },
            )
        lines.append(
            {
                "type": "message",
                "id": f"e{k:05d}",
                "parentId": parent,
                "timestamp": f"2026-01-01T00:{k // 60 % 60:02d}:{k % 60:02d}.000Z",
                "message": msg,
            }
        )
        parent = f"e{k:05d}"
    path.write_text("".join(json.dumps(o) + "\n" for o in lines), encoding="utf-8")
    return path


async def _until(pilot: Any, cond: Any, seconds: float = 30.0) -> None:
    await until(pilot, cond, max(seconds, TIMEOUT))


async def test_reader_draws_its_first_screen_before_building_the_branch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = [0]
    real_item = compare._item

    def counted(*args: Any) -> Any:
        built[0] += 1
        return real_item(*args)

    monkeypatch.setattr(compare, "_item", counted)
    at_first_draw: list[int] = []
    real_line = ReaderView.render_line

    def render_line(self: ReaderView, y: int) -> Any:
        strip = real_line(self, y)
        if not at_first_draw and strip.text.strip():
            at_first_draw.append(built[0])
        return strip

    monkeypatch.setattr(ReaderView, "render_line", render_line)
    app = make_app(long_branch(tmp_path / "long.jsonl"))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "e01500")
        built[0] = 0
        await pilot.press("ctrl+r")
        await _until(pilot, lambda: bool(at_first_draw))
        assert isinstance(app.screen, ReaderScreen)
        view = app.screen.query_one(ReaderView)
        # the first screen came from the blocks it shows, not from the whole branch
        assert at_first_draw[0] <= 40, at_first_draw
        assert view.transcript.entry_id(view.current) == "e01500"
        assert "message 1500 lorem" in screen_text(app)
        # the rest is laid out afterwards; the block read stays at the top meanwhile
        await _until(pilot, lambda: view.transcript.done)
        assert view.transcript.entry_id(view.current) == "e01500"
        top = screen_text(app).split("\n")
        assert "── user" in top[1] and "message 1500 lorem" in top[2]
        await pilot.press("end")
        await pilot.pause()
        assert view.transcript.entry_id(view.transcript.item_at_line(view.virtual_size.height - 1)) == "e02999"
        assert "reply 2999" in screen_text(app)
        await pilot.press("home")
        await pilot.pause()
        assert view.transcript.entry_id(view.current) == "e00000"
        # a new width lays the branch out again, to the end
        await pilot.resize_terminal(70, 30)
        await _until(pilot, lambda: view.transcript.width < 70 and view.transcript.done)
        await pilot.press("end")
        await pilot.pause()
        assert "reply 2999" in screen_text(app)
        assert view.virtual_size.height == view.transcript.line_count


async def test_reader_shows_progress_while_laying_out_takes_long(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from loomtui.app.screens import reader

    monkeypatch.setattr(reader, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(reader, "MEASURE_SLICE", 0.0)  # one block a frame: laying out is slow
    app = make_app(long_branch(tmp_path / "long.jsonl", 400))
    async with app.run_test(size=(100, 30)) as pilot:
        await browser(pilot)
        await pilot.press("ctrl+r")
        await _until(pilot, lambda: "laying out" in screen_text(app))
        assert isinstance(app.screen, ReaderScreen)
        head = screen_text(app).split("\n")[0]
        assert "of 400" in head
        view = app.screen.query_one(ReaderView)
        await _until(pilot, lambda: view.transcript.done)
        await asyncio.sleep(0)
        await pilot.pause()
        assert "laying out" not in screen_text(app)


async def test_reader_wraps_at_word_boundaries(tmp_path: Path) -> None:
    app = make_app(long_branch(tmp_path / "short.jsonl", 4))
    async with app.run_test(size=(43, 20)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "e00000")
        await pilot.press("ctrl+r")
        await _until(pilot, lambda: "message 0" in screen_text(app))
        rows = screen_text(app).split("\n")[1:-1]
        body = [re.sub(r"[▁▂▃▄▅▆▇█▔▊▐▎┃│]+$", "", row).strip() for row in rows]
        words = {
            "message",
            "0",
            "1",
            "2",
            "3",
            "reply",
            "lorem",
            "ipsum",
            "dolor",
            "sit",
            "amet",
            "consectetur",
            "──",
            "user",
            "assistant",
            "",
        }
        assert sum(1 for line in body if line.startswith(("lorem", "ipsum", "dolor"))) >= 3  # wrapped rows
        for line in body:
            assert set(line.split(" ")) <= words, line
