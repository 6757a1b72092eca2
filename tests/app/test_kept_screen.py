"""A big pi session's first screen, kept beside its index when the app has drawn it, is painted
on a reopen of the same bytes before the session is read (``formats/opening/kept_screen.py``):
the very lines the whole then draws there, replaced by the whole; keys typed meanwhile reach the
search in order; a changed file or a damaged kept screen is never painted.

No timing: the reopen's read is held at a gate, so "before the session is read" is an ordering
the test controls.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from app_helpers import browser, make_app

from loomtui.app.screens.browser import BrowserScreen
from loomtui.app.widgets.tree_view import TreeView
from loomtui.formats.opening import KeptScreen, Opening, kept_screen
from loomtui.session import cache_io
from loomtui.session.forked import usable_cpus
from loomtui.session.manager import SessionManager
from tests.app.test_load_progress import big_session
from tests.waits import until, wait_until

pytestmark = pytest.mark.skipif(usable_cpus() < 2, reason="the kept screen waits on the early proof (two CPUs)")

SIZE = (120, 30)


@pytest.fixture
def session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from loomtui.app.screens import browser_loading

    monkeypatch.setattr(browser_loading, "ASYNC_OPEN_BYTES", 10)  # read in the loading thread
    return big_session(tmp_path / "big.jsonl")


def kept_file(path: Path) -> Path:
    return Path(cache_io.cache_path(str(path))[: -len(".lti")] + kept_screen.SUFFIX)


def tree_lines(screen: BrowserScreen) -> list[str]:
    tree = screen.tree
    return [tree._line(y).text for y in range(tree.scrollable_content_region.height)]


async def first_open(path: Path) -> list[str]:
    """The app's open of ``path`` (cold): its first screen's lines, once kept."""
    app = make_app(path, opening=Opening.before_app(str(path)))
    async with app.run_test(size=SIZE) as pilot:
        screen = await browser(pilot)
        await until(pilot, lambda: kept_file(path).exists(), what="the kept first screen")
        await until(pilot, lambda: cache_io.present(str(path)), what="the index (written after the paint)")
        await pilot.pause()
        lines = tree_lines(screen)
        await app.workers.wait_for_complete()
    cache_io.reap(block=True)  # the index's writer, a child, has renamed it into place
    return lines


class Gate:
    """Holds every ``SessionManager.open`` until ``release`` (the reopen's read of the index)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.release = threading.Event()
        real = SessionManager.open.__func__  # type: ignore[attr-defined]

        def open_(cls: Any, *a: Any, **kw: Any) -> SessionManager:
            assert self.release.wait(60), "the test never released the read"
            return real(cls, *a, **kw)

        monkeypatch.setattr(SessionManager, "open", classmethod(open_))


def record_kept(monkeypatch: pytest.MonkeyPatch) -> list[KeptScreen]:
    shown: list[KeptScreen] = []
    real = TreeView.show_kept

    def show_kept(self: TreeView, kept: KeptScreen) -> None:
        shown.append(kept)
        real(self, kept)

    monkeypatch.setattr(TreeView, "show_kept", show_kept)
    return shown


async def kept_phase(pilot: Any) -> BrowserScreen:
    def shown() -> bool:
        screen = pilot.app.screen
        return isinstance(screen, BrowserScreen) and screen.tree.kept is not None

    await until(pilot, shown, what="the kept first screen drawn")
    return pilot.app.screen


async def test_a_reopen_paints_the_kept_screen_before_the_read_then_the_whole(
    session: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole_before = await first_open(session)
    assert any(line.strip() for line in whole_before)
    shown = record_kept(monkeypatch)
    gate = Gate(monkeypatch)
    app = make_app(session, opening=Opening.before_app(str(session)))
    async with app.run_test(size=SIZE) as pilot:
        screen = await kept_phase(pilot)
        await pilot.pause()
        assert screen.controller is None and screen.has_class("-first-rows")  # not read yet
        early = tree_lines(screen)
        assert early == whole_before  # the lines the whole drew there last time
        gate.release.set()
        screen = await browser(pilot)
        await pilot.pause()
        assert screen.tree.kept is None and not screen.tree.showing_first_screen
        assert tree_lines(screen) == early  # the whole replaced it with the same lines
        await app.workers.wait_for_complete()
    assert len(shown) == 1


async def test_typing_while_the_kept_screen_is_shown_reaches_the_search_in_order(
    session: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await first_open(session)
    gate = Gate(monkeypatch)
    app = make_app(session, opening=Opening.before_app(str(session)))
    async with app.run_test(size=SIZE) as pilot:
        screen = await kept_phase(pilot)
        await pilot.press("down")  # before any typing: nothing to move yet (as while loading)
        await pilot.press("m", "e", "s", "x", "backspace", "s", "a")
        await pilot.press("down")  # after typing: held too, in its place
        assert screen.controller is None
        gate.release.set()
        screen = await browser(pilot)
        await until(pilot, lambda: screen.tree.held is None, what="the held keys replayed")
        await pilot.press("g")  # a key after the whole: behind the held ones
        model = screen.model
        assert model is not None and model.query == "messag"
        await app.workers.wait_for_complete()


def rewrite_same_size(path: Path) -> None:
    """One letter of a message changed in place: the same size, inode and mtime."""
    st = path.stat()
    data = path.read_bytes()
    at = data.rindex(b"message ")
    with open(path, "r+b") as f:
        f.seek(at)
        f.write(b"MESSAGE ")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns


def append_entry(path: Path) -> None:
    last = json.loads(path.read_bytes().splitlines()[-1])
    entry = {
        "type": "message",
        "id": "appended",
        "parentId": last["id"],
        "timestamp": "2026-03-01T09:00:02.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": "appended after the kept screen"}]},
    }
    with open(path, "a") as f:
        f.write(json.dumps(entry) + "\n")


@pytest.mark.parametrize("change", [append_entry, rewrite_same_size], ids=["appended line", "same size rewritten"])
async def test_a_changed_file_never_shows_the_kept_screen(
    session: Path, monkeypatch: pytest.MonkeyPatch, change: Any
) -> None:
    await first_open(session)
    change(session)
    shown = record_kept(monkeypatch)
    app = make_app(session, opening=Opening.before_app(str(session)))
    async with app.run_test(size=SIZE) as pilot:
        screen = await browser(pilot)
        await pilot.pause()
        text = "\n".join(tree_lines(screen))
        assert ("appended after the kept screen" in text) or ("MESSAGE" in text)  # the file as it is now
        await app.workers.wait_for_complete()
    assert shown == []


@pytest.mark.parametrize("damage", ["truncated", "garbage", "empty"])
async def test_a_damaged_kept_screen_is_ignored(session: Path, monkeypatch: pytest.MonkeyPatch, damage: str) -> None:
    before = await first_open(session)
    target = kept_file(session)
    blob = target.read_bytes()
    target.write_bytes({"truncated": blob[: len(blob) // 2], "garbage": b"\x00junk" * 50, "empty": b""}[damage])
    shown = record_kept(monkeypatch)
    app = make_app(session, opening=Opening.before_app(str(session)))
    async with app.run_test(size=SIZE) as pilot:
        screen = await browser(pilot)
        await pilot.pause()
        assert tree_lines(screen) == before
        await app.workers.wait_for_complete()
    assert shown == []


def test_a_kept_screen_is_used_only_for_its_start_and_well_formed_fields(session: Path) -> None:
    """Loaded straight from the side file: another start (terminal size, compact choice) is not
    used; fields of the wrong shape are refused, however they got there."""
    path = str(session)
    manager = SessionManager.open(path)
    assert manager.read_digests[1]
    screen = KeptScreen((10, 1), [((("text", "row"),), True)], ("name", "", ""), ("default",), "(1/1)")
    start = Opening.screen_start((120, 30, None))
    assert kept_screen.save(manager, start, screen)
    cache_io.prove_early(path)
    wait_until(lambda: cache_io.early_digests(path) is not None, 30, "the early proof")
    assert kept_screen.load(path, start) == screen
    assert kept_screen.load(path, Opening.screen_start((120, 31, None))) is None
    assert kept_screen.load(path, Opening.screen_start((120, 30, True))) is None
    bad = screen._replace(lines=[((("text", 5),), True)])
    assert kept_screen.save(manager, start, bad)
    assert kept_screen.load(path, start) is None


#: a reopen in a fresh interpreter: what is imported when the kept screen's first line is drawn
#: (the read is held until then; this one has imported everything already)
KEPT_PAINT_IMPORTS = """
import asyncio, json, os, sys, threading
from loomtui.formats.opening import Opening
opening = Opening.before_app(sys.argv[1])
from loomtui.app.app import LoomApp
from loomtui.app.screens import browser_loading
from loomtui.app.widgets.tree_view import TreeView
browser_loading.ASYNC_OPEN_BYTES = 10
held, seen = threading.Event(), []
read = Opening.session
def session(self, *args, **kwargs):
    assert held.wait(120), "the kept screen was never drawn"
    return read(self, *args, **kwargs)
Opening.session = session
draw = TreeView.render_line
def render_line(self, y):
    line = draw(self, y)
    if self.kept is not None and line.text.strip() and not seen:
        seen.append(sorted(m for m in json.loads(sys.argv[2]) if m in sys.modules))
        held.set()
    return line
TreeView.render_line = render_line
async def main():
    app = LoomApp(sys.argv[1], watch=False, opening=opening)
    async with app.run_test(size=(120, 30)):
        while not seen:
            await asyncio.sleep(0.01)
    print(json.dumps(seen[0]), flush=True)
    os._exit(0)
asyncio.run(main())
"""


async def test_the_kept_screen_is_drawn_before_the_reader_or_the_model_is_imported(session: Path) -> None:
    """The reopen's first paint waits for Python's start and the imports up to it: the session's
    reader, model and controller, the detail pane's blocks and JSON come with the read."""
    await first_open(session)
    later = [
        "loomtui.session.manager",
        "loomtui.session.reader",
        "loomtui.session.entries",
        "loomtui.session.split",
        "loomtui.view.model",
        "loomtui.view.controller",
        "loomtui.view.blocks",
        "msgspec",
        "orjson",
    ]
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", KEPT_PAINT_IMPORTS, str(session), json.dumps(later)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(root)},
        cwd=str(root),
        timeout=180,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
