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

import marshal
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from loomtui.session import cache_io
from loomtui.session.cache_files import DELTA_SUFFIX, SUFFIX, enabled, max_bytes, min_bytes, prune
from loomtui.session.entries import Entry
from loomtui.session.errors import Diagnostic
from loomtui.session.forked import can_fork
from loomtui.session.index import SessionIndex
from loomtui.session.reader import LineInfo, LineParser, ParseState, parse_from
from loomtui.session.split import FIELDS, SplitParse, entries_from_columns

MAGIC = b"LOOMTUI-INDEX\x00"
#: bump when the payload layout or what the parser records changes
FORMAT = 4
DELTA_MAGIC = b"LOOMTUI-DELTA\x00"


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
    cache_io.flush_deferred()
    cache_io.reap(block=True)  # an index this process is still writing is worth the wait
    name = cache_io.cache_path(path)
    try:
        got = cache_io.read_checked(name, MAGIC)
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
    proved = cache_io.proved_digests(fd, size)
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
    delta = cache_io.read_checked(name[: -len(SUFFIX)] + DELTA_SUFFIX, DELTA_MAGIC)
    if delta is None:
        return None
    (dfmt, dsum, dconsumed, ddigests, dtitle, dline_no, dparsed, dinfos, ddiags, dcolumns) = delta[1]
    if not (dfmt == FORMAT and dsum == base_sum and size <= dconsumed <= st.st_size and len(dcolumns) == len(FIELDS)):
        return None
    digests = cache_io.prefix_digests(fd, dconsumed, proved, size)
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
    target = cache_io.cache_path(path)[: -len(SUFFIX)] + DELTA_SUFFIX
    return cache_io.write_file(target, DELTA_MAGIC, body)


def _key(fd: int, consumed: int, digests: tuple[bytes, ...] | None = None) -> tuple[os.stat_result, tuple[bytes, ...]]:
    """What a cache file is keyed by, taken right after the read (before any fork): the file's
    ``fstat`` and the digests of the indexed bytes (a torn tail is re-read next time)."""
    st = os.fstat(fd)
    return st, cache_io.prefix_digests(fd, consumed) if digests is None else digests


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
    target = cache_io.cache_path(path) if target is None else target
    directory = os.path.dirname(target)
    if not cache_io.write_file(target, MAGIC, body):
        return False
    try:
        os.unlink(target[: -len(SUFFIX)] + DELTA_SUFFIX)  # it belonged to the old base
    except OSError:
        pass
    prune(directory, max_bytes(), keep=target)
    return True


def save_soon(
    path: str, fd: int, state: ParseState, entries: list[Entry], consumed: int, digests: tuple[bytes, ...]
) -> None:
    """``save`` (the indexed bytes' ``digests`` taken), in a forked child when one may be
    started (``forked.can_fork``), so the open does not wait for the index to be packed and
    written; otherwise right here."""
    cache_io.reap()
    if not enabled() or state.header is None or state.version < 3:
        return
    try:
        key = _key(fd, consumed, digests)
    except OSError:
        return
    if can_fork() and not cache_io.writes_held():
        cache_io.in_background(lambda: save(path, fd, state, entries, consumed, key))
        return
    # threads run (the browser), or the caller holds the writes: packing and writing now would
    # delay the first paint / the output; a copy of what is read now (the state and the list go
    # on changing with live appends) waits for ``flush_deferred`` or ``write_held`` (at exit at
    # the latest)
    snap = ParseState(header=state.header, version=state.version)
    snap.title, snap.line_no, snap.parsed_count = state.title, state.line_no, state.parsed_count
    snap.lines, snap.diagnostics = list(state.lines), list(state.diagnostics)
    rows = list(entries)
    target = cache_io.cache_path(path)
    cache_io.defer(lambda: save(path, -1, snap, rows, consumed, key, target))


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
    proof: cache_io.ProofAlongside | None = None
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
            proof = cache_io.proof_alongside(fd)  # hashed by a thread while this one parses
            try:
                consumed, eof = parse_from(fd, 0, parser, progress=tick)
            except BaseException:
                if proof is not None:
                    proof.stop()
                raise
        else:
            consumed, eof, index = split.read(fd, parser, pending, progress=tick)
    digests = cached.digests if cached is not None and not fresh else ()
    cacheable = fresh and _cacheable(fd, state)
    if proof is not None and not cacheable:
        proof.stop()
    if cacheable:
        try:  # the bytes just parsed, hashed alongside or right after the read (only new blocks after a hit)
            if proof is not None:
                digests = proof.digests(consumed)
            elif cached is None:
                digests = cache_io.prefix_digests(fd, consumed)
            else:
                digests = cache_io.prefix_digests(fd, consumed, cached.digests, cached.consumed)
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
