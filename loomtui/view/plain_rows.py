"""Printing a whole tree's rows as plain text: the bulk path of `loomtui tree` (``TreeModel.plain_rows``).

The same rules as ``TreeModel.row_segments`` draws a row by, with the per-row lookups hoisted
out of the loop: the rows' entries taken at C speed, one prefix string shared by the rows of a
chain, the row texts kept from an earlier run (``formats/opening/flat_cache.py``) used as they
are.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from loomtui.session.jsstr import js_string
from loomtui.view import layout as L
from loomtui.view import pan
from loomtui.view.compact import compact_prefix
from loomtui.view.loom_state import ARCHIVED_TAG, MARK
from loomtui.view.printable import printable
from loomtui.view.text import display_text, format_label_time
from loomtui.view.width import ROW_ELLIPSIS, one_column_each, truncate_to_width

if TYPE_CHECKING:
    from loomtui.view.model import TreeModel


# radon rates this E: kept in one piece on purpose. It runs once per printed row over a whole
# session (100k entries), about a microsecond a row once the row texts are kept: one helper call
# per row (the row's text and label, which still leaves it D) costs 8% there (benchmarks/bench_tree.py).
def plain_rows(
    model: TreeModel, width: int, start: int = 0, stop: int | None = None, shift: int = 0, tails: bool = False
) -> Iterator[str]:
    """Rows ``start..stop`` of ``model`` as ``TreeModel.row_line`` gives them, in order.

    The same rules as ``row_segments``, with the per-row lookups hoisted out of the loop and
    one prefix string shared by the rows of a chain (same gutters, same indent, no
    connector), which is what makes printing 66k rows cheap. ``shift``: the rows' bodies
    panned that many columns left, as pi draws a tree deeper than the width (``view/pan.py``).
    ``tails``: each uncut row without its cursor and prefix (its marks, label and text, made
    printable), what ``pan.shift`` measures: the prefix is three columns a level.
    """
    lay = model.rows
    flat = model.flat
    entries = flat.entries
    active = flat.active
    home = model.home
    texts = model.row_texts
    folded = model.folded
    labels = model.index.labels
    label_times = model.show_label_times
    connector = lay.connector
    vrc = lay.virtual_root_child
    gutters = lay.gutters
    indent = lay.indent
    selected = model.selected
    marked = model.marked_id
    archived = model.archive.ids() if model.show_archived else frozenset()
    make_prefix = compact_prefix if model.compact else L.prefix
    viewport = max(0, width - pan.GUTTER)
    prefix_cols = width + shift
    prev_gutters: Any = None
    prev_indent = -1
    pre = plain_head = ""
    ntexts = len(texts) if texts is not None else 0
    stop = len(lay) if stop is None else min(stop, len(lay))
    # the rows' entries at C speed (positions are plain indices until a live append)
    rows = (
        map(entries.__getitem__, lay.positions[start:stop])
        if not lay.encoded
        else (entries[lay.position(i)] for i in range(start, stop))
    )
    for i, e in zip(range(start, stop), rows):
        eid = e.id
        is_folded = eid in folded
        g = gutters[i]
        if not tails and (connector[i] or is_folded or g is not prev_gutters or indent[i] != prev_indent):
            pre = make_prefix(lay, i, is_folded, prefix_cols)
            plain_head = "  " + pre
            # only a plain chain row's prefix can be reused by the row below
            prev_gutters = None if (connector[i] or is_folded) else g
            prev_indent = indent[i]
        marks = "⊞ " if is_folded and not (connector[i] and not vrc[i]) else ""
        if eid == marked:
            marks += MARK
        if e in active:
            marks += "• "
        hit = labels.get(eid)
        k = e.index
        text = texts[k] if k < ntexts else None  # type: ignore[index]
        if text is None:
            text = display_text(e, flat.tool_calls, home)
            if k < ntexts:
                texts[k] = text  # type: ignore[index]  # kept: pan.shift measures every row first
        if hit is not None:
            body = f"[{js_string(hit[0])}] "
            if label_times and hit[1]:
                body += format_label_time(hit[1]) + " "
            body += text
        elif eid in archived:
            body = ARCHIVED_TAG + text
        else:
            body = text
        if tails:
            yield marks + (body if body.isascii() and body.isprintable() else printable(body))
            continue
        if shift:
            # the window [shift, shift + viewport) of the row after its cursor; the prefix
            # (thousands of columns deep in a tree) is one column per code point, so it is sliced
            # without being measured
            cursor = "  " if i != selected else "› "
            tail = marks + (body if body.isascii() and body.isprintable() else printable(body))
            if one_column_each(tail):
                yield cursor + (pre[shift:] + tail[max(0, shift - len(pre)) :])[:viewport]
            else:
                window = pan.columns([("", pre), ("", tail)], shift, viewport)
                yield cursor + "".join(t for _s, t in window)
            continue
        head = (plain_head if i != selected else "› " + pre) + marks if marks or i == selected else plain_head
        if width > 0 and body.isascii() and body.isprintable():
            # one column per code point: truncate_to_width's fast path, inline
            line = head + body
            yield line if len(line) <= width else line[:width]
        else:
            yield truncate_to_width(head + printable(body), width, ROW_ELLIPSIS, safe_prefix=len(head))
