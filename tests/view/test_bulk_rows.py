"""The bulk row path (`loomtui tree`) gives exactly the rows the app draws, in every state."""

from __future__ import annotations

from pathlib import Path

import pytest

from loomtui.session.manager import SessionManager
from loomtui.view.filter_modes import FILTER_MODES
from loomtui.view.model import TreeModel
from loomtui.view.width import ROW_ELLIPSIS, truncate_to_width
from tests.shared_material import SHARED, shared_params

FIXTURES = sorted((SHARED / "fixtures" / "pi").glob("*.jsonl"))


def per_row(model: TreeModel, width: int) -> list[str]:
    """Each row from the styled segments the app draws, joined and cut as pi cuts rows."""
    return [
        truncate_to_width("".join(t for _s, t in model.row_segments(i, max_cols=width)), width, ROW_ELLIPSIS)
        for i in range(len(model))
    ]


@pytest.mark.parametrize("path", shared_params(FIXTURES), ids=lambda p: p.stem)
@pytest.mark.parametrize("mode", FILTER_MODES)
def test_plain_rows_match_the_drawn_rows(path: Path, mode: str) -> None:
    model = TreeModel(SessionManager.open(str(path)), filter_mode=mode, home="/home/user")
    for width in (200, 60, 7, 3, 1):
        assert list(model.plain_rows(width)) == per_row(model, width)


@pytest.mark.parametrize("path", shared_params(FIXTURES), ids=lambda p: p.stem)
def test_plain_rows_with_folds_label_times_search_and_ranges(path: Path) -> None:
    model = TreeModel(SessionManager.open(str(path)), filter_mode="all", home="/home/user")
    model.toggle_label_times()
    # fold every other foldable row (Ctrl+←): folded rows draw ⊞ and hide their subtrees
    foldable = [model.entry_at(i).id for i in range(len(model)) if model.rows.is_foldable(i)]
    for entry_id in foldable[::2]:
        row = model.row_of(entry_id)
        if row is not None:
            model.select_row(row)
            model.fold_or_up()
    assert model.folded or not foldable
    n = len(model)
    assert list(model.plain_rows(120)) == per_row(model, 120)
    # any slice of the rows is the same slice of the whole (how `tree` splits the work)
    whole = list(model.plain_rows(120))
    for start, stop in ((0, n // 2), (n // 2, n), (n // 3, n // 3 + 5), (n, n + 3)):
        assert list(model.plain_rows(120, start, stop)) == whole[start:stop]
    model.type_text("a")  # a search resets the folds
    assert list(model.plain_rows(80)) == per_row(model, 80)
