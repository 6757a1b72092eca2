"""Tab moves the focus between the tree and the detail pane visibly: the detail pane's border
takes the accent colour and the tree's cursor row fades while the focus is away from it."""

from __future__ import annotations

from typing import Any

from app_helpers import browser, make_app, select
from textual.color import Color


def _cursor_background(screen: Any) -> Any:
    tree = screen.tree
    y = screen.model.selected - int(tree.scroll_offset.y)
    strip = tree.render_line(y)
    return {seg.style.bgcolor for seg in strip if seg.style is not None and seg.text.strip()}


async def test_tab_shows_which_pane_has_the_focus(fixture_copy: Any) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "a1000002")
        accent = Color.parse(app.theme_variables["accent"])
        assert screen.tree.has_focus
        tree_focused = _cursor_background(screen)
        assert screen.detail.styles.border_left[1] != accent
        await screen.run_action("switch_focus")
        await pilot.pause()
        assert screen.detail.has_focus
        assert screen.detail.styles.border_left[1] == accent
        assert _cursor_background(screen) != tree_focused  # the cursor row fades, still there
        await screen.run_action("switch_focus")
        await pilot.pause()
        assert screen.tree.has_focus and _cursor_background(screen) == tree_focused
        assert screen.detail.styles.border_left[1] != accent
