"""The persistent index: a session file's parsed skeletons, kept on disk between opens.

Reopening a big session that was read before costs loading this file plus parsing only the
bytes appended since. One cache file per session file, under ``$LOOMTUI_CACHE_DIR`` or
``$XDG_CACHE_HOME/loomtui`` (default ``~/.cache/loomtui``), named by a hash of the path.

The cache is an optimisation only, never trusted over the session file:

* each cache file holds a magic, a checksum of its payload and the key it was made for
  (path, device, inode and size at save time, and a SHA-256 digest of every 8 MB block of the
  indexed bytes, ``prefix_digests``); anything that does not verify is ignored. Size, identity
  and times are hints only: every digest is checked against the file's bytes before the index
  is used (a same-size rewrite with its old mtime restored, or a replacement reusing the inode,
  still differs in its bytes), which costs one pass over the file at hashing speed;
* a file that grew is used when its indexed bytes still hash the same (an append): only the
  new bytes are parsed; a file that shrank, was rewritten or replaced is read from scratch;
* writes go to a temporary file renamed over the old one, so concurrent processes only ever
  see whole cache files; any error while writing (read-only or full directory) is ignored;
* the directory is bounded: after a write, the least recently used files go until the total
  is under ``LOOMTUI_CACHE_MAX`` bytes (default 1 GB); a hit refreshes the file's mtime.

``LOOMTUI_NO_CACHE=1`` (or ``--no-cache`` on the command line) turns it off. Files smaller
than ``LOOMTUI_CACHE_MIN_BYTES`` (default 1 MB) open fast enough and are not cached.

Skeletons are stored as marshal-packed columns, the representation ``split.py`` already ships
between processes (``split.FIELDS``); only v3 files are cached (older ones are migrated while
read and keep their full entries).
"""

from __future__ import annotations

import atexit
import hashlib
import marshal
import os
import struct
import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from loomtui.session.cache_files import (
    DELTA_SUFFIX,
    SUFFIX,
    cache_dir,
    enabled,
    max_bytes,
    min_bytes,
    prune,
)
from loomtui.session.entries import Entry
from loomtui.session.errors import Diagnostic
from loomtui.session.forked import can_fork, usable_cpus
from loomtui.session.index import SessionIndex
from loomtui.session.reader import LineInfo, LineParser, ParseState, parse_from
from loomtui.session.split import FIELDS, SplitParse, entries_from_columns

MAGIC = b"LOOMTUI-INDEX\x00"
#: bump when the payload layout or what the parser records changes
FORMAT = 4
#: the indexed bytes are hashed in blocks of this size (an append re-hashes only the last one)
BLOCK = 8 << 20
DELTA_MAGIC = b"LOOMTUI-DELTA\x00"
_SUM = 16
_SUM_FORMAT = struct.Struct("<QI4x")  # body length, CRC-32, padding to _SUM bytes


def cache_path(path: str) -> str:
    name = hashlib.blake2b(os.path.abspath(path).encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()
    return os.path.join(cache_dir(), name + SUFFIX)


def prefix_digests(fd: int, size: int, known: tuple[bytes, ...] = (), known_size: int = 0) -> tuple[bytes, ...]:
    """SHA-256 digests (16 bytes each) of every ``BLOCK`` of bytes [0, size) of ``fd``, the last
    one partial: the proof that a file still holds the bytes an index was made from. ``known``:
    the digests of [0, known_size) of the same file, proved already; its whole blocks are kept.
    (SHA-256 runs on the CPU's SHA instructions: about 1 GB/s, faster than BLAKE2 or MD5 here.)
    With two CPUs and several blocks to hash, two threads share them: ``pread`` and SHA-256 both
    release the GIL, so the proof takes about half the wall time."""
    whole = min(known_size, size) // BLOCK
    starts = range(whole * BLOCK, size, BLOCK)
    digests: list[bytes] = [b""] * len(starts)
    threads = 2 if len(starts) >= HASH_THREADS_FROM and usable_cpus() >= 2 else 1
    if threads == 1:
        _hash_blocks(fd, size, starts, digests, 0, 1)
    else:
        failed: list[BaseException] = []

        def work(first: int) -> None:
            try:
                _hash_blocks(fd, size, starts, digests, first, threads)
            except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
                failed.append(e)

        helper = threading.Thread(target=work, args=(1,), daemon=True)
        helper.start()
        work(0)
        helper.join()
        if failed:
            raise failed[0]
    return (*known[:whole], *digests)


#: blocks from which the proof is shared by two threads (a thread's start costs about 0.1 ms)
HASH_THREADS_FROM = 4


def _hash_blocks(fd: int, size: int, starts: range, out: list[bytes], first: int, step: int) -> None:
    """Digests of the blocks ``starts[first::step]`` into ``out`` (each thread its own buffer)."""
    buf = bytearray(min(BLOCK, max(size, 1)))
    view = memoryview(buf)
    for n in range(first, len(starts), step):
        at = starts[n]
        want = min(BLOCK, size - at)
        got = os.preadv(fd, [view[:want]], at)
        if got != want:  # the file shrank meanwhile: no prefix of this size to prove
            raise OSError(f"short read at {at}")
        out[n] = hashlib.sha256(view[:want]).digest()[:16]


def file_key(path: str, fd: int) -> tuple[Any, ...]:
    """What identifies the bytes of the file open as ``fd`` for a cache that is valid only while
    the file is exactly as it was: path, device, inode, size and the digests of all its bytes."""
    st = os.fstat(fd)
    return (os.path.abspath(path), st.st_dev, st.st_ino, st.st_size, prefix_digests(fd, st.st_size))


def read_key(path: str, size: int, digests: tuple[bytes, ...]) -> tuple[Any, ...]:
    """The key of bytes [0, size) of ``path`` whose digests a read proved (``Cached.digests``,
    ``SessionManager.read_digests``): what side files made from one read are stored under."""
    return (os.path.abspath(path), size, digests)


def read_side(path: str, suffix: str, magic: bytes) -> Any:
    """The payload of the side file ``suffix`` of ``path`` if its checksum verifies, else None."""
    if not enabled():
        return None
    reap(block=True)  # what this process is still writing is worth the wait
    got = _read_checked(cache_path(path)[: -len(SUFFIX)] + suffix, magic)
    return None if got is None else got[1]


def write_side(path: str, suffix: str, magic: bytes, payload: Any) -> bool:
    """Store ``payload`` (marshal-able) as the side file ``suffix`` of ``path``; never raises
    for a cache problem."""
    if not enabled():
        return False
    try:
        body = marshal.dumps(payload, 2)
    except ValueError:
        return False
    target = cache_path(path)[: -len(SUFFIX)] + suffix
    if not _write(target, magic, body):
        return False
    prune(os.path.dirname(target), max_bytes(), keep=target)
    return True


def present(path: str) -> bool:
    """Whether a cache file exists for ``path`` (unverified: ``load`` checks it)."""
    return enabled() and os.path.isfile(cache_path(path))


@dataclass
class Cached:
    """What a verified cache file restores: the parser state and entries up to ``consumed``."""

    state: ParseState
    entries: list[Entry]
    consumed: int
    #: the file is exactly as indexed (nothing appended): no need to write the cache again
    unchanged: bool
    #: checksum of the base cache file and how many entries it holds (appends go to a delta)
    base_sum: bytes = b""
    base_count: int = 0
    #: the digests of bytes [0, consumed) (``prefix_digests``), checked against the file
    digests: tuple[bytes, ...] = ()


def _read_checked(name: str, magic: bytes) -> tuple[bytes, Any] | None:
    """(checksum, payload) of a cache file whose checksum verifies."""
    try:
        with open(name, "rb") as f:
            blob = f.read()
    except OSError:
        return None
    if not blob.startswith(magic):
        return None
    body = memoryview(blob)[len(magic) :]
    digest = bytes(body[:_SUM])
    if _checksum(body[_SUM:]) != digest:
        return None
    return digest, marshal.loads(body[_SUM:])


def _checksum(body: bytes | memoryview) -> bytes:
    """A cache file's checksum (``_SUM`` bytes): its body's length and CRC-32.

    It detects a damaged or truncated file (a file written by another program does not start
    with the magic, and every field is checked against the session file after it); CRC-32 reads
    the 28 MB index of a 100k-entry session in 7 ms, where a cryptographic hash took 40."""
    return _SUM_FORMAT.pack(len(body), zlib.crc32(body))


def _state(header: Any, title: Any, version: int, line_no: int, parsed: int, infos: Any, diags: Any) -> ParseState:
    state = ParseState(header=header, version=version)
    state.title = title
    state.line_no = line_no
    state.parsed_count = parsed
    state.lines = [LineInfo(line, offset, sz, kind) for line, offset, sz, kind in infos]
    state.diagnostics = [Diagnostic(line, reason) for line, reason in diags]
    return state


def load(path: str, fd: int) -> Cached | None:
    """The cached index of the file open as ``fd`` (at ``path``), or None when there is none
    that verifies against the file as it is now."""
    if not enabled():
        return None
    flush_deferred()
    reap(block=True)  # an index this process is still writing is worth the wait
    name = cache_path(path)
    try:
        got = _read_checked(name, MAGIC)
        cached = None if got is None else _restore(path, fd, name, *got)
    except (EOFError, ValueError, TypeError, OSError):
        return None
    if cached is None:
        return None
    try:
        os.utime(name)  # recently used (the LRU order)
    except OSError:
        pass
    return cached


def _restore(path: str, fd: int, name: str, base_sum: bytes, payload: Any) -> Cached | None:
    """The index a verified cache file holds (plus its delta file when that verifies too), or
    None when the file it describes is no longer the file open as ``fd``."""
    st = os.fstat(fd)
    (
        fmt,
        fields,
        apath,
        dev,
        ino,
        size,
        consumed,
        digests,
        header,
        title,
        version,
        line_no,
        parsed,
        infos,
        diags,
        columns,
    ) = payload
    if fmt != FORMAT or tuple(fields) != FIELDS or apath != os.path.abspath(path):
        return None
    if (st.st_dev, st.st_ino) != (dev, ino) or st.st_size < size or consumed != size:
        return None
    if not isinstance(header, dict) or version < 3 or len(columns) != len(FIELDS):
        return None
    # the proof: every indexed byte hashes as it did (a rewrite in place, whatever its times)
    proved = prefix_digests(fd, size)
    if proved != tuple(digests):
        return None
    entries = entries_from_columns(columns, 0)
    unchanged = st.st_size == size
    delta = _read_delta(name, fd, st, base_sum, size, proved)
    if delta is not None:
        consumed, title, line_no, parsed, infos, diags, more, proved = delta
        entries += entries_from_columns(more, 0)
        unchanged = st.st_size == consumed
    state = _state(header, title, version, line_no, parsed, infos, diags)
    return Cached(state, entries, consumed, unchanged, base_sum, len(columns[0]), proved)


def _read_delta(
    name: str, fd: int, st: os.stat_result, base_sum: bytes, size: int, proved: tuple[bytes, ...]
) -> tuple[Any, ...] | None:
    """(consumed, title, line_no, parsed, infos, diags, columns, digests) from the delta file
    of the base cache ``base_sum`` (``size`` bytes indexed and ``proved``), None when there is
    none whose bytes are still the file's."""
    delta = _read_checked(name[: -len(SUFFIX)] + DELTA_SUFFIX, DELTA_MAGIC)
    if delta is None:
        return None
    (dfmt, dsum, dconsumed, ddigests, dtitle, dline_no, dparsed, dinfos, ddiags, dcolumns) = delta[1]
    if not (dfmt == FORMAT and dsum == base_sum and size <= dconsumed <= st.st_size and len(dcolumns) == len(FIELDS)):
        return None
    digests = prefix_digests(fd, dconsumed, proved, size)
    if digests != tuple(ddigests):
        return None
    return dconsumed, dtitle, dline_no, dparsed, dinfos, ddiags, dcolumns, digests


def save_delta(
    path: str, fd: int, state: ParseState, entries: list[Entry], consumed: int, base: Cached, digests: tuple[bytes, ...]
) -> bool:
    """After an append to a cached file: store only the entries past the base cache file (and
    the parser state, and the ``digests`` of bytes [0, consumed)), next to it. False when a
    whole new index is the better choice."""
    extra = len(entries) - base.base_count
    if not base.base_sum or extra < 0 or extra > max(2000, base.base_count // 8):
        return False
    try:
        rest = entries[base.base_count :]
        payload = (
            FORMAT,
            base.base_sum,
            consumed,
            digests,
            state.title,
            state.line_no,
            state.parsed_count,
            [(i.line, i.offset, i.size, i.kind) for i in state.lines],
            [(d.line, d.reason) for d in state.diagnostics],
            [[getattr(e, f) for e in rest] for f in FIELDS],
        )
        body = marshal.dumps(payload, 2)
    except (OSError, ValueError, TypeError):
        return False
    target = cache_path(path)[: -len(SUFFIX)] + DELTA_SUFFIX
    return _write(target, DELTA_MAGIC, body)


def _write(target: str, magic: bytes, body: bytes) -> bool:
    tmp = f"{target}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(target), mode=0o700, exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(magic)
            f.write(_checksum(body))
            f.write(body)
        os.replace(tmp, target)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False
    return True


def _key(fd: int, consumed: int, digests: tuple[bytes, ...] | None = None) -> tuple[os.stat_result, tuple[bytes, ...]]:
    """What a cache file is keyed by, taken right after the read (before any fork): the file's
    ``fstat`` and the digests of the indexed bytes (a torn tail is re-read next time)."""
    st = os.fstat(fd)
    return st, prefix_digests(fd, consumed) if digests is None else digests


def save(
    path: str,
    fd: int,
    state: ParseState,
    entries: list[Entry],
    consumed: int,
    key: tuple[os.stat_result, tuple[bytes, ...]] | None = None,
    target: str | None = None,
) -> bool:
    """Store the index of ``path`` (open as ``fd``) as read up to ``consumed``. Returns whether
    a cache file was written; never raises for a cache problem. ``target``: the cache file,
    decided earlier (a write put off is not redirected by a later change of the environment)."""
    if (target is None and not enabled()) or state.header is None or state.version < 3:
        return False
    try:
        st, digests = _key(fd, consumed) if key is None else key
        if target is None and st.st_size < min_bytes():
            return False
        diags = [(d.line, d.reason) for d in state.diagnostics]
        columns = [[getattr(e, f) for e in entries] for f in FIELDS]
        payload = (
            FORMAT,
            FIELDS,
            os.path.abspath(path),
            st.st_dev,
            st.st_ino,
            consumed,
            consumed,
            digests,
            state.header,
            state.title,
            state.version,
            state.line_no,
            state.parsed_count,
            [(i.line, i.offset, i.size, i.kind) for i in state.lines],
            diags,
            columns,
        )
        body = marshal.dumps(payload, 2)
    except (OSError, ValueError, TypeError):
        return False  # something marshal cannot store: simply not cached
    target = cache_path(path) if target is None else target
    directory = os.path.dirname(target)
    if not _write(target, MAGIC, body):
        return False
    try:
        os.unlink(target[: -len(SUFFIX)] + DELTA_SUFFIX)  # it belonged to the old base
    except OSError:
        pass
    prune(directory, max_bytes(), keep=target)
    return True


#: background writers started by this process and not reaped yet
_writers: list[int] = []


def save_soon(
    path: str, fd: int, state: ParseState, entries: list[Entry], consumed: int, digests: tuple[bytes, ...]
) -> None:
    """``save`` (the indexed bytes' ``digests`` taken), in a forked child when one may be
    started (``forked.can_fork``), so the open does not wait for the index to be packed and
    written; otherwise right here."""
    reap()
    if not enabled() or state.header is None or state.version < 3:
        return
    try:
        key = _key(fd, consumed, digests)
    except OSError:
        return
    if can_fork() and not _held:
        in_background(lambda: save(path, fd, state, entries, consumed, key))
        return
    # threads run (the browser), or the caller holds the writes: packing and writing now would
    # delay the first paint / the output; a copy of what is read now (the state and the list go
    # on changing with live appends) waits for ``flush_deferred`` or ``write_held`` (at exit at
    # the latest)
    snap = ParseState(header=state.header, version=state.version)
    snap.title, snap.line_no, snap.parsed_count = state.title, state.line_no, state.parsed_count
    snap.lines, snap.diagnostics = list(state.lines), list(state.diagnostics)
    rows = list(entries)
    if not _at_exit:
        _at_exit.append(True)
        atexit.register(lambda: flush_deferred())
    target = cache_path(path)
    _deferred.append(lambda: save(path, -1, snap, rows, consumed, key, target))


#: index writes waiting for ``flush_deferred`` (where no background child may be started)
_deferred: list[Callable[[], object]] = []
_at_exit: list[bool] = []


#: ``hold_writes`` was called: index writes wait for ``write_held``
_held: list[bool] = []


def hold_writes() -> None:
    """Put this process's cache writes off until ``write_held``: a command that prints a big
    session writes them in one background child after its output. A child alive while the
    parent works costs the parent a copy of every page it touches (copy-on-write)."""
    if not _held:
        _held.append(True)


def writes_held() -> bool:
    return bool(_held)


def write_held(*more: Callable[[], object]) -> None:
    """The writes put off so far and ``more`` (other cache writes), in one background child
    (or here, where none may start); the hold ends."""
    jobs = [*_deferred, *more]
    _deferred.clear()
    _held.clear()

    def run_all() -> None:
        for job in jobs:
            try:
                job()
            except Exception:  # pragma: no cover - a cache write never fails the caller
                pass

    if jobs:
        in_background(run_all)


def flush_deferred() -> None:
    """Write the indexes whose writing was put off (``save_soon`` with threads running)."""
    while _deferred:
        job = _deferred.pop(0)
        try:
            job()
        except Exception:  # pragma: no cover - a cache write never fails the caller
            pass


def in_background(work: Callable[[], object]) -> None:
    """Run ``work`` (a cache write) in a forked child when one may be started
    (``forked.can_fork``), else right here. The child holds none of the caller's pipes or
    terminal, runs at a lower priority and is reaped by ``reap``."""
    reap()
    try:
        pid = os.fork() if can_fork() else -1
    except OSError:
        pid = -1
    if pid < 0:
        work()
        return
    if pid == 0:  # pragma: no cover - the child (its work is checked through the file it writes)
        try:
            null = os.open(os.devnull, os.O_RDWR)
            for k in (0, 1, 2):  # never hold the caller's pipes or terminal open
                os.dup2(null, k)
            os.nice(5)
            work()
        finally:
            os._exit(0)
    _writers.append(pid)


def reap(block: bool = False) -> None:
    """Collect finished background writers (all of them, waiting, with ``block``)."""
    for pid in list(_writers):
        try:
            done, _status = os.waitpid(pid, 0 if block else os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _writers.remove(pid)


def disable() -> None:
    """Turn the cache off for this process and its children (``--no-cache``)."""
    os.environ["LOOMTUI_NO_CACHE"] = "1"


def read(
    path: str, fd: int, split: SplitParse | None, progress: Callable[[int, int, int], None] | None
) -> tuple[ParseState, list[Entry], int, int, SessionIndex | None, tuple[bytes, ...]]:
    """Read the session open as ``fd``: from its cached index plus the bytes appended since,
    or (no usable index) all of it, on two CPUs with ``split``; then bring the cache up to
    date. Returns (parser state, entries in file order, consumed offset, EOF, an index of the
    entries or None, the digests of the bytes read when the cache applies, else empty).
    ``progress`` is called with (bytes read, file size, entries read)."""
    state = ParseState()
    pending: list[Entry] = []
    index: SessionIndex | None = None
    tick: Callable[[int], None] | None = None
    if progress is not None:
        total = os.fstat(fd).st_size
        report = progress

        def _tick(at: int, more: int = 0) -> None:  # ``more``: entries read by a tail child
            report(at, total, len(pending) + more)

        tick = _tick
    cached = load(path, fd)
    if cached is not None:
        if split is not None:
            split.cancel()  # the index on disk is faster than the child
        state = cached.state
        pending = cached.entries
        consumed, eof = parse_from(fd, cached.consumed, LineParser(state, pending.append), progress=tick)
        fresh = consumed != cached.consumed
    else:
        parser = LineParser(state, pending.append)
        fresh = True
        if split is None:
            consumed, eof = parse_from(fd, 0, parser, progress=tick)
        else:
            consumed, eof, index = split.read(fd, parser, pending, progress=tick)
    digests = cached.digests if cached is not None and not fresh else ()
    if fresh and _cacheable(fd, state):
        try:  # the bytes just parsed, hashed right after the read (only new blocks after a hit)
            digests = (
                prefix_digests(fd, consumed)
                if cached is None
                else prefix_digests(fd, consumed, cached.digests, cached.consumed)
            )
        except OSError:
            digests = ()
        # now, before indexing: the index takes over the parser's diagnostics list
        if digests and (cached is None or not save_delta(path, fd, state, pending, consumed, cached, digests)):
            save_soon(path, fd, state, pending, consumed, digests)
    return state, pending, consumed, eof, index, digests


def _cacheable(fd: int, state: ParseState) -> bool:
    """Whether the session read from ``fd`` gets an index: the cache is on, it is a version 3
    file with a header and it is not small."""
    try:
        return enabled() and state.header is not None and state.version >= 3 and os.fstat(fd).st_size >= min_bytes()
    except OSError:
        return False
