"""`loomtui export-html FILE [--leaf ID] [--target ID] [-o OUT.html] [--theme NAME] [--no-system-context]`.

Writes one self-contained HTML page for a session or loom (see ``formats/html/export``). OUT
defaults to FILE's name with ``.html`` in the current directory (``NAME-2.html``… when taken),
as the app's Alt+E writes it (``page_directory``); a file is never overwritten.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from loomtui.commands._args import ANY_FILE, check
from loomtui.commands.progress import open_showing_progress, stage
from loomtui.formats.html.export import export_html, export_to_free_name, page_directory
from loomtui.session.errors import LoomError
from loomtui.view.words import counted


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file",
        metavar="FILE",
        help=ANY_FILE,
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="the page to write (must not exist; default: FILE's name .html in the current directory)",
    )
    parser.add_argument(
        "--leaf",
        metavar="ID",
        help="open the page on the branch ending at ID (default: the session's leaf, or a branch through --target)",
    )
    parser.add_argument(
        "--target",
        metavar="ID",
        help="scroll the page to entry ID (on --leaf's branch; without --leaf the page opens on the "
        "session's leaf when its branch holds ID, else on the newest branch through ID)",
    )
    parser.add_argument(
        "--theme",
        metavar="NAME",
        help="one theme (light, dark or a theme file's name) instead of following the reader's light/dark setting",
    )
    parser.add_argument(
        "--no-system-context",
        action="store_true",
        help="leave out system prompts and system context (and the original file)",
    )


def run(args: argparse.Namespace) -> int:
    manager = open_showing_progress(args.file)
    check(args, manager)
    if args.leaf is not None and args.target is not None:
        on_branch = any(e.id == args.target for e in manager.index.path_to(args.leaf))
        if not on_branch:  # the page cannot open at an entry its branch does not show
            raise LoomError(
                f"--target {args.target} is not on the branch ending at --leaf {args.leaf} in {args.file}; "
                "leave out --leaf to open the page on a branch through the target"
            )
    options: dict[str, Any] = {
        "leaf_id": args.leaf,
        "target_id": args.target,
        "theme": args.theme,
        "no_system_context": args.no_system_context,
    }
    with stage(args.file, f"writing the HTML page of {os.path.basename(args.file)}"):
        if args.output:
            result = export_html(manager, args.output, source_name=os.path.basename(args.file), **options)
        else:  # where Alt+E writes: the current directory, under the session's name
            result = export_to_free_name(manager, args.file, page_directory(), **options)
    print(f"wrote {result.path}: {counted(result.entries, 'entry', 'entries')}, {result.bytes:,} bytes")
    if manager.diagnostics:
        print(
            f"note: {manager.source.diagnostics_said(len(manager.diagnostics))} in {args.file}; `loomtui info` lists them",
            file=sys.stderr,
        )
    return 0
