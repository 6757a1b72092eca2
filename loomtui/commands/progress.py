"""Loading progress on stderr for the commands (only when stderr is a terminal)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TextIO

from loomtui.view.printable import printable

if TYPE_CHECKING:
    from loomtui.session.manager import SessionManager

#: files smaller than this load too fast for a progress line to help
MIN_BYTES = 8 << 20


def stderr_progress(
    path: str, stream: TextIO | None = None, min_bytes: int | None = None
) -> tuple[Callable[[int, int, int], None] | None, Callable[[], None]]:
    """(a ``SessionManager.open`` progress callback or None, a function clearing the line)."""
    out = sys.stderr if stream is None else stream
    # the line loomtui redraws itself (carriage return, erase line) goes past the output guard
    # (commands/safe_output.py); the file name in it is made printable here
    out = getattr(out, "unguarded", out)
    try:
        if not out.isatty() or os.path.getsize(path) < (MIN_BYTES if min_bytes is None else min_bytes):
            return None, _nothing
    except (OSError, ValueError):
        return None, _nothing
    shown = [False, 0.0]
    name = printable(os.path.basename(path))

    def report(done: int, total: int, entries: int) -> None:
        now = time.monotonic()
        if shown[0] and now - float(shown[1]) < 0.1:
            return
        shown[0], shown[1] = True, now
        pct = 100 * done // total if total else 100
        try:
            out.write(f"\r\x1b[Kreading {name}: {done / 1e6:.0f}/{total / 1e6:.0f} MB ({pct}%), {entries:,} entries")
            out.flush()
        except (OSError, ValueError):
            pass

    def clear() -> None:
        if shown[0]:
            try:
                out.write("\r\x1b[K")
                out.flush()
            except (OSError, ValueError):
                pass

    return report, clear


def _nothing() -> None:
    return None


def open_showing_progress(path: str, tree_id: str | None = None) -> SessionManager:
    """``open_session`` with the loading line on stderr (a terminal, a big file), cleared once
    the session is read: every command that reads a whole session shows it, not only `tree`."""
    from loomtui.formats.opening import open_session

    report, clear = stderr_progress(path)
    try:
        return open_session(path, tree_id=tree_id, progress=report)
    finally:
        clear()


@contextmanager
def stage(path: str, what: str, stream: TextIO | None = None) -> Iterator[None]:
    """One line on stderr ("writing page.html…") while a slow step after the reading runs (a
    terminal, a big file), erased when it ends."""
    out = sys.stderr if stream is None else stream
    out = getattr(out, "unguarded", out)
    try:
        shown = out.isatty() and os.path.getsize(path) >= MIN_BYTES
    except (OSError, ValueError):
        shown = False
    if shown:
        try:
            out.write(f"\r\x1b[K{printable(what)}…")
            out.flush()
        except (OSError, ValueError):
            shown = False
    try:
        yield
    finally:
        if shown:
            try:
                out.write("\r\x1b[K")
                out.flush()
            except (OSError, ValueError):
                pass
