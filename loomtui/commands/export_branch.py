"""`loomtui export-branch FILE (--leaf ID | --clone | --fork USER_ID) [--dir DIR | -o OUT]`.

Writes what pi's createBranchedSession writes (docs/formats.md §7.5): a v3 header whose
``parentSession`` is FILE's absolute path, the root → leaf path without label entries (each
entry re-linked to the one before it, as pi 1.6.0 does), then the re-created label chain.
``--leaf ID`` ends the branch at ID; ``--clone`` at the session's leaf (pi's /clone); ``--fork
USER_ID`` just before that user message (pi's /fork: the branch ends at its parent, and a first
message gives a file with the header alone). The new file goes next to FILE (or into DIR, or to
OUT), atomically and never over an existing file. Prints its path.
"""

from __future__ import annotations

import argparse
from typing import Any

from loomtui.commands._args import check, check_session_output
from loomtui.commands._output import report_created
from loomtui.commands.progress import open_showing_progress
from loomtui.formats.agent.session import AgentSession
from loomtui.session.errors import LoomError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "file",
        metavar="FILE",
        help="a pi/omp session (v3), a Claude Code or Codex session, an OpenLoom document or a socketteer loom",
    )
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--leaf", metavar="ENTRY_ID", help="the last entry of the branch to export")
    which.add_argument("--clone", action="store_true", help="the branch ending at the session's leaf (pi's /clone)")
    which.add_argument("--fork", metavar="USER_ID", help="the branch just before this user message (pi's /fork)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--dir", metavar="DIR", help="directory for the new file (default: FILE's)")
    where.add_argument(
        "-o", "--output", dest="out", metavar="OUT", help="exact path of the new file (ending in .jsonl)"
    )
    p.add_argument(
        "--as",
        dest="as_format",
        choices=("native", "pi"),
        default="native",
        help="native: the file's own format (default); pi: a pi session",
    )


def branch_end(sm: Any, args: argparse.Namespace) -> str | None:
    """The entry the exported branch ends at (None: before the first entry)."""
    if args.leaf is not None:
        return str(args.leaf)
    if args.clone:
        leaf = sm.get_leaf_id()
        if leaf is None:
            raise LoomError(f"nothing to clone yet: {args.file} has no entries")
        return str(leaf)
    e = sm.index.by_id[args.fork]  # resolved by ``check`` (an exact id or a unique prefix)
    if e.type != "message" or e.role != "user":
        raise LoomError(
            f"entry {args.fork} is not a user message: --fork starts again before one "
            "(pi's /fork); --leaf exports the branch ending at any entry"
        )
    return e.parent_id  # type: ignore[no-any-return]


def run(args: argparse.Namespace) -> int:
    check_session_output(args.out)
    try:
        sm = open_showing_progress(args.file)
        # what the app's Ctrl+E says of a source with no branch to export (an OCP run, the loom
        # map), before ``check`` refuses their ``--leaf`` (an old pi file's branch is copied as
        # migrated in memory)
        refused = sm.source.export_refusal
        if refused is not None:
            raise LoomError(f"{args.file}: {refused}")
        check(args, sm)
        leaf = branch_end(sm, args)
        if leaf is None and isinstance(sm, AgentSession):
            raise LoomError(f"entry {args.fork} is the first message: there is nothing before it to export")
        if args.as_format == "pi" and isinstance(sm, AgentSession):
            path = sm.export_pi(leaf, dir=args.dir, out=args.out)
        else:
            path = sm.create_branched_session(leaf, dir=args.dir, out=args.out)
    except OSError as exc:
        raise LoomError(f"cannot export from {args.file}: {exc.strerror or exc}") from None
    report_created(path, path)
    return 0
