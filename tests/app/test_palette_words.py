"""The command palette speaks one way: every entry that has a key shows it, one (lowercase)
style, none of Textual's own entries that repeat loomtui's; and a session that is not a fork is
said to be so in the same words in the picker, the browser and the palette."""

from __future__ import annotations

import json
from pathlib import Path

from app_helpers import browser, make_app, notices, screen_text
from textual.command import CommandPalette

from loomtui.app.app import LoomApp
from loomtui.app.commands import LoomCommands
from loomtui.app.keymap import SPECS, display_keys
from loomtui.app.screens.picker import PickerScreen
from tests.waits import settled, until

#: the one wording (view/words.NOT_A_FORK)
NOT_A_FORK = "This session is not a fork: its header names no parent session."
#: the palette's entries that no key runs (what they do is said in their help instead)
WITHOUT_A_KEY = ("follow the file's leaf again", "compare the selected entry's branch with another")


async def test_every_palette_entry_with_a_key_shows_it_in_one_style(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await browser(pilot)
        await pilot.press("enter")  # a moved leaf: the palette offers to follow the file's leaf again
        commands = LoomCommands(screen).commands()
        helps = {title.strip("● ").strip(): help_text for title, _cb, help_text in commands}
        keys = {display_keys(spec, {}) for spec in SPECS}
        for title, help_text in helps.items():
            assert title[0].islower() or title.startswith("OCP"), f"{title!r}: one (lowercase) style"
            if title.startswith("theme: "):
                continue  # a theme has no key; its help says where it comes from
            first = help_text.split("  ·  ")[0].split(" ")[0]
            if not any(title.startswith(t) for t in WITHOUT_A_KEY):
                assert first in keys, f"{title!r} shows no key: {help_text!r}"
        # pi's five filters, each with its own key, the current one said so
        assert helps["filter: default"] == "^D  ·  the current filter"
        assert (helps["filter: no-tools"], helps["filter: user-only"]) == ("^T", "^U")
        assert (helps["filter: labeled-only"], helps["filter: all"]) == ("^L", "^A")
        assert helps["open / close the thinking blocks in the detail pane"] == "Alt+Z"


async def test_textual_s_keys_and_maximize_entries_are_not_offered(fixture_copy) -> None:
    """F1 is loomtui's help (Textual's Keys panel repeated it with other words), and the theme
    and quit entries are loomtui's: of Textual's own entries only the screenshot is left."""
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await browser(pilot)
        assert [c.title for c in app.get_system_commands(screen)] == ["screenshot: save the screen as an SVG picture"]
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
        await pilot.press(*"keys")
        await settled(pilot)
        palette = app.screen
        assert isinstance(palette, CommandPalette)
        shown = [str(option.prompt) for option in palette.query_one("CommandList").options]  # type: ignore[attr-defined]
        assert shown and not any(p.startswith(("Keys", "Maximize", "Theme", "Quit")) for p in shown), shown


def _session(path: Path, sid: str) -> Path:
    header = {"type": "session", "version": 3, "id": sid, "timestamp": "2026-02-01T10:00:00.000Z", "cwd": "/p"}
    message = {
        "type": "message",
        "id": "m1",
        "parentId": None,
        "timestamp": "2026-02-01T10:00:01.000Z",
        "message": {"role": "user", "content": "Hello"},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(header) + "\n" + json.dumps(message) + "\n")
    return path


async def test_a_session_that_is_not_a_fork_is_said_so_in_one_wording(tmp_path: Path) -> None:
    path = _session(tmp_path / "sessions" / "2026-02-01T10-00-00-000Z_solo.jsonl", "solo")
    app = LoomApp(sessions_dirs=[str(path.parent)], only_dirs=True, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, PickerScreen), what="the picker")
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        await until(pilot, lambda: picker.session_list.selected_row is not None, what="the list")
        await pilot.press("ctrl+o")
        await until(pilot, lambda: NOT_A_FORK in notices(app), what="the picker's notice")
        await pilot.press("enter")
        screen = await browser(pilot)
        app.clear_notifications()
        await pilot.press("ctrl+g")
        await until(pilot, lambda: NOT_A_FORK in notices(app), what="the browser's notice")
        helps = {title: help_text for title, _cb, help_text in LoomCommands(screen).commands()}
        assert helps["open parent session"].endswith(NOT_A_FORK)


def _ends_with_a_label(path: Path) -> Path:
    """A pi session whose last line is a label entry on the assistant's reply: the tree marks
    the reply as the leaf (pi's /tree hides label entries), pi resumes there."""
    at = "2026-02-01T10:00:0{}.000Z"
    lines = [
        {"type": "session", "version": 3, "id": "lbl", "timestamp": at.format(0), "cwd": "/p"},
        {
            "type": "message",
            "id": "u1",
            "parentId": None,
            "timestamp": at.format(1),
            "message": {"role": "user", "content": "Hello"},
        },
        {
            "type": "message",
            "id": "r1",
            "parentId": "u1",
            "timestamp": at.format(2),
            "message": {"role": "assistant", "content": [{"type": "text", "text": "Hi"}]},
        },
        {"type": "label", "id": "l1", "parentId": "r1", "timestamp": at.format(3), "targetId": "r1", "label": "ok"},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


async def test_the_header_the_palette_and_ctrl_s_name_the_same_leaf(tmp_path: Path) -> None:
    """The header names the leaf the tree marks (r1, the label entry l1 after it only as the
    file's last entry); the palette's persist entry and Ctrl+S's notice name that same entry,
    and nothing is written: pi already resumes there."""
    path = _ends_with_a_label(tmp_path / "label-last.jsonl")
    data = path.read_bytes()
    app = make_app(path)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await browser(pilot)
        assert screen.controller.header(screen.path).leaf == "leaf r1 (last entry l1)"
        await until(pilot, lambda: "leaf r1 (last entry l1)" in screen_text(app), what="the header's leaf")
        titles = [title for title, _cb, _help in LoomCommands(screen).commands()]
        persist = [t for t in titles if t.startswith("persist the leaf")]
        assert persist == ["persist the leaf (r1) so pi resumes there…"], persist
        await pilot.press("ctrl+s")
        await until(pilot, lambda: any("already resumes" in n for n in notices(app)), what="Ctrl+S's notice")
        said = [n for n in notices(app) if "already resumes" in n]
        assert said[-1].startswith("pi already resumes at r1"), said
        assert "l1" not in said[-1].split(":")[0]
    assert path.read_bytes() == data


async def test_alt_c_with_nothing_marked_names_the_palette_entry_as_it_is(fixture_copy) -> None:
    """Alt+C with nothing marked pointed at "Compare…" in the palette, an entry that does not
    exist: the notice quotes the entry's own title, and typing it finds that entry."""
    import re

    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await browser(pilot)
        await pilot.press("alt+c")
        await until(pilot, lambda: notices(app), what="the notice")
        quoted = re.findall(r"“([^”]+)”", notices(app)[-1])
        assert len(quoted) == 1, notices(app)
        titles = [title for title, _cb, _help in LoomCommands(screen).commands()]
        assert quoted[0] in titles, (quoted, titles)
        assert dict((t, cb) for t, cb, _h in LoomCommands(screen).commands())[quoted[0]] == screen.action_compare_prompt


async def test_compare_and_carry_with_the_marked_entry_itself_say_an_entry_other_than_it(fixture_copy) -> None:
    """Alt+M then Alt+C (or Alt+S) on the same entry: "an entry other than the marked one", not
    "another entry than the marked one"."""
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(140, 40)) as pilot:
        await browser(pilot)
        for key in ("alt+c", "alt+s"):
            await pilot.press("alt+m")
            app.clear_notifications()
            await pilot.press(key)
            await until(pilot, lambda: notices(app), what=f"{key}'s notice")
            said = notices(app)[-1]
            assert "an entry other than the marked one" in said and "another entry than" not in said, (key, said)
            await pilot.press("alt+m")  # unmark
