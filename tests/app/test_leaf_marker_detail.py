"""Ctrl+S's label entry in the all filter: the row keeps pi's ``[label: (cleared)]``, the detail
pane says it is a leaf marker that cleared nothing (view/label_history.py)."""

from __future__ import annotations

from app_helpers import browser, make_app, select
from conftest import read_jsonl

from tests.waits import settled, until


async def test_ctrl_s_marker_reads_as_a_leaf_marker_in_the_all_filter(fixture_copy) -> None:
    path = fixture_copy("kinds.jsonl")
    app = make_app(path)
    async with app.run_test(size=(140, 34)) as pilot:
        screen = await browser(pilot)
        assert screen.model.label("r1000004") is None
        await select(pilot, screen, "r1000004")
        await pilot.press("enter", "ctrl+s", "enter")  # move the leaf, persist it, confirm
        await until(pilot, lambda: read_jsonl(path)[-1].get("type") == "label", what="the marker written")
        marker = read_jsonl(path)[-1]
        assert (marker["parentId"], marker["targetId"], "label" in marker) == ("r1000004", "r1000004", False)
        await pilot.press("ctrl+a")
        await until(pilot, lambda: screen.model.mode == "all", what="the all filter")
        await select(pilot, screen, marker["id"])
        await settled(pilot)
        assert screen.model.row_text(screen.model.selected).endswith("[label: (cleared)]")  # pi's words
        await until(pilot, lambda: "leaf marker" in screen.detail.text, what="the marker's detail")
        text = screen.detail.text
        assert "leaf marker: moved where pi resumes to r1000004" in text
        assert "It cleared nothing (r1000004 had no label)" in text
        assert "label cleared" not in text and "clears the label" not in text
