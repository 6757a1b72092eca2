"""Write-time checks: the bytes a write relies on are still the bytes that were read.

A file can be truncated or rewritten in place by another program between the moment loomtui
read it and the moment it writes — even at the same size and mtime. Before an append or a copy,
the file's tail, its header line and every line relied on (the entry a label is parented on,
the spans a branch export copies) are read again and compared with what the index holds; a
copy is hashed before and after its new file is written (docs/architecture.md, "Writes").
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from loomtui.session import store
from loomtui.session.entries import Entry
from loomtui.session.errors import FileChanged, WriteConflict
from loomtui.session.fileio import open_regular
from loomtui.session.jsstr import js_json
from loomtui.session.reader import LineInfo, decode_line


def header(path: str, lines: list[LineInfo], expected: dict[str, Any]) -> None:
    """Raise WriteConflict when the header line no longer says what it said when read."""
    info = next((i for i in lines if i.kind == "header"), None)
    if info is None:
        return
    fd = open_regular(path)
    try:
        raw = os.pread(fd, info.size + 1, info.offset)
    finally:
        os.close(fd)
    # the line must still end where it ended: a changed newline glues it to the next line
    end_ok = len(raw) == info.size or raw[-1:] in (b"\n", b"\r")
    raw = raw[: info.size]
    try:
        same = (
            end_ok
            and len(raw) == info.size
            and js_json(decode_line(raw.removeprefix(b"\xef\xbb\xbf"))) == js_json(expected)
        )
    except ValueError:
        same = False
    if not same:
        raise WriteConflict(f"{path}: its header was rewritten by another program; reopen it; nothing was written")


def lines(
    path: str,
    mark: store.FileMark,
    infos: list[LineInfo],
    expected_header: dict[str, Any],
    entries: list[Entry],
    raw_line: Callable[[Entry], bytes],
) -> list[bytes]:
    """The lines of ``entries`` as they are in the file now, checked against what was read.

    Raises WriteConflict (nothing written) when the file was rewritten or truncated since it
    was indexed, or when a span no longer holds the entry the index has there — the same id,
    parent and type — so a copy never takes a torn line or another session's entry.
    """
    return list(iter_lines(path, mark, infos, expected_header, entries, raw_line))


def iter_lines(
    path: str,
    mark: store.FileMark,
    infos: list[LineInfo],
    expected_header: dict[str, Any],
    entries: list[Entry],
    raw_line: Callable[[Entry], bytes],
) -> Iterator[bytes]:
    """``lines`` one at a time (a copy of a huge branch never sits in memory whole); the file's
    tail and header are checked before the first line, each line as it is read."""
    store.check_unchanged_prefix(path, mark)
    header(path, infos, expected_header)
    fd = open_regular(path)
    try:
        for e in entries:
            if e.data is not None or e.offset < 0:
                yield raw_line(e)
                continue
            raw = os.pread(fd, e.size, e.offset)
            if not holds(raw, e):
                raise WriteConflict(
                    f"{path} was rewritten by another program (line {e.line} no longer holds entry "
                    f"{e.id}); reopen it; nothing was written"
                )
            yield raw.rstrip(b"\r\n\t ")
    finally:
        os.close(fd)


def whole_line(fd: int, offset: int, size: int) -> bytes | None:
    """Bytes [offset, offset + size) of ``fd`` when they are still one whole line of the file
    (a newline or the start of the file before, a newline or the end after), else None: a span
    taken from an earlier read of a file rewritten since no longer ends where a line ends."""
    if offset < 0 or size < 0:
        return None
    lo = max(0, offset - 1)
    raw = os.pread(fd, size + 1 + (offset - lo), lo)
    if offset > 0 and raw[:1] != b"\n":
        return None
    body = raw[offset - lo : offset - lo + size]
    after = raw[offset - lo + size :]
    if len(body) != size or after not in (b"", b"\n", b"\r"):
        return None
    return body


def decoded(raw: bytes, path: str | None, e: Entry) -> Any:
    """The entry decoded from the bytes read at its span; bytes that are no JSON there mean the
    file was cut or rewritten since it was read (``FileChanged``, naming the line)."""
    try:
        return decode_line(raw)
    except ValueError:
        if path is None or e.offset < 0:
            raise
        raise FileChanged(f"{path} changed on disk: line {e.line} no longer holds entry {e.id}; reopen it") from None


def changed(path: str, what: str) -> WriteConflict:
    """The one refusal of every export whose source changed since it was read."""
    return WriteConflict(f"{path} changed since it was read ({what}); reopen it; nothing was written")


def digest(spans: Iterable[bytes]) -> bytes:
    """A hash of copied spans (each with its length, so boundaries count)."""
    h = hashlib.blake2b(digest_size=16)
    for span in spans:
        h.update(len(span).to_bytes(8, "little"))
        h.update(span)
    return h.digest()


def holds(raw: bytes, e: Entry) -> bool:
    """Whether the line ``raw`` is the entry ``e`` was indexed from (id, parent, type)."""
    try:
        obj = decode_line(raw)
    except ValueError:
        return False
    if not isinstance(obj, dict) or obj.get("id") != e.id:
        return False
    parent = obj.get("parentId")
    etype = obj.get("type")
    return (parent if isinstance(parent, str) else None) == e.parent_id and (
        etype if isinstance(etype, str) else ""
    ) == e.type
