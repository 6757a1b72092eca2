"""Bytes → entries: pi's tolerant JSONL rules (docs/formats.md §2, §6).

Reads in chunks so a 150 MB file never sits in memory twice. Every physical line ends up as
exactly one of: blank, the header, the omp title slot, an entry, or an opaque line with a
diagnostic. Nothing here writes; a line that cannot be read is reported, never dropped from the
file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from sys import intern
from typing import Any, BinaryIO

import orjson

from loomtui.session import jsonvalue, typed_scan
from loomtui.session.entries import LINE_AT, SIZE_AT, Entry, fill, span
from loomtui.session.errors import Diagnostic, SessionFormatError
from loomtui.session.fileio import open_regular_file
from loomtui.session.jsstr import js_truthy, session_version

CHUNK = 8 << 20
#: the smallest read buffer (a file that is still growing is read on in pieces this big)
MIN_CHUNK = 64 << 10
BOM = b"\xef\xbb\xbf"


@dataclass(slots=True)
class LineInfo:
    """A physical line that is not an entry, kept so that rewrites can preserve it."""

    line: int
    offset: int
    size: int
    kind: str  # "header" | "title" | "opaque"


#: what ``first_line`` reads at once looking for the end of the first line
FIRST_LINE_CHUNK = 1 << 20


def first_line(f: BinaryIO, limit: int = -1) -> bytes:
    """The first non-blank line of an open file (b"" for an empty one), the file left just
    after it; with ``limit``, at most that many bytes of it. Without a limit the line is read
    in plain reads (a one-line JSON document of tens of MB: much faster than ``readline``)."""
    if limit < 0:
        start = f.tell()
        head = f.read(FIRST_LINE_CHUNK)
        nl = head.find(b"\n")
        if nl < 0 and len(head) == FIRST_LINE_CHUNK:
            head += f.read()
            nl = head.find(b"\n")
        line = head if nl < 0 else head[: nl + 1]
        f.seek(start + len(line))
        if line.strip() or not line:
            return line
    line = f.readline(limit)
    while line and not line.strip():
        line = f.readline(limit)
    return line


def line_value(raw: bytes) -> Any:
    """The JSON value of one line (a leading BOM and whitespace ignored); None if not JSON."""
    try:
        return jsonvalue.loads(raw.strip().removeprefix(BOM))
    except ValueError:
        return None


def is_pi_header(value: Any) -> bool:
    """A pi/omp first line: type session or title (omp), or a v4 header (the reader explains)."""
    return isinstance(value, dict) and (value.get("type") in ("session", "title") or value.get("kind") == "header")


#: first lines longer than this are parsed by the sniff only when they may be a pi header
SNIFF_PARSE_LIMIT = 1 << 20
#: what a pi/omp header line holds in its first ``SNIFF_PARSE_LIMIT`` bytes (``is_pi_header``):
#: a type or kind naming one; a loom document that merely uses the words (an OCP attempt's
#: ``"session"`` key) is not parsed
_HEADER_KEY = re.compile(rb'"(?:type|kind)"\s*:\s*"(?:session|title|header)"')


#: pi 1.6.0 looks for a session's header in its first MiB (``MAX_SESSION_HEADER_SCAN_BYTES``)
HEADER_SCAN_LIMIT = 1 << 20


def is_pi_session_file(path: str) -> bool:
    """Whether ``path`` starts like a pi/omp session, by pi 1.6.0's header discovery: blank
    lines, lines that are not JSON and ``null``/``0``/``false``/``""`` lines are skipped, and
    the first other line within the first MiB decides (``is_pi_header``)."""
    try:
        with open_regular_file(path) as f:
            while f.tell() < HEADER_SCAN_LIMIT:
                line = first_line(f, SNIFF_PARSE_LIMIT + 1)
                if not line:
                    return False
                if len(line) > SNIFF_PARSE_LIMIT:
                    if not _HEADER_KEY.search(line):
                        # past the first MiB: no header there. A big one-line document (a loom)
                        # is not read and parsed twice to learn that; the callers that go on
                        # (formats.detect.open_any) still recognise an odd header themselves
                        return False
                    if not line.endswith(b"\n"):
                        line += f.readline()  # the rest of the line
                value = line_value(line)
                if js_truthy(value):
                    return is_pi_header(value)
            return False
    except (OSError, SessionFormatError):
        return False


def decode_line(raw: bytes | memoryview) -> Any:
    """JSON.parse semantics (``jsonvalue.loads``): any depth, lone surrogates, huge numbers."""
    return jsonvalue.loads(raw)


def migrated_id(session_id: str, n: int, taken: set[str]) -> str:
    """Deterministic 8-hex id for a v1 entry: the same file gets the same ids on every open."""
    import hashlib  # v1 files only

    k = 0
    while True:
        digest = hashlib.blake2b(f"{session_id}\x00{n}\x00{k}".encode(), digest_size=4).hexdigest()
        if digest not in taken:
            return digest
        k += 1


@dataclass
class ParseState:
    """What the parser knows between chunks (and between live-follow reads)."""

    header: dict[str, Any] | None = None
    title: dict[str, Any] | None = None
    version: int = 3
    line_no: int = 0
    parsed_count: int = 0  # JSON values parsed so far (pi's array index, header included)
    # v1 migration: ids by parsed index, previous entry id
    v1_ids: dict[int, str] = field(default_factory=dict)
    v1_prev: str | None = None
    v1_taken: set[str] = field(default_factory=set)
    lines: list[LineInfo] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


def _plain_entry(raw: memoryview) -> Entry | None:
    """The skeleton of a v3 entry line the typed scan left (``typed_scan``), decoded whole by
    orjson, when it is an object with a string id and type (not a header) and a string or null
    parent; None for anything else (the general route, ``LineParser._route``). ``line``,
    ``offset`` and ``size`` are the caller's to set."""
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if type(obj) is not dict:
        return None
    eid = obj.get("id")
    etype = obj.get("type")
    parent = obj.get("parentId")
    if (
        type(eid) is not str
        or type(etype) is not str
        or etype == "session"
        or not (parent is None or type(parent) is str)
    ):
        return None
    e = Entry(eid, parent, intern(etype))
    fill(e, obj)
    return e


class LineParser:
    """Turns complete lines into entries, calling ``on_entry`` for each in file order."""

    def __init__(self, state: ParseState, on_entry: Callable[[Entry], None]) -> None:
        self.state = state
        self.on_entry = on_entry

    def diag(self, line: int, reason: str) -> None:
        self.state.diagnostics.append(Diagnostic(line, reason))

    def feed(self, buf: bytes | bytearray, base: int, final: bool, stop: int | None = None) -> int:
        """Consume complete lines of ``buf[:stop]`` (file offset ``base``); returns bytes consumed.

        With ``final`` a last line without newline is consumed too when it parses (pi reads
        it); a torn one that does not parse is left for later (live follow may complete it).
        """
        view = memoryview(buf)
        pos = 0
        n = len(buf) if stop is None else stop
        st = self.state
        find = buf.find
        plain_entry = _plain_entry
        on_entry = self.on_entry
        typed_decode = typed_scan.decode
        typed_entry = typed_scan.entry
        typed_errors = typed_scan.ERRORS
        fast = st.version >= 3 and st.header is not None
        line_no = st.line_no
        parsed = st.parsed_count
        try:
            while pos < n:
                nl = find(b"\n", pos, n)
                if nl < 0:
                    if not final:
                        break
                    end = n
                else:
                    end = nl
                raw = view[pos:end]
                if fast:
                    # the usual v3 entry line, typed (``typed_scan``); anything unusual is read
                    # whole by orjson (``_plain_entry``), and what is odd even then takes the
                    # general route below
                    e: Entry | None
                    try:
                        e = typed_entry(typed_decode(raw))
                    except typed_errors:
                        e = plain_entry(raw)
                    if e is not None:
                        line_no += 1
                        parsed += 1
                        # ``entries.span``: offset + 1, size and line number in one int
                        e.span = (base + pos + 1) | (end - pos) << SIZE_AT | line_no << LINE_AT
                        on_entry(e)
                        pos = end + 1 if nl >= 0 else end
                        continue
                st.line_no = line_no
                st.parsed_count = parsed
                obj, ok = self._parse(raw, line_no + 1)
                if nl < 0 and not ok:
                    # torn last line: not consumed; reported once by the caller
                    break
                st.line_no += 1
                self._route(obj, st.line_no, base + pos, end - pos)
                line_no = st.line_no
                parsed = st.parsed_count
                fast = st.version >= 3 and st.header is not None
                pos = end + 1 if nl >= 0 else end
        finally:
            st.line_no = line_no
            st.parsed_count = parsed
        return pos

    def _parse(self, raw: memoryview, line_no: int) -> tuple[Any, bool]:
        if line_no == 1 and raw[:3] == BOM:
            raw = raw[3:]
        try:
            return decode_line(raw), True
        except (ValueError, UnicodeDecodeError) as exc:
            if not bytes(raw).strip():
                return _BLANK, True
            return _BadLine(str(exc).split("\n")[0][:120]), False

    def _route(self, obj: Any, line_no: int, offset: int, size: int) -> None:
        """A line the fast path of ``feed`` did not take: blank, bad, the header or title slot,
        a line of an older version (migrated in memory), an entry with odd fields."""
        st = self.state
        if obj is _BLANK:
            return
        if isinstance(obj, _BadLine):
            st.lines.append(LineInfo(line_no, offset, size, "opaque"))
            self.diag(line_no, f"not valid JSON ({obj.reason})")
            return
        st.parsed_count += 1
        index = st.parsed_count - 1
        if not isinstance(obj, dict):
            self._not_an_object(obj, line_no, offset, size)
            return
        etype = obj.get("type")
        if st.header is None:
            self._first_object(obj, etype, index, line_no, offset, size)
            return
        if etype == "session":
            st.lines.append(LineInfo(line_no, offset, size, "opaque"))
            self.diag(line_no, "second session header ignored")
            return
        if st.version < 3:
            self._migrate(obj, etype, index, st.header)
        entry_id = obj.get("id")
        if not isinstance(entry_id, str):
            st.lines.append(LineInfo(line_no, offset, size, "opaque"))
            self.diag(line_no, "entry without a string id")
            return
        parent = obj.get("parentId")
        if parent is not None and not isinstance(parent, str):
            self.diag(line_no, f"entry {entry_id}: parentId is not a string; treated as a root")
            parent = None
        e = Entry(entry_id, parent, etype if isinstance(etype, str) else "")
        e.span = span(line_no, offset, size)
        fill(e, obj)
        if st.version < 3:
            e.data = obj  # migrated in memory: the file does not hold these ids
        self.on_entry(e)

    def _first_object(self, obj: dict[str, Any], etype: Any, index: int, line_no: int, offset: int, size: int) -> None:
        """An object before the header: omp's title slot, or the header; anything else means the
        file is no session pi reads."""
        st = self.state
        if index == 0 and etype == "title":
            st.title = obj
            st.parsed_count -= 1  # omp folds the slot into the header
            st.lines.append(LineInfo(line_no, offset, size, "title"))
            return
        if obj.get("kind") == "header":
            raise SessionFormatError(
                'this is a pi v4 session log (first line has kind:"header"); loomtui reads v1-v3 session files only'
            )
        if etype == "session" and isinstance(obj.get("id"), str):
            st.header = obj
            st.version = session_version(obj.get("version"))
            st.lines.append(LineInfo(line_no, offset, size, "header"))
            return
        raise SessionFormatError(
            f"line {line_no}: no session header (expected a first line with "
            'type:"session" and an id); is this a pi session file?'
        )

    def _migrate(self, obj: dict[str, Any], etype: Any, index: int, header: dict[str, Any]) -> None:
        """An entry of a v1 or v2 file brought to v3 in memory (docs/formats.md §6): v1 entries
        get ids and their parent, v2 hook messages become custom ones."""
        st = self.state
        if st.version < 2:
            eid = migrated_id(str(header.get("id")), index, st.v1_taken)
            st.v1_taken.add(eid)
            st.v1_ids[index] = eid
            obj["id"] = eid
            obj["parentId"] = st.v1_prev
            st.v1_prev = eid
            if etype == "compaction":
                _v1_first_kept(obj, st.v1_ids)
        if etype == "message":
            msg = obj.get("message")
            if isinstance(msg, dict) and msg.get("role") == "hookMessage":
                msg["role"] = "custom"

    def _not_an_object(self, obj: Any, line_no: int, offset: int, size: int) -> None:
        """A line holding JSON that is no object: opaque; before the header, pi 1.6.0 takes the
        first parsed value as the header, so a truthy one means the file is no session."""
        if self.state.header is None and js_truthy(obj):
            raise SessionFormatError(
                f"line {line_no}: no session header (the first JSON value is not an object); is this a pi session file?"
            )
        self.state.lines.append(LineInfo(line_no, offset, size, "opaque"))
        self.diag(line_no, f"not a JSON object ({type(obj).__name__})")


def _v1_first_kept(obj: dict[str, Any], v1_ids: dict[int, str]) -> None:
    """A v1 compaction's ``firstKeptEntryIndex`` as ``firstKeptEntryId``."""
    fk: Any = obj.get("firstKeptEntryIndex")
    if type(fk) is int or type(fk) is float:  # pi: typeof === "number"
        # entries[fk] of pi's array (header = index 0); set only when it is an entry that already
        # has its id, and the index field goes in every case
        at = fk if type(fk) is int else int(fk) if isinstance(fk, float) and fk.is_integer() else None
        target = v1_ids.get(at) if at is not None else None
        if target is not None:
            obj["firstKeptEntryId"] = target
        del obj["firstKeptEntryIndex"]


#: what ``_parse`` returns for a blank line (``None`` is what a ``null`` line parses to)
_BLANK = object()


class _BadLine:
    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


def read_chunks(fd: int, start: int, end: int | None = None) -> Iterator[tuple[bytes, int, bool]]:
    """Yield (bytes, file offset, is_last) chunks from ``start`` to ``end`` (default: the end
    of the file)."""
    pos = start
    os.lseek(fd, start, os.SEEK_SET)
    while True:
        chunk = os.read(fd, CHUNK if end is None else min(CHUNK, end - pos))
        if not chunk:
            yield b"", pos, True
            return
        yield chunk, pos, False
        pos += len(chunk)


def parse_from(
    fd: int, start: int, parser: LineParser, end: int | None = None, progress: Callable[[int], None] | None = None
) -> tuple[int, int]:
    """Parse complete lines from ``start`` (to ``end``, a line boundary, or the end of the
    file); returns (offset after the last consumed byte, where reading stopped).
    ``progress`` is called with the file offset reached after each chunk.

    Chunks are read into one buffer, reused (a new buffer per chunk costs the kernel a page
    fault for every 4 KB of it: about a tenth of the parse). A line longer than a chunk (an
    inline image of hundreds of MB) is read on from its start by ``_parse_long_lines``.

    A newline right at ``start`` that ends a last line read earlier without one (pi 1.6.0
    appends it when it opens such a file) is that line's end: taken, not counted as a line."""
    if start > 0 and (end is None or end > start) and ends_open_line(fd, start):
        start += 1
    consumed, eof = _parse_in_place(fd, start, parser, end, progress)
    if eof >= 0:
        return consumed, eof
    return _parse_long_lines(fd, consumed, parser, end, progress)


def ends_open_line(fd: int, offset: int) -> bool:
    """Whether the byte at ``offset`` is a newline ending a line that had none before it."""
    pair = os.pread(fd, 2, offset - 1)
    return len(pair) == 2 and pair[1:] == b"\n" and pair[:1] != b"\n"


def read_into(fd: int, buf: memoryview) -> int:
    """Read from ``fd`` into ``buf``; the bytes read (0 at the end of the file)."""
    return os.readv(fd, [buf])


def _parse_in_place(
    fd: int, start: int, parser: LineParser, end: int | None, progress: Callable[[int], None] | None
) -> tuple[int, int]:
    """``parse_from`` while every line fits in a chunk; (offset, -1) when a line starting at
    that offset does not."""
    try:
        todo = (os.fstat(fd).st_size if end is None else end) - start
    except OSError:
        todo = CHUNK
    size = min(CHUNK, max(MIN_CHUNK, todo + 1))  # a small file gets a small buffer
    buf = bytearray(2 * size)
    view = memoryview(buf)
    os.lseek(fd, start, os.SEEK_SET)
    base = pos = start  # file offsets of buf[0] and of the next byte to read
    have = 0  # bytes of a line begun in an earlier chunk, at the start of buf
    try:
        while True:
            want = size if end is None else min(size, end - pos)
            got = read_into(fd, view[have : have + want]) if want > 0 else 0
            if not got:
                if have:
                    used = parser.feed(buf, base, True, have)
                    return base + used, base + have
                return base, base
            if progress is not None:
                progress(pos)
            pos += got
            n = have + got
            used = parser.feed(buf, base, False, n)
            have = n - used
            base += used
            if have > size:
                return base, -1  # one line longer than a chunk
            if have:
                buf[:have] = bytes(view[used:n])
    finally:
        view.release()


def _parse_long_lines(
    fd: int, start: int, parser: LineParser, end: int | None = None, progress: Callable[[int], None] | None = None
) -> tuple[int, int]:
    """``parse_from`` for a file with lines longer than a chunk: such a line is gathered chunk
    by chunk and joined once its end is read, never copied again for every chunk it spans."""
    carry = b""
    carry_at = start
    eof = start
    longer: list[bytes] = []  # the chunks of a line that runs on past ``carry``
    for chunk, at, last in read_chunks(fd, start, end):
        if progress is not None and not last:
            progress(at)
        if last:
            if longer:
                carry = b"".join([carry, *longer])
            eof = carry_at + len(carry)
            if carry:
                used = parser.feed(carry, carry_at, final=True)
                return carry_at + used, eof
            return carry_at, eof
        if carry and b"\n" not in chunk:
            longer.append(chunk)  # the carried line goes on
            continue
        if longer:
            buf = b"".join([carry, *longer, chunk])
            longer = []
        else:
            buf = carry + chunk if carry else chunk
        if not carry:
            carry_at = at
        used = parser.feed(buf, carry_at, final=False)
        carry = buf[used:]
        carry_at += used
    return carry_at, eof  # pragma: no cover
