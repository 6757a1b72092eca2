"""pi 1.6.0's horizontal viewport of /tree rows (docs/pi-releases.md).

pi keeps the two-column cursor gutter in place and shifts every row's body left when the
selected row's anchor (where its text starts, after the tree prefix, the fold marker and the
active-path dot) lies too far right to show useful text; rows are then cut at the width with
no ellipsis. ``shift`` is that offset for a model and a width (0 almost always: only trees
deeper than the width pan), ``columns`` (``view/width.py``) takes a window of a row's columns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from loomtui.view import layout as L
from loomtui.view.loom_state import MARK
from loomtui.view.plain_rows import marked_path, widest_row
from loomtui.view.text import Segment
from loomtui.view.width import GUTTER, columns, text_width

if TYPE_CHECKING:
    from loomtui.view.model import TreeModel


def anchor(model: TreeModel, i: int) -> int:
    """Columns of row ``i`` before its label and text: prefix, fold marker, mark, dot."""
    lay = model.rows
    e = model.entry_at(i)
    folded = e.id in model.folded
    cols = len(L.prefix(lay, i, folded))
    if folded and not (lay.connector[i] and not lay.virtual_root_child[i]):
        cols += 2
    if e.id == model.marked_id:
        cols += text_width(MARK)
    if e in marked_path(model):
        cols += 2
    return cols


def shift(model: TreeModel, width: int) -> int:
    """How many columns pi scrolls the rows' bodies left at ``width`` (``renderHorizontalViewport``)."""
    if model.compact or not len(model.rows):
        return 0
    viewport = max(0, width - GUTTER)
    selected = model.selected
    at = anchor(model, selected)
    min_visible = min(20, max(4, viewport // 3))
    if at <= viewport - min_visible:
        return 0
    context = min(12, max(2, viewport // 4))
    # pi shifts by ``at - context`` unless the widest row is narrower than that plus the
    # viewport: the rows are measured only until one is wide enough (the selected one, deep
    # in the tree, almost always is; else the deepest ones), not all of them
    enough = at - context + viewport
    widest = widest_row(model, text_width(model.row_text(selected, cursor=False)), enough)
    most = max(0, widest - viewport)
    return max(0, min(most, at - context))


def panned_row(model: TreeModel, i: int, width: int, by: int) -> list[Segment]:
    """Row ``i`` as pi draws it shifted ``by`` columns: the cursor, then its body's window."""
    segs = model.row_segments(i)
    return [segs[0], *columns(segs[1:], by, max(0, width - GUTTER))]
