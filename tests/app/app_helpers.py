"""Helpers for the app's Pilot tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from loomtui.app.app import LoomApp
from loomtui.app.screens.browser import BrowserScreen
from tests.waits import until


def make_app(path: Path | str | None, **kw: Any) -> LoomApp:
    kw.setdefault("watch", False)
    return LoomApp(str(path) if path is not None else None, **kw)


async def browser(pilot: Pilot[Any]) -> BrowserScreen:
    """The browser screen once its session is loaded."""

    def loaded() -> bool:
        screen = pilot.app.screen
        return isinstance(screen, BrowserScreen) and screen.model is not None

    await until(pilot, loaded, what="a browser screen with a session")
    screen = pilot.app.screen
    assert isinstance(screen, BrowserScreen)
    return screen


async def select(pilot: Pilot[Any], screen: BrowserScreen, entry_id: str) -> None:
    assert screen.model is not None
    screen.model.select_id(entry_id)
    assert screen.model.selected_id == entry_id, f"{entry_id} is not visible"
    screen.tree.selection_changed()
    await pilot.pause()
    screen._update_detail(immediate=True)
    await pilot.pause()


def rows(screen: BrowserScreen) -> list[str]:
    assert screen.model is not None
    return [screen.model.entry_at(i).id for i in range(len(screen.model))]


def append_lines(path: Path, *objs: dict[str, Any]) -> None:
    with open(path, "a", encoding="utf-8") as f:
        for obj in objs:
            f.write(json.dumps(obj, separators=(",", ":")) + "\n")


def notices(app: LoomApp) -> list[str]:
    return [n.message for n in app._notifications]


def screen_text(app: LoomApp) -> str:
    """The top screen as plain text, one line per terminal row."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(seg.text for seg in strip).rstrip() for strip in strips)
