"""Reading a big session on two CPUs: a forked child parses the tail while we parse the head.

Decoding the JSON of a 150 MB session is most of its open time and a single Python process
can only use one CPU for it. ``SplitParse.start`` forks a child that parses the file from a
line boundary near the middle (the child shares nothing but the file), packs the skeletons it
built into columns (marshal, about a tenth of the parse time) and hands them over a pipe. The
parent parses the head meanwhile, then rebuilds the child's entries and continues as if it
had read the whole file itself: same entries, line numbers, diagnostics and offsets (tests
check this against a plain open). Anything unexpected in the child means the parent simply
reads the tail itself.

Only where it is safe and pays: ``fork`` exists, no other thread runs yet (the app starts
the child before Textual starts its threads), two CPUs, a v3 file above ``MIN_BYTES``.
"""

from __future__ import annotations

import marshal
import mmap
import os
import struct
from collections.abc import Callable
from typing import Any

from loomtui.session import cache_io
from loomtui.session.entries import LINE_AT, Entry
from loomtui.session.errors import Diagnostic
from loomtui.session.fileio import line_start_after, open_big
from loomtui.session.forked import ForkedChild, can_fork, start_child
from loomtui.session.index import SessionIndex
from loomtui.session.jsstr import session_version
from loomtui.session.reader import LineInfo, LineParser, ParseState, line_value, parse_from

#: smaller files open fast enough in one process
MIN_BYTES = 16 << 20
#: Entry fields that cross the pipe, in the order ``entries_from_columns`` unpacks them
#: (``index`` is set by the index, ``data`` is None for v3 files; a test keeps this in step
#: with ``Entry.__struct_fields__``)
FIELDS = (
    "id",
    "parent_id",
    "type",
    "role",
    "stamp",
    "span",
    "text",
    "aux",
    "has_text",
    "stop_reason",
    "tool_name",
    "tool_calls",
    "content_is_str",
    "hidden",
)
_PAYLOAD_VERSION = 4
#: what the child has read so far (bytes after ``at``, entries), in memory both processes share
_COUNTS = struct.Struct("qq")


class SplitParse(ForkedChild):
    """A child process parsing ``path`` from byte ``at`` to its end."""

    def __init__(
        self, path: str, at: int, pid: int, read_fd: int, file_id: tuple[int, int], counts: mmap.mmap | None = None
    ) -> None:
        self.path = path
        self.at = at
        #: (device, inode) of the file the child reads: the head must come from the same one
        self.file_id = file_id
        super().__init__(pid, read_fd)
        self._counts = counts

    @classmethod
    def start(cls, path: str, fraction: float = 0.5, min_bytes: int = MIN_BYTES) -> SplitParse | None:
        """Fork the child for the part of the file after ``fraction`` of it (None when a split
        does not apply: smaller than ``min_bytes``, not a v3 session, no fork, threads running)."""
        if not can_fork():
            return None
        if cache_io.present(path):
            return None  # reading the persistent index beats a second process
        # the child reads through this descriptor: the very file sniffed here, even if the path
        # is replaced meanwhile
        opened = open_big(path, min_bytes)
        if opened is None:
            return None
        fd, st = opened
        try:
            with open(fd, "rb", closefd=False) as f:
                # a pi header is a short line: a longer first line (a one-line JSON document)
                # is not parsed here, so sniffing costs nothing for those
                first = f.readline(HEADER_MAX_BYTES)
            header = _v3_header(first) if first.endswith(b"\n") else None
            if header is None:
                return None
            at = line_start_after(fd, int(st.st_size * fraction))
            if at is None:
                return None
            counts = mmap.mmap(-1, _COUNTS.size)  # shared with the child (MAP_SHARED)
            pid, read_fd = start_child(lambda: _parse_tail(fd, at, header, counts))
        except OSError:
            return None
        finally:
            os.close(fd)  # the child has its own copy
        return cls(path, at, pid, read_fd, (st.st_dev, st.st_ino), counts)

    def child_progress(self) -> tuple[int, int]:
        """(bytes after ``at``, entries) the child has read so far (at its last chunk)."""
        if self._counts is None:
            return 0, 0
        done, n = _COUNTS.unpack_from(self._counts, 0)
        return int(done), int(n)

    def read(
        self, fd: int, parser: LineParser, entries: list[Entry], progress: Callable[..., None] | None = None
    ) -> tuple[int, int, SessionIndex | None]:
        """Parse the head here (``parser`` appends to ``entries``) while the child reads the
        tail; afterwards ``entries`` holds every entry in file order. Returns (consumed offset,
        EOF, an index of the entries or None when they must be indexed as one batch).

        The head is indexed while the child is still busy, when every parent in it comes
        before its children (``SessionIndex.build`` says so); the tail is then indexed on top.
        ``progress(offset, more_entries)``: the bytes read by both processes (as one offset) and
        the entries the child has read so far, at each chunk and while waiting for the child.
        """
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != self.file_id:  # the path now names another file
            self.cancel()
            return (*parse_from(fd, 0, parser), None)
        both = None
        if progress is not None:
            report = progress

            def both(pos: int) -> None:
                done, n = self.child_progress()
                report(pos + done, n)

        try:
            consumed, eof = parse_from(fd, 0, parser, end=self.at, progress=both)
        except BaseException:
            self.cancel()
            raise
        index: SessionIndex | None = None
        if consumed == self.at:
            index = SessionIndex()
            if not index.build(entries):
                index = None
            tail = self.collect(parser.state, None if both is None else lambda: both(self.at))  # reaps the child
        else:  # the file changed under us: read on from here
            self.cancel()
            tail = None
        if tail is None:
            head = len(entries)
            consumed, eof = parse_from(fd, consumed, parser, progress=progress)
            rest = entries[head:]
        else:
            rest, consumed, eof = tail
            entries += rest
        if index is not None:
            index.build(rest)
        return consumed, eof, index

    def collect(self, state: ParseState, poll: Callable[[], None] | None = None) -> tuple[list[Entry], int, int] | None:
        """Wait for the child; merge its lines and diagnostics into ``state`` (numbered after
        ``state.line_no``) and return (its entries, consumed offset, EOF). None when the child
        failed: the caller parses from ``at`` itself. ``poll``: called while waiting (what it
        raises ends the child and comes out of here)."""
        data = self.output(poll)
        if data is None:
            return None
        try:
            payload = marshal.loads(data)
            version, consumed, eof, lines, parsed, infos, diags, columns = payload
            if version != _PAYLOAD_VERSION or len(columns) != len(FIELDS):
                return None
        except (EOFError, ValueError, TypeError):
            return None
        base = state.line_no
        entries = entries_from_columns(columns, base)
        state.lines.extend(LineInfo(base + line, offset, size, kind) for line, offset, size, kind in infos)
        state.diagnostics.extend(Diagnostic(base + line, reason) for line, reason in diags)
        state.line_no = base + lines
        state.parsed_count += parsed
        return entries, consumed, eof


#: the longest first line taken for a pi header when a split is considered
HEADER_MAX_BYTES = 64 * 1024


def _v3_header(first: bytes) -> dict[str, Any] | None:
    obj = line_value(first)
    if not isinstance(obj, dict) or obj.get("type") != "session" or not isinstance(obj.get("id"), str):
        return None
    if session_version(obj.get("version")) < 3:
        return None  # older files are migrated while read: one process keeps that simple
    return obj


#: the header of a version 3 (or later) pi session, from its first line, else None
v3_header = _v3_header


def _parse_tail(fd: int, at: int, header: dict[str, Any], counts: mmap.mmap | None = None) -> bytes:
    """In the child: the entries from ``at`` on, as marshal-packed columns; what it has read so
    far goes to ``counts`` at each chunk (the parent's progress)."""
    import gc

    gc.disable()  # a short-lived process that frees nothing
    state = ParseState(header=header, version=3)
    entries: list[Entry] = []

    def tick(pos: int) -> None:
        if counts is not None:
            _COUNTS.pack_into(counts, 0, pos - at, len(entries))

    consumed, eof = parse_from(fd, at, LineParser(state, entries.append), progress=tick)
    columns = [[getattr(e, f) for e in entries] for f in FIELDS]
    infos = [(i.line, i.offset, i.size, i.kind) for i in state.lines]
    diags = [(d.line, d.reason) for d in state.diagnostics]
    payload = (_PAYLOAD_VERSION, consumed, eof, state.line_no, state.parsed_count, infos, diags, columns)
    return marshal.dumps(payload, 2)  # version 2: no back-references, the fastest to write


def entries_from_columns(columns: list[list[Any]], line_base: int = 0) -> list[Entry]:
    """Entries from their ``FIELDS`` columns (a child's payload, a cached index), line numbers
    moved by ``line_base``; ``index`` is set when they are indexed."""
    shift = line_base << LINE_AT  # the line number's place in ``Entry.span``
    return [
        Entry(
            eid,
            parent,
            etype,
            role,
            stamp,
            -1,
            span + shift,
            text,
            aux,
            has_text,
            stop_reason,
            tool_name,
            tool_calls,
            content_is_str,
            hidden,
        )
        for (
            eid,
            parent,
            etype,
            role,
            stamp,
            span,
            text,
            aux,
            has_text,
            stop_reason,
            tool_name,
            tool_calls,
            content_is_str,
            hidden,
        ) in zip(*columns)
    ]
