"""Printing a whole tree's rows as plain text: the bulk path of `loomtui tree` (``TreeModel.plain_rows``).

The same rules as ``TreeModel.row_segments`` draws a row by, with the per-row lookups hoisted
out of the loop: the rows' entries taken at C speed, one prefix string shared by the rows of a
chain, the row texts kept from an earlier run (``formats/opening/flat_cache.py``) used as they
are.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from loomtui.session.jsstr import JS_WHITESPACE, js_string
from loomtui.view import layout as L
from loomtui.view.compact import compact_prefix
from loomtui.view.loom_state import ARCHIVED_TAG, MARK
from loomtui.view.printable import printable
from loomtui.view.text import (
    HIDDEN_MARK_COLS,
    calls_cols,
    display_bound,
    display_text,
    format_label_time,
)
from loomtui.view.width import GUTTER, ROW_ELLIPSIS, columns, one_column_each, text_width, truncate_to_width

if TYPE_CHECKING:
    from loomtui.session.entries import Entry
    from loomtui.view.model import TreeModel


def plain_rows(model: TreeModel, width: int, start: int = 0, stop: int | None = None, shift: int = 0) -> Iterator[str]:
    """Rows ``start..stop`` of ``model`` as ``TreeModel.row_line`` gives them, in order.

    The same rules as ``row_segments``, with the per-row lookups hoisted out of the loop and
    one prefix string shared by the rows of a chain (same gutters, same indent, no
    connector), which is what makes printing 66k rows cheap. ``shift``: the rows' bodies
    panned that many columns left, as pi draws a tree deeper than the width (``view/pan.py``).
    """
    if shift:
        return _panned_rows(model, width, start, stop, shift)
    return _rows(model, width, start, stop)


def marked_path(model: TreeModel) -> set[Entry] | frozenset[Entry]:
    """The entries drawn with pi's "•": the active path, where the source has a conversation
    leaf (``Source.has_leaf``; an OCP run and the loom map have none)."""
    return model.flat.active if model.manager.source.has_leaf else frozenset()


# radon rates this E: kept in one piece on purpose. It runs once per printed row over a whole
# session (100k entries), about a microsecond a row once the row texts are kept: one helper call
# per row (the row's text and label, which still leaves it D) costs 8% there (benchmarks/bench_tree.py).
def _rows(model: TreeModel, width: int, start: int, stop: int | None) -> Iterator[str]:
    """``plain_rows`` unshifted."""
    lay = model.rows
    flat = model.flat
    entries = flat.entries
    active = marked_path(model)
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
    rows = (
        map(entries.__getitem__, lay.positions[start:stop])
        if not lay.encoded
        else (entries[lay.position(i)] for i in range(start, stop))
    )
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
                texts[k] = text  # type: ignore[index]
        if hit is not None:
            body = f"[{js_string(hit[0])}] "
            if label_times and hit[1]:
                body += format_label_time(hit[1]) + " "
            body += text
        elif eid in archived:
            body = ARCHIVED_TAG + text
        else:
            body = text
        head = (plain_head if i != selected else "› " + pre) + marks if marks or i == selected else plain_head
        if width > 0 and body.isascii() and body.isprintable():
            # one column per code point: truncate_to_width's fast path, inline
            line = head + body
            yield line if len(line) <= width else line[:width]
        else:
            yield truncate_to_width(head + printable(body), width, ROW_ELLIPSIS, safe_prefix=len(head))


class _Bodies:
    """What a panned row shows after its prefix: its marks (one column each) and its body
    (label, archived tag, text), the row texts made here kept in ``model.row_texts``."""

    def __init__(self, model: TreeModel) -> None:
        lay = model.rows
        if model.row_texts is None:  # kept for the printing after the measuring (``pan.shift``)
            model.row_texts = [None] * len(model.flat.entries)
        self.model = model
        self.texts = model.row_texts
        self.entries = model.flat.entries
        self.active = marked_path(model)
        self.folded = model.folded
        self.labels = model.index.labels
        self.label_times = model.show_label_times
        self.connector = lay.connector
        self.vrc = lay.virtual_root_child
        self.marked = model.marked_id
        self.archived = model.archive.ids() if model.show_archived else frozenset()

    def marks(self, i: int, e: Entry) -> str:
        eid = e.id
        marks = "⊞ " if eid in self.folded and not (self.connector[i] and not self.vrc[i]) else ""
        if eid == self.marked:
            marks += MARK
        if e in self.active:
            marks += "• "
        return marks

    def body(self, e: Entry) -> str:
        """The row's body as the terminal shows it (``printable``)."""
        k = e.index
        texts = self.texts
        text = texts[k] if k < len(texts) else None
        if text is None:
            model = self.model
            text = display_text(e, model.flat.tool_calls, model.home)
            if k < len(texts):
                texts[k] = text
        eid = e.id
        hit = self.labels.get(eid)
        if hit is not None:
            body = f"[{js_string(hit[0])}] "
            if self.label_times and hit[1]:
                body += format_label_time(hit[1]) + " "
            body += text
        elif eid in self.archived:
            body = ARCHIVED_TAG + text
        else:
            body = text
        return body if body.isascii() and body.isprintable() else printable(body)

    def bound(self, e: Entry) -> int:
        """At least the columns of ``body(e)``, made without it where its text is not made yet
        (-1: not known)."""
        k = e.index
        texts = self.texts
        text = texts[k] if k < len(texts) else None
        if text is not None or e.id in self.labels:
            return -1
        n = display_bound(e, self.model.flat.tool_calls)
        if n < 0:
            return -1
        return 2 * (n + (len(ARCHIVED_TAG) if e.id in self.archived else 0))  # wide: 2 columns


def widest_row(model: TreeModel, widest: int, enough: int) -> int:
    """The columns of the widest row of ``model`` as `loomtui tree` prints it uncut, or of
    any row at least ``enough`` wide, or ``widest`` when none is wider (``pan.shift``).

    A row is three columns a level of prefix, then its marks and body: the deepest rows come
    first (the widest is almost always among them), and a row whose body cannot make it
    wider than the widest so far is not made at all."""
    lay = model.rows
    if widest >= enough or not len(lay):
        return widest
    bodies = _Bodies(model)
    indent = lay.indent
    drop = 1 if lay.multiple_roots else 0
    entries = bodies.entries
    position = lay.position
    for i in sorted(range(len(lay)), key=indent.__getitem__, reverse=True):
        e = entries[position(i)]
        cols = 3 * max(0, indent[i] - drop) + len(bodies.marks(i, e))
        b = bodies.bound(e)
        if 0 <= b and cols + b <= widest:
            continue  # cannot be the widest
        cols += text_width(bodies.body(e))
        if cols > widest:
            widest = cols
            if widest >= enough:
                break
    return widest


# radon rates this E: kept in one piece on purpose, like ``_rows``. It runs once per printed row
# of a tree deeper than the width (66k rows of the 100k session): with each row's bound a method
# call, and each tool call bounded by itself, the rows took twice as long (benchmarks/bench_tree.py).
def _panned_rows(model: TreeModel, width: int, start: int, stop: int | None, shift: int) -> Iterator[str]:
    """``plain_rows`` shifted ``shift`` columns left: each row's cursor, then the window
    ``[shift, shift + viewport)`` of its prefix and body.

    The prefix (thousands of columns deep in a tree) is one column per code point, so it is
    sliced without being measured; a row whose prefix fills the window needs no body, and one
    whose body surely ends left of the window is blank whatever it says: its text is not made."""
    lay = model.rows
    bodies = _Bodies(model)
    entries = bodies.entries
    marks_of = bodies.marks
    body_of = bodies.body
    folded = bodies.folded
    labels = bodies.labels
    tool_calls = model.flat.tool_calls
    connector = lay.connector
    gutters = lay.gutters
    indent = lay.indent
    selected = model.selected
    make_prefix = compact_prefix if model.compact else L.prefix
    viewport = max(0, width - GUTTER)
    end = shift + viewport
    prefix_cols = width + shift
    drop = 1 if lay.multiple_roots else 0
    # columns a body may have beyond its text: a hidden entry's mark, the archived tag; and
    # before it, the marks (six columns at most)
    extra = HIDDEN_MARK_COLS + (len(ARCHIVED_TAG) if bodies.archived else 0)
    left = shift - 6 - extra
    calls = -2  # the widest tool call's columns (``calls_cols``), when first needed
    prev_gutters: Any = None
    prev_indent = -1
    pre = ""
    stop = len(lay) if stop is None else min(stop, len(lay))
    rows = (
        map(entries.__getitem__, lay.positions[start:stop])
        if not lay.encoded
        else (entries[lay.position(i)] for i in range(start, stop))
    )
    for i, e in zip(range(start, stop), rows):
        level = indent[i] - drop
        d3 = 3 * level if level > 0 else 0
        if d3 < left and e.type == "message" and (not labels or e.id not in labels):
            # at least the columns of the body, as ``display_text`` makes it
            role = e.role
            b = -1
            if role == "toolResult":  # its call (``format_tool_call``) or "[tool name]"
                if calls == -2:
                    calls = calls_cols(tool_calls) if tool_calls else 0
                name = e.tool_name
                if calls >= 0 and (name is None or type(name) is str):
                    b = max(calls, 2 * len(name) + 2 if name else 6)
            elif role == "user" or role == "assistant" or role == "bashExecution":
                t = e.text  # after the role's words (11 columns at most)
                if type(t) is str and t and t[0] not in JS_WHITESPACE:
                    b = 11 + (len(t) if t.isascii() else 2 * len(t))
                elif t is None or type(t) is str:  # a blank text: maybe an error (80 units)
                    b = 11 + 160
            if 0 <= b and d3 + b < left:
                yield "  " if i != selected else "› "
                continue
        is_folded = e.id in folded
        g = gutters[i]
        if connector[i] or is_folded or g is not prev_gutters or indent[i] != prev_indent:
            pre = make_prefix(lay, i, is_folded, prefix_cols)
            # only a plain chain row's prefix can be reused by the row below
            prev_gutters = None if (connector[i] or is_folded) else g
            prev_indent = indent[i]
        cursor = "  " if i != selected else "› "
        marks = marks_of(i, e)
        cols = d3 + len(marks)  # where the body starts
        if cols >= end:  # the window is all prefix and marks
            yield cursor + (pre[shift:end] if len(pre) >= end else (pre + marks)[shift:end])
            continue
        body = body_of(e)
        if body.isascii() or one_column_each(body):  # printable ASCII, like the marks: a slice
            tail = marks + body
            yield cursor + (pre[shift:] + tail[max(0, shift - len(pre)) :])[:viewport]
        else:
            window = columns([("", pre), ("", marks + body)], shift, viewport)
            yield cursor + "".join(t for _s, t in window)
