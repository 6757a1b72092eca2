"""What every cache file of loomtui shares: its name beside a session file, its envelope (a magic,
a checksum and a marshal payload), atomic writes, the proof that a session file still holds the
bytes a cache was made from, and cache writes done in a background child.

The index (``indexcache.py``) and the side files beside it (``formats/opening/flat_cache.py``,
``formats/opening/tree_memo.py``) are built on it. It imports nothing of the reader, so a cache
hit that serves output kept before (``tree``'s memo) starts without the parser and its
dependencies (docs/performance.md).
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
from typing import Any

from loomtui.session.cache_files import SUFFIX, cache_dir, enabled, max_bytes, min_bytes, prune
from loomtui.session.forked import can_fork, usable_cpus

#: the indexed bytes are hashed in blocks of this size (an append re-hashes only the last one)
BLOCK = 8 << 20

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


def _hash_blocks(
    fd: int,
    size: int,
    starts: range,
    out: list[bytes],
    first: int,
    step: int,
    stopped: Callable[[], bool] | None = None,
) -> None:
    """Digests of the blocks ``starts[first::step]`` into ``out`` (each thread its own buffer);
    ``stopped``: asked before each block, the rest is left when it says so."""
    buf = bytearray(min(BLOCK, max(size, 1)))
    view = memoryview(buf)
    for n in range(first, len(starts), step):
        if stopped is not None and stopped():
            return
        at = starts[n]
        want = min(BLOCK, size - at)
        got = os.preadv(fd, [view[:want]], at)
        if got != want:  # the file shrank meanwhile: no prefix of this size to prove
            raise OSError(f"short read at {at}")
        out[n] = hashlib.sha256(view[:want]).digest()[:16]


class ProofAlongside:
    """``prefix_digests`` of bytes [0, size) of ``fd``, hashed by a thread while the caller reads
    (and parses) the same file: on two CPUs a cold read's proof then costs no wall time after
    the read. ``digests(upto)`` waits for it and returns the digests of [0, upto) (the last
    block hashed again when the read ended elsewhere: a torn last line, an append meanwhile);
    ``stop`` abandons it. Only where a second CPU may help (``proof_alongside``)."""

    def __init__(self, fd: int, size: int) -> None:
        self._fd = fd
        self._size = size
        self._stopped = False
        self._result: list[tuple[bytes, ...]] = []
        self._failed: list[BaseException] = []
        self._thread = threading.Thread(target=self._work, daemon=True)
        self._thread.start()

    def _work(self) -> None:
        # whole blocks, one read and one hash each: every return to Python waits for the parsing
        # thread to let go of the GIL (up to 5 ms), so few and big pieces keep the proof ahead of
        # the parse (1 MB pieces left it 0.06 s behind on the 148 MB session)
        starts = range(0, self._size, BLOCK)
        out = [b""] * len(starts)
        try:
            _hash_blocks(self._fd, self._size, starts, out, 0, 1, lambda: self._stopped)
        except BaseException as e:  # noqa: BLE001 - re-raised by ``digests`` in the caller's thread
            self._failed.append(e)
            return
        if not self._stopped:
            self._result.append(tuple(out))

    def digests(self, upto: int) -> tuple[bytes, ...]:
        self._thread.join()
        if self._failed:
            raise self._failed[0]
        known = self._result[0]
        return known if upto == self._size else prefix_digests(self._fd, upto, known, self._size)

    @property
    def size(self) -> int:
        """How many bytes of the file it hashes (the size when it started)."""
        return self._size

    def stop(self) -> None:
        self._stopped = True
        self._thread.join()


def proof_alongside(fd: int) -> ProofAlongside | None:
    """A ``ProofAlongside`` of the whole file open as ``fd``, or None where no second CPU may
    take it (one usable CPU, ``LOOMTUI_JOBS=1``) or the file is too small to be cached."""
    if not enabled() or usable_cpus() < 2 or os.environ.get("LOOMTUI_JOBS", "") == "1":
        return None
    try:
        size = os.fstat(fd).st_size
    except OSError:
        return None
    return ProofAlongside(fd, size) if size >= min_bytes() else None


#: proofs started before a load asks for them (``prove_early``): (device, inode) -> (fd, proof)
_early: dict[tuple[int, int], tuple[int, ProofAlongside]] = {}


def prove_early(path: str) -> None:
    """Start hashing ``path`` on a thread now, for a load that will soon ask for its digests
    (``proved_digests``): the app's reopen of an indexed session, whose proof then runs on the
    second CPU while Textual starts on the first. Nothing where no second CPU may take it."""
    if usable_cpus() < 2 or os.environ.get("LOOMTUI_JOBS", "") == "1":
        return
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return
    try:
        st = os.fstat(fd)
    except OSError:
        os.close(fd)
        return
    _early[(st.st_dev, st.st_ino)] = (fd, ProofAlongside(fd, st.st_size))


def early_digests(path: str) -> tuple[int, tuple[bytes, ...]] | None:
    """(size, digests) of ``path`` as the proof ``prove_early`` started for it hashed them
    (waiting for it), left for the load that asks next (``proved_digests``); None without one."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    early = _early.get((st.st_dev, st.st_ino))
    if early is None:
        return None
    proof = early[1]
    try:
        return proof.size, proof.digests(proof.size)
    except (OSError, IndexError):
        return None


def proved_digests(fd: int, size: int) -> tuple[bytes, ...]:
    """``prefix_digests(fd, size)``, from the proof ``prove_early`` started for the same file
    where there is one (the bytes of the file as it was hashed then)."""
    try:
        st = os.fstat(fd)
        early = _early.pop((st.st_dev, st.st_ino), None)
    except OSError:
        early = None
    if early is None:
        return prefix_digests(fd, size)
    own, proof = early
    try:
        return proof.digests(size)
    finally:
        os.close(own)


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
    got = read_checked(cache_path(path)[: -len(SUFFIX)] + suffix, magic)
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
    if not write_file(target, magic, body):
        return False
    prune(os.path.dirname(target), max_bytes(), keep=target)
    return True


def present(path: str) -> bool:
    """Whether a cache file exists for ``path`` (unverified: ``load`` checks it)."""
    return enabled() and os.path.isfile(cache_path(path))


def read_checked(name: str, magic: bytes) -> tuple[bytes, Any] | None:
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


def write_file(target: str, magic: bytes, body: bytes) -> bool:
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


#: background writers started by this process and not reaped yet
_writers: list[int] = []


#: index writes waiting for ``flush_deferred`` (where no background child may be started)
_deferred: list[Callable[[], object]] = []
_at_exit: list[bool] = []


def defer(job: Callable[[], object]) -> None:
    """Put a cache write off until ``flush_deferred`` or ``write_held`` (at exit at the latest):
    where no background child may start (threads run) or the caller holds the writes."""
    if not _at_exit:
        _at_exit.append(True)
        atexit.register(lambda: flush_deferred())
    _deferred.append(job)


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
