"""The picker follows the session directories (watchfiles): new and grown files, in place."""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path
from typing import Any

from app_helpers import make_app

from loomtui.app.screens.picker import PickerScreen
from tests.waits import STEP, settled, until


def session(path: Path, sid: str, texts: list[str]) -> None:
    lines = [{"type": "session", "version": 3, "id": sid, "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}]
    prev = None
    for i, t in enumerate(texts):
        eid = f"{sid}{i:04d}"
        lines.append(
            {
                "type": "message",
                "id": eid,
                "parentId": prev,
                "timestamp": f"2026-01-01T00:00:{i:02d}.000Z",
                "message": {"role": "user", "content": t},
            }
        )
        prev = eid
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


async def wait_for(pilot: Any, cond: Any, timeout: float = 30.0) -> None:
    await until(pilot, cond, timeout)


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
            with contextlib.suppress(AssertionError):
                await until(pilot, lambda: any(s.path.endswith("probe.jsonl") for s in picker.sessions), 0.5)
                break
        assert any(s.path.endswith("probe.jsonl") for s in picker.sessions)
        await wait_for(pilot, lambda: len(picker.sessions) == 3)
        lst = picker.session_list
        await pilot.press("down")
        await settled(pilot)
        chosen = lst.selected_row.session.path
        session(root / "--q--" / "c.jsonl", "cccc", ["a session written just now"])
        await wait_for(pilot, lambda: len(picker.sessions) == 4)
        await settled(pilot)
        assert lst.selected_row is not None and lst.selected_row.session.path == chosen
        # a file grows: its count follows
        with open(root / "--p--" / "a.jsonl", "a") as f:
            f.write(
                json.dumps(
                    {
                        "type": "message",
                        "id": "aaaa9999",
                        "parentId": "aaaa0000",
                        "timestamp": "2026-01-01T00:01:00.000Z",
                        "message": {"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
                    }
                )
                + "\n"
            )
        await wait_for(pilot, lambda: any(s.path.endswith("a.jsonl") and s.message_count == 2 for s in picker.sessions))
        assert lst.selected_row.session.path == chosen


def test_new_directories_pass_the_watch_filter(tmp_path: Path) -> None:
    from watchfiles import Change

    from loomtui.app.picker_watch import _session_file

    (tmp_path / "--new--").mkdir()
    assert _session_file(Change.added, str(tmp_path / "--new--"))
    assert _session_file(Change.modified, str(tmp_path / "a.jsonl"))
    assert not _session_file(Change.added, str(tmp_path / "notes.txt"))


async def test_a_new_project_directory_reads_the_list_again_once_it_settles(tmp_path: Path, monkeypatch) -> None:
    """The first file of a new directory may raise no event of its own (the directory was not
    watched yet): the directory's event reads the list, and once more a moment later."""
    import asyncio

    from loomtui.app import picker_watch

    monkeypatch.setattr(picker_watch, "SETTLE_S", 0.05)
    root = tmp_path / "sessions"
    root.mkdir()
    calls: list[float] = []
    stop = asyncio.Event()
    task = asyncio.create_task(
        picker_watch.watch_dirs(
            [str(root)], lambda: calls.append(time.monotonic()), stop_event=stop, debounce_ms=100, step_ms=20
        )
    )
    await asyncio.sleep(0.5)  # the watch is in place
    (root / "--q--").mkdir()
    deadline = time.monotonic() + 20
    while len(calls) < 2 and time.monotonic() < deadline:
        await asyncio.sleep(STEP)
    stop.set()
    await asyncio.wait_for(task, 5)
    assert len(calls) >= 2  # the directory's burst, then the settle read
