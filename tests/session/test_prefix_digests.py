"""The proof of an index (session/cache_io.py ``prefix_digests``): the same digests whether
one thread or two hash the blocks, or a thread hashes them while the file is read
(``ProofAlongside``), and a file that shrank mid-proof proves nothing."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from loomtui.session import cache_io


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(cache_io, "BLOCK", 1024)
    monkeypatch.setattr(cache_io, "usable_cpus", lambda: 2)
    return 1024


def _digests_by_hand(data: bytes, block: int) -> tuple[bytes, ...]:
    return tuple(hashlib.sha256(data[i : i + block]).digest()[:16] for i in range(0, len(data), block))


@pytest.mark.parametrize("threads_from", [1, 10**9], ids=["two threads", "one thread"])
def test_every_block_is_hashed_in_order(
    tmp_path: Path, small_blocks: int, monkeypatch: pytest.MonkeyPatch, threads_from: int
) -> None:
    monkeypatch.setattr(cache_io, "HASH_THREADS_FROM", threads_from)
    data = os.urandom(small_blocks * 9 + 100)
    path = tmp_path / "f"
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        want = _digests_by_hand(data, small_blocks)
        assert cache_io.prefix_digests(fd, len(data)) == want
        known = cache_io.prefix_digests(fd, small_blocks * 3 + 5)
        assert cache_io.prefix_digests(fd, len(data), known, small_blocks * 3 + 5) == want
    finally:
        os.close(fd)


def test_a_file_that_shrank_proves_nothing_in_either_thread(tmp_path: Path, small_blocks: int) -> None:
    path = tmp_path / "f"
    path.write_bytes(os.urandom(small_blocks * 8))
    fd = os.open(path, os.O_RDONLY)
    try:
        for size in (small_blocks * 8 + 10, small_blocks * 9 + 1):  # the last block is either thread's
            with pytest.raises(OSError):
                cache_io.prefix_digests(fd, size)
    finally:
        os.close(fd)


@pytest.mark.parametrize("read_to", ["all", "a torn last line", "an append meanwhile"])
def test_the_proof_alongside_the_read_gives_the_same_digests(
    tmp_path: Path, small_blocks: int, monkeypatch: pytest.MonkeyPatch, read_to: str
) -> None:
    data = os.urandom(small_blocks * 6 + 333)
    path = tmp_path / "f"
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        proof = cache_io.ProofAlongside(fd, len(data))
        upto = len(data)
        if read_to == "a torn last line":
            upto = len(data) - 400  # the read stopped before the end: a shorter last block
        elif read_to == "an append meanwhile":
            with open(path, "ab") as f:
                f.write(b"x" * 1500)
            data += b"x" * 1500
            upto = len(data)
        assert proof.digests(upto) == _digests_by_hand(data[:upto], small_blocks)
    finally:
        os.close(fd)


def test_a_stopped_or_failed_proof_alongside_proves_nothing(tmp_path: Path, small_blocks: int) -> None:
    path = tmp_path / "f"
    path.write_bytes(os.urandom(small_blocks * 4))
    fd = os.open(path, os.O_RDONLY)
    try:
        proof = cache_io.ProofAlongside(fd, small_blocks * 5)  # more than the file holds
        with pytest.raises(OSError):
            proof.digests(small_blocks * 5)
        cache_io.ProofAlongside(fd, small_blocks * 4).stop()  # abandoned: returns, nothing left running
    finally:
        os.close(fd)


def test_the_proof_alongside_needs_a_second_cpu_and_a_cacheable_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOOMTUI_CACHE_MIN_BYTES", "0")
    monkeypatch.delenv("LOOMTUI_NO_CACHE", raising=False)
    monkeypatch.delenv("LOOMTUI_JOBS", raising=False)
    path = tmp_path / "f"
    path.write_bytes(b"{}\n" * 100)
    fd = os.open(path, os.O_RDONLY)
    try:
        monkeypatch.setattr(cache_io, "usable_cpus", lambda: 2)
        proof = cache_io.proof_alongside(fd)
        assert proof is not None and proof.digests(300) == cache_io.prefix_digests(fd, 300)
        monkeypatch.setenv("LOOMTUI_JOBS", "1")
        assert cache_io.proof_alongside(fd) is None
        monkeypatch.delenv("LOOMTUI_JOBS")
        monkeypatch.setattr(cache_io, "usable_cpus", lambda: 1)
        assert cache_io.proof_alongside(fd) is None
    finally:
        os.close(fd)
