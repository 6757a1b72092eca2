"""`loomtui [FILE]`: the browser (Textual is imported only here and under loomtui/app)."""

from __future__ import annotations

import argparse
import os
import sys

from loomtui.commands._args import RUN_FILTERS
from loomtui.session.errors import LoomError
from loomtui.session.fileio import open_regular_file
from loomtui.view.filter_modes import FILTER_MODES


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="loomtui",
        description="Browse a session tree (pi / oh-my-pi, Claude Code, Codex) or another loom: labels, leaf "
        "moves, branch export.",
        epilog="Without FILE: the session picker over pi's, omp's, Claude Code's and Codex's session folders "
        "(~/.pi/agent/sessions, ~/.omp/agent/sessions, ~/.claude/projects, ~/.codex/sessions) and --sessions-dir. "
        "Subcommands (tree, info, label, …): `loomtui --help`.",
    )
    p.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        help="a session (pi/omp, Claude Code, Codex), a loom, an OCP run, or a directory of them",
    )
    p.add_argument(
        "--theme",
        metavar="NAME",
        default=None,
        help="theme: light (loom-light), dark (loom-dark), a theme file's name (themes/, "
        "~/.config/loomtui/themes/*.toml) or a Textual theme; an unknown one is refused",
    )
    p.add_argument(
        "--filter",
        dest="filter_mode",
        default="default",
        metavar="MODE",
        help=f"initial filter mode: {', '.join(FILTER_MODES)} (default: default); {RUN_FILTERS}",
    )
    p.add_argument(
        "--sessions-dir",
        dest="sessions_dirs",
        metavar="DIR",
        action="append",
        default=[],
        help="also list sessions and OCP runs under DIR in the picker (repeatable)",
    )
    p.add_argument(
        "--runs-dir",
        dest="sessions_dirs",
        metavar="DIR",
        action="append",
        help="list the OCP runs under DIR in the picker (repeatable; same as --sessions-dir)",
    )
    p.add_argument(
        "--no-follow",
        dest="follow",
        action="store_false",
        help="do not follow the file while another program appends to it",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from loomtui.commands._args import check_filter_name
    from loomtui.session.errors import LoomError, cannot_open

    try:
        check_filter_name(args.filter_mode)
    except LoomError as exc:
        print(f"loomtui: {exc}", file=sys.stderr)
        return 2
    if args.file is not None and not os.path.exists(args.file):
        print(f"loomtui: {cannot_open(args.file)}", file=sys.stderr)
        return 2
    if args.file is not None and not os.path.isdir(args.file):
        from loomtui.session.errors import LoomError
        from loomtui.session.fileio import check_regular

        try:  # a FIFO or device would block or never end: refused before the app starts
            check_regular(args.file)
        except LoomError as exc:
            print(f"loomtui: {exc}", file=sys.stderr)
            return 2
    only_dirs = False  # the picker lists only the directories named (not pi's and omp's too)
    if args.file is not None:
        refused = _refuse_early(args.file)
        if refused is not None:
            print(f"loomtui: {refused}", file=sys.stderr)
            return 2
        if os.path.isdir(args.file) and _holds_sessions(args.file):
            # a directory of sessions: the picker on it
            args.sessions_dirs = [args.file, *args.sessions_dirs]
            args.file = None
            only_dirs = True
    opening = None
    if args.file is not None:  # before Textual starts (and starts threads): see formats/opening
        from loomtui.formats.opening import Opening

        opening = Opening.before_app(args.file)
    from loomtui.app.app import LoomApp

    if args.theme is not None:  # refused as --filter is; the themes are known once Textual is in
        from loomtui.app.themes import unknown_theme

        refused = unknown_theme(args.theme)
        if refused is not None:
            if opening is not None:
                opening.cancel()
            print(f"loomtui: {refused}", file=sys.stderr)
            return 2
    app = LoomApp(
        args.file,
        theme=args.theme,
        filter_mode=args.filter_mode,
        sessions_dirs=args.sessions_dirs,
        only_dirs=only_dirs,
        watch=args.follow,
        opening=opening,
    )
    result = app.run()
    if isinstance(result, int):
        return result
    return app.return_code or 0


def _refuse_early(path: str) -> str | None:
    """An empty or binary file: the one line the other commands print (no full-screen error)."""
    if os.path.isdir(path):
        return None
    try:
        with open_regular_file(path) as f:
            head = f.read(8192)
    except OSError as exc:
        return f"{path}: {exc.strerror or exc}"
    except LoomError as exc:  # a FIFO, a device: refused, never waited on
        return str(exc)
    if head and b"\x00" not in head:
        try:
            head[: len(head) - 4 if len(head) == 8192 else len(head)].decode("utf-8")
            return None
        except UnicodeDecodeError:
            pass
    from loomtui.formats.opening import open_session

    try:
        open_session(path)
    except LoomError as exc:
        return str(exc)
    except Exception as exc:  # one line, never a traceback
        return f"{path}: {type(exc).__name__}: {exc}"
    return None


def _holds_sessions(path: str) -> bool:
    from loomtui.session.locations import discover

    try:
        return bool(discover([path]))
    except OSError:
        return False
