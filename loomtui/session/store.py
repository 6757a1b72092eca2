"""Safe writes: one-line appends and atomic new files (docs/architecture.md, "Writes").

Nothing already in a file is ever modified here. An append is one ``os.write`` on an
``O_APPEND`` descriptor followed by ``fsync``, made only when the file's last byte, read on that
descriptor just before the write, is a newline: a file ending mid-line is being written by
another program, and nothing is appended to it (PartialLastLine). A new file is written to a temporary sibling and linked into place, which fails
rather than replace a file that already exists.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO

from loomtui.session.errors import LoomError, PartialLastLine, WriteConflict, WriteRefused
from loomtui.session.fileio import check_regular, open_regular
from loomtui.session.locations import in_bundled_samples

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
    fd = open_regular(path)
    try:
        st = os.fstat(fd)
        tail = os.pread(fd, min(size, TAIL), max(0, size - TAIL)) if size else b""
    finally:
        os.close(fd)
    return FileMark(st.st_ino, st.st_dev, size, st.st_mtime_ns, tail)


def check_unchanged_prefix(path: str, mark: FileMark) -> int:
    """Return the file's current size if it only grew since ``mark``; raise if it was rewritten.

    A file that is shorter, has another inode, or whose last bytes before ``mark.size`` differ
    was rewritten or truncated by somebody else: appending to it could corrupt it. The bytes
    are compared every time, also when size and mtime look unchanged (a rewrite in place can
    keep both).
    """
    try:
        fd = open_regular(path)
    except FileNotFoundError:
        raise WriteConflict(f"{path} no longer exists; nothing was written") from None
    except OSError as exc:
        raise WriteConflict(f"cannot read {path}: {exc.strerror}; nothing was written") from None
    try:
        st = os.fstat(fd)
        if (st.st_ino, st.st_dev) != (mark.inode, mark.device):
            raise WriteConflict(f"{path} was replaced by another program; reopen it before writing", "replaced")
        if st.st_size < mark.size:
            raise WriteConflict(f"{path} was truncated by another program; reopen it before writing", "truncated")
        if mark.size:
            start = max(0, mark.size - TAIL)
            if os.pread(fd, mark.size - start, start) != mark.tail:
                raise WriteConflict(f"{path} was rewritten by another program; reopen it before writing", "rewritten")
    finally:
        os.close(fd)
    return st.st_size


def _reason(exc: OSError | None) -> str:
    if exc is None:
        return "the disk is full"
    if exc.errno == errno.ENOSPC:
        return "no space left on the device"
    if exc.errno == errno.EDQUOT:
        return "disk quota exceeded"
    return exc.strerror or str(exc)


def refuse_bundled(path: str) -> None:
    """The bundled samples are part of loomtui: nothing is written into them or beside them."""
    if in_bundled_samples(path):
        raise WriteRefused(
            f"{path} is one of loomtui's bundled samples, which are never written; the picker "
            "lists copies of them (in loomtui's data directory) to label and export; nothing was written"
        )


def append_line(path: str, line: bytes, expect_size: int | None = None, *, own_file: bool = False) -> int:
    """Append ``line`` (which must end with ``\\n``) as one write; returns its file offset.

    The file's last byte is read on the append descriptor right before the write: unless it is
    a newline (or the file is empty), another program is still writing its last line and
    PartialLastLine is raised with nothing written. ``own_file``: a file only loomtui writes
    (its label store), where such a line is what a crash left: it is ended with a newline
    first instead. All or nothing: when the disk takes only part of the line (or none), the
    file is cut back to the size it had before and WriteRefused says so; a later append by
    another program is never glued to a fragment. ``expect_size``: the size the caller checked
    the file at; a file that changed size since is refused with nothing written.
    """
    assert line.endswith(b"\n") and b"\n" not in line[:-1]
    refuse_bundled(path)
    try:
        fd = open_regular(path, os.O_RDWR | os.O_APPEND)
    except OSError as exc:
        raise WriteRefused(f"cannot write {path}: {_reason(exc)}; nothing was written") from None
    try:
        start = os.fstat(fd).st_size
        if expect_size is not None and start != expect_size:
            raise WriteConflict(f"{path} changed while the line was prepared; nothing was written")
        guard = start > 0 and os.pread(fd, 1, start - 1) != b"\n"
        if guard and not own_file:
            raise PartialLastLine(
                f"{path} ends in a line another program is still writing; nothing was written, try again in a moment"
            )
        data = (b"\n" + line) if guard else line
        error: OSError | None = None
        try:
            written = os.write(fd, data)
        except OSError as exc:
            written, error = 0, exc
        if written == len(data):
            try:
                os.fsync(fd)
            except OSError as exc:
                written, error = -1, exc
        if written != len(data):
            _cut_back(fd, path, start, max(written, 0) if written >= 0 else len(data))
            raise WriteRefused(f"cannot write {path}: {_reason(error)}; nothing was written")
    finally:
        os.close(fd)
    return start + (1 if guard else 0)


def _cut_back(fd: int, path: str, start: int, written: int) -> None:
    """Remove what a failed append left behind (when nobody appended after it)."""
    try:
        size = os.fstat(fd).st_size
        if size == start:
            return
        if size == start + written:
            os.ftruncate(fd, start)
            return
    except OSError:
        pass
    raise WriteConflict(
        f"a failed write to {path} left {written} stray bytes after offset {start} while another program was "
        "writing; check the file's end"
    )


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


def _write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` and fsync; OSError (ENOSPC…) when that fails."""
    write_fully(fd, data)
    os.fsync(fd)


def write_fully(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd``; OSError (ENOSPC…) when that fails.

    ``os.write`` rather than a buffered file: a short write is seen, and it is what the fault
    tests can make fail."""
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        if n <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[n:]


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def write_new_file(path: str, data: bytes, mode: int | None = None) -> None:
    """Create ``path`` with ``data`` atomically; never replaces an existing file (or symlink).

    ``mode`` (permission bits) defaults to what a plain ``open`` would give. All or nothing: on
    any failure (full disk, name too long, no permission) no file is left behind and
    WriteRefused says why.
    """
    write_new_file_with(path, lambda f: _write_all(f.fileno(), data), mode)


def write_new_file_with(path: str, fill: Callable[[BinaryIO], object], mode: int | None = None) -> None:
    """``write_new_file`` whose bytes ``fill`` writes into the open file (streamed: big
    exports never sit in memory whole). ``fill`` may raise LoomError to refuse; nothing is
    left behind then either."""
    directory = os.path.dirname(os.path.abspath(path)) or "."
    refuse_bundled(path)
    if os.path.isdir(path):
        raise WriteRefused(f"{path} is a directory; give the name of the file to write")
    if os.path.lexists(path):
        raise WriteRefused(f"{path} already exists; choose another name")
    if not os.path.isdir(directory):
        raise WriteRefused(f"directory {directory} does not exist")
    try:
        fd, tmp = _temp_sibling(directory)
    except OSError as exc:
        raise WriteRefused(f"cannot write in {directory}: {_reason(exc)}; nothing was written") from None
    try:
        with os.fdopen(fd, "wb") as f:
            fill(f)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        try:
            os.link(tmp, path)  # fails with FileExistsError instead of clobbering
        except FileExistsError:
            raise WriteRefused(f"{path} already exists; choose another name") from None
        except OSError as exc:
            if exc.errno in (errno.ENAMETOOLONG, errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EROFS):
                raise
            if os.path.lexists(path):
                raise WriteRefused(f"{path} already exists; choose another name") from None
            os.replace(tmp, path)  # a file system without hard links
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise WriteRefused(f"cannot create {path}: the file name is too long; nothing was written") from None
        raise WriteRefused(f"cannot write {path}: {_reason(exc)}; nothing was written") from None
    finally:
        if os.path.lexists(tmp):
            _unlink_quietly(tmp)
    _fsync_dir(directory)


def backup_name(path: str) -> str:
    """Where a rewrite keeps the previous bytes: ``FILE.bak``, else ``FILE.bak.2``…"""
    candidate = path + ".bak"
    n = 2
    while os.path.exists(candidate):
        candidate = f"{path}.bak.{n}"
        n += 1
    return candidate


def resolve_target(path: str) -> str:
    """The file a rewrite must replace: ``path`` with its symlinks resolved (the link stays a
    link and the file it points to gets the new bytes), refused unless it is a regular file."""
    real = os.path.realpath(path)
    if not os.path.exists(real):
        if os.path.islink(path):
            raise WriteRefused(f"cannot open {path}: it is a symlink to {real}, which does not exist")
        raise WriteRefused(f"cannot open {path}: No such file or directory")
    check_regular(real)
    return real


def replace_file_with_backup(path: str, data: bytes, backup: str, expect: tuple[int, int] | None = None) -> None:
    """Rewrite ``path`` atomically after keeping its current bytes as ``backup``.

    Only for explicit user actions (migrate, saving loom bookmarks). Both files keep the
    original's permission bits. A symlink is resolved first: the file it points to is
    rewritten (atomically, next to it), the link stays. All or nothing: when the new bytes
    cannot be written completely, the backup just made is removed again and the file is as it
    was, so a retry is not blocked. ``expect``: (size, mtime_ns) the caller read the file at;
    refused with nothing written when the file differs.
    """
    path = resolve_target(path)
    if os.path.lexists(backup):
        raise WriteRefused(f"backup {backup} already exists; move it away first")
    directory = os.path.dirname(path) or "."
    try:
        fd = open_regular(path)
        try:
            st = os.fstat(fd)
            original = _read_all(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        raise WriteRefused(f"cannot read {path}: {_reason(exc)}; nothing was written") from None
    if expect is not None and (st.st_size, st.st_mtime_ns) != expect:
        raise WriteConflict(f"{path} changed on disk since it was read; nothing was written")
    mode = st.st_mode & 0o7777
    write_new_file(backup, original, mode)
    tmp = ""
    try:
        fd, tmp = _temp_sibling(directory)
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
        os.chmod(tmp, mode)
        now = os.stat(path)
        if (now.st_ino, now.st_size, now.st_mtime_ns) != (st.st_ino, st.st_size, st.st_mtime_ns):
            raise WriteConflict(f"{path} changed on disk while it was rewritten; nothing was written")
        os.replace(tmp, path)
    except (OSError, LoomError) as exc:
        _unlink_quietly(backup)
        if isinstance(exc, LoomError):
            raise
        raise WriteRefused(f"cannot rewrite {path}: {_reason(exc)}; nothing was written") from None
    finally:
        if tmp and os.path.lexists(tmp):
            _unlink_quietly(tmp)
    _fsync_dir(directory)


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


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
