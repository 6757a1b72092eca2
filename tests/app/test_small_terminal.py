"""80x24 and the detail pane's width: keys, a drag on its border, remembered between runs."""

from __future__ import annotations

import json
from pathlib import Path

from app_helpers import browser, make_app, screen_text

from loomtui.app import ui_state
from tests.waits import settled


async def test_the_detail_pane_width_follows_keys_and_a_drag_and_is_remembered(fixture_copy, tmp_path) -> None:
    path = fixture_copy("kinds.jsonl")
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await settled(pilot)
        start = screen.detail.outer_size.width
        await pilot.press("shift+left", "shift+left")
        await settled(pilot)
        assert screen.detail.outer_size.width == start + 8
        assert screen.tree.outer_size.width == 120 - start - 8
        assert round(ui_state.load()["detail_fraction"] * 120) == start + 8
        await pilot.press("shift+right")
        await settled(pilot)
        assert screen.detail.outer_size.width == start + 4
        # never narrower than 30, and the tree keeps 30
        for _ in range(40):
            await pilot.press("shift+left")
        await settled(pilot)
        assert screen.detail.outer_size.width == 90 and screen.tree.outer_size.width == 30
        # drag the border (the pane's first column) to column 70
        x0 = screen.detail.region.x
        await pilot.mouse_down(offset=(x0, 5))
        await pilot.hover(offset=(70, 5))
        await pilot.mouse_up(offset=(70, 5))
        await settled(pilot)
        assert screen.detail.outer_size.width == 50
        assert round(ui_state.load()["detail_fraction"] * 120) == 50
    assert round(json.loads(ui_state.state_path().read_text())["detail_fraction"] * 120) == 50
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await settled(pilot)
        assert screen.detail.outer_size.width == 50  # remembered
        await pilot.resize_terminal(70, 24)
        await settled(pilot)
        assert screen.tree.outer_size.width >= 30 and screen.detail.outer_size.width >= 30


async def test_80x24_footer_header_and_deep_rows(tmp_path: Path) -> None:
    entries = [{"type": "session", "version": 3, "id": "deep", "timestamp": "2025-06-01T10:00:00.000Z", "cwd": "/"}]
    parent = None
    for level in range(30):
        main_id = f"m{level:07d}"
        entries.append(
            {
                "type": "message",
                "id": main_id,
                "parentId": parent,
                "timestamp": f"2025-06-01T10:{level:02d}:00.000Z",
                "message": {"role": "user", "content": f"level {level} " + "word " * 40},
            }
        )
        entries.append(
            {
                "type": "message",
                "id": f"s{level:07d}",
                "parentId": main_id,
                "timestamp": f"2025-06-01T10:{level:02d}:30.000Z",
                "message": {"role": "user", "content": f"side {level}"},
            }
        )
        parent = main_id
    path = tmp_path / "a-long-directory-name-for-the-test" / "deep.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(x) + "\n" for x in entries))
    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await browser(pilot)
        await pilot.press("end")
        await settled(pilot)
        lines = screen_text(app).splitlines()
        assert lines[0].rstrip().endswith("leaf s0000029")  # the header keeps the leaf
        footer = lines[-1]
        assert "F1 help" in footer and "(60/60)" in footer  # hints that fit, not cut mid-word
        assert "…" not in footer
        # the tree has two thirds of a narrow screen; the deepest row keeps 40 columns of text
        assert screen.tree.outer_size.width >= 50
        model = screen.model
        deepest = max(
            (i for i in range(len(model)) if model.entry_at(i).id.startswith("m")),
            key=lambda i: model.rows.display_indent(i),
        )
        model.select_row(deepest)
        screen.tree.selection_changed()
        await settled(pilot)
        row = "".join(s.text for s in screen.tree.render_line(model.selected - int(screen.tree.scroll_offset.y)))
        text = row.split("user: ", 1)[1] if "user: " in row else ""
        assert len(text.rstrip()) >= 25, row


async def test_every_dialog_shows_its_buttons_at_80x24(fixture_copy) -> None:
    """At 80x24 the carry dialog's 16-line summary pushed its "Ctrl+S: carry" line and its
    buttons below the screen: nothing said how to carry."""
    from loomtui.app.screens.summary_dialog import SummaryDialog

    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await browser(pilot)
        await pilot.press("alt+m", "up", "up", "alt+s")
        await settled(pilot)
        assert isinstance(app.screen, SummaryDialog)
        shown = screen_text(app)
        assert "Ctrl+S: carry" in shown and "Carry" in shown.split("Ctrl+S: carry", 1)[1], shown
        await pilot.press("escape")
        await settled(pilot)
        assert app.screen is screen


async def test_the_diagnostics_list_keeps_its_close_line_at_80x24(tmp_path) -> None:
    """F2 on a file with 40 bad lines at 80x24: the list ran below the screen with "Esc: close"."""
    from loomtui.app.screens.dialogs import DiagnosticsScreen

    bad = tmp_path / "bad.jsonl"
    lines = ['{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}']
    lines += [f"{{bad json {i}" for i in range(40)]
    lines.append(
        '{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z",'
        '"message":{"role":"user","content":"hi"}}'
    )
    bad.write_text("\n".join(lines) + "\n")
    app = make_app(bad)
    async with app.run_test(size=(80, 24)) as pilot:
        await browser(pilot)
        await pilot.press("f2")
        await settled(pilot)
        assert isinstance(app.screen, DiagnosticsScreen)
        assert "Esc: close" in screen_text(app)


async def test_the_footer_fits_the_hints_that_fit_beside_the_position(fixture_copy) -> None:
    """At 80 columns the footer left out ^S persist and ^P commands with some 25 cells empty: the
    hints kept 30 columns for a position of 7. The position is as wide as its text; the hints
    take the rest, in their priority order (a longer position leaves them less)."""
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await browser(pilot)
        await settled(pilot)
        footer = screen_text(app).splitlines()[-1]
        for hint in ("Enter leaf", "^E export", "^S persist", "^P commands", "F1 help"):
            assert hint in footer, footer
        position = screen._position_text
        assert footer.rstrip().endswith(position) and len(footer.rstrip()) <= 80, footer
        await pilot.press("ctrl+u")  # "(i/n) [user]": the hints that still fit, none cut
        await settled(pilot)
        footer = screen_text(app).splitlines()[-1]
        assert footer.rstrip().endswith(screen._position_text) and "[user]" in footer, footer
        assert "F1 help" in footer and "…" not in footer, footer
