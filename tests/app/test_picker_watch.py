"""The picker follows the session directories (watchfiles): new and grown files, in place."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from app_helpers import make_app

from loomtui.app.screens.picker import PickerScreen


def session(path: Path, sid: str, texts: list[str]) -> None:
    lines = [{"type": "session", "version": 3, "id": sid, "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}]
    prev = None
    for i, t in enumerate(texts):
        eid = f"{sid}{i:04d}"
        lines.append({"type": "message", "id": eid, "parentId": prev, "timestamp": f"2026-01-01T00:00:{i:02d}.000Z",
                      "message": {"role": "user", "content": t}})
        prev = eid
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


async def wait_for(pilot: Any, cond: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        await pilot.pause(0.05)
    raise AssertionError("condition not met in time")


async def test_new_and_grown_sessions_appear_without_ctrl_r_and_the_selection_stays(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    session(root / "--p--" / "a.jsonl", "aaaa", ["first session"])
    session(root / "--p--" / "b.jsonl", "bbbb", ["second session"])
    app = make_app(None, sessions_dirs=[str(root)], watch=True)
    async with app.run_test(size=(120, 30)) as pilot:
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        await wait_for(pilot, lambda: len(picker.sessions) == 2)
        # the watch is in place once a file written now shows up (rewritten until it does: the
        # worker may start late on a busy machine)
        for k in range(60):
            session(root / "--w--" / "probe.jsonl", "pppp", [f"probe {k}"])
            if any(s.path.endswith("probe.jsonl") for s in picker.sessions):
                break
            await pilot.pause(0.5)
        assert any(s.path.endswith("probe.jsonl") for s in picker.sessions)
        await wait_for(pilot, lambda: len(picker.sessions) == 3)
        lst = picker.session_list
        await pilot.press("down")
        await pilot.pause(0.05)
        chosen = lst.selected_row.session.path
        session(root / "--q--" / "c.jsonl", "cccc", ["a session written just now"])
        await wait_for(pilot, lambda: len(picker.sessions) == 4)
        await pilot.pause(0.1)
        assert lst.selected_row is not None and lst.selected_row.session.path == chosen
        # a file grows: its count follows
        with open(root / "--p--" / "a.jsonl", "a") as f:
            f.write(json.dumps({"type": "message", "id": "aaaa9999", "parentId": "aaaa0000",
                                "timestamp": "2026-01-01T00:01:00.000Z",
                                "message": {"role": "assistant", "content": [{"type": "text", "text": "hi"}]}}) + "\n")
        await wait_for(pilot, lambda: any(s.path.endswith("a.jsonl") and s.message_count == 2 for s in picker.sessions))
        assert lst.selected_row.session.path == chosen
