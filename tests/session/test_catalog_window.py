"""The picker lists huge sessions from a head and a tail window (session/catalog_window.py):
the bytes read are bounded whatever the file's size (counted through an instrumented opener),
and what the windows cannot hold is marked as estimated."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, BinaryIO

import pytest

from loomtui.session import catalog, catalog_window, fulltext, scan
from tests.session.test_image_sessions import write_image_session

HOLE = 64 << 20


def _line(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


class CountingFile:
    """A file object that adds every byte it returns to ``reads[path]``."""

    def __init__(self, f: BinaryIO, path: str, reads: dict[str, int]) -> None:
        self._f = f
        self._path = path
        self._reads = reads

    def read(self, n: int = -1) -> bytes:
        data = self._f.read(n)
        self._reads[self._path] = self._reads.get(self._path, 0) + len(data)
        return data

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._f.seek(offset, whence)

    def fileno(self) -> int:
        return self._f.fileno()

    def __enter__(self) -> CountingFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self._f.close()


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    counted: dict[str, int] = {}
    real = catalog.open_regular_file

    def opener(path: str) -> CountingFile:
        return CountingFile(real(path), os.path.abspath(path), counted)

    monkeypatch.setattr(catalog, "open_regular_file", opener)
    monkeypatch.setattr(fulltext, "open_regular_file", opener)
    monkeypatch.setattr(catalog_window, "WINDOW_LIMIT", 256 << 10)
    monkeypatch.setattr(catalog_window, "HEAD", 32 << 10)
    monkeypatch.setattr(catalog_window, "TAIL", 32 << 10)
    monkeypatch.setattr(catalog_window, "BACK_LIMIT", 512 << 10)
    monkeypatch.setattr(catalog_window, "PROBE", 4 << 10)
    monkeypatch.setattr(catalog_window, "PROBES", 8)
    return counted


#: bytes a windowed summary reads when the last message line starts in the tail window: the
#: head, the tail, the probes
WINDOWS = (32 << 10) + (32 << 10) + 8 * (4 << 10)
#: the most it ever reads: the tail grown backwards up to BACK_LIMIT
BOUND = (32 << 10) + (512 << 10) + 8 * (4 << 10)


def write_hole_session(path: Path, name: str | None = "screenshots of the dialog") -> None:
    """A session of 64 MB apparent size whose middle is a file hole inside an image's data (NUL
    bytes, not JSON): listing it must never read there."""
    head = [
        _line(
            {
                "type": "session",
                "version": 3,
                "id": "hole-1",
                "timestamp": "2026-02-01T10:00:00.000Z",
                "cwd": "/home/user/webapp",
            }
        ),
        _line(
            {
                "type": "message",
                "id": "u1",
                "parentId": None,
                "timestamp": "2026-02-01T10:00:01.000Z",
                "message": {"role": "user", "content": [{"type": "text", "text": "the dialog is cut off"}]},
            }
        ),
    ]
    big = _line(
        {
            "type": "message",
            "id": "u2",
            "parentId": "u1",
            "timestamp": "2026-02-01T10:00:02.000Z",
            "message": {"role": "user", "content": [{"type": "image", "mimeType": "image/png", "data": "@"}]},
        }
    )
    before, after = big.split(b"@")
    tail = [
        _line(
            {
                "type": "message",
                "id": "a1",
                "parentId": "u2",
                "timestamp": "2026-02-01T11:30:00.000Z",
                "message": {"role": "assistant", "content": [{"type": "text", "text": "fixed"}], "stopReason": "stop"},
            }
        )
    ]
    if name:
        tail.append(
            _line(
                {
                    "type": "session_info",
                    "id": "n1",
                    "parentId": "a1",
                    "timestamp": "2026-02-01T11:31:00.000Z",
                    "name": name,
                }
            )
        )
    with open(path, "wb") as f:
        f.write(b"".join(head) + before)
        f.seek(HOLE, os.SEEK_CUR)
        f.write(after + b"".join(tail))


def test_a_huge_session_is_listed_from_its_windows_never_its_middle(tmp_path: Path, reads: dict[str, int]) -> None:
    path = tmp_path / "hole.jsonl"
    write_hole_session(path)
    size = path.stat().st_size
    assert size > HOLE
    s = catalog.summarize(str(path))
    assert s is not None
    assert reads[str(path)] <= WINDOWS
    assert (s.id, s.cwd, s.first_message, s.name, s.size, s.partial) == (
        "hole-1",
        "/home/user/webapp",
        "the dialog is cut off",
        "screenshots of the dialog",
        size,
        True,
    )
    assert s.modified == scan.seconds("2026-02-01T11:30:00.000Z")
    assert s.created == scan.seconds("2026-02-01T10:00:00.000Z")
    assert s.entry_count >= 3  # a, u1, n1 seen; u2 runs through the hole


def test_windows_give_what_a_whole_read_gives_except_the_counts(tmp_path: Path, reads: dict[str, int]) -> None:
    path = tmp_path / "images.jsonl"
    write_image_session(path, turns=12)
    size = path.stat().st_size
    assert size > 30 * WINDOWS
    windowed = catalog.summarize(str(path))
    assert windowed is not None and reads[str(path)] <= WINDOWS
    with open(path, "rb") as f:
        whole = catalog.summarize_bytes(str(path), f.read(), path.stat().st_mtime)
    assert whole is not None and not whole.partial
    same = (
        "path",
        "id",
        "cwd",
        "name",
        "first_message",
        "created",
        "modified",
        "parent_session",
        "version",
        "size",
        "tool",
    )
    assert {k: getattr(windowed, k) for k in same} == {k: getattr(whole, k) for k in same}
    assert windowed.partial
    # an estimate from the newlines sampled: the right order of magnitude
    assert whole.entry_count / 3 <= windowed.entry_count <= whole.entry_count * 3
    assert windowed.message_count == windowed.entry_count  # every line seen is a message


def test_the_tail_window_grows_back_to_the_start_of_the_last_message(tmp_path: Path, reads: dict[str, int]) -> None:
    path = tmp_path / "images.jsonl"
    write_image_session(path, turns=12)
    with open(path, "ab") as f:  # the last line: a tool result holding a 120 KB screenshot
        f.write(
            _line(
                {
                    "type": "message",
                    "id": "last",
                    "parentId": "e0000060",
                    "timestamp": "2026-02-01T23:59:00.000Z",
                    "message": {
                        "role": "toolResult",
                        "toolCallId": "x",
                        "toolName": "read",
                        "content": [{"type": "image", "mimeType": "image/png", "data": "QUFB" * (30 << 10)}],
                    },
                }
            )
        )
    s = catalog.summarize(str(path))
    assert s is not None and s.modified == scan.seconds("2026-02-01T23:59:00.000Z")
    assert WINDOWS < reads[str(path)] <= BOUND


def test_a_first_message_cut_by_the_head_window_is_read_from_what_is_there(
    tmp_path: Path, reads: dict[str, int]
) -> None:
    path = tmp_path / "cut.jsonl"
    write_image_session(path, turns=10)
    data = path.read_bytes()
    first_nl = data.index(b"\n")
    # the first user line (text, then two images of 120 KB of base64) runs past the 32 KB head
    assert data.index(b"\n", first_nl + 1) > 32 << 10
    s = catalog.summarize(str(path))
    assert s is not None and s.first_message == "the sidebar overlaps, turn 0"
    # a string content cut inside an escape keeps the part before it
    text = "é" * 20 + "\\u00e9" + "x" * (40 << 10)
    line = _line(
        {
            "type": "message",
            "id": "u1",
            "parentId": None,
            "timestamp": "2026-02-01T10:00:01.000Z",
            "message": {"role": "user", "content": text + "end"},
        }
    )
    header = _line({"type": "session", "version": 3, "id": "s", "timestamp": "2026-02-01T10:00:00.000Z", "cwd": "/"})
    path.write_bytes(header + line + data[first_nl + 1 :])
    s = catalog.summarize(str(path))
    assert s is not None and s.first_message.startswith("é" * 20 + "\\u00e9xxx")


def test_a_store_of_small_and_huge_sessions_reads_the_small_whole_and_the_huge_in_windows(
    tmp_path: Path, reads: dict[str, int]
) -> None:
    store = tmp_path / "sessions" / "--home-user-webapp--"
    store.mkdir(parents=True)
    small = []
    for i in range(20):
        p = store / f"2026-02-01T10-00-{i:02d}-000Z_small{i}.jsonl"
        p.write_bytes(
            _line(
                {
                    "type": "session",
                    "version": 3,
                    "id": f"small{i}",
                    "timestamp": "2026-02-01T10:00:00.000Z",
                    "cwd": "/home/user/webapp",
                }
            )
            + _line(
                {
                    "type": "message",
                    "id": "u1",
                    "parentId": None,
                    "timestamp": "2026-02-01T10:00:01.000Z",
                    "message": {"role": "user", "content": f"question {i}"},
                }
            )
        )
        small.append(p)
    huge = [store / f"2026-02-02T10-00-0{i}-000Z_hole{i}.jsonl" for i in range(3)]
    for p in huge:
        write_hole_session(p, name=None)
    listed = catalog.list_sessions([str(tmp_path / "sessions")], cache=False)
    assert len(listed) == 23
    assert sum(s.size for s in listed) > 3 * HOLE
    for p in small:
        assert reads[str(p)] == p.stat().st_size
    for p in huge:
        assert reads[str(p)] <= WINDOWS
    by_path = {s.path: s for s in listed}
    assert [by_path[str(p)].partial for p in small + huge] == [False] * 20 + [True] * 3
    assert all(by_path[str(p)].first_message == "the dialog is cut off" for p in huge)


def test_a_huge_file_that_is_not_a_pi_session_is_read_as_before(tmp_path: Path, reads: dict[str, int]) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_bytes(b'{"hello": "world"}\n' * 20_000)
    assert catalog.summarize(str(path)) is None


def test_counts_are_exact_when_the_persistent_index_covers_the_file(
    tmp_path: Path, reads: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    from loomtui.session import cache_io
    from loomtui.session.manager import SessionManager

    monkeypatch.setenv("LOOMTUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("LOOMTUI_CACHE_MIN_BYTES", "0")
    path = tmp_path / "images.jsonl"
    write_image_session(path, turns=12)
    with open(path, "ab") as f:  # a branch and a name
        f.write(
            _line(
                {
                    "type": "message",
                    "id": "retry",
                    "parentId": "e0000001",
                    "timestamp": "2026-02-01T23:00:00.000Z",
                    "message": {"role": "assistant", "content": [{"type": "text", "text": "again"}]},
                }
            )
        )
        f.write(
            _line(
                {
                    "type": "session_info",
                    "id": "name",
                    "parentId": "retry",
                    "timestamp": "2026-02-01T23:01:00.000Z",
                    "name": " layout fixes ",
                }
            )
        )
    with open(path, "rb") as f:
        whole = catalog.summarize_bytes(str(path), f.read(), path.stat().st_mtime)
    assert whole is not None and whole.branch_count == 1
    SessionManager.open(str(path))
    cache_io.reap(block=True)
    s = catalog.summarize(str(path))
    assert s is not None and not s.partial
    assert (s.entry_count, s.message_count, s.branch_count, s.name) == (
        whole.entry_count,
        whole.message_count,
        1,
        "layout fixes",
    )
    assert reads[str(path)] <= WINDOWS
    with open(path, "ab") as f:  # appended since: the index no longer covers it
        f.write(
            _line(
                {
                    "type": "message",
                    "id": "more",
                    "parentId": "name",
                    "timestamp": "2026-02-01T23:02:00.000Z",
                    "message": {"role": "user", "content": "and the footer"},
                }
            )
        )
    s = catalog.summarize(str(path))
    assert s is not None and s.partial


def test_a_listing_takes_the_exact_counts_once_the_file_is_indexed(
    tmp_path: Path, reads: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    from loomtui.session import cache_io
    from loomtui.session.manager import SessionManager

    monkeypatch.setenv("LOOMTUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("LOOMTUI_CACHE_MIN_BYTES", "0")
    store = tmp_path / "sessions"
    store.mkdir()
    path = store / "images.jsonl"
    write_image_session(path, turns=12)
    cache = catalog.SummaryCache(str(tmp_path / "sessions.json"))
    [first] = catalog.list_sessions([str(store)], cache=cache)
    assert first.partial
    [again] = catalog.list_sessions([str(store)], cache=cache)
    assert again == first  # from the summary cache
    SessionManager.open(str(path))
    cache_io.reap(block=True)
    [exact] = catalog.list_sessions([str(store)], cache=cache)
    assert not exact.partial and exact.entry_count == 60


def test_full_text_search_reads_a_huge_file_a_piece_at_a_time_and_finds_the_same(
    tmp_path: Path, reads: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "images.jsonl"
    write_image_session(path, turns=12)
    with open(path, "ab") as f:  # a last line without a newline is searched too
        f.write(
            _line(
                {
                    "type": "message",
                    "id": "tail",
                    "parentId": "e0000060",
                    "timestamp": "2026-02-01T23:59:00.000Z",
                    "message": {"role": "user", "content": "the grid column once more"},
                }
            ).rstrip(b"\n")
        )
    sizes: list[int] = []
    real_read = CountingFile.read

    def read(self: CountingFile, n: int = -1) -> bytes:
        data = real_read(self, n)
        sizes.append(len(data))
        return data

    monkeypatch.setattr(CountingFile, "read", read)
    monkeypatch.setattr(catalog_window, "SEARCH_PIECE", 64 << 10)

    def search(query: str) -> list[fulltext.SearchHit]:
        return [h for h in fulltext.search_sessions([str(path)], query) if isinstance(h, fulltext.SearchHit)]

    pieces = search("grid column")
    assert max(sizes) <= 64 << 10 and sum(sizes) < 2 * path.stat().st_size
    monkeypatch.setattr(catalog_window, "WINDOW_LIMIT", 1 << 40)
    sizes.clear()
    whole = search("grid column")
    assert max(sizes) == path.stat().st_size
    assert len(pieces) == 13 and pieces == whole
    assert pieces[-1].entry_id == "tail" and pieces[-1].line == 62
    assert [h.line for h in pieces[:2]] == [6, 11]
