"""A search query longer than the filter bar has room for keeps its end and the cursor in
sight: the shown query scrolls from the left behind a leading ``…``, as a text input does, and
never wraps out of the bar's one line."""

from __future__ import annotations

import pytest
from app_helpers import browser, make_app, screen_text

from tests.waits import settled, until

NO_SPACES = ("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789" * 2)[:120]
WITH_SPACES = ("weather forecast Oslo crash " * 5)[:119] + "Z"


def _search_line(text: str) -> str:
    lines = [line for line in text.splitlines() if "Search:" in line]
    assert len(lines) == 1, text
    return lines[0]


@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("query", [NO_SPACES, WITH_SPACES], ids=["no-spaces", "spaces"])
async def test_a_long_query_shows_its_end_and_the_cursor(fixture_copy, width: int, query: str) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(width, 30)) as pilot:
        screen = await browser(pilot)
        model = screen.model
        await pilot.press(*query)
        await until(pilot, lambda: model.query == query, what="the query typed")
        await settled(pilot)
        line = _search_line(screen_text(app))
        assert line.rstrip().endswith(query[-12:] + "▏"), line
        assert "Search: …" in line, line
        assert len(line) <= width
        # shorter again: shown whole, with no ellipsis
        for _ in range(len(query) - 10):
            await pilot.press("backspace")
        await until(pilot, lambda: model.query == query[:10], what="the query shortened")
        await settled(pilot)
        line = _search_line(screen_text(app))
        assert line.rstrip().endswith("Search: " + query[:10] + "▏"), line
