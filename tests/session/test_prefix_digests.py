"""The proof of an index (session/indexcache.py ``prefix_digests``): the same digests whether
one thread or two hash the blocks, and a file that shrank mid-proof proves nothing."""

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
