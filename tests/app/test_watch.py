"""Live follow: the directory watcher, the manager reading what was appended, and the app."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from app_helpers import browser as loaded_browser
from app_helpers import make_app, notices
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from loomtui.app import watch
from loomtui.app.watch import DELETED, MODIFIED, REPLACED, SessionFileChanged, follow_file
from loomtui.session.errors import WriteConflict
from loomtui.session.manager import SessionManager
from tests.waits import until

TIMEOUT = 5.0


def js(obj: object) -> str:
    return json.dumps(obj, separators=(",", ":"))


def message(eid: str, parent: str | None, text: str, minute: int) -> str:
    return (
        js(
            {
                "type": "message",
                "id": eid,
                "parentId": parent,
                "timestamp": f"2026-01-01T10:{minute:02d}:00.000Z",
                "message": {"role": "user", "content": text},
            }
        )
        + "\n"
    )


def make_session(path: Path, n: int = 3) -> Path:
    lines = [
        js({"type": "session", "version": 3, "id": "S", "timestamp": "2026-01-01T10:00:00.000Z", "cwd": "/p"}) + "\n"
    ]
    parent = None
    for i in range(n):
        lines.append(message(f"e{i}", parent, f"line {i}", i))
        parent = f"e{i}"
    path.write_text("".join(lines))
    return path


def append(path: Path, data: str) -> None:
    with open(path, "a") as f:
        f.write(data)


class Follow:
    """``follow_file`` running as a task; ``changes`` collects what it reported."""

    def __init__(self, path: Path, on_change: Callable[[str], object] | None = None) -> None:
        self.path = path
        self.changes: asyncio.Queue[str] = asyncio.Queue()
        self.extra = on_change

    def _changed(self, change: str) -> None:
        if self.extra is not None:
            self.extra(change)
        self.changes.put_nowait(change)

    async def __aenter__(self) -> Follow:
        self.task = asyncio.create_task(follow_file(str(self.path), self._changed))
        await asyncio.sleep(0.1)  # the OS watch is installed when the task first runs
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await self.task

    async def next(self) -> str:
        return await asyncio.wait_for(self.changes.get(), TIMEOUT)

    async def quiet(self, seconds: float = 0.3) -> bool:
        try:
            await asyncio.wait_for(self.changes.get(), seconds)
        except TimeoutError:
            return True
        return False


# the watcher with the manager ---------------------------------------------------------------


async def test_appended_lines_are_reported_and_indexed(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    sm = SessionManager.open(str(path))
    async with Follow(path) as f:
        append(path, message("e3", "e2", "appended", 3))
        assert await f.next() == MODIFIED
        assert [e.id for e in sm.refresh()] == ["e3"]
        assert sm.get_leaf_id() == "e3"
        append(path, message("e4", "e3", "one", 4) + message("e5", "e4", "two", 5))
        assert await f.next() == MODIFIED
        assert [e.id for e in sm.refresh()] == ["e4", "e5"]


async def test_half_line_waits_for_its_newline(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    sm = SessionManager.open(str(path))
    line = message("e3", "e2", "written in two parts", 3)
    async with Follow(path) as f:
        append(path, line[:40])
        assert await f.next() == MODIFIED
        assert sm.refresh() == []
        assert len(sm.index.entries) == 3
        append(path, line[40:])
        assert await f.next() == MODIFIED
        assert [e.id for e in sm.refresh()] == ["e3"]


async def test_truncation_is_reported_and_refused_by_the_manager(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    sm = SessionManager.open(str(path))
    async with Follow(path) as f:
        with open(path, "r+") as fh:
            fh.truncate(os.path.getsize(path) - 10)
        assert await f.next() == MODIFIED
        with pytest.raises(WriteConflict, match="truncated"):
            sm.refresh()


async def test_rename_over_the_file_is_a_replacement(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    sm = SessionManager.open(str(path))
    async with Follow(path) as f:
        tmp = make_session(tmp_path / ".s.jsonl.tmp", n=5)  # omp: atomic temp + rename
        os.replace(tmp, path)
        assert await f.next() == REPLACED
        with pytest.raises(WriteConflict, match="replaced"):
            sm.refresh()
        append(path, message("e5", "e4", "after the rename", 6))
        assert await f.next() == MODIFIED  # the watch survives the inode change


async def test_deletion_is_reported(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    async with Follow(path) as f:
        os.unlink(path)
        assert await f.next() == DELETED
        make_session(path)
        assert await f.next() == REPLACED  # written again: another inode


async def test_other_files_in_the_directory_are_ignored(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    other = make_session(tmp_path / "other.jsonl")
    async with Follow(path) as f:
        append(other, message("x", "e2", "not ours", 9))
        (tmp_path / "new.jsonl").write_text("{}\n")
        assert await f.quiet()
        append(path, message("e3", "e2", "ours", 3))
        assert await f.next() == MODIFIED


async def test_async_callbacks_are_awaited(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    seen: list[str] = []

    async def on_change(change: str) -> None:
        await asyncio.sleep(0)
        seen.append(change)

    task = asyncio.create_task(follow_file(str(path), on_change))
    await asyncio.sleep(0.1)
    append(path, message("e3", "e2", "x", 3))
    for _ in range(100):
        if seen:
            break
        await asyncio.sleep(0.05)
    task.cancel()
    assert seen == [MODIFIED]


# watch.start on a screen ----------------------------------------------------------------------


class FakeBrowser(Screen[None]):
    """What ``watch.start`` needs of a BrowserScreen: ``path`` and a ``SessionFileChanged``
    handler (the browser's calls ``apply_appended``)."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = str(path)
        self.manager = SessionManager.open(self.path)
        self.applied: list[list[str]] = []
        self.events: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static("browser")

    def apply_appended(self) -> None:
        try:
            self.applied.append([e.id for e in self.manager.refresh()])
        except WriteConflict as exc:
            self.applied.append([f"conflict: {exc}"])

    def on_session_file_changed(self, event: SessionFileChanged) -> None:
        self.events.append(event.change)
        self.apply_appended()


class FollowApp(App[None]):
    def __init__(self, path: Path) -> None:
        super().__init__()
        self.browser = FakeBrowser(path)

    def on_mount(self) -> None:
        self.push_screen(self.browser)
        self.worker = watch.start(self.browser)


async def wait_for(pilot: object, cond: Callable[[], bool]) -> None:
    await until(pilot, cond, TIMEOUT)


async def test_start_applies_appends_to_the_screen_and_posts_messages(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    app = FollowApp(path)
    async with app.run_test() as pilot:
        await pilot.pause(0.1)  # the OS watch is installed (nothing observable says when)
        browser = app.browser
        append(path, message("e3", "e2", "live", 3))
        await wait_for(pilot, lambda: browser.applied == [["e3"]])
        await wait_for(pilot, lambda: browser.events == [MODIFIED])
        os.unlink(path)
        await wait_for(pilot, lambda: browser.events == [MODIFIED, DELETED])
        assert browser.applied[-1][0].startswith("conflict: ")
        assert app.worker.group == "session-watch"
        app.pop_screen()
        await until(pilot, lambda: app.worker.is_cancelled, what="the watch worker to stop")
        assert app.worker.is_cancelled


# the real app -------------------------------------------------------------------------------------


def assistant(eid: str, parent: str, text: str, minute: int) -> str:
    return (
        js(
            {
                "type": "message",
                "id": eid,
                "parentId": parent,
                "timestamp": f"2026-01-01T10:{minute:02d}:00.000Z",
                "message": {"role": "assistant", "content": [{"type": "text", "text": text}], "stopReason": "stop"},
            }
        )
        + "\n"
    )


async def test_live_follow_in_the_app(tmp_path: Path) -> None:
    """pi appends while loomtui shows the file: new rows appear, the leaf follows, a moved
    selection stays; a half line waits; a truncation reloads; a deletion is reported."""
    path = make_session(tmp_path / "s.jsonl")
    app = make_app(path, watch=True)
    async with app.run_test(size=(100, 24)) as pilot:
        screen = await loaded_browser(pilot)
        await pilot.pause(0.2)  # the OS watch is installed (nothing observable says when)
        model = screen.model
        assert model is not None and model.leaf_id == "e2"
        model.select_id("e1")
        screen.tree.selection_changed()

        append(path, assistant("e3", "e2", "pi answers while you browse", 3))
        await wait_for(pilot, lambda: "e3" in screen.manager.index.by_id)  # type: ignore[union-attr]
        assert (screen.model.leaf_id, screen.model.selected_id) == ("e3", "e1")  # type: ignore[union-attr]
        assert screen.model.row_of("e3") is not None  # type: ignore[union-attr]

        line = message("e4", "e3", "a line written in two parts", 4)
        applied: list[int] = []
        apply_appended = screen.apply_appended

        def counted() -> None:  # the watcher saw the half line when the browser read it again
            applied.append(1)
            apply_appended()

        screen.apply_appended = counted  # type: ignore[method-assign]
        append(path, line[:30])
        await wait_for(pilot, lambda: applied)
        await pilot.pause()
        assert "e4" not in screen.manager.index.by_id  # type: ignore[union-attr]
        assert screen.model.leaf_id == "e3"  # type: ignore[union-attr]
        append(path, line[30:])
        await wait_for(pilot, lambda: screen.model is not None and screen.model.leaf_id == "e4")

        with open(path, "r+") as fh:  # another program rewrote the file shorter
            fh.truncate(len(path.read_bytes()) - len(line))
        await wait_for(pilot, lambda: any("reloaded" in n for n in notices(app)))
        current = app.screen
        assert current.model is not None and current.model.leaf_id == "e3"  # type: ignore[attr-defined]
        assert "e4" not in current.manager.index.by_id  # type: ignore[attr-defined]

        os.unlink(path)
        await wait_for(pilot, lambda: any("is gone" in n for n in notices(app)))
        assert app.screen.model.leaf_id == "e3"  # type: ignore[attr-defined]
