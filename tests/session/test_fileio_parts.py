"""What the readers of a big file's parts start from (``session/fileio.py``): a regular file
of at least so many bytes, opened, and where the first line after an offset begins."""

from __future__ import annotations

import os
from pathlib import Path

from loomtui.session.fileio import line_start_after, open_big


def test_only_a_big_enough_regular_file_is_opened(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"0123456789\n" * 10)
    opened = open_big(str(path), 110)
    assert opened is not None
    fd, st = opened
    try:
        assert st.st_size == 110 and os.pread(fd, 5, 0) == b"01234"
    finally:
        os.close(fd)
    assert open_big(str(path), 111) is None  # smaller than asked
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    assert open_big(str(empty), 0) is None  # never an empty file
    assert open_big(str(tmp_path / "missing"), 0) is None
    assert open_big(str(tmp_path), 0) is None  # a directory
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert open_big(str(fifo), 0) is None  # refused before a read could block


def test_the_first_line_after_an_offset(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"aaaa\nbbbbbbbb\ncc")
    fd = os.open(path, os.O_RDONLY)
    try:
        assert line_start_after(fd, 0) == 5
        assert line_start_after(fd, 4) == 5  # the newline itself: the next line
        assert line_start_after(fd, 5) == 14
        assert line_start_after(fd, 14) is None  # the last line has no newline
        assert line_start_after(fd, 6, look=3) is None  # none within the bytes looked at
    finally:
        os.close(fd)
