"""A big cold open: the browser shows a progress bar with the bytes and entries read, stays
responsive, and Esc or Ctrl+Q leaves before the read is done (the read then stops).

No timing: the read is held at a gate after a few chunks, so "before the load would have
finished" is an ordering the test controls, not a race it hopes to win.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from app_helpers import browser, make_app

from loomtui.app.screens.browser import BrowserScreen
from loomtui.app.widgets.load_progress import LoadCancelled, LoadProgress
from loomtui.formats.opening import flat_cache as flatcache
from loomtui.session import cache_files, cache_io, reader
from loomtui.session.manager import SessionManager
from tests.waits import until

CHUNK = 32 << 10
#: chunks read before the gate holds the reader
GATE_AFTER = 6


def big_session(path: Path, entries: int = 3000) -> Path:
    """A v3 session of ~1.5 MB: a user/assistant chain with some text in every entry."""
    lines = [
        {
            "type": "session",
            "version": 3,
            "id": "load-test",
            "timestamp": "2026-03-01T09:00:00.000Z",
            "cwd": "/srv/demo",
        }
    ]
    parent = None
    for i in range(entries):
        role = "user" if i % 2 == 0 else "assistant"
        content = [{"type": "text", "text": f"message {i} " + "lorem ipsum dolor sit amet " * 16}]
        lines.append(
            {
                "type": "message",
                "id": f"e{i:07d}",
                "parentId": parent,
                "timestamp": "2026-03-01T09:00:01.000Z",
                "message": {"role": role, "content": content},
            }
        )
        parent = f"e{i:07d}"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


class Gate:
    """Wraps the reader's reads (``reader.read_into``, and ``reader.read_chunks`` for long
    lines): after ``GATE_AFTER`` chunks the reading thread waits until ``release``; counts every
    chunk read."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.held = threading.Event()
        self.chunks = 0
        self.real = reader.read_chunks
        self.real_into = reader.read_into

    def _pass(self) -> None:
        if self.chunks == GATE_AFTER:
            self.held.set()
            assert self.release.wait(60), "the test never released the gate"
        self.chunks += 1

    def __call__(self, fd: int, start: int, end: int | None = None) -> Iterator[tuple[bytes, int, bool]]:
        for item in self.real(fd, start, end):
            self._pass()
            yield item

    def read_into(self, fd: int, buf: memoryview) -> int:
        self._pass()
        return self.real_into(fd, buf)


@pytest.fixture
def gated(monkeypatch: pytest.MonkeyPatch) -> Gate:
    from loomtui.app.screens import browser_loading as browser_module

    monkeypatch.setattr(browser_module, "ASYNC_OPEN_BYTES", 10)
    monkeypatch.setattr(reader, "CHUNK", CHUNK)
    gate = Gate()
    monkeypatch.setattr(reader, "read_chunks", gate)
    monkeypatch.setattr(reader, "read_into", gate.read_into)
    monkeypatch.setattr(reader, "MIN_CHUNK", 1)
    return gate


def record_opens(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """How each ``SessionManager.open`` ended: "done" or the exception's name."""
    ends: list[str] = []
    real = SessionManager.open.__func__  # type: ignore[attr-defined]

    def open_(cls: Any, *a: Any, **kw: Any) -> SessionManager:
        try:
            sm = real(cls, *a, **kw)
        except BaseException as exc:
            ends.append(type(exc).__name__)
            raise
        ends.append("done")
        return sm

    monkeypatch.setattr(SessionManager, "open", classmethod(open_))
    return ends


def record_readings(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int, int]]:
    shown: list[tuple[int, int, int]] = []
    real = LoadProgress.show

    def show(self: LoadProgress, done: int, total: int, entries: int) -> None:
        real(self, done, total, entries)
        shown.append((done, total, entries))

    monkeypatch.setattr(LoadProgress, "show", show)
    return shown


@pytest.mark.parametrize("key", ["escape", "ctrl+q"])
async def test_a_big_open_shows_progress_and_the_key_leaves_before_it_ends(
    tmp_path: Path, gated: Gate, monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    path = big_session(tmp_path / "big.jsonl")
    size = path.stat().st_size
    ends = record_opens(monkeypatch)
    shown = record_readings(monkeypatch)
    app = make_app(path)
    async with app.run_test(size=(100, 30)) as pilot:
        # the reader reaches the gate; its readings reach the screen
        await until(pilot, lambda: gated.held.is_set() and len(shown) >= GATE_AFTER - 1, what="the gated reader")
        assert gated.held.is_set() and not gated.release.is_set()
        progress = app.screen.query_one(LoadProgress)
        assert progress.display and not app.screen.query_one("#tree").display
        # the counts advance: bytes and entries grow with each reading, all of one file size
        assert len(shown) >= GATE_AFTER - 1
        assert all(total == size for _done, total, _n in shown)
        assert [d for d, _t, _n in shown] == sorted({d for d, _t, _n in shown})
        assert shown[-1][2] > shown[1][2] > 0
        label = str(progress.query_one("#load-label").render())
        assert label.startswith("Reading big.jsonl: ") and f"{shown[-1][2]:,} entries" in label
        assert ends == []  # still reading
        await pilot.press(key)
        await pilot.pause()
        assert app._exit  # App.exit was called by the key
        left_while_held = not gated.release.is_set()
    assert left_while_held and ends == []  # the app was gone while the read was held
    gated.release.set()
    for _ in range(500):  # the reading thread goes on, sees it is not wanted, stops
        if ends:
            break
        threading.Event().wait(0.01)
    assert ends == [LoadCancelled.__name__]
    assert gated.chunks < size // CHUNK  # it stopped long before the end of the file


async def test_the_bar_goes_and_the_tree_shows_when_the_read_ends(
    tmp_path: Path, gated: Gate, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = big_session(tmp_path / "big.jsonl")
    shown = record_readings(monkeypatch)
    gated.release.set()
    monkeypatch.setenv("LOOMTUI_CACHE_MIN_BYTES", "0")
    index = Path(cache_io.cache_path(str(path)))
    flat = Path(str(index)[: -len(cache_files.SUFFIX)] + flatcache.SUFFIX)
    painted: list[bool] = []
    real_flush = cache_io.flush_deferred

    def flush() -> None:  # the index is written only once the tree was painted
        if cache_io._deferred:
            painted.append(isinstance(app.screen, BrowserScreen) and app.screen.model is not None)
        real_flush()

    monkeypatch.setattr(cache_io, "flush_deferred", flush)
    app = make_app(path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await browser(pilot)
        await pilot.pause()
        assert screen.model is not None and len(screen.manager.index.entries) == 3000  # type: ignore[union-attr]
        assert not screen.query_one(LoadProgress).display and screen.query_one("#tree").display
        assert len(shown) > 10 and shown[-1][2] > 2500
        await app.workers.wait_for_complete()
        # written after the paint (threads run: no background child), both usable next time
        assert painted and all(painted) and index.is_file() and flat.is_file()
        assert screen.model.unsaved_flat is None


async def test_esc_during_an_open_from_the_picker_goes_back_to_it(
    tmp_path: Path, gated: Gate, monkeypatch: pytest.MonkeyPatch
) -> None:
    from loomtui.app.screens.picker import PickerScreen

    path = big_session(tmp_path / "big.jsonl")
    (tmp_path / "sessions").mkdir()
    ends = record_opens(monkeypatch)
    app = make_app(None, sessions_dirs=[str(tmp_path / "sessions")])
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, PickerScreen), what="the picker")
        assert isinstance(app.screen, PickerScreen)
        app.open_session_file(str(path))
        await until(pilot, gated.held.is_set, what="the gated reader")
        assert gated.held.is_set() and isinstance(app.screen, BrowserScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, PickerScreen) and not app._exit  # back, still running
        gated.release.set()
        await until(pilot, lambda: ends, what="the cancelled read to end")
        await pilot.pause()
        assert ends == [LoadCancelled.__name__]
        assert isinstance(app.screen, PickerScreen)  # no error page for a read the user left


async def test_the_tree_is_drawn_before_the_detail_pane_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first frame with rows does not wait for the selected entry's detail (a Claude Code
    file's tokens, a deep entry's depth walk): once the read in the worker thread ends, the
    tree's rows are drawn and only then is the detail pane built."""
    from loomtui.app.widgets.tree_view import TreeView

    path = big_session(tmp_path / "big.jsonl", entries=20000)
    order: list[str] = []
    real_line, real_detail = TreeView.render_line, BrowserScreen._update_detail

    def render_line(self: TreeView, y: int) -> Any:
        if self.model is not None and "tree" not in order:
            order.append("tree")
        return real_line(self, y)

    def update_detail(self: BrowserScreen, *a: Any, **kw: Any) -> None:
        order.append("detail")
        real_detail(self, *a, **kw)

    monkeypatch.setattr(TreeView, "render_line", render_line)
    monkeypatch.setattr(BrowserScreen, "_update_detail", update_detail)
    app = make_app(path)
    async with app.run_test(size=(160, 50)) as pilot:
        await browser(pilot)
        await until(pilot, lambda: "detail" in order, what="the detail pane")
    assert order[:2] == ["tree", "detail"]
