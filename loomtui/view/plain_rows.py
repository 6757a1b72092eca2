"""Printing a whole tree's rows as plain text: the bulk path of `loomtui tree` (``TreeModel.plain_rows``).

The same rules as ``TreeModel.row_segments`` draws a row by, with the per-row lookups hoisted
out of the loop: the rows' entries taken at C speed, one prefix string shared by the rows of a
chain, the row texts kept from an earlier run or written by the tail child
(``view/flatcache.py``, ``view/tail_texts.py``) used as they are.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from loomtui.session.jsstr import js_string
from loomtui.view import layout as L
from loomtui.view.compact import compact_prefix
from loomtui.view.loom_state import ARCHIVED_TAG, MARK
from loomtui.view.printable import printable
from loomtui.view.text import display_text, format_label_time
from loomtui.view.width import truncate_to_width

if TYPE_CHECKING:
    from loomtui.view.model import TreeModel


# radon rates this D: kept in one piece on purpose. It runs once per printed row over a whole
# session (100k entries); a helper call per branch adds measurable time there
# (benchmarks/bench_tree.py, bench_open.py, bench_app.py). docs/architecture.md, "Where each rule lives".
def plain_rows(model: TreeModel, width: int, start: int = 0, stop: int | None = None) -> Iterator[str]:
    """Rows ``start..stop`` of ``model`` as ``TreeModel.row_line`` gives them, in order.

    The same rules as ``row_segments``, with the per-row lookups hoisted out of the loop and
    one prefix string shared by the rows of a chain (same gutters, same indent, no
    connector), which is what makes printing 66k rows cheap.
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
    prev_gutters: Any = None
    prev_indent = -1
    pre = plain_head = ""
    ntexts = len(texts) if texts is not None else 0
    stop = len(lay) if stop is None else min(stop, len(lay))
    # the rows' entries at C speed (positions are plain indices until a live append)
    rows = map(entries.__getitem__, lay.positions[start:stop]) if not lay.encoded else \
        (entries[lay.position(i)] for i in range(start, stop))
    for i, e in zip(range(start, stop), rows):
        eid = e.id
        is_folded = eid in folded
        g = gutters[i]
        if connector[i] or is_folded or g is not prev_gutters or indent[i] != prev_indent:
            pre = make_prefix(lay, i, is_folded, width)
            plain_head = "  " + pre
            # only a plain chain row's prefix can be reused by the row below
            prev_gutters = None if (connector[i] or is_folded) else g
            prev_indent = indent[i]
        head = plain_head if i != selected else "› " + pre
        if is_folded and not (connector[i] and not vrc[i]):
            head += "⊞ "
        if eid == marked:
            head += MARK
        if e in active:
            head += "• "
        hit = labels.get(eid)
        k = e.index
        text = texts[k] if k < ntexts else None  # type: ignore[index]
        if text is None:
            text = display_text(e, flat.tool_calls, home)
        if hit is not None:
            body = f"[{js_string(hit[0])}] "
            if label_times and hit[1]:
                body += format_label_time(hit[1]) + " "
            body += text
        elif eid in archived:
            body = ARCHIVED_TAG + text
        else:
            body = text
        if width > 3 and body.isascii() and body.isprintable():
            # one column per code point: truncate_to_width's fast path, inline
            line = head + body
            yield line if len(line) <= width else line[: width - 3] + "..."
        else:
            yield truncate_to_width(head + printable(body), width, safe_prefix=len(head))
