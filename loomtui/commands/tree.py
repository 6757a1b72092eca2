"""`loomtui tree FILE`: print the session tree exactly as pi's /tree draws it.

A big session printed before is printed again from what was kept (``formats/opening/tree_memo.py``)
without importing the reader or the view: the rows are made by ``tree_rows.py``, imported only
when they have to be made.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import sys

from loomtui.commands._args import ANY_FILE, MIN_WIDTH, RUN_FILTERS, check_width
from loomtui.formats.opening.tree_run import TreeOpening
from loomtui.session.locations import home_dir
from loomtui.view.filter_modes import FILTER_MODES


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
        help=f"filter mode: {', '.join(FILTER_MODES)} (default: default); {RUN_FILTERS}",
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
        help="compact indentation: rows whose indentation would take more than half the width show "
        "how many levels they are indented (⋯12) and keep their text; the others stay pi's rows",
    )
    p.add_argument("--color", default="auto", choices=("auto", "always", "never"), help="colour output")


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
    from loomtui.commands import tree_rows  # the rows have to be made: the reader and the view

    if not opening.keeps_output or buffer is None:
        return tree_rows.print_tree(args, opening, sys.stdout, color, width)[0]
    opening.holding_writes()
    model = None
    data = None
    try:
        text = io.TextIOWrapper(io.BytesIO(), encoding=sys.stdout.encoding, errors=sys.stdout.errors, newline="\n")
        code, model = tree_rows.print_tree(args, opening, text, color, width)
        text.flush()
        output = text.buffer.getbuffer()  # type: ignore[attr-defined]  # no copy of the output
        sys.stdout.flush()
        sys.stdout.buffer.write(output)
        sys.stdout.buffer.flush()
        data = output if code == 0 else None
    finally:
        opening.after_output(model, data, color)
    return code
