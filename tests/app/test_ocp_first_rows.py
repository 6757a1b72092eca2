"""A big OCP run's first rows are painted before the whole run is rebuilt (the child that
places it sends them first: ``formats/ocp/split.py``): the same lines the whole run shows
there, nothing responding to keys until the whole is installed, and Esc still leaving."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from app_helpers import browser, make_app, screen_text

from loomtui.app.screens.browser import BrowserScreen
from loomtui.formats.ocp import split as ocp_split
from loomtui.session.forked import can_fork
from tests.waits import until

pytestmark = pytest.mark.skipif(not can_fork(), reason="needs fork, two CPUs and no other thread")


@pytest.fixture
def slow_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A generated run whose child sends its first screen at once and the rest 1.5 s later,
    started as ``loomtui FILE`` starts it (before Textual); opened in the loading thread."""
    from benchmarks.gen_ocp import make_run
    from loomtui.app.screens import browser_loading

    monkeypatch.setattr(browser_loading, "ASYNC_OPEN_BYTES", 10)
    path = tmp_path / "run.ocp.json"
    path.write_bytes(orjson.dumps(make_run(400, 1500)))
    rows = ocp_split._Child.rows

    def late(*args: Any) -> bytes:
        time.sleep(1.5)
        return rows(*args)

    monkeypatch.setattr(ocp_split._Child, "rows", late)  # the child is forked with it
    assert ocp_split.prestart(str(path), min_bytes=1)
    return path


def tree_lines(screen: BrowserScreen) -> list[str]:
    tree = screen.tree
    return [tree._line(y).text for y in range(tree.scrollable_content_region.height)]


async def first_rows_shown(pilot: Any) -> BrowserScreen:
    def shown() -> bool:
        screen = pilot.app.screen
        return isinstance(screen, BrowserScreen) and screen.tree.first_rows is not None

    await until(pilot, shown, what="the first rows")
    return pilot.app.screen


async def test_the_first_rows_are_the_whole_runs_and_keys_wait_for_the_whole(slow_run: Path) -> None:
    app = make_app(slow_run)
    async with app.run_test(size=(150, 40)) as pilot:
        screen = await first_rows_shown(pilot)
        assert screen.controller is None and screen.has_class("-first-rows")
        await pilot.pause()
        early = tree_lines(screen)
        assert early[0].startswith("› [run]: bench-") and all(early)  # the screen is full (no leaf, no •)
        top = screen_text(pilot.app).splitlines()
        assert "1,921 rows…" in top[0] and "default" in top[1] and "failed" not in top[1]
        await pilot.press("down", "down")  # nothing to move yet
        await pilot.click("#tree", offset=(5, 3))
        screen = await browser(pilot)
        await pilot.pause()
        assert screen.tree.first_rows is None and not screen.has_class("-first-rows")
        assert screen.model is not None and screen.model.selected == 0  # the leaf: the run
        assert tree_lines(screen) == early  # the same lines, at the same width
        assert "failed" in screen_text(pilot.app).splitlines()[1]  # the run's own filters now
        await pilot.press("down")
        assert screen.model.selected == 1


async def test_escape_leaves_while_the_first_rows_are_shown(slow_run: Path) -> None:
    app = make_app(slow_run)
    async with app.run_test(size=(150, 40)) as pilot:
        await first_rows_shown(pilot)
        await pilot.press("escape")
        await pilot.pause()
    assert app.return_code in (0, None)
    assert not app.is_running
