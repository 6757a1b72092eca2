"""The one scanner of a session file's bytes: its header, its counts, its first user message and
the lines a full-text search decodes, without indexing the file.

docs/formats.md §3 (header), §7.6 (what pi's ``SessionManager.list`` computes). Listing must stay
fast with thousands of sessions, so a ``SessionScan`` reads each line from its start: pi writes
``type``, ``id``, ``parentId``, ``timestamp`` first on every line (docs/formats.md §2 rule 5), so
one regular expression gives a line's type, parent and time, and only the lines that need it are
decoded (payload-first ``custom`` lines, ``session_info`` names, the first user message, lines
written in another key order). A file laid out exactly as pi writes it is counted first with
C-speed ``bytes.count`` and ``re.findall`` (no Python loop per line); any other layout, and v1
files, take the one pass over the lines. No Textual here.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from loomtui.session.index import timestamp_ms
from loomtui.session.jsonvalue import loads as json_parse
from loomtui.session.jsstr import session_version

NO_MESSAGES = "(no messages)"
#: characters of the first user message kept in a summary (pi's /resume shows one line)
FIRST_MESSAGE_CAP = 200
#: user-message lines decoded while looking for the first one with text
FIRST_MESSAGE_TRIES = 1000

#: the start of an entry line as pi writes it (docs/formats.md §2 rule 5); whitespace tolerated
#: for writers that use ``json.dumps`` defaults
_HEAD = (
    rb'\{\s*"type"\s*:\s*"([^"\\]*)"'
    rb'(?:\s*,\s*"id"\s*:\s*"([^"\\]*)"\s*,\s*"parentId"\s*:\s*(?:"([^"\\]*)"|(null))'
    rb'(?:\s*,\s*"timestamp"\s*:\s*"([^"\\]*)")?)?'
)
#: every line after a newline, with its entry head when it starts like one (a literal ``\n``
#: prefix scans ten times faster than ``^``)
_EVERY_LINE = re.compile(rb"\n(?:" + _HEAD + rb")?")
_LINE_HEAD = re.compile(_HEAD)
_USER_ROLE = re.compile(rb'"role"\s*:\s*"user"')
_ONE_LINE = re.compile(r"\s+")
#: a line in pi's layout: type, id, parentId first (the parent captured; empty for null)
_STD_PARENT = re.compile(rb'\n\{"type":"[^"\\]*","id":"[^"\\]*","parentId":(?:"([^"\\]*)"|null)')
#: pi writes custom / custom_message payload keys before id and parentId
_PAYLOAD_FIRST = re.compile(rb'\n\{"type":"custom(?:_message)?","customType"')


def loads(raw: bytes) -> Any:
    """A decoded line, None when it is not JSON. What orjson refuses but ``JSON.parse`` reads
    (a lone surrogate escaped as ``\\ud800``, integers beyond 64 bits) is read as pi reads it."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        pass
    try:
        return json_parse(raw)
    except (ValueError, RecursionError, MemoryError):
        return None


def line_at(buf: bytes, pos: int) -> tuple[int, int]:
    """(start, end) of the line holding ``pos`` (end excludes the newline)."""
    start = buf.rfind(b"\n", 0, pos) + 1
    end = buf.find(b"\n", pos)
    return start, (len(buf) if end < 0 else end)


def seconds(value: Any) -> float:
    """An entry timestamp as Unix seconds (NaN when it is none)."""
    ms = timestamp_ms(value)
    return ms / 1000.0 if not math.isnan(ms) else math.nan


def one_line(text: str, cap: int = FIRST_MESSAGE_CAP) -> str:
    return _ONE_LINE.sub(" ", text[: cap * 2]).strip()[:cap].rstrip()


def _joined_text(content: Any) -> str:
    """pi's ``extractTextContent`` for session listings: a string, or text blocks joined by spaces."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        )
    return ""


def _name_of(obj: Any) -> str | None:
    """pi-new: the latest session_info wins and an empty name clears (as the index does)."""
    n = obj.get("name") if isinstance(obj, dict) else None
    return n.strip() or None if isinstance(n, str) else None


def _branch_count(parents: list[Any]) -> int:
    return sum(1 for c in Counter(parents).values() if c > 1)


@dataclass(slots=True)
class Counts:
    """What a listing counts in a session file (pi's ``SessionInfo`` plus branches)."""

    #: the latest session_info name (None: none, or cleared)
    name: str | None = None
    messages: int = 0
    entries: int = 0
    branches: int = 0
    #: the timestamp of the last message entry (any JSON value)
    last_message_ts: Any = None


class SessionScan:
    """One session file's bytes, read from the start of each line (never indexed)."""

    __slots__ = ("buf", "header", "title", "body", "version")

    def __init__(self, buf: bytes, header: dict[str, Any], title: dict[str, Any] | None, body: int) -> None:
        self.buf = buf
        self.header = header
        #: omp's title slot (a ``title`` line before the header)
        self.title = title
        #: offset of the first line after the header
        self.body = body
        self.version = session_version(header.get("version"))

    @classmethod
    def of(cls, buf: bytes) -> SessionScan | None:
        """The scanner of a pi/omp session file, None when ``buf`` does not start like one."""
        pos = 3 if buf.startswith(b"\xef\xbb\xbf") else 0
        title = None
        for _ in range(2):
            # skip blank lines before the header, as pi's trim() does
            while pos < len(buf) and buf[pos : pos + 1] in (b"\n", b"\r", b" ", b"\t"):
                pos += 1
            end = buf.find(b"\n", pos)
            end = len(buf) if end < 0 else end
            obj = loads(buf[pos:end])
            if not isinstance(obj, dict):
                return None
            if obj.get("type") == "title" and title is None:
                title = obj
                pos = end + 1
                continue
            if obj.get("type") == "session" and isinstance(obj.get("id"), str):
                return cls(buf, obj, title, end + 1)
            return None
        return None

    # counts ---------------------------------------------------------------------------------
    def counts(self) -> Counts:
        """Entries, messages, branch points, the latest name and the last message's time."""
        return self._counts_compact() or self._counts_by_line()

    def _counts_compact(self) -> Counts | None:
        """Counts of a file laid out exactly as pi writes it, from C-speed passes over the bytes
        (decoding only custom lines, the latest session_info and maybe the last message); None
        when some line looks different (blank lines, spaces, another key order, v1 files)."""
        buf = self.buf
        start = self.body - 1  # the newline ending the header line
        stop = len(buf) - 1 if buf.endswith(b"\n") else len(buf)
        if start >= stop:
            return Counts()
        if self.version < 2:
            return None
        lines = buf.count(b"\n", start, stop)
        parents = self._compact_parents(start, lines)
        if parents is None:
            return None
        counter = Counter(parents)
        counter.pop(b"", None)  # roots
        out = Counts(messages=buf.count(b'\n{"type":"message"', start), entries=lines)
        out.branches = sum(1 for c in counter.values() if c > 1)
        at = buf.rfind(b'\n{"type":"session_info"', start)
        if at >= 0:
            out.name = _name_of(self._decode_at(at + 1))
        at = buf.rfind(b'\n{"type":"message"', start)
        if at >= 0:
            head = _LINE_HEAD.match(buf, at + 1)
            out.last_message_ts = head.group(5).decode() if head is not None and head.group(5) is not None else None
            if out.last_message_ts is None:
                obj = self._decode_at(at + 1)
                out.last_message_ts = obj.get("timestamp") if isinstance(obj, dict) else None
        return out

    def _compact_parents(self, start: int, lines: int) -> list[Any] | None:
        """The parent of every line (b"" for a root) when each line is in pi's layout."""
        buf = self.buf
        parents: list[Any] = _STD_PARENT.findall(buf, start)
        if len(parents) == lines:
            return parents
        custom = list(_PAYLOAD_FIRST.finditer(buf, start))
        if len(parents) + len(custom) != lines:
            return None
        for m in custom:
            obj = self._decode_at(m.start() + 1)
            p = obj.get("parentId") if isinstance(obj, dict) else None
            if isinstance(p, str):
                parents.append(p.encode())
        return parents

    def _decode_at(self, pos: int) -> Any:
        ls, le = line_at(self.buf, pos)
        return loads(self.buf[ls:le])

    # radon rates this C; the common line (type, id, parentId, timestamp in pi's order) is
    # handled inline, without a call: this loop runs once per line of every listed session.
    def _counts_by_line(self) -> Counts:
        """Counts from the start of each line, in one pass over every line of the file: a line
        whose head the regular expression cannot read (payload keys first, another writer's
        key order, a session_info line whose name is needed) is decoded."""
        out = Counts()
        parents: list[Any] = []
        v2 = self.version >= 2
        last_message_at = -1
        for m in _EVERY_LINE.finditer(self.buf, self.body - 1):
            etype = m.group(1)
            # no id (payload first; v1 lines have none and need no decoding), or not an entry head
            if etype is None or etype == b"session_info" or (m.group(2) is None and v2):
                at = self._count_decoded(m.start() + 1, out, parents)
                last_message_at = at if at is not None else last_message_at
                continue
            if etype == b"session" or etype == b"title":
                continue
            out.entries += 1
            parent = m.group(3)
            if parent is not None:
                parents.append(parent)
            if etype == b"message":
                out.messages += 1
                ts = m.group(5)
                if ts is not None:
                    out.last_message_ts = ts.decode()
                    last_message_at = -1
                else:
                    last_message_at = m.start() + 1
        if not v2:
            parents.clear()  # v1 entries have no ids: no branch points are counted
        if last_message_at >= 0:
            obj = self._decode_at(last_message_at)
            out.last_message_ts = obj.get("timestamp") if isinstance(obj, dict) else None
        out.branches = _branch_count(parents)
        return out

    def _count_decoded(self, pos: int, out: Counts, parents: list[Any]) -> int | None:
        """Count the line at ``pos`` by decoding it; returns -1 when it is the latest message
        (its time is known), None when it changes nothing about the last message."""
        obj = self._decode_at(pos)
        etype = obj.get("type") if isinstance(obj, dict) else None
        if not isinstance(obj, dict) or etype in ("session", "title", None):
            return None
        out.entries += 1
        if etype == "session_info":
            out.name = _name_of(obj)
        p = obj.get("parentId")
        if isinstance(p, str):
            parents.append(p.encode())
        if etype != "message":
            return None
        out.messages += 1
        out.last_message_ts = obj.get("timestamp")
        return -1

    # the first user message ---------------------------------------------------------------
    def first_user_message(self) -> str:
        """The first user message's text (pi's ``firstMessage``), found without parsing every line."""
        buf = self.buf
        pos = self.body
        for _ in range(FIRST_MESSAGE_TRIES):
            m = _USER_ROLE.search(buf, pos)
            if m is None:
                break
            ls, le = line_at(buf, m.start())
            obj = loads(buf[ls:le])
            msg = obj.get("message") if isinstance(obj, dict) and obj.get("type") == "message" else None
            if isinstance(msg, dict) and msg.get("role") == "user":
                text = one_line(_joined_text(msg.get("content")))
                if text:
                    return text
            pos = le + 1
        return NO_MESSAGES

    # the lines a search decodes --------------------------------------------------------------
    def lines_holding(self, probe: bytes | None) -> Iterator[tuple[int, int, int]]:
        """(start, end, 1-based line number) of each line after the header whose lower-cased
        bytes contain ``probe`` (every line when it is None), in file order."""
        buf = self.buf
        low = buf.lower() if probe is not None else buf
        pos = self.body
        counted_to = 0
        newlines = 0  # newlines before counted_to
        while pos < len(buf):
            if probe is not None:
                i = low.find(probe, pos)
                if i < 0:
                    return
                start, end = line_at(buf, i)
            else:
                start, end = line_at(buf, pos)
            if probe is not None and end - start > LONG_LINE and not probe_outside_images(low, start, i, end, probe):
                pos = end + 1  # only in the base64 of screenshots: nothing to decode
                continue
            newlines += buf.count(b"\n", counted_to, start)
            counted_to = start
            pos = end + 1
            yield start, end, newlines + 1


#: lines longer than this are checked for a probe that occurs only inside image data
LONG_LINE = 64 << 10
#: an image block as pi writes it (docs/formats.md §5), lower-cased: its base64 follows
_IMAGE_DATA = b'"type":"image","data":"'


def probe_outside_images(low: bytes, start: int, at: int, end: int, probe: bytes) -> bool:
    """Whether ``probe`` occurs in the lower-cased line ``low[start:end]`` (first at ``at``)
    anywhere but inside the base64 ``data`` of an image block: a search then never decodes a
    line of screenshots only because their base64 happens to hold the query's bytes (search
    texts hold no image data, so such a line cannot match)."""
    i = at
    while i >= 0:
        d = low.rfind(_IMAGE_DATA, start, i)
        if d < 0:
            return True
        s = d + len(_IMAGE_DATA)
        q = low.find(b'"', s, end)  # base64 holds no quote: the string ends here (or earlier: decode)
        if q < 0 or i + len(probe) > q:
            return True
        i = low.find(probe, q, end)
    return False
