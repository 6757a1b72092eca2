"""Pilot tests: palette, themes, diagnostics, error screens, live appends, big entries."""

from __future__ import annotations

import json
import time
from pathlib import Path

from app_helpers import append_lines, browser, make_app, notices, rows, screen_text, select

from loomtui.app.screens.browser import BrowserScreen
from loomtui.app.screens.dialogs import DiagnosticsScreen, ErrorScreen
from loomtui.app.themes import ThemeError, load_theme_file, tree_colors
from loomtui.app.widgets.detail import LongText


async def test_command_palette_offers_every_action_with_its_state(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        from loomtui.app.commands import LoomCommands

        provider = LoomCommands(screen)
        titles = [t for t, _cb, _h in provider.commands()]
        assert "● filter: default" in titles and "  filter: all" in titles
        assert "label timestamps: off (toggle)" in titles
        for needle in ("move the leaf", "edit the label", "export the branch", "copy the selected", "persist the leaf",
                       "diagnostics", "expand truncated", "switch focus", "theme: loom-light", "help", "quit"):
            assert any(needle in t for t in titles), needle
        await pilot.press("ctrl+p")
        await pilot.pause()
        from textual.command import CommandPalette

        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"filter all")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert screen.model.mode == "all"
        titles = [t for t, _cb, _h in LoomCommands(screen).commands()]
        assert "● filter: all" in titles


async def test_theme_option_palette_and_bad_user_theme(fixture_copy, config_dir: Path) -> None:
    themes = config_dir / "themes"
    themes.mkdir()
    (themes / "broken.toml").write_text('name = "broken"\nprimary = "not-a-colour"\n')
    (themes / "dusk.toml").write_text('name = "dusk"\ndark = true\nprimary = "#7aa2f7"\n[tree]\naccent = "#ff9e64"\n')
    app = make_app(fixture_copy("kinds.jsonl"), theme="light")
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        assert app.theme == "loom-light"
        assert any("broken.toml" in n and "not a colour" in n for n in notices(app))
        assert "dusk" in app.available_themes and "broken" not in app.available_themes
        app.set_theme("dusk")
        await pilot.pause()
        assert tree_colors(app.current_theme)["accent"] == "#ff9e64"
        assert screen.tree._styles["accent"].color.name == "#ff9e64"
    app = make_app(fixture_copy("kinds.jsonl"), theme="no-such-theme")
    async with app.run_test(size=(120, 34)) as pilot:
        await browser(pilot)
        assert app.theme == "loom-dark"
        assert any("no theme named 'no-such-theme'" in n for n in notices(app))


def test_theme_files_are_validated(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    for text, message in [
        ('name = "x"\nprimary = "#fff"\ncolour = "#000"\n', "unknown keys colour"),
        ('name = "x"\nprimary = "#fff"\n[tree]\naccent = "nope"\n', "tree.accent"),
        ('name = "x"\nprimary = "#fff"\n[tree]\nbogus = "#000"\n', "unknown [tree] roles bogus"),
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
    for name in ("dark", "light"):
        theme = load_theme_file(Path(__file__).resolve().parents[2] / "themes" / f"{name}.toml")
        assert set(tree_colors(theme)) >= {"accent", "success", "muted", "dim", "error", "warning",
                                            "customMessageLabel", "borderAccent", "text", "selectedBg"}


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
            await pilot.pause(0.2)
            assert isinstance(app.screen, ErrorScreen)
            text = screen_text(app)
            assert f"Cannot open {name}" in text and needle in text
            assert "Traceback" not in text
            await pilot.press("escape")
            await pilot.pause()
        assert app.return_code == 2


async def test_no_file_opens_the_picker_or_a_sample(fixture_copy) -> None:
    app = make_app(None)
    async with app.run_test(size=(120, 34)) as pilot:
        await pilot.pause(0.3)
        name = type(app.screen).__name__
        assert name in ("PickerScreen", "BrowserScreen", "MessageScreen")


async def test_apply_appended_keeps_selection_filter_and_search(fixture_copy) -> None:
    path = fixture_copy("kinds.jsonl")
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        model = screen.model
        await pilot.press("ctrl+t")  # no-tools
        await select(pilot, screen, "a1000002")
        append_lines(path,
                     {"type": "message", "id": "u1000009", "parentId": "s1000001", "timestamp": "2025-06-01T10:01:00.000Z",
                      "message": {"role": "user", "content": "one more thing"}},
                     {"type": "message", "id": "a1000009", "parentId": "u1000009", "timestamp": "2025-06-01T10:01:01.000Z",
                      "message": {"role": "assistant", "content": [{"type": "text", "text": "sure"}],
                                  "stopReason": "stop"}})
        screen.apply_appended()
        await pilot.pause()
        assert model.mode == "no-tools"
        assert model.selected_id == "a1000002"
        assert rows(screen)[-3:] == ["u1000009", "a1000009", "u1000003"] or "a1000009" in rows(screen)
        assert model.leaf_id == "a1000009"  # the leaf follows the file
        # a search is kept too
        await pilot.press("s", "u", "r", "e")
        append_lines(path, {"type": "message", "id": "a100000a", "parentId": "a1000009",
                            "timestamp": "2025-06-01T10:01:02.000Z",
                            "message": {"role": "assistant", "content": [{"type": "text", "text": "sure again"}],
                                        "stopReason": "stop"}})
        screen.apply_appended()
        await pilot.pause()
        assert model.query == "sure" and rows(screen) == ["a1000009", "a100000a"]
        await pilot.press("escape")
        # after Enter the leaf stays where the user put it
        await select(pilot, screen, "a1000002")
        await pilot.press("enter")
        append_lines(path, {"type": "message", "id": "a100000b", "parentId": "a100000a",
                            "timestamp": "2025-06-01T10:01:03.000Z",
                            "message": {"role": "assistant", "content": [{"type": "text", "text": "third"}],
                                        "stopReason": "stop"}})
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
        {"type": "message", "id": "a1", "parentId": None, "timestamp": "2025-06-01T10:00:02.000Z",
         "message": {"role": "assistant", "stopReason": "toolUse", "content": [
             {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "cat big.log"}}]}},
        {"type": "message", "id": "r1", "parentId": "a1", "timestamp": "2025-06-01T10:00:03.000Z",
         "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
                     "content": [{"type": "text", "text": output}], "isError": False}},
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        t0 = time.perf_counter()
        await select(pilot, screen, "r1")
        shown = time.perf_counter() - t0
        block = screen.detail.query(LongText).last()
        assert block.cut and len(block.head) <= 4000
        assert shown < 1.0, shown
        # expanding puts the whole text in a virtualised LineViewer; the UI still answers
        await pilot.press("tab")
        t0 = time.perf_counter()
        await pilot.press("x")
        expanded = time.perf_counter() - t0
        from loomtui.app.widgets.detail import LineViewer

        area = screen.detail.query_one(LineViewer)
        assert len(area.lines) >= 15_000
        assert expanded < 0.5, expanded
        await pilot.press("tab", "up")
        # the assistant's tool call shows the same result, cut as well
        screen.detail.show(screen.manager, screen.model, screen.manager.index.by_id["a1"])
        await pilot.pause()
        assert any(b.cut for b in screen.detail.query(LongText))


async def test_deep_indentation_is_clamped_and_long_rows_cut(tmp_path: Path) -> None:
    """A branch point on every level: pi's prefix grows 3 cells per level; the pane clamps it."""
    entries = [{"type": "session", "version": 3, "id": "deep", "timestamp": "2025-06-01T10:00:00.000Z", "cwd": "/"}]
    parent = None
    n = 0
    for level in range(40):
        n += 1
        main_id = f"m{level:07d}"
        entries.append({"type": "message", "id": main_id, "parentId": parent, "timestamp": f"2025-06-01T10:{n // 60:02d}:{n % 60:02d}.000Z",
                        "message": {"role": "user", "content": f"level {level} " + "word " * 40}})
        n += 1
        entries.append({"type": "message", "id": f"s{level:07d}", "parentId": main_id, "timestamp": f"2025-06-01T10:{n // 60:02d}:{n % 60:02d}.000Z",
                        "message": {"role": "user", "content": f"side {level}"}})
        parent = main_id
    path = tmp_path / "deep.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in entries))
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
        assert text.startswith("› …")
        assert text.rstrip().endswith("…") or len(text.rstrip()) < width


async def test_open_big_files_in_a_worker(fixture_copy, monkeypatch) -> None:
    from loomtui.app.screens import browser as browser_module

    monkeypatch.setattr(browser_module, "ASYNC_OPEN_BYTES", 10)
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        assert isinstance(screen, BrowserScreen) and len(screen.model) == 16
