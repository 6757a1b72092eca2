"""`loomtui tree` on a big session it printed before: the printed rows, kept beside the index.

What `tree` prints is a pure function of the session file's bytes, the options, ``HOME`` (paths
are shortened to ``~``), the output encoding and loomtui's own code. So for a big pi session
(one the persistent index covers, ``session/indexcache.py``) the output is kept in a side file
of the cache (``.ltr``), for the last few option sets, together with:

* the file's key at the time (path, device, inode, size and a digest of every 8 MB block of
  its bytes, ``cache_io.file_key``): any change to the file (an append, a rewrite in place
  whatever its times, a replacement reusing the inode) makes it stale;
* a fingerprint of loomtui's modules (name, size, mtime): another version never reuses it;
* a checksum (the cache's usual envelope): a damaged file is ignored.

Reprinting then costs hashing the file (SHA-256, about 1 GB/s) and one write; a first run
hashes nothing for the memo (its key is made of the digests the read made). Anything that does not match is
simply recomputed (and stored again). ``--no-cache`` / ``LOOMTUI_NO_CACHE`` turn it off with the
index.
"""

from __future__ import annotations

import hashlib
import os
import zlib
from typing import Any

from loomtui.session import cache_files, cache_io
from loomtui.session.errors import LoomError
from loomtui.session.fileio import open_regular

SUFFIX = ".ltr"
MAGIC = b"LOOMTUI-ROWS\x00"
FORMAT = 1
#: rows repeat their gutters: compressed, the memo is several times smaller and reads faster
#: option sets kept per session (most recent first)
KEEP = 3


def _code_fingerprint() -> bytes:
    """Name, size and mtime of every module of the package (a changed loomtui prints anew)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    h = hashlib.blake2b(digest_size=16)
    for base, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))
        for name in sorted(files):
            if name.endswith(".py"):
                try:
                    st = os.stat(os.path.join(base, name))
                except OSError:
                    continue
                h.update(f"{base}/{name}:{st.st_size}:{st.st_mtime_ns}\n".encode("utf-8", "surrogateescape"))
    return h.digest()


class TreeMemo:
    """The memo for one `tree` run: ``get`` the output printed before, or ``store`` it."""

    def __init__(
        self,
        path: str,
        identity: tuple[Any, ...],
        options: tuple[Any, ...],
        kept_key: tuple[Any, ...] | None,
        kept: list[Any],
        proved: bool,
    ) -> None:
        self.path = path
        self._identity = identity  # path, device, inode, size when this run began
        self.options = options
        self._kept_key = kept_key  # the key the memo on disk was stored under
        self._kept = kept  # its (options, packed output) variants
        self._proved = proved  # the file was hashed and holds the bytes of that key

    @classmethod
    def for_run(cls, path: str, options: tuple[Any, ...]) -> TreeMemo | None:
        """None when the memo does not apply: cache off, not a version 3 pi session, a small file.

        The file's bytes are hashed only when the memo kept for this very path, inode and size
        holds these options (the one case where it can serve). Otherwise nothing is hashed here:
        the new memo is keyed by the digests the session's read made anyway (``store``)."""
        if not cache_files.enabled():
            return None
        try:
            fd = open_regular(path)
        except (OSError, LoomError):
            return None
        try:
            st = os.fstat(fd)
            if st.st_size < max(cache_files.min_bytes(), 1):
                return None
            identity = (os.path.abspath(path), st.st_dev, st.st_ino, st.st_size)
            kept_key, kept = _kept(cache_io.read_side(path, SUFFIX, MAGIC), identity)
            proved = False
            if any(o == options for o, _out in kept):
                proved = kept_key == (*cache_io.file_key(path, fd), _code_fingerprint())
            # a memo is stored for version 3 files only, so a proved one needs no look at the
            # header (nor the reader's import: a hit prints without it)
            if not proved and not _v3_session(fd):
                return None  # older files get their ids while read: nothing stable to keep
        except OSError:
            return None
        finally:
            os.close(fd)
        return cls(path, identity, options, kept_key, kept, proved)

    def get(self) -> bytes | None:
        if not self._proved:
            return None
        packed = next((out for o, out in self._kept if o == self.options), None)
        if packed is None:
            return None
        try:
            return zlib.decompress(packed)
        except zlib.error:
            return None

    def store(self, output: bytes | memoryview, read: tuple[int, tuple[bytes, ...]] | None) -> None:
        """Store ``output`` for these options (``cache_io.write_held`` runs it in the background
        child that writes the caches after the output). ``read``: the bytes the session's read
        proved and their digests (``SessionManager.read_digests``), which make the key: stored
        only when that read covered the whole file as it was when this run began. The other
        option sets kept are kept again only when they were stored under that same key."""
        if read is None or read[0] != self._identity[3] or not read[1]:
            return
        key = (*self._identity, read[1], _code_fingerprint())
        packed = zlib.compress(output, 1)
        others = [(o, out) for o, out in self._kept if o != self.options] if self._kept_key == key else []
        cache_io.write_side(self.path, SUFFIX, MAGIC, (FORMAT, key, [(self.options, packed), *others][:KEEP]))


def _v3_session(fd: int) -> bool:
    """Whether the file open as ``fd`` starts with a version 3 (or later) pi header."""
    from loomtui.session.split import v3_header

    head = os.pread(fd, 1 << 16, 0)
    nl = head.find(b"\n")
    return nl >= 0 and v3_header(head[: nl + 1]) is not None


def _kept(payload: Any, identity: tuple[Any, ...]) -> tuple[tuple[Any, ...] | None, list[Any]]:
    """The key and variants of a memo payload stored for the file of ``identity`` (else none)."""
    try:
        if payload is not None:
            fmt, key, variants = payload
            if fmt == FORMAT and isinstance(key, tuple) and key[:4] == identity and isinstance(variants, list):
                return key, [(o, out) for o, out in variants if isinstance(out, bytes)]
    except (TypeError, ValueError):  # a payload of another shape: recomputed
        pass
    return None, []
