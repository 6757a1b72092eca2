"""Printing a command's result: many formatted lines in blocks, one line flushed at once, a
file just created reported (or removed again when the report cannot be written).

(Formatting half of the lines in a forked child was tried and removed: while the child lives,
every page of the loaded session the parent touches is copied, and the parent's half then costs
as much as all rows alone; docs/performance.md.)
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from typing import TextIO

from loomtui.session.errors import LoomError

FormatRange = Callable[[int, int], Iterable[str]]


def write_lines(fmt: FormatRange, n: int, out: TextIO) -> None:
    """Write ``fmt(0, n)`` to ``out``, one line each."""
    _write_text(out, fmt(0, n))


def write_each(lines: Iterable[str], out: TextIO) -> None:
    """Write ``lines`` to ``out`` as they come, one line each, in blocks (never one string of
    the whole output)."""
    _write_text(out, lines)


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
