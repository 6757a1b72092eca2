"""Pilot tests: every key of the browser (pi's /tree keys plus the browser's own)."""

from __future__ import annotations

from pathlib import Path

from app_helpers import browser, make_app, notices, rows, screen_text, select

from loomtui.app.screens.dialogs import LabelDialog
from loomtui.app.screens.help import HelpScreen
from loomtui.app.widgets.detail import DetailPane
from loomtui.app.widgets.tree_view import TreeView
from tests.waits import settled

DEFAULT_ROWS = [
    "u1000001",
    "a1000001",
    "r1000001",
    "r1000002",
    "a1000002",
    "u1000002",
    "r1000003",
    "a1000004",
    "c1000001",
    "x1000001",
    "k1000001",
    "u1000005",
    "a1000005",
    "u1000003",
    "r1000004",
    "b1000001",
]


async def test_opens_on_the_leaf_with_pi_rows(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        assert rows(screen) == DEFAULT_ROWS
        # the leaf (session_info) is hidden in default mode: its nearest visible ancestor is selected
        assert screen.model.selected_id == "a1000005"
        assert screen.model.footer() == "  (13/16)"
        assert isinstance(app.focused, TreeView)
        assert screen.model.row_text(0) == "  • [start] user: Fix the failing test in `parser.py`, please."


async def test_up_down_wrap_page_home_end(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 12)) as pilot:
        screen = await browser(pilot)
        model = screen.model
        await pilot.press("home")
        assert model.selected == 0
        await pilot.press("up")  # wraps to the last row
        assert model.selected == len(model) - 1
        await pilot.press("down")  # wraps to the first
        assert model.selected == 0
        page = model.page_size
        assert page >= 1
        await pilot.press("pagedown")
        assert model.selected == page
        await pilot.press("pageup")
        assert model.selected == 0
        await pilot.press("right")  # → pages like PgDn (pi)
        assert model.selected == page
        await pilot.press("left")
        assert model.selected == 0
        await pilot.press("end")
        assert model.selected == len(model) - 1
        await pilot.press("pagedown")  # clamps
        assert model.selected == len(model) - 1
        # the selected row is always on screen
        tree = screen.tree
        top = int(tree.scroll_offset.y)
        assert top <= model.selected < top + tree.scrollable_content_region.height


async def test_fold_unfold_and_segment_jumps(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        model = screen.model
        await select(pilot, screen, "u1000002")  # a segment start with children: foldable
        await pilot.press("ctrl+left")
        assert "u1000002" in model.folded
        assert "r1000003" not in rows(screen)
        assert "⊞" in model.row_text(model.selected)
        await pilot.press("ctrl+right")
        assert not model.folded
        assert "r1000003" in rows(screen)
        # not foldable / already unfolded: jumps between branch segments
        await select(pilot, screen, "x1000001")
        await pilot.press("alt+left")
        assert model.selected_id == "u1000002"
        await select(pilot, screen, "a1000001")
        await pilot.press("alt+right")
        assert model.selected_id == "u1000002"  # first child of the first node with two children


async def test_filter_keys_toggle_and_cycle(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        model = screen.model
        await pilot.press("ctrl+t")
        assert model.mode == "no-tools" and model.footer().endswith("[no-tools]")
        await pilot.press("ctrl+t")  # toggles back
        assert model.mode == "default"
        await pilot.press("ctrl+u")
        assert model.mode == "user-only" and len(model) == 4
        await pilot.press("ctrl+l")
        assert model.mode == "labeled-only" and rows(screen) == ["u1000001", "a1000002"]
        await pilot.press("ctrl+a")
        assert model.mode == "all" and len(model) == 24
        await pilot.press("ctrl+d")
        assert model.mode == "default"
        await pilot.press("ctrl+o")
        assert model.mode == "no-tools"
        await pilot.press("ctrl+o")
        assert model.mode == "user-only"
        await pilot.press("ctrl+shift+o")
        assert model.mode == "no-tools"
        await pilot.press("ctrl+shift+o")
        await pilot.press("ctrl+shift+o")
        assert model.mode == "all"
        # the position label follows
        assert str(screen.query_one("#position").render()).endswith("[all]")


async def test_typing_searches_backspace_and_escape(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        model = screen.model
        await pilot.press("f", "i", "x")
        assert model.query == "fix"
        assert rows(screen) == ["u1000001", "a1000002", "u1000002", "a1000004", "b1000001"]
        await pilot.press("space", "t", "e", "s", "t")
        assert model.query == "fix test"
        assert rows(screen) == ["u1000001", "a1000004", "b1000001"]
        await pilot.press("backspace")
        assert model.query == "fix tes"
        await pilot.press("question_mark")  # while typing, ? is a character
        assert model.query == "fix tes?"
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert model.query == "" and len(model) == 16
        # capitals type too (Alt+T toggles the label times)
        await pilot.press("a", "T", "alt+t")
        assert model.query == "aT" and model.show_label_times
        await pilot.press("escape")


async def test_f1_shows_help_and_question_mark_types(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await browser(pilot)
        await pilot.press("question_mark")
        assert not isinstance(app.screen, HelpScreen) and screen.model.query == "?"
        await pilot.press("escape")
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        from loomtui.app.keymap import SPECS

        help_text = app.screen.text  # the whole help drawn once (a table of every binding)
        for spec in SPECS:
            if spec.id != "browser.switch-focus-back":
                assert spec.id in help_text, spec.id
        await pilot.press("f1")
        assert not isinstance(app.screen, HelpScreen)


async def test_label_times_toggle(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await pilot.press("alt+t")
        assert screen.model.show_label_times
        assert screen.model.footer().endswith("[+label time]")
        # label time after [label] (UTC, another year: YY/M/D HH:MM)
        assert screen.model.row_text(0).startswith("  • [start] 25/6/1 10:00 user:")
        await pilot.press("alt+t")
        assert not screen.model.show_label_times


async def test_tab_switches_focus(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        await browser(pilot)
        assert isinstance(app.focused, TreeView)
        await pilot.press("tab")
        assert isinstance(app.focused, DetailPane)
        await pilot.press("tab")
        assert isinstance(app.focused, TreeView)
        await pilot.press("shift+tab")
        assert isinstance(app.focused, DetailPane)


async def test_mouse_click_selects_and_wheel_scrolls(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 10)) as pilot:
        screen = await browser(pilot)
        tree = screen.tree
        await pilot.press("home")
        await pilot.click(TreeView, offset=(5, 2))
        assert screen.model.selected == 2
        selected = screen.model.selected
        before = tree.scroll_offset.y
        from textual import events

        region = tree.region
        for _ in range(3):
            app.post_message(
                events.MouseScrollDown(
                    None,
                    region.x + 5,
                    region.y + 2,
                    0,
                    1,
                    0,
                    False,
                    False,
                    False,
                    screen_x=region.x + 5,
                    screen_y=region.y + 2,
                )
            )
        await settled(pilot)
        assert tree.scroll_offset.y > before
        assert screen.model.selected == selected  # the wheel scrolls, it does not select


async def test_ctrl_q_quits(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        await browser(pilot)
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.return_code == 0


async def test_ctrl_y_copies_full_text(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    copied: list[str] = []
    async with app.run_test(size=(120, 34)) as pilot:
        app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
        screen = await browser(pilot)
        await select(pilot, screen, "a1000002")
        await pilot.press("ctrl+y")
        await select(pilot, screen, "x1000001")
        await pilot.press("ctrl+y")
        await select(pilot, screen, "c1000001")
        await pilot.press("ctrl+y")
    assert copied[0].startswith("The slice is **off by one**:\n\n```python")
    assert copied[1] == "git status --short"  # bash: the command (pi's copy)
    assert copied[2].startswith("## Summary")  # compaction: the summary


async def test_enter_moves_the_leaf_in_memory(fixture_copy) -> None:
    path = fixture_copy("kinds.jsonl")
    before = path.read_bytes()
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        model = screen.model
        # an assistant: the leaf moves to it; the active path (•) follows
        await select(pilot, screen, "r1000004")
        await pilot.press("enter")
        assert model.leaf_id == "r1000004"
        assert screen.manager.get_leaf_id() == "r1000004"
        assert screen.user_moved_leaf
        assert model.selected_id == "r1000004"
        assert rows(screen)[5] == "u1000003"  # the branch holding the leaf is listed first
        assert model.row_text(5).startswith("  ├⊟ • user: Try a different")
        # the same entry again: "Already at this point"
        await pilot.press("enter")
        assert "Already at this point." in notices(app)
        # a user message: the leaf moves to its parent (pi: re-edit the message)
        await select(pilot, screen, "u1000002")
        await pilot.press("enter")
        assert model.leaf_id == "a1000002"
        assert model.selected_id == "u1000002"
    assert path.read_bytes() == before  # nothing written


async def test_enter_on_a_root_user_message_resets_the_leaf(write_session) -> None:
    path = write_session(
        [
            {
                "type": "message",
                "id": "u1",
                "parentId": None,
                "timestamp": "2025-06-01T10:00:01.000Z",
                "message": {"role": "user", "content": "first"},
            },
            {
                "type": "message",
                "id": "a1",
                "parentId": "u1",
                "timestamp": "2025-06-01T10:00:02.000Z",
                "message": {"role": "assistant", "content": [{"type": "text", "text": "hi"}], "stopReason": "stop"},
            },
        ]
    )
    app = make_app(path)
    async with app.run_test(size=(100, 20)) as pilot:
        screen = await browser(pilot)
        await pilot.press("home", "enter")
        assert screen.model.leaf_id is None
        assert screen.manager.get_leaf_id() is None
        assert "•" not in screen.model.row_text(0)
        # persisting a reset leaf is refused: it would need a parentId-null entry
        size = path.stat().st_size
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert path.stat().st_size == size
        assert any("parentId null" in n for n in notices(app))


async def test_label_dialog_prefilled_and_cancel(fixture_copy) -> None:
    path = fixture_copy("kinds.jsonl")
    before = path.read_bytes()
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "a1000002")
        await pilot.press("alt+l")
        assert isinstance(app.screen, LabelDialog)
        from textual.widgets import Input

        assert app.screen.query_one(Input).value == "checkpoint"
        await pilot.press("escape")
        assert not isinstance(app.screen, LabelDialog)
    assert path.read_bytes() == before


async def test_escape_without_query_returns_to_the_screen_below(fixture_copy) -> None:
    first = fixture_copy("kinds.jsonl")
    second = fixture_copy("malformed.jsonl")
    app = make_app(first)
    async with app.run_test(size=(120, 34)) as pilot:
        one = await browser(pilot)
        app.open_session_file(str(second))
        await pilot.pause()
        two = await browser(pilot)
        assert two is not one and two.has_screen_below
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is one
        await pilot.press("escape")  # the first browser has nothing below: stays
        assert app.screen is one


async def test_help_lists_user_remapped_keys(fixture_copy, config_dir: Path) -> None:
    (config_dir / "keymap.toml").write_text('[keys]\n"browser.export" = "ctrl+n"\n"no.such" = "f9"\n')
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await browser(pilot)
        assert any("unknown binding id 'no.such'" in n for n in notices(app))
        await pilot.press("ctrl+n")
        from loomtui.app.screens.dialogs import ExportDialog

        assert isinstance(app.screen, ExportDialog)
        await pilot.press("escape")
        await pilot.press("f1")
        # a remapped key in the app's own style, as every other key is shown: it read "ctrl+n"
        assert "^N" in app.screen.text and "ctrl+n" not in app.screen.text
        await pilot.press("escape")
        assert "^N export" in str(screen.query_one("#hints").render())


def test_remapped_keys_are_shown_as_the_app_shows_its_own() -> None:
    from loomtui.app.keymap import SPEC_BY_ID, display_keys

    spec = SPEC_BY_ID["browser.export"]
    assert display_keys(spec, {}) == "^E"
    assert display_keys(spec, {"browser.export": "ctrl+n"}) == "^N"
    assert display_keys(spec, {"browser.export": "pagedown,ctrl+f"}) == "PgDn/^F"
    assert display_keys(spec, {"browser.export": "alt+h,f5"}) == "Alt+H/F5"
    assert display_keys(spec, {"browser.export": "shift+left,ctrl+shift+o,escape"}) == "⇧←/⇧^O/Esc"


async def test_enter_on_a_custom_message_moves_the_leaf_to_its_parent(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "k1000001")
        await pilot.press("enter")
        assert screen.model.leaf_id == "x1000001"


async def test_an_empty_session_and_an_empty_search(write_session) -> None:
    path = write_session([])
    app = make_app(path)
    async with app.run_test(size=(100, 20)) as pilot:
        screen = await browser(pilot)
        assert len(screen.model) == 0
        for key in ("down", "enter", "alt+l", "ctrl+e", "ctrl+s", "ctrl+y", "ctrl+a", "home", "end", "x"):
            await pilot.press(key)
        assert "No entries found" in screen_text(app)  # "x" went into the search
        await pilot.press("escape")
        assert "No entries in this session" in screen_text(app)
        assert "(0/0)" in screen_text(app)


async def test_help_at_80x24_keeps_the_descriptions_and_explains_the_marks(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(80, 24)) as pilot:
        await browser(pilot)
        await pilot.press("f1")
        await settled(pilot)
        text = screen_text(app)
        # each binding's description on the same line as its keys, not squeezed into a column
        assert "↑" in text and "move up (wraps)" in text
        line = next(x for x in text.splitlines() if "move up (wraps)" in x)
        assert line.index("move up") < 30, line
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        full = help_screen.text
        assert "Marks" in full and "⑂" in full and "a fork: a session made from another" in full
        assert "on the active path" in full


async def test_the_picker_footer_explains_the_fork_mark(tmp_path: Path) -> None:
    import json

    d = tmp_path / "sessions" / "--p--"
    d.mkdir(parents=True)
    base = {"type": "session", "version": 3, "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}
    msg = {
        "type": "message",
        "id": "m1",
        "parentId": None,
        "timestamp": "2026-01-01T00:00:01.000Z",
        "message": {"role": "user", "content": "hello"},
    }
    (d / "a.jsonl").write_text(json.dumps({**base, "id": "a"}) + "\n" + json.dumps(msg) + "\n")
    (d / "b.jsonl").write_text(
        json.dumps({**base, "id": "b", "parentSession": "/elsewhere/x.jsonl"}) + "\n" + json.dumps(msg) + "\n"
    )
    app = make_app(None, sessions_dirs=[str(tmp_path / "sessions")])
    async with app.run_test(size=(160, 30)) as pilot:
        await settled(pilot)
        assert "⑂ fork" in screen_text(app)


def test_the_keys_a_terminal_never_delivers_are_textual_s_own() -> None:
    """``keymap_file.NEVER_DELIVERED`` is every Alt key whose ESC + character Textual reads as
    another key (its table of escape sequences, with ESC + a digit or punctuation mark read as
    that Alt key: ``search_keys``), and no default binding uses one."""
    from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
    from textual.keys import _character_to_key

    from loomtui.app.keymap import SPECS
    from loomtui.app.keymap_file import NEVER_DELIVERED
    from loomtui.app.widgets.search_keys import ALT_CHARACTERS, alt_key

    names = {"\x1b": "escape", "\x7f": "backspace", "\t": "tab"}
    table = {}
    for sequence, meaning in ANSI_SEQUENCES_KEYS.items():
        if len(sequence) == 2 and sequence[0] == "\x1b":
            char = sequence[1]
            key = "alt+" + names.get(char, _character_to_key(char))
            table[key] = meaning[0].value if isinstance(meaning, tuple) else meaning
    alt = {"alt+" + _character_to_key(c): alt_key(c) for c in ALT_CHARACTERS if c not in "bf"}
    assert {k: table[k] for k in alt} == alt
    assert {k: v for k, v in table.items() if k not in alt} == NEVER_DELIVERED
    for spec in SPECS:
        assert not set(spec.keys.split(",")) & set(NEVER_DELIVERED), spec.id


async def test_keymap_toml_refuses_keys_a_terminal_never_delivers(fixture_copy, config_dir: Path) -> None:
    """Alt+B arrives as Ctrl+← (ESC b, iTerm's natural editing, as xterm and tmux send it): a
    binding on it could never fire, so the file's entry is refused with a warning and the
    binding keeps its default key; a good key beside it still applies."""
    (config_dir / "keymap.toml").write_text(
        '[keys]\n"browser.carry" = "alt+b"\n"browser.resume" = ["alt+f", "f6"]\n"browser.hoist" = "alt+y"\n'
    )
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await browser(pilot)
        said = notices(app)
        assert any(
            "browser.carry: a terminal never sends alt+b as such (alt+b arrives as ctrl+left)" in n for n in said
        ), said
        assert any(
            "browser.resume: a terminal never sends alt+f as such (alt+f arrives as ctrl+right)" in n for n in said
        )
        assert app.user_keymap == {"browser.resume": "f6", "browser.hoist": "alt+y"}
        await pilot.press("f1")
        text = app.screen.text
        carry = next(line for line in text.splitlines() if "browser.carry" in line)
        assert carry.lstrip().startswith("Alt+S"), carry
        await pilot.press("escape")
        await pilot.press("alt+y")
        assert screen.model.hoist_id is not None


def test_the_readme_names_every_command_key_of_the_browser_and_the_picker() -> None:
    """The README's key tables, help (F1) and the key map agree: every Ctrl+letter, Alt+letter
    and F-key bound by default in the browser, the tree, the picker and everywhere is named."""
    import re

    from loomtui.app.keymap import SPECS

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"\b(?:Ctrl|Alt)\+[A-Z]\b|\bF\d+\b", readme))
    for spec in SPECS:
        if spec.scope not in ("tree", "browser", "detail", "picker", "app"):
            continue
        for key in spec.keys.split(","):
            mod, _, letter = key.partition("+")
            if mod in ("ctrl", "alt") and len(letter) == 1:
                assert f"{mod.capitalize()}+{letter.upper()}" in named, (spec.id, key)
            elif re.fullmatch(r"f\d+", key):
                assert key.upper() in named, (spec.id, key)


async def test_a_key_name_that_is_no_key_is_refused_and_the_binding_keeps_its_default(
    fixture_copy, config_dir: Path
) -> None:
    """``ctrl+shift+banana`` is not a key: the line is reported as a malformed value, and ↑ still
    moves the cursor (the override used to replace ↑ with a key that never arrives)."""
    (config_dir / "keymap.toml").write_text('[keys]\n"tree.up" = "ctrl+shift+banana"\n"browser.compact" = "F7"\n')
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await browser(pilot)
        said = notices(app)
        assert any("tree.up: 'ctrl+shift+banana' is not a key name" in n for n in said), said
        assert "tree.up" not in app.user_keymap
        await pilot.press("home")
        await pilot.press("up")  # wraps to the last row
        assert screen.model.selected == len(screen.model) - 1
        await pilot.press("f1")
        text = app.screen.text
        up = next(line for line in text.splitlines() if "tree.up" in line)
        assert up.lstrip().startswith("↑") and "banana" not in text, up
        compact = next(line for line in text.splitlines() if "browser.compact" in line)
        assert compact.lstrip().startswith("F7"), compact  # "F7" is f7: it fires
        await pilot.press("escape")
        compact_before = screen.model.compact
        await pilot.press("f7")
        assert screen.model.compact != compact_before


async def test_a_key_the_keymap_takes_from_another_binding_is_reported_and_help_never_lists_it(
    fixture_copy, config_dir: Path
) -> None:
    """README's old example took Ctrl+X ("copy the message") and F2 (the diagnostics): a notice
    names each clash, F1 shows those bindings without a key, and the keys run the file's lines."""
    (config_dir / "keymap.toml").write_text(
        '[keys]\n"browser.export" = "ctrl+x"\n"browser.persist-leaf" = ["ctrl+s", "f2"]\n"browser.hoist" = "home"\n'
    )
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await browser(pilot)
        said = notices(app)
        for clash in (
            "ctrl+x is bound to browser.export and browser.copy-message (default); "
            "browser.export has it, browser.copy-message has no key now",
            "f2 is bound to browser.persist-leaf and browser.diagnostics (default); "
            "browser.persist-leaf has it, browser.diagnostics has no key now",
            "home is bound to browser.hoist and tree.home (default); browser.hoist has it, tree.home has no key now",
        ):
            assert any(clash in n for n in said), (clash, said)
        await pilot.press("f1")
        lines = app.screen.text.splitlines()

        def row(binding_id: str) -> str:
            return next(line for line in lines if line.rstrip().endswith(binding_id)).strip()

        assert row("browser.copy-message").startswith("(no key)"), row("browser.copy-message")
        assert row("browser.diagnostics").startswith("(no key)")
        assert row("tree.home").startswith("(no key)")
        assert row("browser.export").startswith("^X") and row("browser.persist-leaf").startswith("^S/F2")
        await pilot.press("escape")
        await pilot.press("end")
        # Home is the file's: it hoists, where the tree (focused) used to take it for its first row
        await pilot.press("home")
        assert screen.model.hoist_id is not None
        await pilot.press("ctrl+x")
        from loomtui.app.screens.dialogs import ExportDialog

        assert isinstance(app.screen, ExportDialog)


def test_a_remapped_printable_key_is_shown_as_written() -> None:
    """``j`` is j (a capital reads as Shift+J); combinations keep the app's own style."""
    from loomtui.app.keymap import SPEC_BY_ID, display_keys

    spec = SPEC_BY_ID["reader.next"]
    assert display_keys(spec, {"reader.next": "j"}) == "j"
    assert display_keys(spec, {"reader.next": "J,q"}) == "J/q"
    assert display_keys(spec, {"reader.next": "question_mark,alt+full_stop"}) == "?/Alt+."
    assert display_keys(spec, {"reader.next": "ctrl+j,alt+j,ctrl+shift+j,f6"}) == "^J/Alt+J/⇧^J/F6"


async def test_reader_footer_and_help_follow_the_keymap(fixture_copy, config_dir: Path) -> None:
    (config_dir / "keymap.toml").write_text(
        '[keys]\n"reader.next" = "j"\n"reader.close" = "q"\n"browser.reader" = "f6"\n'
        '"tree.page-down" = "pagedown,ctrl+f"\n'
    )
    from loomtui.app.screens.reader import ReaderScreen

    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        assert "←/PgDn page" in str(screen.query_one("#hints").render())  # → no longer pages down
        await pilot.press("f1")
        lines = app.screen.text.splitlines()
        nxt = next(line for line in lines if line.rstrip().endswith("reader.next")).split()
        close = next(line for line in lines if line.rstrip().endswith("reader.close")).split()
        assert nxt[0] == "j" and close[0] == "q", (nxt, close)
        await pilot.press("escape", "f6")
        await settled(pilot)
        assert isinstance(app.screen, ReaderScreen)
        hints = str(app.screen.query_one("#reader-hints").render())
        assert "j/p next/previous entry" in hints and "q back to the tree" in hints, hints
        assert "Esc" not in hints and "n/p" not in hints, hints
        await pilot.press("q")
        assert app.screen is screen


async def test_a_misspelt_table_is_named_with_the_keymap_s_whole_path(fixture_copy, config_dir: Path) -> None:
    (config_dir / "keymap.toml").write_text('"browser.reader" = "f6"\n[keyz]\n"browser.compact" = "f7"\n')
    from loomtui.app.screens.reader import ReaderScreen

    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        await browser(pilot)
        said = notices(app)
        assert said == [
            f"{config_dir / 'keymap.toml'}: [keyz] is not a table loomtui reads (the bindings go under [keys]); "
            "its line is not applied"
        ], said
        await pilot.press("f6")  # the line before any table binds, as README says
        await settled(pilot)
        assert isinstance(app.screen, ReaderScreen)


async def test_a_key_bound_by_another_of_its_names_runs_the_file_s_line(fixture_copy, config_dir: Path) -> None:
    """Ctrl+I arrives as Tab from most terminals: ``"browser.export" = "ctrl+i"`` is reported as
    taking Tab from the pane switch, and Tab (what Ctrl+I sends) exports, as Ctrl+I does where the
    terminal tells them apart; help lists both names."""
    from loomtui.app.screens.dialogs import ExportDialog

    (config_dir / "keymap.toml").write_text('[keys]\n"browser.export" = "ctrl+i"\n')
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 40)) as pilot:
        await browser(pilot)
        said = notices(app)
        assert any("ctrl+i is bound to browser.export and browser.switch-focus (default, as tab)" in n for n in said)
        for key in ("tab", "ctrl+i"):
            await pilot.press(key)
            await settled(pilot)
            assert isinstance(app.screen, ExportDialog), key
            await pilot.press("escape")
            await settled(pilot)
        await pilot.press("f1")
        lines = app.screen.text.splitlines()
        assert next(line for line in lines if line.rstrip().endswith("browser.export")).strip().startswith("^I/Tab")
        assert (
            next(line for line in lines if line.rstrip().endswith("browser.switch-focus"))
            .strip()
            .startswith("(no key)")
        )
