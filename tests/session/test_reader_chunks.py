"""``parse_from`` reads chunks into one reused buffer (session/reader.py): whatever the chunk
size, wherever a line is cut, with an ``end`` or without, and when a line is longer than a
chunk (then it reads on as ``_parse_long_lines``), it gives exactly what the plain chunk by
chunk reading gives: the same entries, lines, diagnostics and offsets."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from loomtui.session import reader
from loomtui.session.entries import Entry
from loomtui.session.reader import LineParser, ParseState
from tests.session.test_split import adversarial_session
from tests.shared_material import needs_shared


def _parse(path: Path, how: Any, start: int = 0, end: int | None = None) -> tuple[Any, ...]:
    state = ParseState()
    entries: list[Entry] = []
    ticks: list[int] = []
    fd = os.open(path, os.O_RDONLY)
    try:
        if start:  # the header first, as a reader that goes on from an offset has it
            reader.parse_from(fd, 0, LineParser(state, entries.append), end=start)
        consumed, eof = how(fd, start, LineParser(state, entries.append), end, ticks.append)
    finally:
        os.close(fd)
    return (
        consumed,
        eof,
        [[getattr(e, s) for s in Entry.__struct_fields__] for e in entries],
        state.lines,
        [(d.line, d.reason) for d in state.diagnostics],
        state.line_no,
        state.parsed_count,
    )


def _line_starts(path: Path) -> list[int]:
    data = path.read_bytes()
    return [0] + [i + 1 for i, b in enumerate(data) if b == 0x0A]


@needs_shared()
@pytest.mark.parametrize("chunk", [7, 64, 333, 4096, 1 << 20])
def test_the_reused_buffer_reads_what_the_plain_chunks_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    path = adversarial_session(tmp_path / "s.jsonl", copies=3)
    monkeypatch.setattr(reader, "CHUNK", chunk)
    monkeypatch.setattr(reader, "MIN_CHUNK", 1)
    starts = _line_starts(path)
    cuts = [None, starts[len(starts) // 3], starts[-2]]
    for end in cuts:
        plain = _parse(path, reader._parse_long_lines, end=end)
        reused = _parse(path, reader.parse_from, end=end)
        assert reused == plain
        assert reused[2], "the file has entries"
    # going on from a line in the middle (a reader reading what was appended)
    mid = starts[len(starts) // 2]
    assert _parse(path, reader.parse_from, start=mid) == _parse(path, reader._parse_long_lines, start=mid)


@needs_shared()
def test_a_line_longer_than_the_buffer_is_read_on_from_its_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = adversarial_session(tmp_path / "s.jsonl", copies=2)
    lines = path.read_bytes().split(b"\n")
    # a long entry early in the file: the reused buffer gives it up there
    long_text = "x" * 50_000
    lines.insert(
        3, b'{"type":"custom","id":"long","parentId":null,"customType":"big","data":"' + long_text.encode() + b'"}'
    )
    path.write_bytes(b"\n".join(lines))
    monkeypatch.setattr(reader, "CHUNK", 1024)
    monkeypatch.setattr(reader, "MIN_CHUNK", 1)
    taken: list[int] = []
    real = reader._parse_long_lines

    def long_lines(fd: int, start: int, *args: Any) -> tuple[int, int]:
        taken.append(start)
        return real(fd, start, *args)

    monkeypatch.setattr(reader, "_parse_long_lines", long_lines)
    reused = _parse(path, reader.parse_from)
    assert taken == [path.read_bytes().index(b'{"type":"custom","id":"long"')]
    assert reused == _parse(path, real)
    assert any(row[0] == "long" for row in reused[2])


def test_first_line_reads_a_line_of_any_length_and_leaves_the_file_after_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``first_line`` as ``readline`` gives it, for a line shorter or longer than its chunk,
    after blank lines, without a newline, in an empty file; with a limit, at most that many."""
    import io

    from loomtui.session import reader

    long = b'{"ocp":"0.3","x":"' + b"y" * (reader.FIRST_LINE_CHUNK + 5) + b'"}'
    cases = [
        b"",
        b"\n\n  \n",
        b"short\nrest\n",
        long,
        long + b"\nnext\n",
        b"\n \n" + long + b"\nnext",
        b"\n" * 3 + b"a\nb",
    ]
    for data in cases:
        path = tmp_path / "f"
        path.write_bytes(data)
        with open(path, "rb") as f:
            got = reader.first_line(f)
            after = f.read()
        plain = io.BytesIO(data)
        want = plain.readline()
        while want and not want.strip():
            want = plain.readline()
        assert (got, after) == (want, plain.read())
    with open(path, "rb") as f:
        assert reader.first_line(f, 2) == b"a\n"
