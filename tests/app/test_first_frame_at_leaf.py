"""A big session opened behind the progress bar: the tree's first drawn rows are the ones around
the selected row (the leaf), never the session's top rows replaced a frame later by a jump."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from app_helpers import make_app
from test_load_progress import big_session

from loomtui.app.widgets.tree_view import TreeView
from tests.waits import until


@pytest.mark.asyncio
async def test_the_first_rows_drawn_after_a_big_open_hold_the_leaf(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from loomtui.app.screens import browser_loading

    monkeypatch.setattr(browser_loading, "ASYNC_OPEN_BYTES", 10)  # read behind the progress bar
    path = big_session(tmp_path / "big.jsonl", entries=400)
    drawn: list[tuple[int, int, int]] = []  # (top row, selected row, viewport height) per drawn row
    real = TreeView._line

    def line(self: TreeView, y: int) -> Any:
        strip = real(self, y)
        if self.model is not None and len(self.model) and strip.text.strip():
            drawn.append((int(self.scroll_offset.y), self.model.selected, self.scrollable_content_region.height))
        return strip

    monkeypatch.setattr(TreeView, "_line", line)
    app = make_app(path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: len(drawn) > 20, what="the tree's rows")
        top, selected, height = drawn[0]
        assert selected == 399  # the leaf, the last of the chain
        # before: the first rows drawn were rows 0.. (top 0), and the next frame jumped to the leaf
        assert all(t <= s < t + h for t, s, h in drawn), drawn[:3]
