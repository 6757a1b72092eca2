"""`loomtui resume FILE --at ENTRY [--dry-run]`: hand the conversation to its agent at ENTRY.

The plan (``formats/carry_on/resume.py``): for pi and oh-my-pi the resume point is persisted the way
Ctrl+S persists the leaf, then ``pi --session FILE`` (omp: ``omp --resume FILE``) runs in the
session's working directory; for Claude Code and Codex the branch is exported as a new session
of the tool's format and ``claude --resume ID`` / ``codex resume ID`` runs on it. The agent takes
this terminal; its exit code is loomtui's. ``--dry-run`` prints the command line and what would
be appended, and writes nothing; when the agent's program is not found it then refuses as the
run would (one line on stderr, exit 2). A refusal (unknown entry, a source no agent resumes, a missing
agent program, a file changed since it was read) is one line, exit 2, nothing written.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys

from loomtui.commands._args import check
from loomtui.commands.progress import open_showing_progress
from loomtui.formats.carry_on.resume import apply_plan, plan_resume
from loomtui.session.errors import LoomError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="a pi/omp, Claude Code or Codex session")
    p.add_argument(
        "--at",
        dest="entry_id",
        metavar="ENTRY",
        required=True,
        help="the entry to resume at (an id or a unique prefix; a user message: its parent)",
    )
    p.add_argument("--dry-run", action="store_true", help="print the command line and what would be appended")


def run(args: argparse.Namespace) -> int:
    sm = open_showing_progress(args.file)
    check(args, sm)
    plan = plan_resume(sm, args.entry_id)
    missing = plan.missing_program()
    if args.dry_run:
        print("\n".join(plan.describe()))
        if missing is not None:
            # the run would be refused: said as the run says it, with its exit code
            sys.stdout.flush()
            raise LoomError(missing)
        return 0
    if missing is not None:
        raise LoomError(missing)
    try:
        appended = apply_plan(sm, plan)
    except OSError as exc:
        raise LoomError(f"cannot write {plan.file}: {exc.strerror or exc}; nothing was written") from None
    what = (
        f"appended {appended} to {plan.file}"
        if appended
        else (f"wrote {plan.file}" if plan.export_from else f"{plan.file} already ends at {plan.leaf}{plan.ends_with}")
    )
    print(f"loomtui: {what}; running {plan.command_line()}", file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        return run_in_terminal(plan.argv, plan.cwd, {**os.environ, **plan.env})
    except OSError as exc:
        raise LoomError(f"cannot run {plan.command_line()}: {exc.strerror or exc}") from None


def run_in_terminal(argv: list[str], cwd: str | None, env: dict[str, str]) -> int:
    """Run the agent on this terminal and wait. Ctrl+C belongs to the agent meanwhile (pi aborts a
    turn with it): loomtui ignores SIGINT until the agent exits, the agent keeps the default."""
    proc = subprocess.Popen(argv, cwd=cwd, env=env)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return proc.wait()
    finally:
        signal.signal(signal.SIGINT, previous)
