"""The app on hostile files: nothing from the file reaches the terminal as a control sequence
(labels, session names, cwd, message text, tool arguments, notices), and faults while writing
are notices, never a crash."""

from __future__ import annotations

import errno
import json
import os
import re
from pathlib import Path

from app_helpers import browser, make_app, notices, screen_text, select
from textual.widgets import Input

from loomtui.app.screens.dialogs import LabelDialog

UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
OSC = "\x1b]0;PWNED\x07"


def _hostile_session(tmp_path: Path) -> Path:
    header = {
        "type": "session",
        "version": 3,
        "id": f"s{OSC}",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "cwd": f"/home/{OSC}x",
    }
    entries = [
        {
            "type": "message",
            "id": "u1",
            "parentId": None,
            "timestamp": "2026-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": f"hello {OSC} \x1b[2J\x9b31m \ud83d"},
        },
        {
            "type": "message",
            "id": "a1",
            "parentId": "u1",
            "timestamp": "2026-01-01T00:00:02.000Z",
            "message": {
                "role": "assistant",
                "provider": f"p{OSC}",
                "model": ["m"],
                "content": [
                    {"type": "text", "text": f"# Title {OSC}\n\nbody \x1b[31mred"},
                    {"type": "toolCall", "id": "c1", "name": f"bash{OSC}", "arguments": {"command": f"echo {OSC}\x07"}},
                ],
                "stopReason": "toolUse",
            },
        },
        {
            "type": "message",
            "id": "r1",
            "parentId": "a1",
            "timestamp": "2026-01-01T00:00:03.000Z",
            "message": {
                "role": "toolResult",
                "toolCallId": "c1",
                "toolName": "bash",
                "content": [{"type": "text", "text": f"out {OSC}"}],
            },
        },
        {
            "type": "session_info",
            "id": "n1",
            "parentId": "r1",
            "timestamp": "2026-01-01T00:00:04.000Z",
            "name": f"name {OSC}",
        },
        {
            "type": "label",
            "id": "l1",
            "parentId": "n1",
            "timestamp": "2026-01-01T00:00:05.000Z",
            "targetId": "u1",
            "label": f"lab{OSC}\x1b\\",
        },
    ]
    path = tmp_path / "hostile.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in [header, *entries]))
    return path


async def test_nothing_from_the_file_reaches_the_terminal_raw(tmp_path: Path) -> None:
    path = _hostile_session(tmp_path)
    app = make_app(path, filter_mode="all")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await browser(pilot)
        for entry_id in ("u1", "a1", "r1", "n1", "l1"):
            await select(pilot, screen, entry_id)
            await pilot.pause()
            text = screen_text(app)
            assert not UNSAFE.search(text), (entry_id, [c for c in text if UNSAFE.match(c)][:5])
        assert "␛]0;PWNED␇" in screen_text(app)
        # the label dialog shows the label made printable; submitted unchanged, it stays as it was
        await select(pilot, screen, "u1")
        await pilot.press("alt+l")
        dialog = app.screen
        assert isinstance(dialog, LabelDialog)
        assert not UNSAFE.search(dialog.query_one(Input).value)
        assert not UNSAFE.search(screen_text(app))
        await pilot.press("escape")
        app.notify(f"a notice quoting the file: {OSC}", title=f"t{OSC}")
        await pilot.pause()
        assert all(not UNSAFE.search(n.replace("\n", "")) for n in notices(app))


async def test_a_label_on_a_full_disk_is_a_notice_and_writes_nothing(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(
        "".join(
            json.dumps(e) + "\n"
            for e in [
                {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"},
                {
                    "type": "message",
                    "id": "u1",
                    "parentId": None,
                    "timestamp": "2026-01-01T00:00:01.000Z",
                    "message": {"role": "user", "content": "hi"},
                },
            ]
        )
    )
    before = path.read_bytes()
    real = os.write

    def full(fd, data):
        if fd > 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data)

    app = make_app(path)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "u1")
        await pilot.press("alt+l")
        dialog = app.screen
        assert isinstance(dialog, LabelDialog)
        dialog.query_one(Input).value = "keep"
        monkeypatch.setattr(os, "write", full)
        await pilot.press("enter")
        await pilot.pause()
        monkeypatch.undo()
        assert any("No space left" in n or "no space left" in n for n in notices(app)), notices(app)
        assert app.is_running
    assert path.read_bytes() == before
