"""`loomtui tree FILE`: print the session tree exactly as pi's /tree draws it."""

from __future__ import annotations

import argparse
import io
import os
import shutil
import sys
from collections.abc import Callable, Iterable
from typing import TextIO

from loomtui.commands.progress import stderr_progress
from loomtui.commands.tree_memo import TreeMemo
from loomtui.formats.opening import open_session
from loomtui.commands._output import keep_until_exit, write_lines
from loomtui.session import indexcache
from loomtui.session.split import SplitParse
from loomtui.session.errors import LoomError
from loomtui.view.flat import FILTER_MODES
from loomtui.view import flatcache, tail_texts
from loomtui.view.model import TreeModel
from loomtui.view.text import Segment
from loomtui.view.printable import printable
from loomtui.view.text import home_dir
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


def _resolved(args: argparse.Namespace) -> tuple[bool, int]:
    """(colour, width) as this run prints them."""
    color = args.color == "always" or (
        args.color == "auto" and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    )
    width = args.width
    if width is None:
        width = shutil.get_terminal_size((200, 24)).columns if sys.stdout.isatty() else 200
    return color, width


def run(args: argparse.Namespace) -> int:
    memo = None
    if args.view is None:
        color, width = _resolved(args)
        out = sys.stdout
        options = (args.filter, args.search, width, args.leaf, args.ids, args.show_archived, args.compact, color,
                   home_dir(), out.encoding, out.errors)
        memo = TreeMemo.for_run(args.file, options)
        printed = memo.get() if memo is not None else None
        buffer = getattr(out, "buffer", None)
        if printed is not None and buffer is not None:  # this very output was printed before
            out.flush()
            buffer.write(printed)
            buffer.flush()
            return 0
    if memo is None or getattr(sys.stdout, "buffer", None) is None:
        code, model = _print(args, sys.stdout, texts=not _resolved(args)[0])
        keep_until_exit(model)
        return code
    # the index, the flattened tree and this memo are written in one background child once the
    # rows are out (a child alive meanwhile would slow the layout: copy-on-write)
    indexcache.hold_writes()
    jobs: list[Callable[[], object]] = []
    try:
        text = io.TextIOWrapper(io.BytesIO(), encoding=sys.stdout.encoding, errors=sys.stdout.errors,
                                newline="\n")
        code, model = _print(args, text, texts=not color)
        keep_until_exit(model)
        text.flush()
        data = text.buffer.getbuffer()  # type: ignore[attr-defined]  # no copy of the output
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        flat = model.unsaved_flat
        job = flatcache.store_job(model.manager, flat, model.base_classes) if flat is not None else None
        if job is not None:
            jobs.append(job)
        if not color and (model.row_texts is None or None in model.row_texts):
            job = flatcache.texts_job(model.manager, model.flat, model.home)
            if job is not None:
                jobs.append(job)
        if code == 0:
            keep = memo
            jobs.append(lambda: keep.store(data))
    finally:
        indexcache.write_held(*jobs)
    return code


def _print(args: argparse.Namespace, stdout: TextIO, texts: bool = False) -> tuple[int, TreeModel]:
    """Print the rows; ``texts`` (plain rows): take the entries' row texts kept from an earlier
    run, else those the tail-parsing child wrote (view/tail_texts.py)."""
    # a big session is read on two CPUs: a child parses the second half meanwhile
    split = None
    head = None
    if args.view is not None:
        manager = open_session(args.file, tree_id=args.view)
    else:
        report, clear = stderr_progress(args.file)
        # plain rows: the child also writes the row texts of the entries it parses
        work = tail_texts.child_work(home_dir()) if texts else None
        split = SplitParse.start(args.file, fraction=0.6, tail_work=work)
        head = tail_texts.HeadTexts(home_dir()) if texts else None
        if split is not None and head is not None:
            split.head_work = head.steps
        try:
            manager = open_session(args.file, split=split, progress=report)
        finally:
            clear()
    if args.leaf is not None and args.leaf not in manager.index.by_id:
        raise LoomError(f"no entry {args.leaf!r} in {args.file}")
    model = TreeModel(manager, leaf_id=args.leaf, use_manager_leaf=args.leaf is None, filter_mode=args.filter)
    model.compact = args.compact
    if texts:
        model.row_texts = flatcache.load_texts(manager, model.flat, model.home)
        if model.row_texts is None and split is not None:
            model.row_texts = tail_texts.texts_by_index(manager.index.entries, split.tail_work_result,
                                                        model.tool_call_ids_unique,
                                                        head.result if head is not None else None)
    if model.mode != args.filter:
        raise LoomError(f"unknown filter mode {args.filter!r} for {args.file}; use one of {', '.join(model.modes)}")
    model.set_show_archived(args.show_archived)
    if args.search:
        model.type_text(args.search)
    color, width = _resolved(args)
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
        write_lines(rows, n, stdout)
    else:
        stdout.write(truncate_to_width("  No entries found", width) + "\n")
    stdout.write(truncate_to_width(model.footer(), width) + "\n")
    return 0, model
