"""Errors a user can cause; each message says what to do next."""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass


def cannot_open(path: str, exc: OSError | None = None) -> str:
    """The one wording of a file that cannot be opened or read, in every command and screen:
    ``cannot open PATH: No such file or directory`` (no exception: the file is missing)."""
    reason = (exc.strerror or str(exc)) if exc is not None else os.strerror(errno.ENOENT)
    return f"cannot open {path}: {reason}"


class LoomError(Exception):
    """Base of loomtui's own errors (the CLI prints the message and exits with code 2)."""


class SessionFormatError(LoomError):
    """The file is not a session loomtui can read (v4 mutation log, no header, not JSONL)."""


class WriteConflict(LoomError):
    """The file changed on disk in a way that makes an append unsafe (rewritten, truncated).
    ``change``: how, where it is known (``"replaced"``, ``"truncated"``, ``"rewritten"``), so a
    screen that reloads the file can say what happened without the message's advice to reopen it."""

    def __init__(self, message: str, change: str = "") -> None:
        super().__init__(message)
        self.change = change


class PartialLastLine(WriteConflict):
    """The file ends in a line without its newline: another program (the agent) is still
    writing it, so an append now would land inside that line. Nothing was written; the same
    write works once the line is complete (a reload shows nothing new)."""


class FileChanged(LoomError):
    """An entry's line is no longer where the file was read (the file was cut or rewritten
    under loomtui); reopening reads it again."""


class WriteRefused(LoomError):
    """A write that loomtui will not do (old format version, unknown entry, existing file)."""


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """Something the reader repaired or skipped, with the 1-based physical line it concerns."""

    line: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}" if self.line else self.reason
