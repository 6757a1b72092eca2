"""Safe writes: one-line appends and atomic new files (architecture.md, "Writes").

Nothing already in a file is ever modified here. An append is one ``os.write`` on an
``O_APPEND`` descriptor (preceded by a newline when the file does not end with one) followed by
``fsync``; a new file is written to a temporary sibling and linked into place, which fails
rather than replace a file that already exists.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from loomtui.session.errors import WriteConflict, WriteRefused

TAIL = 256


@dataclass(frozen=True, slots=True)
class FileMark:
    """What a file looked like when it was indexed: enough to notice another writer."""

    inode: int
    device: int
    size: int
    mtime_ns: int
    tail: bytes  # the last bytes up to ``size``

    @property
    def ends_with_newline(self) -> bool:
        return self.size == 0 or self.tail.endswith(b"\n")


def mark_file(path: str, size: int) -> FileMark:
    """Remember ``path`` as indexed up to ``size`` bytes."""
    st = os.stat(path)
    tail = b""
    if size:
        with open(path, "rb") as f:
            f.seek(max(0, size - TAIL))
            tail = f.read(min(size, TAIL))
    return FileMark(st.st_ino, st.st_dev, size, st.st_mtime_ns, tail)


def check_unchanged_prefix(path: str, mark: FileMark) -> int:
    """Return the file's current size if it only grew since ``mark``; raise if it was rewritten.

    A file that is shorter, has another inode, or whose bytes before ``mark.size`` differ at the
    end was rewritten or truncated by somebody else: appending to it could corrupt it.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise WriteConflict(f"{path} no longer exists; nothing was written") from None
    if (st.st_ino, st.st_dev) != (mark.inode, mark.device):
        raise WriteConflict(f"{path} was replaced by another program; reopen it before writing")
    if st.st_size < mark.size:
        raise WriteConflict(f"{path} was truncated by another program; reopen it before writing")
    if mark.size and (st.st_size != mark.size or st.st_mtime_ns != mark.mtime_ns):
        with open(path, "rb") as f:
            f.seek(max(0, mark.size - TAIL))
            if f.read(min(mark.size, TAIL)) != mark.tail:
                raise WriteConflict(f"{path} was rewritten by another program; reopen it before writing")
    return st.st_size


def append_line(path: str, line: bytes, needs_newline: bool) -> int:
    """Append ``line`` (which must end with ``\\n``) as one write; returns its file offset."""
    assert line.endswith(b"\n") and b"\n" not in line[:-1]
    data = (b"\n" + line) if needs_newline else line
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        start = os.fstat(fd).st_size
        written = os.write(fd, data)
        if written != len(data):
            raise WriteConflict(f"short write to {path} ({written} of {len(data)} bytes)")
        os.fsync(fd)
    finally:
        os.close(fd)
    return start + (1 if needs_newline else 0)


def _temp_sibling(directory: str) -> tuple[int, str]:
    """Create an empty temporary file next to the target, with the mode a plain ``open`` would
    give (0o666 minus the umask, as pi's writeFileSync) rather than mkstemp's 0o600."""
    for _ in range(100):
        tmp = os.path.join(directory, f".loomtui-{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), tmp
        except FileExistsError:
            continue
    raise WriteRefused(f"cannot create a temporary file in {directory}")


def write_new_file(path: str, data: bytes, mode: int | None = None) -> None:
    """Create ``path`` with ``data`` atomically; never replaces an existing file.

    ``mode`` (permission bits) defaults to what a plain ``open`` would give.
    """
    directory = os.path.dirname(os.path.abspath(path)) or "."
    if os.path.exists(path):
        raise WriteRefused(f"{path} already exists; choose another name")
    if not os.path.isdir(directory):
        raise WriteRefused(f"directory {directory} does not exist")
    try:
        fd, tmp = _temp_sibling(directory)
    except OSError as exc:
        raise WriteRefused(f"cannot write in {directory}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        try:
            os.link(tmp, path)  # fails with FileExistsError instead of clobbering
        except FileExistsError:
            raise WriteRefused(f"{path} already exists; choose another name") from None
        except OSError:
            if os.path.exists(path):
                raise WriteRefused(f"{path} already exists; choose another name") from None
            os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    _fsync_dir(directory)


def replace_file_with_backup(path: str, data: bytes, backup: str) -> None:
    """Rewrite ``path`` atomically after keeping its current bytes as ``backup``.

    Only for explicit user actions (migrate, saving loom bookmarks). Both files keep the
    original's permission bits.
    """
    if os.path.exists(backup):
        raise WriteRefused(f"backup {backup} already exists; move it away first")
    directory = os.path.dirname(os.path.abspath(path)) or "."
    mode = os.stat(path).st_mode & 0o7777
    with open(path, "rb") as f:
        original = f.read()
    write_new_file(backup, original, mode)
    fd, tmp = _temp_sibling(directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    _fsync_dir(directory)


def _fsync_dir(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
