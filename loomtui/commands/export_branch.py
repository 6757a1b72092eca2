"""`loomtui export-branch FILE --leaf ENTRY_ID [--dir DIR | -o OUT]`: pi's /fork, as a file.

Writes what pi's createBranchedSession writes (docs/formats.md §7.5): a v3 header whose
``parentSession`` is FILE's absolute path, the root → leaf path without label entries, then the
re-created label chain. The new file goes next to FILE (or into DIR, or to OUT), atomically and
never over an existing file. Prints its path.
"""

from __future__ import annotations

import argparse

from loomtui.formats.agent_session import AgentSession
from loomtui.formats.opening import open_session
from loomtui.commands._output import report_created
from loomtui.session.errors import LoomError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="a pi/omp session file (v3)")
    p.add_argument("--leaf", required=True, metavar="ENTRY_ID", help="the last entry of the branch to export")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--dir", metavar="DIR", help="directory for the new file (default: FILE's)")
    where.add_argument("-o", "--output", dest="out", metavar="OUT", help="exact path of the new file")
    p.add_argument("--as", dest="as_format", choices=("native", "pi"), default="native",
                   help="native: the file's own format (default); pi: a pi session")


def run(args: argparse.Namespace) -> int:
    try:
        sm = open_session(args.file)
        if args.as_format == "pi" and isinstance(sm, AgentSession):
            path = sm.export_pi(args.leaf, dir=args.dir, out=args.out)
        else:
            path = sm.create_branched_session(args.leaf, dir=args.dir, out=args.out)
    except OSError as exc:
        raise LoomError(f"cannot export from {args.file}: {exc.strerror or exc}") from None
    report_created(path, path)
    return 0
