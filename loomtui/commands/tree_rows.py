"""The rows of `loomtui tree`, made from the opened session (the command itself, and the output
kept for a reprint, are ``tree.py``'s)."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import TextIO

from loomtui.commands._args import check
from loomtui.commands._output import keep_until_exit, write_lines
from loomtui.commands.progress import stderr_progress
from loomtui.formats.opening.tree_run import TreeOpening
from loomtui.view import pan
from loomtui.view.model import TreeModel
from loomtui.view.printable import printable
from loomtui.view.text import Segment
from loomtui.view.width import ROW_ELLIPSIS, columns, truncate_to_width

#: pi's dark theme roles as plain ANSI (the app uses themes/*.toml instead)
ANSI = {
    "accent": "36",
    "success": "32",
    "muted": "90",
    "error": "31",
    "dim": "2",
    "warning": "33",
    "customMessageLabel": "35",
    "borderAccent": "36",
    "text": "",
}


def _colored(segs: list[Segment], selected: bool) -> str:
    out = []
    for style, text in segs:
        code = ANSI.get(style, "")
        if selected and style == "text":
            code = "1"
        out.append(f"\x1b[{code}m{text}\x1b[0m" if code else text)
    line = "".join(out)
    return f"\x1b[48;5;236m{line}\x1b[0m" if selected else line


def _cut_colored(segs: list[Segment], width: int) -> list[Segment]:
    """``segs`` cut at ``width`` columns as pi cuts a row (no ellipsis)."""
    plain = "".join(t for _s, t in segs)
    if truncate_to_width(plain, width, ROW_ELLIPSIS) == plain:
        return segs
    return columns(segs, 0, width)


def print_tree(
    args: argparse.Namespace, opening: TreeOpening, stdout: TextIO, color: bool, width: int
) -> tuple[int, TreeModel]:
    """Print the rows at ``width`` columns, in colour or not; plain rows take the entries' row
    texts kept from an earlier run (``formats/opening/tree_run.py``). The model is kept until
    the process exits (``keep_until_exit``: it is never freed object by object)."""
    if args.view is not None:
        manager = opening.session(tree_id=args.view)
    else:
        report, clear = stderr_progress(args.file)
        try:
            manager = opening.session(progress=report)
        finally:
            clear()
    check(args, manager)
    model = opening.model(manager, leaf_id=args.leaf, use_manager_leaf=args.leaf is None, filter_mode=args.filter)
    model.compact = args.compact
    if not color:
        model.row_texts = opening.row_texts(model)
    model.set_show_archived(args.show_archived)
    if args.search:
        model.type_text(args.search)
    n = len(model)

    by = pan.shift(model, width)  # rows deeper than the width pan left, as in pi

    def rows(start: int, stop: int) -> Iterable[str]:
        if by and not color:
            lines: Iterable[str] = model.plain_rows(width, start, stop, shift=by)
        elif by:
            panned = (pan.panned_row(model, i, width, by) for i in range(start, stop))
            lines = (_colored(segs, i == model.selected) for i, segs in zip(range(start, stop), panned))
        elif color:
            lines = (
                _colored(_cut_colored(model.row_segments(i, max_cols=width), width), i == model.selected)
                for i in range(start, stop)
            )
        else:
            lines = model.plain_rows(width, start, stop)
        if args.ids:
            return (f"{printable(model.entry_at(i).id)}\t{line}" for i, line in zip(range(start, stop), lines))
        return lines

    if n:
        write_lines(rows, n, stdout)
    else:
        stdout.write(truncate_to_width("  No entries found", width) + "\n")
    stdout.write(truncate_to_width(model.footer(), width) + "\n")
    keep_until_exit(model)
    return 0, model
