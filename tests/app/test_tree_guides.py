"""Deep trees with compact indentation off: the rows in view are panned left together (as pi pans
its rows), so the guide of an ancestor's level stays in one column from row to row. The widget
clamped each row's prefix on its own, and the guides of neighbouring rows stood in different
columns, no longer joining a parent to its children."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from app_helpers import browser, make_app
from test_loom_tools import deep_session

from loomtui.app import ui_state
from loomtui.view import layout as L
from tests.shared_material import FIXTURES, needs_shared

SOCKETTEER = FIXTURES / "loom" / "socketteer-loom_demo.json"


def _shift(line: str, full: str) -> int | None:
    """How many columns of the row's whole prefix ``full`` the drawn ``line`` (cursor first)
    leaves out, read from the line itself; None where none of the prefix is drawn."""
    body = line[2:]
    for k in range(len(full)):
        kept = full[k:]
        if body.startswith(kept) or (body[:1] == "…" and body[1 : len(kept)] == kept[1:]):
            return k
    return None


def _check_view(screen: Any) -> int:
    """Consecutive rows in view that both draw the guide of a level above their own connectors
    draw it in the same column; the number of such pairs."""
    tree, model = screen.tree, screen.model
    top = int(tree.scroll_offset.y)
    height = tree.scrollable_content_region.height
    shown: list[tuple[int, str, str, int | None]] = []
    for y in range(min(height, len(model) - top)):
        row = top + y
        line = "".join(seg.text for seg in tree.render_line(y))
        full = L.prefix(model.rows, row, model.entry_at(row).id in model.folded)
        shown.append((row, line, full, _shift(line, full)))
    pairs = 0
    for (row, line, full, k), (_row2, line2, full2, k2) in zip(shown, shown[1:]):
        if k is None or k2 is None:
            continue
        depth = min(len(full), len(full2)) // 3 - 1  # the levels above both rows' connectors
        for level in range(depth):
            col = 3 * level
            if full[col] != "│" or full2[col] != "│" or col < max(k, k2) + 1:
                continue  # not a guide both rows draw (the first column may be a "…")
            at, at2 = 2 + col - k, 2 + col - k2
            assert line[at] == "│" and line2[at2] == "│"
            assert at == at2, (
                f"row {row}: the guide of level {level} is in column {at}, below in {at2}\n{line}\n{line2}"
            )
            pairs += 1
    return pairs


async def _walk_the_tree(path: Path, width: int, height: int) -> int:
    """Every page of the tree, from the top down, then the selected row moved a few rows; the
    pairs of rows checked."""
    ui_state.save(compact=False)  # the user chose pi's rows (Ctrl+W)
    app = make_app(path)
    checked = 0
    async with app.run_test(size=(width, height)) as pilot:
        screen = await browser(pilot)
        assert not screen.model.compact
        await pilot.press("home")
        await pilot.pause()
        for _ in range(len(screen.model) // max(1, height - 6) + 2):
            checked += _check_view(screen)
            await pilot.press("pagedown")
            await pilot.pause()
        await pilot.press("end")
        for _ in range(12):
            await pilot.press("up")
            await pilot.pause()
            checked += _check_view(screen)
    return checked


@pytest.mark.parametrize("width", [80, 120])
async def test_guides_stay_in_their_columns_in_a_deep_pi_session(tmp_path: Path, width: int) -> None:
    assert await _walk_the_tree(deep_session(tmp_path, levels=60), width, 30) > 100


@needs_shared(SOCKETTEER)
@pytest.mark.parametrize("width", [80, 120])
async def test_guides_stay_in_their_columns_in_a_deep_loom(tmp_path: Path, width: int) -> None:
    path = tmp_path / SOCKETTEER.name
    shutil.copyfile(SOCKETTEER, path)
    assert await _walk_the_tree(path, width, 40) > 100
