"""`loomtui label FILE ENTRY_ID TEXT` / `--clear`: set or clear a label the way pi does.

Appends one ``label`` entry (docs/formats.md §7.4, §12 "Labeling"): parented on the file's last
entry, so the reopened leaf keeps its path, and written as a single line. Prints the new entry's
id. Old-version files are refused until migrated. TEXT is one line of printable text
(``session/label_text.py``: a control character, a tab or a newline is refused, as the
browser's label dialog refuses it). A label that would not change (the same text again,
``--clear`` on an entry without a label) writes nothing and says so on stderr (exit 0).

A Claude Code or Codex session is never written: the label goes to loomtui's label store
(``$XDG_DATA_HOME/loomtui/labels``), and the store file's path is printed.
"""

from __future__ import annotations

import argparse
import sys

from loomtui.commands._args import check
from loomtui.commands._output import print_line
from loomtui.commands.progress import open_showing_progress
from loomtui.session.errors import LoomError, WriteRefused
from loomtui.session.label_text import check_label, trim_label, unchanged_label
from loomtui.session.manager import SessionManager
from loomtui.view.printable import printable


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "file",
        metavar="FILE",
        help="a pi/omp session (v3), or a Claude Code or Codex session (the label goes to loomtui's label store)",
    )
    p.add_argument("entry_id", metavar="ENTRY_ID", help="the entry to label")
    p.add_argument("text", metavar="TEXT", nargs="?", help="the label (trimmed, as pi does)")
    p.add_argument("--clear", action="store_true", help="remove the entry's label instead")


def run(args: argparse.Namespace) -> int:
    if args.clear and args.text is not None:
        raise LoomError("give either TEXT or --clear, not both")
    if not args.clear:
        if args.text is None:
            raise LoomError("give the label TEXT, or --clear to remove the label")
        if not _is_utf8(args.text):
            raise LoomError("the label text is not valid UTF-8; nothing was written")
        label = trim_label(args.text)
        if label is None:
            raise LoomError("the label is empty; use --clear to remove a label")
        check_label(label)
    else:
        label = None
    try:
        sm = open_showing_progress(args.file)
        check(args, sm)
        store_file = sm.source.label_store
        if store_file is not None:
            if _unchanged(sm, args.entry_id, label):
                return 0
            sm.append_label_change(args.entry_id, label)
            print(
                f"{args.entry_id} labelled in {store_file}"
                if label
                else f"{args.entry_id}: label cleared in {store_file}"
            )
            return 0
        if sm.path is None:
            src = sm.source
            where = (
                "its labels are bookmarks, which the browser saves into the file (Alt+L, then Ctrl+S; "
                "it keeps FILE.bak)"
                if src.saver is not None
                else "loomtui never writes it, and labels set in the browser stay in memory"
            )
            raise WriteRefused(
                f"{args.file} is {src.a_name}: {where}; `label` writes pi sessions and the label store of "
                "Claude Code and Codex sessions"
            )
        if _unchanged(sm, args.entry_id, label):
            return 0
        new_id = sm.append_label_change(args.entry_id, label)
    except OSError as exc:
        raise LoomError(f"cannot write {args.file}: {exc.strerror or exc}; nothing was written") from None
    try:
        print_line(new_id)
    except OSError as exc:
        raise LoomError(
            f"the label was written (entry {new_id}) but the output failed: {exc.strerror or exc}"
        ) from None
    return 0


def _unchanged(sm: SessionManager, entry_id: str, label: str | None) -> bool:
    """Say so on stderr when the label would not change (the same label again, a clear of an
    entry without one): nothing is appended, exit 0, as the browser's label dialog does."""
    unchanged = unchanged_label(entry_id, sm.get_label(entry_id), label)
    if unchanged is None:
        return False
    print(f"loomtui: {printable(unchanged)}", file=sys.stderr)
    return True


def _is_utf8(text: str) -> bool:
    """Command-line bytes that are not UTF-8 arrive as lone surrogates (surrogateescape)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
