"""`loomtui export-html FILE [--leaf ID] [--target ID] [-o OUT.html] [--theme NAME] [--no-system-context]`.

Writes one self-contained HTML page for a session or loom (see ``formats/export_html``). OUT
defaults to FILE's name with ``.html``, next to it; it is never overwritten.
"""

from __future__ import annotations

import argparse
import os
import sys

from loomtui.formats.opening import open_session
from loomtui.formats.export_html import default_output, export_html


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="pi/omp session, OpenLoom document or bundle, or socketteer loom")
    parser.add_argument("-o", "--output", metavar="OUT", help="the page to write (must not exist; default FILE.html)")
    parser.add_argument("--leaf", metavar="ID", help="open the page on the branch ending at ID (default: the session's leaf)")
    parser.add_argument("--target", metavar="ID", help="scroll the page to entry ID")
    parser.add_argument("--theme", metavar="NAME", help="one theme (light, dark or a theme file's name) instead of "
                        "following the reader's light/dark setting")
    parser.add_argument("--no-system-context", action="store_true",
                        help="leave out system prompts and system context (and the original file)")


def run(args: argparse.Namespace) -> int:
    manager = open_session(args.file)
    out = args.output or default_output(args.file)
    result = export_html(manager, out, leaf_id=args.leaf, target_id=args.target, theme=args.theme,
                         no_system_context=args.no_system_context, source_name=os.path.basename(args.file))
    print(f"wrote {result.path}: {result.entries} entries, {result.bytes:,} bytes")
    if manager.diagnostics:
        print(f"note: {len(manager.diagnostics)} repair(s) while reading {args.file}; `loomtui info` lists them",
              file=sys.stderr)
    return 0
