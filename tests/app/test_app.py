"""Pilot tests: palette, themes, diagnostics, error screens, live appends, big entries."""

from __future__ import annotations

import json
import time
from pathlib import Path

from app_helpers import append_lines, browser, make_app, notices, rows, screen_text, select

from loomtui.app.screens.browser import BrowserScreen
from loomtui.app.screens.dialogs import DiagnosticsScreen, ErrorScreen
from loomtui.app.themes import TREE_ROLES, ThemeError, load_theme_file, tree_colors
from loomtui.formats.opening import Opening
from loomtui.session.manager import SessionManager
from loomtui.session.split import SplitParse
from tests.shared_material import FIXTURES, require_shared
from tests.waits import settled, until


async def test_command_palette_offers_every_action_with_its_state(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        from loomtui.app.commands import LoomCommands

        provider = LoomCommands(screen)
        titles = [t for t, _cb, _h in provider.commands()]
        assert "● filter: default" in titles and "  filter: all" in titles
        assert "label timestamps: off (toggle)" in titles
        for needle in (
            "move the leaf",
            "edit the label",
            "export the branch",
            "copy the selected",
            "persist the leaf",
            "diagnostics",
            "expand truncated",
            "switch focus",
            "theme: loom-light",
            "help",
            "quit",
        ):
            assert any(needle in t for t in titles), needle
        await pilot.press("ctrl+p")
        await pilot.pause()
        from textual.command import CommandPalette

        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"filter all")
        await settled(pilot)
        await pilot.press("enter")
        await settled(pilot)
        assert screen.model.mode == "all"
        titles = [t for t, _cb, _h in LoomCommands(screen).commands()]
        assert "● filter: all" in titles


async def test_theme_option_palette_and_bad_user_theme(fixture_copy, config_dir: Path) -> None:
    themes = config_dir / "themes"
    themes.mkdir()
    (themes / "broken.toml").write_text('name = "broken"\nprimary = "not-a-colour"\n')
    (themes / "dusk.toml").write_text(
        'name = "dusk"\ndark = true\nprimary = "#7aa2f7"\nsurfce = "#000000"\n[tree]\naccent = "#ff9e64"\n'
    )
    app = make_app(fixture_copy("kinds.jsonl"), theme="light")
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        assert app.theme == "loom-light"
        assert any("broken.toml" in n and "not a colour" in n for n in notices(app))
        assert "dusk" in app.available_themes and "broken" not in app.available_themes
        assert any("dusk.toml: unknown key surfce ignored" in n for n in notices(app))
        app.set_theme("dusk")
        await pilot.pause()
        assert tree_colors(app.current_theme)["accent"] == "#ff9e64"
        assert screen.tree.role_style("accent").color.name == "#ff9e64"
    app = make_app(fixture_copy("kinds.jsonl"), theme="no-such-theme")
    async with app.run_test(size=(120, 34)) as pilot:
        await browser(pilot)
        assert app.theme == "loom-dark"
        assert any("no theme named 'no-such-theme'" in n for n in notices(app))


def test_theme_files_are_validated(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    for text, message in [
        ('name = "x"\nprimary = "#fff"\n[tree]\naccent = "nope"\n', "tree.accent"),
        ('primary = "#fff"\n', "name must be"),
        ("name = [\n", "not valid TOML"),
    ]:
        bad.write_text(text)
        try:
            load_theme_file(bad)
        except ThemeError as exc:
            assert message in str(exc)
        else:
            raise AssertionError(text)
    # an unknown key or role is left out with a notice; the rest of the theme is used
    ignored: list[str] = []
    bad.write_text('name = "x"\nprimary = "#ff0000"\ncolour = "#000"\n[tree]\naccent = "#00ff00"\nbogus = "#000"\n')
    theme = load_theme_file(bad, ignored)
    assert theme.name == "x" and theme.primary == "#ff0000" and tree_colors(theme)["accent"] == "#00ff00"
    assert ignored == [
        "bad.toml: unknown key colour ignored",
        "bad.toml: unknown [tree] role bogus ignored (known: " + ", ".join(TREE_ROLES) + ")",
    ]
    for name in ("dark", "light"):
        theme = load_theme_file(Path(__file__).resolve().parents[2] / "themes" / f"{name}.toml")
        assert set(tree_colors(theme)) >= {
            "accent",
            "success",
            "muted",
            "dim",
            "error",
            "warning",
            "customMessageLabel",
            "borderAccent",
            "text",
            "selectedBg",
        }


async def test_malformed_lines_open_with_a_notice_and_a_list(fixture_copy) -> None:
    app = make_app(fixture_copy("malformed.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        assert any("2 lines repaired or skipped: line 4: not valid JSON" in n for n in notices(app))
        assert "2 diagnostics" in screen_text(app)
        await pilot.press("f2")
        assert isinstance(app.screen, DiagnosticsScreen)
        text = screen_text(app)
        assert "line      4" in text and "line      5" in text and "not a JSON object" in text
        await pilot.press("escape")
        assert app.screen is screen


async def test_v4_and_headerless_files_show_an_error_screen(fixture_copy) -> None:
    for name, needle in (("v4.jsonl", "pi v4 session log"), ("noheader.jsonl", "header")):
        app = make_app(fixture_copy(name))
        async with app.run_test(size=(110, 24)) as pilot:
            await settled(pilot)
            assert isinstance(app.screen, ErrorScreen)
            text = screen_text(app)
            assert f"Cannot open {name}" in text and needle in text
            assert "Traceback" not in text
            await pilot.press("escape")
            await pilot.pause()
        assert app.return_code == 2


async def test_no_file_opens_the_picker(fixture_copy) -> None:
    app = make_app(None)
    async with app.run_test(size=(120, 34)) as pilot:
        await settled(pilot)
        assert type(app.screen).__name__ == "PickerScreen"


async def test_apply_appended_keeps_selection_filter_and_search(fixture_copy) -> None:
    path = fixture_copy("kinds.jsonl")
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        model = screen.model
        await pilot.press("ctrl+t")  # no-tools
        await select(pilot, screen, "a1000002")
        append_lines(
            path,
            {
                "type": "message",
                "id": "u1000009",
                "parentId": "s1000001",
                "timestamp": "2025-06-01T10:01:00.000Z",
                "message": {"role": "user", "content": "one more thing"},
            },
            {
                "type": "message",
                "id": "a1000009",
                "parentId": "u1000009",
                "timestamp": "2025-06-01T10:01:01.000Z",
                "message": {"role": "assistant", "content": [{"type": "text", "text": "sure"}], "stopReason": "stop"},
            },
        )
        screen.apply_appended()
        await pilot.pause()
        assert model.mode == "no-tools"
        assert model.selected_id == "a1000002"
        assert rows(screen)[-3:] == ["u1000009", "a1000009", "u1000003"] or "a1000009" in rows(screen)
        assert model.leaf_id == "a1000009"  # the leaf follows the file
        # a search is kept too
        await pilot.press("s", "u", "r", "e")
        append_lines(
            path,
            {
                "type": "message",
                "id": "a100000a",
                "parentId": "a1000009",
                "timestamp": "2025-06-01T10:01:02.000Z",
                "message": {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "sure again"}],
                    "stopReason": "stop",
                },
            },
        )
        screen.apply_appended()
        await pilot.pause()
        assert model.query == "sure" and rows(screen) == ["a1000009", "a100000a"]
        await pilot.press("escape")
        # after Enter the leaf stays where the user put it
        await select(pilot, screen, "a1000002")
        await pilot.press("enter")
        append_lines(
            path,
            {
                "type": "message",
                "id": "a100000b",
                "parentId": "a100000a",
                "timestamp": "2025-06-01T10:01:03.000Z",
                "message": {"role": "assistant", "content": [{"type": "text", "text": "third"}], "stopReason": "stop"},
            },
        )
        screen.apply_appended()
        await pilot.pause()
        assert model.leaf_id == "a1000002" and "a100000b" in rows(screen)


async def test_apply_appended_reloads_a_rewritten_file(fixture_copy) -> None:
    path = fixture_copy("kinds.jsonl")
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "a1000002")
        lines = path.read_text().splitlines()
        path.write_text("\n".join(lines[:10]) + "\n")  # truncated by another program
        screen.apply_appended()
        await pilot.pause()
        assert any("reloaded" in n for n in notices(app))
        assert len(screen.manager.index.entries) == 9
        assert screen.model.selected_id == "a1000002"
        path.unlink()
        screen.apply_appended()
        await pilot.pause()
        assert any("is gone" in n for n in notices(app))
        assert screen.model is not None


async def test_a_1mb_tool_output_does_not_freeze_the_ui(tmp_path: Path) -> None:
    output = "".join(f"line {i:06d} " + "y" * 60 + "\n" for i in range(15_000))  # ~1 MB
    path = tmp_path / "big.jsonl"
    lines = [
        {"type": "session", "version": 3, "id": "big", "timestamp": "2025-06-01T10:00:00.000Z", "cwd": "/"},
        {
            "type": "message",
            "id": "a1",
            "parentId": None,
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
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        t0 = time.perf_counter()
        await select(pilot, screen, "r1")
        shown = time.perf_counter() - t0
        block = screen.detail.long_texts[-1]
        assert block.cut and len(block.head) <= 4000
        assert "▼ show all (15,001 lines" in screen.detail.text
        assert shown < 1.0, shown
        # expanding shows the whole text as raw lines drawn only when visible; the UI still answers
        await pilot.press("tab")
        t0 = time.perf_counter()
        await pilot.press("alt+x")
        expanded = time.perf_counter() - t0
        assert block.expanded and len(screen.detail._source) > 15_000
        assert expanded < 0.5, expanded
        assert "line 014999" in screen.detail.text
        await pilot.press("tab", "up")
        # the assistant's tool call shows the same result, cut as well
        screen.detail.show(screen.manager, screen.model, screen.manager.index.by_id["a1"])
        await pilot.pause()
        assert any(b.cut for b in screen.detail.long_texts)


async def test_deep_indentation_is_panned_and_long_rows_cut(tmp_path: Path) -> None:
    """A branch point on every level: pi's prefix grows 3 cells per level; the pane pans it."""
    entries = [{"type": "session", "version": 3, "id": "deep", "timestamp": "2025-06-01T10:00:00.000Z", "cwd": "/"}]
    parent = None
    n = 0
    for level in range(40):
        n += 1
        main_id = f"m{level:07d}"
        entries.append(
            {
                "type": "message",
                "id": main_id,
                "parentId": parent,
                "timestamp": f"2025-06-01T10:{n // 60:02d}:{n % 60:02d}.000Z",
                "message": {"role": "user", "content": f"level {level} " + "word " * 40},
            }
        )
        n += 1
        entries.append(
            {
                "type": "message",
                "id": f"s{level:07d}",
                "parentId": main_id,
                "timestamp": f"2025-06-01T10:{n // 60:02d}:{n % 60:02d}.000Z",
                "message": {"role": "user", "content": f"side {level}"},
            }
        )
        parent = main_id
    path = tmp_path / "deep.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in entries))
    from loomtui.app import ui_state

    ui_state.save(compact=False)  # the user chose pi's rows (too deep rows pick compact by themselves)
    app = make_app(path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await browser(pilot)
        await pilot.press("end")
        await pilot.pause()
        tree = screen.tree
        width = tree.scrollable_content_region.width
        for y in range(tree.scrollable_content_region.height):
            strip = tree.render_line(y)
            assert strip.cell_length == width
        deepest = max(range(len(screen.model)), key=lambda i: screen.model.rows.display_indent(i))
        screen.model.select_row(deepest)
        tree.selection_changed()
        await pilot.pause()
        text = "".join(seg.text for seg in tree.render_line(screen.model.selected - int(tree.scroll_offset.y)))
        # the rows are panned left together (their guides stay in their columns) so that the
        # selected row's text shows: its prefix takes no more than half the row
        assert text.startswith("› ") and "user: " in text, text
        assert text.index("user: ") <= 2 + width // 2 + 5, text
        assert text.rstrip().endswith("…") or len(text.rstrip()) < width


async def test_open_big_files_in_a_worker(fixture_copy, monkeypatch) -> None:
    from loomtui.app.screens import browser_loading as browser_module

    monkeypatch.setattr(browser_module, "ASYNC_OPEN_BYTES", 10)
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        assert isinstance(screen, BrowserScreen) and len(screen.model) == 16


async def test_detail_pane_folds_and_expands_with_keys_and_clicks(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(130, 40)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "a1000001")
        detail = screen.detail
        text = detail.text
        assert "id a1000001  parent u1000001" in text
        assert "depth 3 from the root  sibling 1/1  children 1" in text
        assert "▶ thinking (95 characters)" in text and "The test fails on an index error" not in text
        # each tool call with its arguments and its result (found by toolCallId)
        assert "$ pytest -x tests/test_parser.py" in text and "IndexError: list index out of range" in text
        assert "path /home/user/proj/parser.py" in text and "return parts[1:len(parts) + 1]" in text
        await pilot.press("tab", "alt+z")
        assert "The test fails on an index error" in detail.text
        await pilot.press("alt+z")
        assert "The test fails on an index error" not in detail.text
        # a click on the fold's title opens it
        row = next(i for i, line in enumerate(detail.text.splitlines()) if "▶ thinking" in line)
        await pilot.click("#detail", offset=(4, row - int(detail.scroll_offset.y)))
        await pilot.pause()
        assert "▼ thinking (95 characters)" in detail.text
        # images and user content
        await select(pilot, screen, "u1000005")
        assert "[image image/png, 70 B]" in detail.text
        await select(pilot, screen, "c1000001")
        assert "compaction: 45,210 tokens before" in detail.text and "first kept entry u1000002" in detail.text


async def test_other_looms_open_and_say_where_writes_go(tmp_path: Path) -> None:
    loom = FIXTURES / "loom" / "socketteer-loom_demo.json"
    require_shared(loom)
    app = make_app(loom)
    async with app.run_test(size=(140, 30)) as pilot:
        screen = await browser(pilot)
        assert len(screen.model) > 100
        await pilot.press("ctrl+s")
        assert any(n.startswith("No bookmarks to save") and "pi session file" not in n for n in notices(app))
        await pilot.press("ctrl+e")
        from textual.widgets import Input

        app.screen.query_one("#dest", Input).value = str(tmp_path)
        await pilot.click("#export")
        await pilot.pause()
        written = app.screen.written
        assert written is not None
        header = json.loads(Path(written).read_text().splitlines()[0])
        assert header["type"] == "session" and header["version"] == 3 and header["parentSession"] == str(loom)


def _tree_on_screen(app, tree) -> list[str]:  # type: ignore[no-untyped-def]
    """The tree's viewport as the compositor last drew it, one string per line."""
    strips = app.screen._compositor.render_strips()
    x, y = tree.region.x, tree.region.y
    width = tree.scrollable_content_region.width
    return [
        "".join(seg.text for seg in strips[y + i].crop(x, x + width))
        for i in range(tree.scrollable_content_region.height)
    ]


def _tree_from_model(tree) -> list[str]:  # type: ignore[no-untyped-def]
    return ["".join(seg.text for seg in tree._line(i)) for i in range(tree.scrollable_content_region.height)]


async def test_live_appends_repaint_only_changed_tree_lines_and_the_screen_stays_right(fixture_copy, tmp_path) -> None:
    path = fixture_copy("kinds.jsonl")
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        tree = screen.tree
        await pilot.pause()
        assert _tree_on_screen(app, tree) == _tree_from_model(tree)
        # the leaf grows in the middle of the screen: the rows below it move down
        append_lines(
            path,
            {
                "type": "message",
                "id": "u1000010",
                "parentId": "a1000005",
                "timestamp": "2025-06-01T10:02:00.000Z",
                "message": {"role": "user", "content": "retry"},
            },
        )
        screen.apply_appended()
        await pilot.pause()
        assert rows(screen)[12:15] == ["a1000005", "u1000010", "u1000003"]
        assert _tree_on_screen(app, tree) == _tree_from_model(tree)
        assert "│     • user: retry" in _tree_on_screen(app, tree)[13]
        # the other branch grows and takes the leaf: its branch moves first (pi's order)
        append_lines(
            path,
            {
                "type": "message",
                "id": "u1000011",
                "parentId": "b1000001",
                "timestamp": "2025-06-01T10:03:00.000Z",
                "message": {"role": "user", "content": "other"},
            },
        )
        screen.apply_appended()
        await pilot.pause()
        assert rows(screen)[5:9] == ["u1000003", "r1000004", "b1000001", "u1000011"]
        assert _tree_on_screen(app, tree) == _tree_from_model(tree)

    # a long chain seen from its top: an append far below repaints no tree line at all
    header = {"type": "session", "version": 3, "id": "long", "timestamp": "2025-06-01T10:00:00.000Z", "cwd": "/p"}
    chain = tmp_path / "chain.jsonl"
    chain.write_text(json.dumps(header) + "\n")
    append_lines(
        chain,
        *(
            {
                "type": "message",
                "id": f"m{i:07d}",
                "parentId": f"m{i - 1:07d}" if i else None,
                "timestamp": "2025-06-01T10:00:00.000Z",
                "message": {"role": "user", "content": f"message {i}"},
            }
            for i in range(80)
        ),
    )
    app = make_app(chain)
    async with app.run_test(size=(100, 20)) as pilot:
        screen = await browser(pilot)
        tree = screen.tree
        await pilot.press("home")
        await pilot.pause()
        top = _tree_on_screen(app, tree)
        calls: list[tuple[object, ...]] = []
        original = tree.refresh

        def refresh(*regions, **kw):  # type: ignore[no-untyped-def]
            calls.append(regions)
            return original(*regions, **kw)

        tree.refresh = refresh  # type: ignore[method-assign]
        append_lines(
            chain,
            {
                "type": "message",
                "id": "m0000080",
                "parentId": "m0000079",
                "timestamp": "2025-06-01T10:00:00.000Z",
                "message": {"role": "user", "content": "new"},
            },
        )
        screen.apply_appended()
        await pilot.pause()
        assert screen.model.leaf_id == "m0000080" and len(screen.model) == 81
        assert calls == []  # nothing on screen changed: no line repainted
        assert _tree_on_screen(app, tree) == top == _tree_from_model(tree)
        tree.refresh = original  # type: ignore[method-assign]


async def test_the_collector_waits_for_quiet_input_and_thresholds_come_back(fixture_copy) -> None:
    """Young collections run between keystrokes (collector.py), not inside them."""
    import gc

    from loomtui.app.collector import MIN_YOUNG, YOUNG_THRESHOLD

    before = gc.get_threshold()
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        assert gc.get_threshold()[0] == YOUNG_THRESHOLD
        done = app.collector.collections
        keep = [[i] for i in range(MIN_YOUNG * 2)]  # young container objects, kept alive
        await pilot.press("a")  # typed into the search
        assert app.collector.collections == done  # not while input is arriving
        await until(pilot, lambda: app.collector.collections != done, what="the collector's quiet-time collection")
        assert app.collector.collections == done + 1
        assert gc.get_count()[0] < MIN_YOUNG  # the young generation was collected
        assert screen.model.query == "a"
        del keep
    assert gc.get_threshold() == before


class RecordingSplit:
    """Stands in for session.split.SplitParse (whose child needs a thread-free process):
    its "child" failed, so the browser's open reads the tail itself."""

    def __init__(self, path: Path) -> None:
        st = path.stat()
        self.at = st.st_size
        self.file_id = (st.st_dev, st.st_ino)
        self.calls: list[str] = []

    # the real sequence: parse the head, take the child's result (none), read the rest here
    read = SplitParse.read

    def collect(self, state: object, poll: object = None, idle: object = None) -> None:
        self.calls.append("collect")
        self.done = True
        return None

    def cancel(self) -> None:
        if not getattr(self, "done", False):  # like SplitParse: a no-op once used
            self.calls.append("cancel")
            self.done = True


async def test_the_first_open_takes_the_tail_parser_started_before_textual(fixture_copy) -> None:
    path = Path(fixture_copy("kinds.jsonl"))
    split = RecordingSplit(path)
    app = make_app(path, opening=Opening(str(path), split))  # type: ignore[arg-type]
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        assert split.calls == ["collect"]  # used once, by the load
        plain = SessionManager.open(str(path))
        assert [e.id for e in screen.manager.index.entries] == [e.id for e in plain.index.entries]
        screen.reload()  # later reads do not touch it again
        await pilot.pause()
    assert split.calls == ["collect"]


def test_a_browser_closed_before_loading_stops_the_tail_parser(fixture_copy) -> None:
    from loomtui.app.screens.browser import BrowserScreen

    split = RecordingSplit(Path(fixture_copy("kinds.jsonl")))
    path = fixture_copy("kinds.jsonl")
    screen = BrowserScreen(path, opening=Opening(str(path), split))  # type: ignore[arg-type]
    screen.on_unmount()  # never mounted, never loaded
    screen.on_unmount()
    assert split.calls == ["cancel"]


async def test_the_header_counts_the_lines_live_follow_skipped_as_f2_lists_them(fixture_copy) -> None:
    path = fixture_copy("kinds.jsonl")
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        assert "diagnostic" not in screen_text(app).splitlines()[0]
        with open(path, "a") as f:
            f.write('{"type":"message","id":"f0000009","parentId":\n DONE"}\n')  # two lines, neither JSON
        screen.apply_appended()
        await until(pilot, lambda: "2 diagnostics" in screen_text(app).splitlines()[0])
        await pilot.press("f2")
        await until(pilot, lambda: isinstance(app.screen, DiagnosticsScreen))
        assert len(app.screen.diagnostics) == 2 and "2 diagnostics" in screen_text(app)
