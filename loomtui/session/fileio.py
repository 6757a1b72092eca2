"""Opening files safely: only regular files, never a read that blocks or never ends.

A FIFO given as a session path would block every ``open`` forever, ``/dev/zero`` would be read
until memory runs out, a terminal or socket would wait for input. Every file loomtui reads or
writes is opened here: with ``O_NONBLOCK`` (so opening a FIFO returns at once), then checked
with ``fstat`` to be a regular file before a byte is read (docs/architecture.md, "Bad input").
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

from loomtui.session.errors import SessionFormatError


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def open_regular(path: str, flags: int = os.O_RDONLY) -> int:
    """``os.open`` that refuses anything but a regular file (SessionFormatError, nothing read).

    Raises OSError as ``os.open`` does for missing files and permissions.
    """
    fd = os.open(path, flags | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise SessionFormatError(f"{path} is {_kind(st.st_mode)}, not a regular file; loomtui reads files only")
        # a regular file ignores O_NONBLOCK; clear it all the same for plain blocking writes
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_big(path: str, min_bytes: int) -> tuple[int, os.stat_result] | None:
    """A regular file of at least ``min_bytes`` (and one byte) opened for reading, with its
    ``fstat``; None for a smaller, missing or unreadable file or anything but a regular file:
    what reading a file's parts on two CPUs starts from. The caller closes the descriptor."""
    try:
        fd = open_regular(path)
    except (OSError, SessionFormatError):
        return None
    try:
        st = os.fstat(fd)
        if st.st_size >= max(min_bytes, 1):
            return fd, st
    except OSError:
        pass
    os.close(fd)
    return None


def line_start_after(fd: int, offset: int, look: int = 1 << 20) -> int | None:
    """Where the first line that starts after byte ``offset`` begins (just past the next
    newline); None when there is no newline in the ``look`` bytes from there."""
    nl = os.pread(fd, look, offset).find(b"\n")
    return None if nl < 0 else offset + nl + 1


def open_regular_file(path: str) -> BinaryIO:
    """``open(path, "rb")`` through ``open_regular``."""
    return os.fdopen(open_regular(path), "rb")


def check_regular(path: str) -> None:
    """Raise SessionFormatError when ``path`` exists but is not a regular file (no open)."""
    try:
        st = os.stat(path)
    except OSError:
        return
    if not stat.S_ISREG(st.st_mode):
        raise SessionFormatError(f"{path} is {_kind(st.st_mode)}, not a regular file; loomtui reads files only")


def read_capped(path: str, limit: int) -> bytes:
    """The whole regular file at ``path``, refused (SessionFormatError) when over ``limit``
    bytes — checked before reading and while reading (a file may grow meanwhile)."""
    with open_regular_file(path) as f:
        size = os.fstat(f.fileno()).st_size
        if size > limit:
            raise SessionFormatError(f"{path} is {size >> 20} MB; loomtui reads documents up to {limit >> 20} MB")
        # what fstat says, plus one byte to see growth (``read(limit + 1)`` would allocate the
        # whole limit for a small file); a file that grew is read on, up to the limit
        data = f.read(min(size, limit) + 1)
        if len(data) > size:
            data += f.read(limit + 1 - len(data))
    if len(data) > limit:
        raise SessionFormatError(f"{path} grew beyond {limit >> 20} MB while it was read")
    return data


#: what a small file loomtui reads whole (a subagent's meta file, a configuration, the label
#: store, a theme or key map) may weigh; a bigger one is refused rather than read into memory
SMALL_FILE_LIMIT = 64 << 20


def read_regular(path: str, limit: int = SMALL_FILE_LIMIT) -> bytes:
    """``read_capped`` with the limit for small files: what every file named by data or by
    configuration is read with (a FIFO, a device or a link to one is refused, never waited on)."""
    return read_capped(path, limit)


def contained(base: str, *parts: str) -> str | None:
    """``base`` joined with ``parts`` (names taken from a file's contents), resolved (``..``,
    symbolic links), when it is still inside ``base`` resolved; None when it leaves it (an
    absolute part, ``../``, a link pointing elsewhere)."""
    root = os.path.realpath(base)
    try:
        joined = os.path.join(base, *parts)
    except (TypeError, ValueError):
        return None
    if "\x00" in joined:
        return None
    real = os.path.realpath(joined)
    if real != root and not real.startswith(os.path.join(root, "")):
        return None
    return real


def referenced_path(ref: str, near: str | None) -> str | None:
    """The file a reference to another session names (pi's ``parentSession``, an OCP
    attempt's ``session``): an absolute path (or ``~/…``) as written, which the tool itself
    wrote for this machine; a relative one only inside the folder of ``near``, the file holding
    it (None when it climbs out)."""
    p = os.path.expanduser(ref)
    if "\x00" in p:
        return None
    if os.path.isabs(p) or not near:
        return p
    return contained(os.path.dirname(os.path.abspath(near)), p)
