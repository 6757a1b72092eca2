"""`loomtui tree FILE`: print the session tree exactly as pi's /tree draws it."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Iterable

from loomtui.commands.progress import stderr_progress
from loomtui.formats.opening import open_session
from loomtui.commands._output import write_lines
from loomtui.session.split import SplitParse
from loomtui.session.errors import LoomError
from loomtui.view.layout import FILTER_MODES
from loomtui.view.model import TreeModel
from loomtui.view.text import Segment
from loomtui.view.printable import printable
from loomtui.view.width import truncate_to_width

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
    p.add_argument("file", metavar="FILE", help="a pi/omp session file (or another loom)")
    p.add_argument("--filter", default="default", metavar="MODE",
                   help=f"filter mode: {', '.join(FILTER_MODES)} (default: default); an OCP run also has "
                        "failed, gates, in-flight, findings, model:NAME, harness:NAME")
    p.add_argument("--view", default=None, choices=("dag", "lineage"),
                   help="an OCP run: dependency tree (dag, the default) or spawn/launch lineage")
    p.add_argument("--search", default="", metavar="QUERY", help="search query, as typed into /tree")
    p.add_argument("--width", type=int, default=None, help="cut rows at N columns (default: terminal, else 200)")
    p.add_argument("--leaf", default=None, metavar="ID", help="draw the tree as if ID were the leaf")
    p.add_argument("--ids", action="store_true", help="print '<entry id><TAB>' before each row")
    p.add_argument("--show-archived", action="store_true",
                   help="also show branches archived with loomtui (hidden by default)")
    p.add_argument("--compact", action="store_true",
                   help="compact indentation: rows too deep for the width show their depth as a number "
                        "(⋯12) and keep their text (pi's rows otherwise)")
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
    plain = "".join(t for _s, t in segs)
    cut = truncate_to_width(plain, width)
    if cut == plain:
        return segs
    out: list[Segment] = []
    left = len(cut) - 3
    for style, text in segs:
        if left <= 0:
            break
        out.append((style, text[:left]))
        left -= len(text)
    out.append(("text", "..."))
    return out


def run(args: argparse.Namespace) -> int:
    # a big session is read on two CPUs: a child parses the second half meanwhile
    if args.view is not None:
        manager = open_session(args.file, tree_id=args.view)
    else:
        report, clear = stderr_progress(args.file)
        try:
            manager = open_session(args.file, split=SplitParse.start(args.file, fraction=0.6), progress=report)
        finally:
            clear()
    if args.leaf is not None and args.leaf not in manager.index.by_id:
        raise LoomError(f"no entry {args.leaf!r} in {args.file}")
    model = TreeModel(manager, leaf_id=args.leaf, use_manager_leaf=args.leaf is None, filter_mode=args.filter)
    model.compact = args.compact
    if model.mode != args.filter:
        raise LoomError(f"unknown filter mode {args.filter!r} for {args.file}; use one of {', '.join(model.modes)}")
    model.set_show_archived(args.show_archived)
    if args.search:
        model.type_text(args.search)
    color = args.color == "always" or (
        args.color == "auto" and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    )
    width = args.width
    if width is None:
        width = shutil.get_terminal_size((200, 24)).columns if sys.stdout.isatty() else 200
    n = len(model)

    def rows(start: int, stop: int) -> Iterable[str]:
        if color:
            lines: Iterable[str] = (
                _colored(_cut_colored(model.row_segments(i, max_cols=width), width), i == model.selected)
                for i in range(start, stop)
            )
        else:
            lines = model.plain_rows(width, start, stop)
        if args.ids:
            return (f"{printable(model.entry_at(i).id)}\t{line}" for i, line in zip(range(start, stop), lines))
        return lines

    if n:
        write_lines(rows, n, sys.stdout)
    else:
        sys.stdout.write(truncate_to_width("  No entries found", width) + "\n")
    sys.stdout.write(truncate_to_width(model.footer(), width) + "\n")
    return 0
