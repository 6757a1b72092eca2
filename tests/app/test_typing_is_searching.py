"""Typing is searching (pi's /tree): every printable key, every burst of them and every paste
goes into the search, exactly and in order, and no query runs a tool whatever letter it starts
with; the tools sit on keys that never type."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from app_helpers import browser, make_app, notices, select
from textual import events
from textual._xterm_parser import XTermParser

from loomtui.app.screens.browser import BrowserScreen
from loomtui.app.widgets.detail import DetailPane
from tests.waits import settled, until


async def _settled(pilot: Any, done: Any) -> None:
    """Wait until ``done()`` holds (the posted keys went through every queue)."""
    await until(pilot, done, what="the posted keys to reach the search")


def _burst(app: Any, text: str) -> None:
    """Keys that arrive together: posted one after the other, none awaited (a paste without
    bracketed paste, a slow link, a loaded machine)."""
    for ch in text:
        app.post_message(events.Key(ch, ch))


def _driver_read(app: Any, data: str) -> int:
    """``data`` as one read of the terminal: parsed as the driver parses it, each event posted
    at once as the driver does; returns how many events it made."""
    parsed = list(XTermParser().feed(data))
    for event in parsed:
        app.post_message(event)
    return len(parsed)


async def test_a_burst_of_keys_is_searched_in_the_order_it_came(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        model = screen.model
        for text in ("summary", "cache", " make", "hoist the Edit", "#1 <a> [b] {c} ?!"):
            _burst(app, text)
            await _settled(pilot, lambda text=text: len(model.query) >= len(text))
            await settled(pilot)
            assert model.query == text
            assert model.marked_id is None and model.hoist_id is None
            await pilot.press("escape")
            assert model.query == ""
        await pilot.press(*"summary")
        assert model.query == "summary"


async def test_one_driver_read_with_edit_keys_keeps_every_key_in_its_place(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        model = screen.model
        # "summary", Backspace, "ies": the Backspace takes the y, not the last letter typed
        assert _driver_read(app, "summary\x7fies") == 11
        await _settled(pilot, lambda: not model.query.startswith("summar") or len(model.query) >= 9)
        await settled(pilot)
        assert model.query == "summaries"
        # nine Backspaces and two letters in one read: the letters come after the Backspaces
        _driver_read(app, "\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7fmm")
        await _settled(pilot, lambda: model.query == "mm" or model.query.endswith("mm"))
        await settled(pilot)
        assert model.query == "mm" and model.marked_id is None


async def test_a_bracketed_paste_goes_into_the_search_whole(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        model = screen.model
        app.post_message(events.Paste("fix\nthe\r\nparser\t"))
        await _settled(pilot, lambda: bool(model.query))
        assert model.query == "fix the parser "
        await pilot.press("escape")
        # a paste as the terminal sends it (one read), then a key after it
        assert _driver_read(app, "\x1b[200~Try a\ndifferent\x1b[201~ split") == 7
        await _settled(pilot, lambda: model.query.endswith("split"))
        assert model.query == "Try a different split"
        assert model.selected_id == "u1000003"
        # with the detail pane focused, typing and pasting search the tree as well
        await pilot.press("escape", "tab")
        assert isinstance(app.focused, DetailPane)
        await pilot.press(*"Fix")
        app.post_message(events.Paste(" the\ntest"))
        await _settled(pilot, lambda: model.query.endswith("test"))
        assert model.query == "Fix the test" and isinstance(app.focused, DetailPane)


#: queries starting with (or made of) the keys the loom tools had, and pi's Shift+L/Shift+T
QUERIES = [
    "Edit",
    "make",
    "hoist",
    "Hoist",
    "compare",
    "Archive",
    "Label",
    "Tree",
    "]x",
    "[x",
    "}x",
    "{x",
    "<a",
    ">a",
    "#1",
    "?x",
    "m",
    "c",
    "h",
    "x",
    "t",
]


async def test_no_query_runs_a_tool_whatever_it_starts_with(
    fixture_copy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = fixture_copy("kinds.jsonl")
    data = path.read_bytes()
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)  # where Alt+E would write its page
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        model = screen.model
        await select(pilot, screen, "u1000003")
        app.clear_notifications()
        for query in QUERIES:
            await pilot.press(*query)
            await settled(pilot)
            await app.workers.wait_for_complete()
            assert model.query == query
            assert app.screen is screen, (query, app.screen)
            assert model.marked_id is None and model.hoist_id is None and not model.show_label_times, query
            assert not model.show_archived and not model.compact, query
            assert notices(app) == [], (query, notices(app))
            assert os.listdir(cwd) == [] and path.read_bytes() == data, query
            await pilot.press("escape")
            assert model.query == ""
            await select(pilot, screen, "u1000003")


async def test_the_tool_keys_act_and_never_type(fixture_copy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        model = screen.model
        await pilot.press(*"fix")
        await select(pilot, screen, "a1000004")
        await pilot.press("alt+m")
        assert model.marked_id == "a1000004" and model.query == "fix"
        await pilot.press("alt+t")
        assert model.show_label_times and model.query == "fix"
        await pilot.press("alt+e")
        await app.workers.wait_for_complete()
        await _settled(pilot, lambda: bool(os.listdir(cwd)))
        assert [p.endswith(".html") for p in os.listdir(cwd)] == [True] and model.query == "fix"
        await pilot.press("alt+h")
        assert model.hoist_id == "a1000004" and model.query == "fix"
        await pilot.press("alt+u")
        assert model.hoist_id is None
        await pilot.press("alt+l")
        from loomtui.app.screens.dialogs import LabelDialog

        assert isinstance(app.screen, LabelDialog)
        await pilot.press("escape")
        assert isinstance(app.screen, BrowserScreen) and model.query == "fix"


async def test_ctrl_x_copies_the_selected_message_as_pi_does(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        copied: list[str] = []
        app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
        await select(pilot, screen, "u1000003")
        await pilot.press("ctrl+x")
        assert copied == ["Try a different approach instead: rewrite split."]
        assert any("Copied the selected message" in n for n in notices(app))
        # a label entry (no text): pi copies nothing and says so
        await pilot.press("ctrl+a")
        await select(pilot, screen, "l1000001")
        await pilot.press("ctrl+x")
        assert len(copied) == 1 and any("no text to copy" in n for n in notices(app))
        # an assistant message without text: its error, as pi copies it
        await select(pilot, screen, "a1000005")
        await pilot.press("ctrl+x")
        assert copied[1:] == ["overloaded_error: the server is busy"]
        # the query is untouched
        assert screen.model.query == ""


async def test_the_picker_filter_takes_bursts_and_pastes_in_order(tmp_path: Path) -> None:
    from loomtui.app.screens.picker import PickerScreen

    app = make_app(None, sessions_dirs=[str(tmp_path)], only_dirs=True)
    async with app.run_test(size=(120, 34)) as pilot:
        await _settled(pilot, lambda: isinstance(app.screen, PickerScreen))
        picker = app.screen
        assert _driver_read(app, "cachx\x7fe") == 7
        await _settled(pilot, lambda: len(picker.input.value) >= 5 or picker.input.value == "cache")
        await settled(pilot)
        assert picker.input.value == "cache" and picker.filter_text == "cache"
        await pilot.press("escape")
        assert picker.input.value == ""
        app.post_message(events.Paste("oauth\nlogin\tflow"))
        await _settled(pilot, lambda: bool(picker.input.value))
        assert picker.input.value == "oauth login flow" and picker.filter_text == "oauth login flow"


async def test_a_keymap_override_with_a_key_that_types_is_refused(fixture_copy, config_dir: Path) -> None:
    (config_dir / "keymap.toml").write_text('[keys]\n"browser.mark" = "m,f6"\n"browser.hoist" = "H"\n')
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        model = screen.model
        assert any("browser.mark: m types into the search" in n for n in notices(app))
        assert any("browser.hoist: H types into the search" in n for n in notices(app))
        await pilot.press(*"mH")
        assert model.query == "mH" and model.marked_id is None and model.hoist_id is None
        await pilot.press("escape", "f6")
        assert model.marked_id is not None
        await pilot.press("alt+h")  # an id whose keys were all refused keeps its default
        assert model.hoist_id is not None


async def test_an_app_wide_binding_on_a_key_that_types_is_refused(fixture_copy, config_dir: Path) -> None:
    """App-wide bindings are live while the search (and the picker's filter) takes typing:
    ``"app.help" = "n"`` is refused as a browser binding's printable key is, n goes into the
    search and F1 still opens help (the line used to replace F1 with n, which the search took)."""
    from loomtui.app.screens.help import HelpScreen

    (config_dir / "keymap.toml").write_text('[keys]\n"app.help" = "n"\n')
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        said = notices(app)
        refused = "app.help: n types into the search and the session filter; use a key that never types"
        assert any(f"keymap.toml: {refused}" in n for n in said), said
        assert "app.help" not in app.user_keymap
        await pilot.press("n")
        await settled(pilot)
        assert screen.model.query == "n" and not isinstance(app.screen, HelpScreen)
        await pilot.press("f1")
        await settled(pilot)
        assert isinstance(app.screen, HelpScreen)
