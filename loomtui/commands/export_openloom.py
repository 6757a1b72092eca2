"""`loomtui export-openloom FILE [--leaf ID] -o OUT [--no-system-context] [--tree ID]`.

Writes a pi session, a loom, or the branch ending at one entry as an OpenLoom v2 document
(OUT ending in ``.json`` or ``.openloom``; a ZIP bundle when it ends in ``.zip``). OUT is
never overwritten.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from loomtui.commands._args import ANY_FILE, check, check_openloom_output
from loomtui.commands._output import report_created
from loomtui.commands.progress import open_showing_progress, stage
from loomtui.formats.base.common import OPENLOOM_V1, OPENLOOM_V2, OPENLOOM_V2_TREE
from loomtui.formats.looms.export import export_openloom
from loomtui.session.errors import LoomError
from loomtui.view.printable import printable
from loomtui.view.words import counted

if TYPE_CHECKING:
    from loomtui.session.manager import SessionManager


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
        required=True,
        help="file to write (must not exist), ending in .json or .openloom; a name ending in .zip writes a bundle with media",
    )
    parser.add_argument("--leaf", metavar="ID", help="export only the root → ID branch (a new tree)")
    parser.add_argument(
        "--no-system-context",
        action="store_true",
        help="leave out the tree's systemContext and the agents' system prompts",
    )
    parser.add_argument("--tree", metavar="ID", help="which tree of a multi-tree OpenLoom v2 document to read")


def check_tree(manager: SessionManager, file: str) -> None:
    """Refuse a ``--tree`` the opened file has no use for (its opener ignored it): it names one
    tree of an OpenLoom document (an OCP run takes it as its view, dag or lineage)."""
    from loomtui.formats.ocp.run import ocp_run

    if manager.source_format in (OPENLOOM_V2, OPENLOOM_V2_TREE) or ocp_run(manager) is not None:
        return
    what = "an OpenLoom v1 document (one tree)" if manager.source_format == OPENLOOM_V1 else manager.source.a_name
    raise LoomError(f"--tree is for OpenLoom v2 documents (which of their trees to read); {file} is {what}")


def run(args: argparse.Namespace) -> int:
    check_openloom_output(args.output)
    manager = open_showing_progress(args.file, tree_id=args.tree)
    check(args, manager)
    if args.tree is not None:
        check_tree(manager, args.file)
    with stage(args.file, f"writing the OpenLoom document of {os.path.basename(args.file)}"):
        result = export_openloom(manager, args.output, leaf_id=args.leaf, no_system_context=args.no_system_context)
    what = "bundle" if result.bundle else "document"
    media = f", {counted(result.media_files, 'media file')}" if result.media_files else ""
    report_created(
        result.path,
        f"wrote {what} {result.path}: {counted(result.nodes, 'node')}, {counted(result.edges, 'edge')}{media}",
    )
    for note in result.notes:
        print(f"note: {printable(note)}", file=sys.stderr)
    if manager.diagnostics:
        print(
            f"note: {manager.source.diagnostics_said(len(manager.diagnostics))} in {args.file}; `loomtui info` lists them",
            file=sys.stderr,
        )
    return 0
