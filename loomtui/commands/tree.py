"""`loomtui tree FILE`: print the session tree exactly as pi's /tree draws it."""

from __future__ import annotations

import argparse
import io
import os
import shutil
import sys
from collections.abc import Iterable
from typing import TextIO

from loomtui.commands._args import ANY_FILE, MIN_WIDTH, check, check_width
from loomtui.commands._output import keep_until_exit, write_lines
from loomtui.commands.progress import stderr_progress
from loomtui.formats.opening.tree_run import TreeOpening
from loomtui.view import pan
from loomtui.view.flat import FILTER_MODES
from loomtui.view.model import TreeModel
from loomtui.view.printable import printable
from loomtui.view.text import Segment, home_dir
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


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "file",
        metavar="FILE",
        help=ANY_FILE,
    )
    p.add_argument(
        "--filter",
        default="default",
        metavar="MODE",
        help=f"filter mode: {', '.join(FILTER_MODES)} (default: default); an OCP run also has "
        "failed, gates, in-flight, findings, model:NAME, harness:NAME",
    )
    p.add_argument(
        "--view",
        default=None,
        choices=("dag", "lineage"),
        help="an OCP run: dependency tree (dag, the default) or spawn/launch lineage",
    )
    p.add_argument("--search", default="", metavar="QUERY", help="search query, as typed into /tree")
    p.add_argument(
        "--width",
        type=int,
        default=None,
        help=f"cut rows at N columns, at least {MIN_WIDTH} (default: terminal, else 200)",
    )
    p.add_argument("--leaf", default=None, metavar="ID", help="draw the tree as if ID were the leaf")
    p.add_argument("--ids", action="store_true", help="print '<entry id><TAB>' before each row")
    p.add_argument(
        "--show-archived", action="store_true", help="also show branches archived with loomtui (hidden by default)"
    )
    p.add_argument(
        "--compact",
        action="store_true",
        help="compact indentation: rows too deep for the width show their depth as a number "
        "(⋯12) and keep their text (pi's rows otherwise)",
    )
    p.add_argument("--color", default="auto", choices=("auto", "always", "never"), help="colour output")


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


def _resolved(args: argparse.Namespace) -> tuple[bool, int]:
    """(colour, width) as this run prints them."""
    color = args.color == "always" or (args.color == "auto" and sys.stdout.isatty() and not os.environ.get("NO_COLOR"))
    width = args.width
    if width is None:
        width = shutil.get_terminal_size((200, 24)).columns if sys.stdout.isatty() else 200
    return color, width


def run(args: argparse.Namespace) -> int:
    check_width(args.width)
    color, width = _resolved(args)
    options = None
    if args.view is None:
        out = sys.stdout
        options = (
            args.filter,
            args.search,
            width,
            args.leaf,
            args.ids,
            args.show_archived,
            args.compact,
            color,
            home_dir(),
            out.encoding,
            out.errors,
        )
    opening = TreeOpening(args.file, options)
    printed = opening.printed_before()
    buffer = getattr(sys.stdout, "buffer", None)
    if printed is not None and buffer is not None:  # this very output was printed before
        sys.stdout.flush()
        buffer.write(printed)
        buffer.flush()
        return 0
    if not opening.keeps_output or buffer is None:
        code, model = _print(args, opening, sys.stdout, texts=not color)
        keep_until_exit(model)
        return code
    opening.holding_writes()
    model = None
    data = None
    try:
        text = io.TextIOWrapper(io.BytesIO(), encoding=sys.stdout.encoding, errors=sys.stdout.errors, newline="\n")
        code, model = _print(args, opening, text, texts=not color)
        keep_until_exit(model)
        text.flush()
        output = text.buffer.getbuffer()  # type: ignore[attr-defined]  # no copy of the output
        sys.stdout.flush()
        sys.stdout.buffer.write(output)
        sys.stdout.buffer.flush()
        data = output if code == 0 else None
    finally:
        opening.after_output(model, data, color)
    return code


def _print(
    args: argparse.Namespace, opening: TreeOpening, stdout: TextIO, texts: bool = False
) -> tuple[int, TreeModel]:
    """Print the rows; ``texts`` (plain rows): take the entries' row texts kept from an earlier
    run (``formats/opening/tree_run.py``)."""
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
    if texts:
        model.row_texts = opening.row_texts(model)
    model.set_show_archived(args.show_archived)
    if args.search:
        model.type_text(args.search)
    color, width = _resolved(args)
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
    return 0, model
