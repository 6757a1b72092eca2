"""Live follow keeps the selected entry (and its screen row) whatever another writer appends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app_helpers import append_lines, browser, make_app, select

from tests.waits import settled

HEADER = {"type": "session", "version": 3, "id": "s-follow", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}


def ts(n: int) -> str:
    return f"2026-01-01T{n // 3600:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000Z"


def user(i: str, parent: str | None, text: str, n: int) -> dict[str, Any]:
    return {
        "type": "message",
        "id": i,
        "parentId": parent,
        "timestamp": ts(n),
        "message": {"role": "user", "content": text, "timestamp": n},
    }


def assistant(i: str, parent: str | None, text: str, n: int) -> dict[str, Any]:
    return {
        "type": "message",
        "id": i,
        "parentId": parent,
        "timestamp": ts(n),
        "message": {"role": "assistant", "content": [{"type": "text", "text": text}], "stopReason": "stop"},
    }


def write(path: Path, entries: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in [HEADER, *entries]))
    return path


async def test_home_then_an_append_under_the_other_root_keeps_the_cursor(tmp_path: Path) -> None:
    path = write(
        tmp_path / "two.jsonl",
        [
            user("u1", None, "first question", 1),
            assistant("a1", "u1", "first", 2),
            user("u5", None, "second question", 5),
            assistant("a5", "u5", "second", 6),
            user("u6", "a5", "follow-up", 7),
        ],
    )
    app = make_app(path)
    async with app.run_test(size=(100, 24)) as pilot:
        screen = await browser(pilot)
        await pilot.press("home")
        await pilot.pause()
        assert screen.model.selected_id == "u5"
        append_lines(path, user("u2", "a1", "back to the first", 8))
        screen.apply_appended()
        await pilot.pause()
        assert screen.model.selected_id == "u5"
        assert screen.detail.entry_id == "u5"
        append_lines(path, user("u7", "a5", "a sibling question", 9))
        screen.apply_appended()
        await pilot.pause()
        assert screen.model.selected_id == "u5" and screen.model.leaf_id == "u7"
        # the cursor on the followed leaf follows it
        await select(pilot, screen, "u7")
        append_lines(path, assistant("a7", "u7", "answer", 10))
        screen.apply_appended()
        await settled(pilot)
        assert screen.model.selected_id == "a7" and screen.detail.entry_id == "a7"


async def test_the_selected_entry_keeps_its_screen_row_on_a_long_session(tmp_path: Path) -> None:
    entries: list[dict[str, Any]] = []
    parent = None
    for k in range(60):
        entries.append(user(f"q{k:03d}", parent, f"question {k}", 2 * k))
        entries.append(assistant(f"r{k:03d}", f"q{k:03d}", f"answer {k}", 2 * k + 1))
        parent = f"r{k:03d}"
    path = write(tmp_path / "long.jsonl", entries)
    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "q030")
        row_before = screen.tree.screen_row
        # a branch under q010's answer: a new sibling of q011 above the cursor (rows shift)
        append_lines(path, user("zz1", "r010", "another way", 500), assistant("zz2", "zz1", "ok", 501))
        screen.apply_appended()
        await pilot.pause()
        assert screen.model.selected_id == "q030"
        assert screen.tree.screen_row == row_before
        # many appends at the followed leaf while the cursor is elsewhere
        append_lines(path, *[user(f"t{k}", "zz2" if k == 0 else f"t{k - 1}", f"more {k}", 600 + k) for k in range(30)])
        screen.apply_appended()
        await pilot.pause()
        assert screen.model.selected_id == "q030" and screen.tree.screen_row == row_before
