"""`loomtui migrate FILE`: rewrite a v1/v2 session as v3, keeping the original as FILE.bak.

The ids are the ones loomtui already showed for the old file (deterministic in-memory
migration), so labels and exports made from them stay valid; unreadable lines are kept.
"""

from __future__ import annotations

import argparse

from loomtui.commands._output import print_line
from loomtui.session.errors import LoomError, SessionFormatError
from loomtui.session.migrate import migrate_file
from loomtui.session.source import PI


def _not_a_pi_session(path: str) -> str | None:
    """What a file without a pi header is, in its own words, when loomtui reads it (a Claude
    Code session, an OCP run: no version to migrate); None otherwise (the reader's own error)."""
    from loomtui.formats.opening import open_session

    try:
        source = open_session(path).source
    except (LoomError, OSError):
        return None
    if source.kind == PI:
        return None
    return f"{path} is {source.a_name}, not a pi session: `migrate` rewrites version 1 and 2 pi sessions only"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="a version 1 or 2 pi session file")


def run(args: argparse.Namespace) -> int:
    try:
        backup = migrate_file(args.file)
    except SessionFormatError as exc:
        raise LoomError(_not_a_pi_session(args.file) or str(exc)) from None
    except OSError as exc:
        raise LoomError(f"cannot migrate {args.file}: {exc.strerror or exc}; nothing was written") from None
    try:
        print_line(f"{args.file}: migrated to version 3 (original kept as {backup})")
    except OSError as exc:
        raise LoomError(
            f"{args.file} was migrated (original kept as {backup}) but the output failed: {exc.strerror or exc}"
        ) from None
    return 0
