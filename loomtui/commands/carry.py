"""`loomtui carry FILE --from A --onto B [--message TEXT] [--export [--dir DIR]] [--dry-run]`.

Appends to B's branch one pi ``branch_summary`` entry (``fromId`` A) whose summary is TEXT, or a
digest of A made from the compare model (``formats/carry_on/carry.py``): pi resumed on B sends it to the
model. Only pi and omp sessions are written; a Claude Code or Codex session takes ``--export``,
which writes B's branch as a new pi session first and carries onto that. Prints the file and
the new entry's id (``FILE<TAB>ID``, for scripts) and, on stderr, what was done. A refusal is one line, exit 2, nothing written.
"""

from __future__ import annotations

import argparse
import sys

from loomtui.commands._args import resolve_id
from loomtui.commands.progress import open_showing_progress
from loomtui.formats.carry_on.carry import CarryNames, CarryPlan, apply_carry, plan_carry
from loomtui.formats.carry_on.resume import pi_agent
from loomtui.session.errors import LoomError
from loomtui.session.jsstr import js_json
from loomtui.session.manager import SessionManager


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="a pi/omp session (a Claude Code or Codex one with --export)")
    p.add_argument(
        "--from", dest="from_id", metavar="A", required=True, help="the branch that was tried (its last entry)"
    )
    p.add_argument("--onto", dest="onto_id", metavar="B", required=True, help="the branch to carry it onto")
    p.add_argument("--message", "-m", metavar="TEXT", help="the summary (default: a digest of A)")
    p.add_argument(
        "--export",
        action="store_true",
        help="a read-only source: write B's branch as a new pi session and carry onto that",
    )
    p.add_argument("--dir", metavar="DIR", help="with --export: the directory of the pi copy")
    p.add_argument("--dry-run", action="store_true", help="print the entry that would be appended")


def run(args: argparse.Namespace) -> int:
    if args.dir is not None and not args.export:
        raise LoomError("--dir names where --export writes the pi copy; give --export too")
    if args.message is not None and not args.message.strip():
        raise LoomError("the --message is empty; nothing was written")
    sm = open_showing_progress(args.file)
    a = resolve_id(sm, args.from_id, args.file)
    b = resolve_id(sm, args.onto_id, args.file)
    names = CarryNames(f"A ({a})", f"B ({b})")  # as --from A and --onto B
    plan = plan_carry(sm, a, b, args.message, export=args.export, dest=args.dir, names=names)
    if args.dry_run:
        where = plan.file or f"a new pi copy of the branch ending at {plan.onto} in {plan.export_dir}"
        print(f"append to {where}:\n  {js_json(plan.entry())}")
        return 0
    try:
        path, new_id = apply_carry(sm, plan)
    except OSError as exc:
        raise LoomError(
            f"cannot write {plan.file or plan.export_dir}: {exc.strerror or exc}; nothing was written"
        ) from None
    print(f"{path}\t{new_id}")
    print(f"loomtui: {_done(sm, plan, path, new_id)}", file=sys.stderr)  # stdout stays FILE<TAB>ID
    return 0


def _done(sm: SessionManager, plan: CarryPlan, path: str, new_id: str) -> str:
    """What the carry did, in words."""
    carried = f"carried from the branch ending at {plan.a_id}"
    if plan.export_dir is not None:
        return (
            f"wrote {path}, a pi copy of the branch ending at {plan.onto}, ending with the branch summary "
            f"{new_id} ({carried}); pi resumes it there and sends the summary to the model"
        )
    return (
        f"appended the branch summary {new_id} to {path}, onto {plan.onto} ({carried}); "
        f"{pi_agent(sm)} now resumes there and sends the summary to the model"
    )
