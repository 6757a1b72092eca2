"""Snapshots (pytest-textual-snapshot): the main screen in each filter mode, the detail pane for
each entry kind, the help screen and the dialogs. Plain ``def`` tests (snap_compare runs its own
event loop). Update with ``uv run pytest tests/app/test_snapshots.py --snapshot-update`` after
checking ``snapshot_report.html``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from app_helpers import make_app
from conftest import SNAP_DIR, snap_file, snap_fixture

from loomtui.app.screens.browser import BrowserScreen
from tests.waits import settled, until

#: the snapshots copy their fixtures to one fixed directory (the title bar shows the path): one
#: worker runs them all
pytestmark = pytest.mark.xdist_group("snapshots")

SIZE = (130, 36)


async def _wait(pilot: Any) -> BrowserScreen:
    def loaded() -> bool:
        screen = pilot.app.screen
        return isinstance(screen, BrowserScreen) and screen.model is not None

    await until(pilot, loaded, what="the browser")
    return pilot.app.screen


def _select(entry_id: str, *keys: str) -> Any:
    async def run_before(pilot: Any) -> None:
        screen = await _wait(pilot)
        if keys:
            await pilot.press(*keys)
        screen.model.select_id(entry_id)
        assert screen.model.selected_id == entry_id
        screen.tree.selection_changed()
        screen._update_detail(immediate=True)
        await settled(pilot)

    return run_before


@pytest.mark.parametrize(
    "keys",
    [(), ("ctrl+t",), ("ctrl+u",), ("ctrl+l",), ("ctrl+a",)],
    ids=["default", "no-tools", "user-only", "labeled-only", "all"],
)
def test_main_screen_filter_modes(snap_compare: Any, keys: tuple[str, ...]) -> None:
    app = make_app(snap_fixture("kinds.jsonl"))

    async def run_before(pilot: Any) -> None:
        await _wait(pilot)
        if keys:
            await pilot.press(*keys)
        await settled(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_main_screen_search(snap_compare: Any) -> None:
    app = make_app(snap_fixture("kinds.jsonl"))

    async def run_before(pilot: Any) -> None:
        await _wait(pilot)
        await pilot.press("f", "i", "x")
        await settled(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


DETAIL_CASES = {
    "user-labelled": ("u1000001", ()),
    "user-image": ("u1000005", ()),
    "assistant-thinking-tools": ("a1000001", ()),
    "assistant-markdown": ("a1000002", ()),
    "assistant-error": ("a1000005", ()),
    "tool-result-read": ("r1000002", ()),
    "tool-result-edit-diff": ("r1000003", ()),
    "tool-result-error": ("r1000004", ()),
    "bash-execution": ("x1000001", ()),
    "compaction": ("c1000001", ()),
    "branch-summary": ("b1000001", ()),
    "custom-message": ("k1000001", ()),
    "custom": ("k1000002", ("ctrl+a",)),
    "model-change": ("m1000002", ("ctrl+a",)),
    "thinking-level-change": ("t1000002", ("ctrl+a",)),
    "label": ("l1000002", ("ctrl+a",)),
    "session-info": ("s1000001", ("ctrl+a",)),
}


@pytest.mark.parametrize("case", list(DETAIL_CASES))
def test_detail_pane(snap_compare: Any, case: str) -> None:
    entry_id, keys = DETAIL_CASES[case]
    app = make_app(snap_fixture("kinds.jsonl"))
    assert snap_compare(app, terminal_size=SIZE, run_before=_select(entry_id, *keys))


def test_detail_thinking_expanded(snap_compare: Any) -> None:
    app = make_app(snap_fixture("kinds.jsonl"))
    inner = _select("a1000001")

    async def run_before(pilot: Any) -> None:
        await inner(pilot)
        await pilot.press("tab", "alt+z")  # the detail pane: open the thinking blocks
        await settled(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def _big_session() -> str:
    """A session whose tool result is 1 MB (deterministic)."""
    output = "".join(f"line {i:06d}: " + "x" * 60 + "\n" for i in range(15_000))
    lines = [
        {"type": "session", "version": 3, "id": "big", "timestamp": "2025-06-01T10:00:00.000Z", "cwd": "/home/user"},
        {
            "type": "message",
            "id": "u1",
            "parentId": None,
            "timestamp": "2025-06-01T10:00:01.000Z",
            "message": {"role": "user", "content": "cat the log"},
        },
        {
            "type": "message",
            "id": "a1",
            "parentId": "u1",
            "timestamp": "2025-06-01T10:00:02.000Z",
            "message": {
                "role": "assistant",
                "stopReason": "toolUse",
                "content": [{"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "cat big.log"}}],
            },
        },
        {
            "type": "message",
            "id": "r1",
            "parentId": "a1",
            "timestamp": "2025-06-01T10:00:03.000Z",
            "message": {
                "role": "toolResult",
                "toolCallId": "c1",
                "toolName": "bash",
                "content": [{"type": "text", "text": output}],
                "isError": False,
            },
        },
    ]
    return snap_file("big-output.jsonl", "".join(json.dumps(x) + "\n" for x in lines).encode())


def test_detail_big_tool_output_is_cut(snap_compare: Any) -> None:
    app = make_app(_big_session())
    assert snap_compare(app, terminal_size=SIZE, run_before=_select("r1"))


def test_help_screen(snap_compare: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # the help names the keymap's path: one fixed place, not the test's (longer on a worker)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(SNAP_DIR / "config"))
    app = make_app(snap_fixture("kinds.jsonl"))

    async def run_before(pilot: Any) -> None:
        await _wait(pilot)
        await pilot.press("f1")
        await settled(pilot)

    assert snap_compare(app, terminal_size=(130, 60), run_before=run_before)


DIALOG_KEYS = [("alt+l",), ("ctrl+e",), ("ctrl+s",), ("f2",)]
DIALOG_IDS = ["label-dialog", "export-dialog", "persist-leaf-confirm", "diagnostics"]


def _dialog(keys: tuple[str, ...]) -> tuple[Any, Any]:
    """The app and the steps that open the dialog ``keys`` opens."""
    name = "malformed.jsonl" if keys == ("f2",) else "kinds.jsonl"
    app = make_app(snap_fixture(name))

    async def run_before(pilot: Any) -> None:
        screen = await _wait(pilot)
        await settled(pilot)  # the opening's notices are shown
        if keys in (("ctrl+s",), ("ctrl+q",)):
            screen.model.select_id("r1000004")
            screen.tree.selection_changed()
            await pilot.press("enter")
            app.clear_notifications()
        if keys == ("alt+l",):
            screen.model.select_id("a1000002")
            screen.tree.selection_changed()
        # F2's snapshot shows the opening's notice ("Session opened with diagnostics") beside the
        # list: the file's diagnostics are what both say (a clear here used to run before the
        # notice arrived, so it never took it away)
        await pilot.press(*keys)
        await settled(pilot)
        from textual.widgets import Input

        for inp in pilot.app.screen.query(Input):
            inp.cursor_blink = False

    return app, run_before


@pytest.mark.parametrize("keys", DIALOG_KEYS, ids=DIALOG_IDS)
def test_dialogs(snap_compare: Any, keys: tuple[str, ...]) -> None:
    app, run_before = _dialog(keys)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


# 80x24 is a first-class size: the main screen, help and every dialog
SMALL = (80, 24)


@pytest.mark.parametrize("keys", [*DIALOG_KEYS, ("ctrl+q",)], ids=[*DIALOG_IDS, "quit-confirm"])
def test_dialogs_at_80x24(snap_compare: Any, keys: tuple[str, ...]) -> None:
    app, run_before = _dialog(keys)
    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


def test_main_screen_at_80x24(snap_compare: Any) -> None:
    app = make_app(snap_fixture("kinds.jsonl"))
    assert snap_compare(app, terminal_size=SMALL, run_before=_select("a1000002"))


def test_help_at_80x24(snap_compare: Any) -> None:
    app = make_app(snap_fixture("kinds.jsonl"))

    async def run_before(pilot: Any) -> None:
        await _wait(pilot)
        await pilot.press("f1")
        await settled(pilot)

    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


@pytest.mark.parametrize("name", ["v4.jsonl", "noheader.jsonl"])
def test_error_screen(snap_compare: Any, name: str) -> None:
    app = make_app(snap_fixture(name))

    async def run_before(pilot: Any) -> None:
        await settled(pilot)

    assert snap_compare(app, terminal_size=(110, 24), run_before=run_before)


def test_malformed_opens_with_a_notice(snap_compare: Any) -> None:
    app = make_app(snap_fixture("malformed.jsonl"))

    async def run_before(pilot: Any) -> None:
        await _wait(pilot)
        await settled(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_light_theme(snap_compare: Any) -> None:
    app = make_app(snap_fixture("kinds.jsonl"), theme="light")
    assert snap_compare(app, terminal_size=SIZE, run_before=_select("a1000002"))
