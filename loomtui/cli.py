"""`loomtui` entry point: the browser app, or one of the terminal-free subcommands.

Each subcommand lives in ``loomtui/commands/<name>.py`` with ``add_arguments(parser)`` and
``run(args) -> int``. Errors a user can cause (LoomError) print one line on stderr and exit 2.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import NoReturn

from loomtui.session.errors import LoomError

#: subcommand -> (module under loomtui.commands, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "tree": ("tree", "print the session tree as pi's /tree draws it"),
    "info": ("info", "summarise a session: entries, branches, labels, models, tokens, diagnostics"),
    "label": (
        "label",
        "set or clear the label of an entry (pi: a label entry appended; Claude Code, Codex: the label store)",
    ),
    "export-branch": ("export_branch", "write the branch ending at an entry to a new session file"),
    "migrate": ("migrate", "rewrite a v1/v2 session as v3 (keeps FILE.bak)"),
    "export-openloom": ("export_openloom", "export a session or loom (or one branch) as OpenLoom v2"),
    "diff": ("diff", "compare two branches: a unified diff of their transcripts, plus totals"),
    "loom-config": ("loom_config", "explain and check Maitento loom configurations; --map: which looms feed which"),
    "check": ("check", "check OCP run documents against the spec (E/W findings; exit 1 on errors)"),
    "export-html": ("export_html", "write a session or loom as one self-contained HTML page"),
    "context": ("context", "print what pi would send to the model at a leaf (messages, model, thinking level)"),
    "resume": ("resume", "resume the agent (pi, omp, Claude Code, Codex) at an entry, in this terminal"),
    "carry": ("carry", "carry what one branch did onto another: a pi branch_summary entry"),
}


#: the browser's line in ``loomtui --help``: not a subcommand's parser (``loomtui [FILE]`` needs no
#: command word), listed first among the commands as ``app``, which ``main`` takes as the browser
APP_HELP = "the browser (the default: `loomtui [FILE]`); `loomtui app --help` shows its options"

APP_USAGE = """\
browser (`loomtui app …` is the same):
  loomtui [FILE] [--theme NAME] [--filter MODE] [--sessions-dir DIR] [--runs-dir DIR] [--no-follow]
      open FILE (a pi/omp, Claude Code or Codex session, a loom, an OCP run) in the browser;
      without FILE, the session picker over ~/.pi/agent/sessions, ~/.omp/agent/sessions,
      ~/.claude/projects, ~/.codex/sessions and --sessions-dir / --runs-dir (the bundled
      samples when there are none). The open file is followed: what another program appends
      shows as it is written (--no-follow: read once). `loomtui app --help` shows every option.
"""


def build_parser(selected: str | None = None) -> argparse.ArgumentParser:
    """The parser: with ``selected``, that subcommand alone, its module imported (a fast start:
    each other subcommand's parser costs about as much as the rest of parsing); without, every
    subcommand with its one-line help (``loomtui --help``)."""
    return _parsers(selected)[0]


def _parsers(selected: str | None) -> tuple[argparse.ArgumentParser, argparse.ArgumentParser | None]:
    """``build_parser``'s parser and the selected subcommand's own (None without one)."""
    chosen: argparse.ArgumentParser | None = None
    parser = argparse.ArgumentParser(
        prog="loomtui",
        description="Browse, label and branch pi / oh-my-pi session trees and other LLM looms.",
        epilog=APP_USAGE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    if selected is None:
        sub.add_parser("app", help=APP_HELP, description=APP_HELP)
    for name, (module, help_text) in SUBCOMMANDS.items():
        if selected is not None and name != selected:
            continue
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name == selected:
            importlib.import_module(f"loomtui.commands.{module}").add_arguments(p)
            chosen = p
    return parser, chosen


def parse_command(argv: list[str]) -> argparse.Namespace:
    """A subcommand's arguments (``argv[0]`` names it), parsed by its own parser: options and
    arguments in any order (``label FILE ID --clear TEXT`` reaches label's own check of TEXT
    with --clear), and anything it does not take reported under its own usage, not loomtui's."""
    _, command = _parsers(argv[0])
    assert command is not None
    return command.parse_intermixed_args(argv[1:], argparse.Namespace(command=argv[0]))


def main(argv: list[str] | None = None) -> int:
    argv = _global_options(list(sys.argv[1:] if argv is None else argv))
    if argv and argv[0] == "app":
        argv = argv[1:]
    elif argv and argv[0] in ("-h", "--help"):
        build_parser().print_help()
        return 0
    if not argv or argv[0] not in SUBCOMMANDS:
        # no subcommand: the browser (optionally on FILE)
        from loomtui.commands import app as app_command

        return app_command.main(argv)
    args = parse_command(argv)
    module = importlib.import_module(f"loomtui.commands.{SUBCOMMANDS[args.command][0]}")
    from loomtui.commands.safe_output import guarded

    colour = getattr(args, "color", "never") != "never"
    try:
        code = guarded(lambda: module.run(args) or 0, colour)
        sys.stdout.flush()  # a full disk or /dev/full shows here, not as a traceback at exit
        return code
    except Exception as exc:  # noqa: BLE001 - one line, never a traceback (docs/style.md)
        return _failure(exc)


def _global_options(argv: list[str]) -> list[str]:
    """Take the options every command accepts out of ``argv`` (before a ``--``)."""
    stop = argv.index("--") if "--" in argv else len(argv)
    if "--no-cache" in argv[:stop]:  # any command: no persistent index (session/indexcache.py)
        argv = [a for a in argv[:stop] if a != "--no-cache"] + argv[stop:]
        os.environ["LOOMTUI_NO_CACHE"] = "1"
    return argv


def _failure(exc: Exception) -> int:
    """The exit code and the one line on stderr for a command that raised ``exc``."""
    if isinstance(exc, LoomError):
        return fail(str(exc))
    if isinstance(exc, BrokenPipeError):
        _quiet_stdout()
        return 0
    if isinstance(exc, OSError):
        _quiet_stdout()
        return fail(f"{exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else ""))
    if isinstance(exc, RecursionError):
        return fail("the input is nested too deeply to process")
    if isinstance(exc, MemoryError):
        return fail("out of memory")
    return fail(f"unexpected error ({type(exc).__name__}: {str(exc)[:200]}); please report it")


def fail(message: str) -> int:
    """One line on stderr (made printable: it may quote the file), exit code 2."""
    from loomtui.view.printable import printable

    try:
        print(f"loomtui: {printable(message)}", file=sys.stderr)
    except (OSError, ValueError):
        pass
    return 2


def _quiet_stdout() -> None:
    """Drop what stdout still buffers (its device failed) so the exit does not fail again."""
    try:
        sys.stdout = open(os.devnull, "w")
    except OSError:
        pass


def run() -> NoReturn:
    """The console script: ``main``, then a fast exit.

    A big session leaves ~10^6 objects behind; letting the interpreter free them one by one
    at exit costs a quarter of a second on a 100k-entry file for nothing. Every write loomtui
    makes is already on disk (``store`` writes with ``os.write`` and fsync), so once stdout and
    stderr are flushed the process can end at once.
    """
    code = main()
    try:
        sys.stdout.flush()
    except (BrokenPipeError, ValueError):
        pass
    except OSError as exc:
        code = fail(f"cannot write the output: {exc.strerror or exc}")
    try:
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):
        pass
    from loomtui.formats.opening import reap_helpers

    reap_helpers()  # the helpers that have exited (one still exiting is left to init)
    os._exit(code)
