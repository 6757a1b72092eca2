"""Printing many formatted lines, on two CPUs when that pays.

With ``fork`` the child shares the loaded model (copy-on-write), formats the second half of the
lines into memory and hands the bytes over a pipe while the parent formats the first half; the
output is identical to formatting in one process (a test checks it).

It does not pay for `loomtui tree`'s rows, so it is off by default (``PARALLEL_MIN_LINES``):
while the child lives, every page of the loaded session the parent touches (reference counts
of each entry it formats) is copied, and the parent's half then costs as much CPU as formatting
all rows alone (measured on 100k entries: 0.95 s parent CPU either way, the child's 0.2 s on
top, 0.3-0.4 s more wall time, cold and warm). A caller whose per-line work is heavy compared
with the memory it touches can still ask for it (``min_parallel``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from typing import TextIO

from loomtui.session.errors import LoomError
from loomtui.session.forked import can_fork, child_output, start_child

#: below this many lines one process is faster than a fork and a pipe (off: see above)
PARALLEL_MIN_LINES = 1 << 62

FormatRange = Callable[[int, int], Iterable[str]]


def write_lines(fmt: FormatRange, n: int, out: TextIO, min_parallel: int = PARALLEL_MIN_LINES) -> None:
    """Write ``fmt(0, n)`` to ``out``, one line each, splitting the work in two if it is big."""
    if n < max(2, min_parallel) or not can_fork():
        _write_text(out, fmt(0, n))
        return
    mid = n // 2
    out.flush()  # nothing buffered may be written twice
    encoding, errors = out.encoding or "utf-8", out.errors or "strict"
    pid, read_fd = start_child(lambda: _join(fmt(mid, n)).encode(encoding, errors))
    try:
        _write_text(out, fmt(0, mid))
    finally:
        data = child_output(pid, read_fd)
    if data is None:
        _write_text(out, fmt(mid, n))  # the child failed: format the rest here
        return
    out.flush()
    buffer = getattr(out, "buffer", None)
    if buffer is not None:
        buffer.write(data)
        buffer.flush()
    else:  # a text-only stream (tests): decode what the child wrote
        out.write(data.decode(encoding, errors))


def _join(lines: Iterable[str]) -> str:
    items = list(lines)
    return "\n".join(items) + "\n" if items else ""


#: lines joined per write: as fast as one join of all, without a copy of the whole output
WRITE_BLOCK = 4096


def _write_text(out: TextIO, lines: Iterable[str]) -> None:
    block: list[str] = []
    for line in lines:
        block.append(line)
        if len(block) >= WRITE_BLOCK:
            block.append("")
            out.write("\n".join(block))
            block.clear()
    if block:
        block.append("")
        out.write("\n".join(block))


#: what a command keeps referenced until the process ends (see ``keep_until_exit``)
_kept: list[object] = []


def keep_until_exit(value: object) -> None:
    """Keep ``value`` (a loaded session and its tree) referenced after the command returns.

    The console script ends with ``os._exit`` (``cli.run``), so nothing is freed at exit; but a
    session dropped when the command returns is freed object by object first: 0.06 s for a
    100k-entry session, and twice that when a cache writer was just forked, since every page
    the freeing touches is first copied for the child (copy-on-write). Only the latest value is
    kept (a test calling commands in one process does not pile them up)."""
    _kept[:] = [value]


def write_text(text: str) -> None:
    """``print_line`` without the newline: a long result written in pieces."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is not None:
        sys.stdout.flush()
        buffer.write(text.encode("utf-8", "surrogateescape"))
    else:
        sys.stdout.write(text)


def print_line(text: str) -> None:
    """Print one line of the command's result and flush it (file names with undecodable
    bytes are written as those bytes, not as an encoding error)."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is not None:
        sys.stdout.flush()
        buffer.write(text.encode("utf-8", "surrogateescape") + b"\n")
        buffer.flush()
    else:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()


def report_created(path: str, text: str) -> None:
    """Print ``text`` about the file just created at ``path``; when stdout cannot take it (a
    full disk, /dev/full), remove the file again: the command failed, nothing is left behind."""
    try:
        print_line(text)
    except OSError as exc:
        try:
            os.unlink(path)
        except OSError:
            pass
        raise LoomError(f"cannot write the output ({exc.strerror or exc}); {path} was not kept") from None
