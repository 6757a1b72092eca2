"""`loomtui label FILE ENTRY_ID TEXT` / `--clear`: set or clear a label the way pi does.

Appends one ``label`` entry (docs/formats.md §7.4, §12): parented on the file's last entry, so
the reopened leaf keeps its path, and written as a single line. As ``carry`` does, stdout says
what was written, for scripts (the new entry's id), and stderr says in words what was done. TEXT
is one line of printable text (``session/label_text.py``: a control character, a tab or a
newline is refused, as the browser's label dialog refuses it). A label that would not change
(the same text again, ``--clear`` on an entry without a label) writes nothing and says so on
stderr (exit 0).

A Claude Code or Codex session is never written: the label goes to loomtui's label store
(``$XDG_DATA_HOME/loomtui/labels``), whose file is printed on stdout.

What the file is decides first: a file ``label`` never writes (an old version to migrate, a
loom, an OCP run, a bundled sample) is refused before ENTRY_ID is looked up, so the answer for
one file does not depend on the id given.
"""

from __future__ import annotations

import argparse
import sys

from loomtui.commands._args import check
from loomtui.commands._output import print_line
from loomtui.commands.progress import open_showing_progress
from loomtui.formats.carry_on.resume import pi_agent
from loomtui.session.errors import LoomError, WriteRefused
from loomtui.session.label_text import check_label, trim_label, unchanged_label
from loomtui.session.manager import SessionManager
from loomtui.session.store import refuse_bundled
from loomtui.view.printable import printable


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "file",
        metavar="FILE",
        help="a pi/omp session (v3), or a Claude Code or Codex session (the label goes to loomtui's label store)",
    )
    p.add_argument("entry_id", metavar="ENTRY_ID", help="the entry to label")
    p.add_argument("text", metavar="TEXT", nargs="?", help="the label (trimmed, as pi does; one line)")
    p.add_argument("--clear", action="store_true", help="remove the entry's label instead")


def run(args: argparse.Namespace) -> int:
    label = _label_given(args)
    try:
        sm = open_showing_progress(args.file)
        _refuse_unwritable(sm, args.file)
        check(args, sm)
        before = sm.get_label(args.entry_id)
        unchanged = unchanged_label(args.entry_id, before, label)
        if unchanged is not None:
            _say(unchanged)
            return 0
        written = sm.append_label_change(args.entry_id, label)
    except OSError as exc:
        raise LoomError(f"cannot write {args.file}: {exc.strerror or exc}; nothing was written") from None
    store = sm.source.label_store
    what = _what(args.entry_id, before, label)
    try:
        if store is not None:
            print_line(store)
            _say(f"{what} in loomtui's label store {store}; {args.file} is never written")
        else:
            print_line(written)
            _say(
                f"{what}: appended the label entry {written} to {args.file}, after its last entry; "
                f"{pi_agent(sm)} resumes the same conversation"
            )
    except OSError as exc:
        where = f"in {store}" if store is not None else f"(entry {written})"
        raise LoomError(f"the label was written {where} but the output failed: {exc.strerror or exc}") from None
    return 0


def _label_given(args: argparse.Namespace) -> str | None:
    """The label to write (None: ``--clear``), or a LoomError before the file is read."""
    if args.clear and args.text is not None:
        raise LoomError("give either TEXT or --clear, not both")
    if args.clear:
        return None
    if args.text is None:
        raise LoomError("give the label TEXT, or --clear to remove the label")
    if not _is_utf8(args.text):
        raise LoomError("the label text is not valid UTF-8; nothing was written")
    label = trim_label(args.text)
    if label is None:
        raise LoomError("the label is empty; use --clear to remove a label")
    check_label(label)
    return label


def _refuse_unwritable(sm: SessionManager, file: str) -> None:
    """Refuse a file ``label`` does not write, whatever ENTRY_ID is."""
    if sm.source.label_store is not None:
        return  # the label store is written, never the file
    if sm.path is None:
        src = sm.source
        where = (
            "its labels are bookmarks, which the browser saves into the file (Alt+L, then Ctrl+S; it keeps FILE.bak)"
            if src.saver is not None
            else "loomtui never writes it, and labels set in the browser stay in memory"
        )
        raise WriteRefused(
            f"{file} is {src.a_name}: {where}; `label` writes pi sessions and the label store of "
            "Claude Code and Codex sessions"
        )
    refuse_bundled(sm.path)  # a sample is never written, migrated or not
    refusal = sm.append_refusal()  # an old version: migrate first
    if refusal:
        raise WriteRefused(refusal)


def _what(entry_id: str, before: object, label: str | None) -> str:
    """What the label change was, in words: ``labelled ID [x]`` (``(was [y])``), or ``cleared the
    label [y] of ID``."""
    was = None if before is None else str(before)
    if label is None:
        return f"cleared the label [{was}] of {entry_id}"
    return f"labelled {entry_id} [{label}]" + (f" (was [{was}])" if was is not None else "")


def _say(text: str) -> None:
    """One line on stderr, beside what stdout holds for scripts."""
    print(f"loomtui: {printable(text)}", file=sys.stderr)


def _is_utf8(text: str) -> bool:
    """Command-line bytes that are not UTF-8 arrive as lone surrogates (surrogateescape)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
