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


class _StatusLine:
    """One line on stderr that loomtui redraws (carriage return, erase line), at most every
    0.1 s, erased at the end; silent unless stderr is a terminal and the file is big."""

    def __init__(self, path: str, stream: TextIO | None, min_bytes: int | None) -> None:
        out = sys.stderr if stream is None else stream
        # the line loomtui redraws itself goes past the output guard (commands/safe_output.py);
        # the file name in it is made printable here
        self.out = getattr(out, "unguarded", out)
        try:
            big = os.path.getsize(path) >= (MIN_BYTES if min_bytes is None else min_bytes)
            self.on = bool(self.out.isatty()) and big
        except (OSError, ValueError):
            self.on = False
        self.name = printable(os.path.basename(path))
        self.shown = False
        self.at = 0.0

    def show(self, text: str) -> None:
        now = time.monotonic()
        if self.shown and now - self.at < 0.1:
            return
        self.shown, self.at = True, now
        self._write(f"\r\x1b[K{text}")

    def clear(self) -> None:
        if self.shown:
            self._write("\r\x1b[K")

    def _write(self, text: str) -> None:
        try:
            self.out.write(text)
            self.out.flush()
        except (OSError, ValueError):
            pass


def stderr_progress(
    path: str, stream: TextIO | None = None, min_bytes: int | None = None
) -> tuple[Callable[[int, int, int], None] | None, Callable[[], None]]:
    """(a ``SessionManager.open`` progress callback or None, a function clearing the line)."""
    line = _StatusLine(path, stream, min_bytes)
    if not line.on:
        return None, _nothing

    def report(done: int, total: int, entries: int) -> None:
        pct = 100 * done // total if total else 100
        line.show(f"reading {line.name}: {done / 1e6:.0f}/{total / 1e6:.0f} MB ({pct}%), {entries:,} entries")

    return report, line.clear


def counting(
    path: str, verb: str, what: str = "entries", stream: TextIO | None = None, min_bytes: int | None = None
) -> tuple[Callable[[int, int], None] | None, Callable[[], None]]:
    """(a callback taking (done, total), or None, and a function clearing the line) for a slow
    step after the reading that goes through ``total`` things: "comparing big.jsonl: 12,000 of
    72,034 entries"."""
    line = _StatusLine(path, stream, min_bytes)
    if not line.on:
        return None, _nothing

    def report(done: int, total: int) -> None:
        line.show(f"{verb} {line.name}: {done:,} of {total:,} {what}")

    return report, line.clear


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
    line = _StatusLine(path, stream, None)
    if line.on:
        line.show(f"{printable(what)}…")
    try:
        yield
    finally:
        line.clear()
