"""The app without colours (NO_COLOR, 16 colours) and with every theme's background painted."""

from __future__ import annotations

from typing import Any

import pytest
from app_helpers import browser, make_app, screen_text
from rich.segment import Segment
from rich.style import Style
from textual.color import Color

from loomtui.app.filters import SafeMonochrome
from tests.waits import settled, until


def _strips(app: Any) -> list[Any]:
    return list(app.screen._compositor.render_strips())


def _filtered(app: Any) -> list[list[Any]]:
    """The screen as the terminal gets it: every line through the app's line filters."""
    out = []
    for strip in _strips(app):
        for f in app.get_line_filters():
            strip = strip.apply_filter(f, Color(0, 0, 0))
        out.append(list(strip))
    return out


async def test_no_color_runs_in_monochrome_with_a_visible_cursor(fixture_copy, monkeypatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await browser(pilot)
        assert app.monochrome
        assert any(isinstance(f, SafeMonochrome) for f in app.get_line_filters())
        # the same filter objects on every call: Textual caches filtered strips per filter
        assert all(a is b for a, b in zip(app.get_line_filters(), app.get_line_filters(), strict=True))
        for key in ("down", "down", "tab", "pagedown", "tab", "f1"):
            await pilot.press(key)
            await settled(pilot)
        await pilot.press("escape")
        await settled(pilot)
        lines = _filtered(app)  # what the terminal is sent: no segment without a style crashes it
        assert app.is_running and app.return_code is None
        # every colour that reaches the terminal is a grey
        for line in lines:
            for seg in line:
                for c in (seg.style.color, seg.style.bgcolor) if seg.style else ():
                    if c is not None and c.triplet is not None:
                        r, g, b = c.triplet
                        assert r == g == b, seg
        # the cursor row is reverse video; the active path keeps its • marks
        tree = screen.tree
        row = screen.model.selected - int(tree.scroll_offset.y)
        selected_line = tree.render_line(row)
        assert any(seg.style and seg.style.reverse for seg in selected_line if seg.text.strip())
        other = tree.render_line(row + 1 if row == 0 else 0)
        assert not any(seg.style and seg.style.reverse for seg in other)
        assert "•" in screen_text(app)


async def test_no_color_on_the_picker_and_dialogs(fixture_copy, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    fixture_copy("kinds.jsonl")
    app = make_app(None, sessions_dirs=[str(tmp_path)])
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(pilot)
        _filtered(app)
        await pilot.press("enter")
        screen = await browser(pilot)
        await pilot.press("alt+l")
        await settled(pilot)
        _filtered(app)
        await pilot.press("escape")
        await settled(pilot)
        assert screen.is_current and app.return_code is None


def test_safe_monochrome_takes_segments_without_a_style() -> None:
    from rich.segment import Segment
    from rich.style import Style

    out = SafeMonochrome().apply(
        [Segment("a"), Segment("b", Style(color="#ff0000", bgcolor="#0000ff"))], Color(0, 0, 0)
    )
    assert [s.text for s in out] == ["a", "b"]
    r, g, b = out[1].style.color.triplet
    assert r == g == b


@pytest.mark.parametrize("theme", ["light", "dark"])
async def test_the_theme_background_is_painted_under_every_cell(fixture_copy, theme) -> None:
    app = make_app(fixture_copy("kinds.jsonl"), theme=theme)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await browser(pilot)
        await settled(pilot)
        bg = Color.parse(app.current_theme.background).rich_color
        tree = screen.tree
        for y in range(tree.scrollable_content_region.height):
            for seg in tree.render_line(y):
                assert seg.style is not None and seg.style.bgcolor is not None, (y, seg)
        for y in range(screen.detail.scrollable_content_region.height):
            for seg in screen.detail.render_line(y):
                assert seg.style is not None and seg.style.bgcolor is not None, (y, seg)
        # no cell on the whole screen falls back to the terminal's default background
        for line in _strips(app):
            for seg in line:
                if seg.control:
                    continue
                assert seg.style is not None and seg.style.bgcolor is not None, seg
                assert not seg.style.bgcolor.is_default, seg
        # an unselected tree row sits on the theme's background (the focus tint aside)
        row = 0 if screen.model.selected else 1
        want = Color.from_rich_color(bg)
        for seg in tree.render_line(row - int(tree.scroll_offset.y)):
            got = Color.from_rich_color(seg.style.bgcolor)
            assert abs(got.brightness - want.brightness) < 0.1, (seg, got, want)


async def test_a_theme_change_recolours_the_detail_pane(fixture_copy) -> None:
    """The detail pane draws its roles in the new theme's colours right after a theme switch
    (its pieces keep the styles they were built with, so they are built again)."""
    from app_helpers import select
    from rich.color import Color as RichColor

    from loomtui.app.themes import tree_colors

    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "u1000002")
        await settled(pilot)

        def title_colour() -> object:
            for i in range(len(screen.detail._source)):
                for seg in screen.detail._source[i]:
                    if seg.text.strip() == "user" and seg.style is not None:
                        return seg.style.color
            raise AssertionError("no user title drawn")

        for name in ("loom-light", "loom-dark"):
            app.theme = name
            await settled(pilot)
            assert title_colour() == RichColor.parse(tree_colors(app.current_theme)["accent"])


async def test_a_theme_change_redraws_in_place_keeping_open_folds(fixture_copy) -> None:
    """A theme switch draws the detail pane again in the new role colours without building it
    again: an opened thinking block stays open; the tree's rows take the new colours too.
    The roles are component classes whose CSS takes the theme's variables, so a theme without
    a [tree] table gets colours derived from its own (here Textual's builtin ``nord``)."""
    from app_helpers import select
    from rich.color import Color as RichColor

    from loomtui.app.themes import tree_colors

    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "a1000001")
        await settled(pilot)
        detail, tree = screen.detail, screen.tree
        assert detail.folds
        detail.action_toggle_folds()
        await settled(pilot)
        opened = [f.open for f in detail.folds]
        assert any(opened)
        pieces = detail.blocks

        def colours(lines: Any, count: int) -> set[Any]:
            return {seg.style.color for i in range(count) for seg in lines(i) if seg.style and seg.text.strip()}

        for name in ("loom-light", "nord", "loom-dark"):
            app.theme = name
            await settled(pilot)
            roles = tree_colors(app.current_theme)
            assert detail.blocks is pieces and [f.open for f in detail.folds] == opened
            shown = colours(lambda i: detail._source[i], len(detail._source))
            assert RichColor.parse(roles["muted"]) in shown, name
            drawn = colours(tree.render_line, tree.scrollable_content_region.height)
            assert RichColor.parse(roles["accent"]) in drawn and RichColor.parse(roles["dim"]) in drawn, name
            assert tree.role_style("selectedBg").bgcolor == RichColor.parse(roles["selectedBg"])


def _unpainted(app: Any) -> list[tuple[int, str]]:
    """The cells of the top screen that fall back to the terminal's default background."""
    out = []
    for y, line in enumerate(_strips(app)):
        for seg in line:
            if seg.control or not seg.text:
                continue
            if seg.style is None or seg.style.bgcolor is None or seg.style.bgcolor.is_default:
                out.append((y, seg.text))
    return out


@pytest.mark.parametrize("theme", ["light", "dark"])
async def test_reader_compare_and_help_paint_the_theme_background(fixture_copy, theme) -> None:
    """Reader mode and the compare screen drew their text on the terminal's own background: the
    light theme in a dark terminal showed near-black role names on black (and the dark theme in
    a light terminal the reverse)."""
    from loomtui.app.screens.compare import CompareScreen
    from loomtui.app.screens.reader import ReaderScreen

    app = make_app(fixture_copy("kinds.jsonl"), theme=theme)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, ReaderScreen), what="reader mode")
        await settled(pilot)
        assert _unpainted(app) == []
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, what="back in the browser")
        await pilot.press("alt+m", "up", "up", "up", "alt+c")
        await until(pilot, lambda: isinstance(app.screen, CompareScreen), what="the compare screen")
        await settled(pilot)
        assert _unpainted(app) == []
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, what="back in the browser")
        await pilot.press("f1")
        await settled(pilot)
        assert _unpainted(app) == []


@pytest.mark.parametrize("theme", ["light", "dark"])
async def test_the_picker_paints_the_theme_background_below_its_rows(theme) -> None:
    """The rows below the last session were the terminal's own background."""
    from loomtui.app.screens.picker import PickerScreen

    app = make_app(None, theme=theme)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen.session_list.rows, what="rows")
        await settled(pilot)
        assert _unpainted(app) == []


async def test_no_color_markdown_headings_are_readable(fixture_copy, monkeypatch) -> None:
    """Without colours, rich's magenta Markdown headings came out as a dark grey (237) on the
    pane's grey (235): the heading text was nearly invisible. They are drawn in the pane's text
    colour, bold or underlined."""
    from app_helpers import select

    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "b1000001")  # a branch summary with "## Goal", "## Progress"
        await settled(pilot)
        detail = screen.detail
        text_colour = detail.rich_style.color
        filters = app.get_line_filters()
        headings = 0
        for y in range(detail.scrollable_content_region.height):
            strip = detail.render_line(y)
            for f in filters:
                strip = strip.apply_filter(f, Color(0, 0, 0))
            for seg in strip:
                if seg.text.strip() not in ("Goal", "Progress"):
                    continue
                headings += 1
                style = seg.style
                assert style.bold or style.underline, seg
                # the pane's own text colour (or the terminal's), never a grey near the background
                colour = style.color
                if colour is not None and not colour.is_default:
                    bg = Color.from_rich_color(style.bgcolor)
                    fg = Color.from_rich_color(colour)
                    assert abs(fg.brightness - bg.brightness) > 0.3, (seg, fg, bg)
                    plain = [Segment("x", Style(color=text_colour))]
                    for f in filters:
                        plain = f.apply(plain, Color(0, 0, 0))
                    assert fg == Color.from_rich_color(plain[0].style.color), seg
        assert headings >= 2, detail.text


def _contrast(a: Color, b: Color) -> float:
    """WCAG contrast ratio of two colours."""

    def lum(c: Color) -> float:
        def ch(v: int) -> float:
            x = v / 255
            return x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4

        return 0.2126 * ch(c.r) + 0.7152 * ch(c.g) + 0.0722 * ch(c.b)

    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("theme", ["light", "dark"])
async def test_inline_code_in_the_detail_pane_is_readable(fixture_copy, theme) -> None:
    """The light theme drew inline code as rich's bold cyan on pure black, a black bar in the
    light pane: it is drawn on a light grey, readable against it and the pane."""
    from app_helpers import select

    app = make_app(fixture_copy("kinds.jsonl"), theme=theme)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "a1000002")  # "It should be `parts[1:]`."
        await settled(pilot)
        detail = screen.detail
        pane_bg = Color.from_rich_color(detail.rich_style.bgcolor)
        found = []
        for y in range(detail.scrollable_content_region.height):
            for seg in detail.render_line(y):
                if seg.text.strip() == "parts[1:]":
                    found.append(seg)
        assert found, detail.text
        for seg in found:
            # an ANSI colour (rich's cyan on black, drawn in a dark theme) as the app paints it
            fg = Color(*seg.style.color.get_truecolor(app.ansi_theme))
            bg = Color(*seg.style.bgcolor.get_truecolor(app.ansi_theme, foreground=False))
            assert _contrast(fg, bg) > 3, (seg, fg, bg)
            if theme == "light":
                assert bg.brightness > 0.7 and (bg.r, bg.g, bg.b) != (0, 0, 0), (seg, bg)
                assert _contrast(bg, pane_bg) < 1.5, (bg, pane_bg)  # a light bar in the light pane
