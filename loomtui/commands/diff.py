"""`loomtui diff FILE A B`: two branches as a unified diff of their transcripts, plus totals.

A and B are entry ids (or unique id prefixes); each names the branch ending at that entry.
The comparison starts below their common ancestor, as the compare screen does.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

import orjson

from loomtui.commands._args import check, check_context
from loomtui.commands._output import keep_until_exit, write_each
from loomtui.commands.progress import counting, open_showing_progress, stage
from loomtui.view.compare import compare
from loomtui.view.compare_text import as_json, unified


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="a pi/omp, Claude Code or Codex session, a loom or an OCP run")
    p.add_argument("a", metavar="A", help="entry id (or unique prefix) ending the first branch")
    p.add_argument("b", metavar="B", help="entry id (or unique prefix) ending the second branch")
    p.add_argument("--context", "-U", type=int, default=3, metavar="N", help="lines of context (default 3)")
    p.add_argument(
        "--color",
        nargs="?",
        const="always",
        default="auto",
        choices=("auto", "always", "never"),
        help="colour the diff (--color alone means always)",
    )
    p.add_argument("--json", action="store_true", help="the aligned pairs and totals as JSON")


def run(args: argparse.Namespace) -> int:
    check_context(args.context)
    manager = open_showing_progress(args.file)
    check(args, manager)
    report, clear = counting(args.file, "comparing")  # the branches' entries, read and aligned
    try:
        cmp = compare(manager, args.a, args.b, progress=report)
    finally:
        clear()
    keep_until_exit(cmp)
    # the diff itself is made as it is written: a line while it goes to a file or a pipe (on
    # the terminal the diff shows it is coming)
    writing = contextlib.nullcontext() if sys.stdout.isatty() else stage(args.file, "writing the diff")
    with writing:
        if args.json:
            sys.stdout.write(orjson.dumps(as_json(cmp), option=orjson.OPT_INDENT_2).decode() + "\n")
            return 0
        color = args.color == "always" or (
            args.color == "auto" and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
        )
        write_each(unified(cmp, manager, context=args.context, color=color), sys.stdout)
    return 0
