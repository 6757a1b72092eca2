"""The picker's summary of a session file too big to read whole: a head and a tail window.

A store of thousands of sessions may hold a few of several GB (inline base64 screenshots);
reading those whole to list them is what makes pi's ``/resume`` stall. Above ``WINDOW_LIMIT``
the summary comes from the first ``HEAD`` bytes (header, omp title slot, first user message)
and the last ``TAIL`` bytes, read further back (up to ``BACK_LIMIT``) until they hold the start
of the last message line (its timestamp is the session's ``modified``). The complete lines of
both windows go through the session scanner (``catalog.summarize_bytes``); a first user
message whose line runs past the head window (text before megabytes of image data) is read
from the part that is there. Counts are then estimates: message and entry counts scaled from
the lines seen to the whole file, branch points those seen, and a session name only when a
``session_info`` line is in a window; the entry count from the newlines in the windows and
in ``PROBES`` small reads spread over the file — unless the persistent index of the file
(session/indexcache.py, written when loomtui opened it) covers it as it is now: then the counts
come from there, exact. ``SessionSummary.partial`` says so (the picker marks the
numbers). Nothing here is cached apart from the summary itself.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any, BinaryIO

from loomtui.session.scan import SessionScan, one_line

#: files up to this size are read whole (their counts exact)
WINDOW_LIMIT = 16 << 20
#: bytes read from the start and, at first, from the end
HEAD = 1 << 20
TAIL = 1 << 20
#: how far from the end the start of the last message line is looked for
BACK_LIMIT = 16 << 20

_USER_ROLE = re.compile(rb'"role"\s*:\s*"user"')
_MESSAGE_START = re.compile(rb'\n\{\s*"type"\s*:\s*"message"')
_TEXT_BLOCK = re.compile(rb'"type"\s*:\s*"text"\s*,\s*"text"\s*:\s*"')
_CONTENT = re.compile(rb'"content"\s*:\s*(["\[])')
#: evenly spaced reads of ``PROBE`` bytes that estimate the number of lines
PROBES = 256
PROBE = 16 << 10
#: a huge pi file is searched (full text) in pieces of whole lines of about this many bytes
SEARCH_PIECE = 16 << 20
#: bytes of one text block read for a first message cut by the head window
PIECE = 64 << 10


def read_at(f: BinaryIO, offset: int, n: int) -> bytes:
    f.seek(offset)
    return f.read(n)


def tail_window(f: BinaryIO, size: int, start: int) -> bytes:
    """The file's complete lines from about ``TAIL`` before its end, extended backwards
    (never before ``start``, nor past ``BACK_LIMIT``; each byte read once) until a message
    line starts in it."""
    want = TAIL
    at = size
    buf = b""
    while True:
        new_at = max(start, size - want)
        buf = read_at(f, new_at, at - new_at) + buf
        at = new_at
        nl = buf.find(b"\n") if at > start else -1
        lines = buf[nl + 1 :]
        if at == start or _MESSAGE_START.search(b"\n" + lines) or want >= BACK_LIMIT:
            return lines
        want *= 4


def may_be_exact(path: str) -> bool:
    """Whether a persistent index exists that may give exact counts for ``path``."""
    from loomtui.session import cache_io

    return cache_io.present(path)


def indexed_counts(path: str, f: BinaryIO, size: int) -> tuple[int, int, int, str | None] | None:
    """(entries, messages, branch points, latest session name) from the persistent index
    (session/indexcache.py) when it covers the whole file as it is now (verified by its key)."""
    from loomtui.session import cache_io, indexcache  # the reader's stack, only for huge files

    if not cache_io.present(path):
        return None
    cached = indexcache.load(path, f.fileno())
    if cached is None or cached.consumed != size:
        return None
    entries = cached.entries
    parents = Counter(e.parent_id for e in entries if e.parent_id is not None)
    names = [e.text for e in entries if e.type == "session_info"]
    name = names[-1].strip() or None if names and isinstance(names[-1], str) else None
    return (
        len(entries),
        sum(1 for e in entries if e.type == "message"),
        sum(1 for c in parents.values() if c > 1),
        name,
    )


def _partial_user_text(fragment: bytes) -> str:
    """The text of a user message from the start of its line (the rest may be missing): a
    string content, else its text blocks, joined by spaces as pi joins them."""
    m = _USER_ROLE.search(fragment)
    c = _CONTENT.search(fragment, m.end()) if m is not None else None
    if c is None:
        return ""
    starts = [c.end()] if c.group(1) == b'"' else [t.end() for t in _TEXT_BLOCK.finditer(fragment, c.end())]
    parts = []
    for at in starts:
        piece = fragment[at : at + PIECE].decode("utf-8", errors="replace")
        try:
            parts.append(json.decoder.scanstring(piece, 0)[0])  # type: ignore[attr-defined]
        except ValueError:
            # cut by the window: the part that is there (enough for one line of a listing)
            parts.append(_unescaped_prefix(piece))
            break
    return " ".join(parts)


def _unescaped_prefix(raw: str) -> str:
    """A JSON string body cut anywhere (maybe inside an escape), unescaped."""
    for trim in range(0, 8):
        try:
            return str(json.loads('"' + raw[: len(raw) - trim] + '"'))
        except ValueError:
            continue
    return ""


def summarize_windows(
    path: str, f: BinaryIO, size: int, mtime: float, summarize: Callable[[str, bytes, float], Any]
) -> Any:
    """The ``SessionSummary`` of the pi/omp session open as ``f`` from its head and tail
    windows (``summarize``: the catalog's summary of a file's bytes, given the windows); None
    when its head is not a pi session (the caller reads it whole)."""

    head = read_at(f, 0, HEAD)
    parsed = SessionScan.of(head)
    if parsed is None:
        return None
    body = parsed.body
    last_nl = head.rfind(b"\n")
    complete = head[: last_nl + 1]
    tail = tail_window(f, size, len(complete))
    seen = complete + tail
    summary = summarize(path, seen, mtime)
    if summary is None:
        return None
    cut = head[last_nl + 1 :]  # the line running past the head window
    first = _USER_ROLE.search(head, body)
    if first is not None and first.start() > last_nl:
        text = one_line(_partial_user_text(cut))
        if text:
            summary = replace(summary, first_message=text)
    exact = indexed_counts(path, f, size)
    if exact is not None:
        entries, messages, branches, name = exact
        return replace(
            summary,
            size=size,
            entry_count=entries,
            message_count=messages,
            branch_count=branches,
            name=name if name is not None else summary.name,
        )
    entries = summary.entry_count + (1 if cut.strip() else 0)
    messages = summary.message_count + (1 if cut.strip() and b'"type":"message"' in cut[:200] else 0)
    # the lines of the windows are counted; those of the middle estimated from evenly spaced
    # probes (every newline there is as likely to be sampled as any other, however long the
    # image lines are)
    middle = size - len(head) - len(tail)
    step = middle // PROBES
    newlines = sampled = 0
    for k in range(PROBES if step > PROBE else 0):
        probe = read_at(f, len(head) + k * step + (step - PROBE) // 2, PROBE)
        newlines += probe.count(b"\n")
        sampled += len(probe)
    lines = head.count(b"\n") + tail.count(b"\n") + (round(newlines * middle / sampled) if sampled else 0)
    estimate = max(entries, lines - 1)  # the header is a line
    return replace(
        summary,
        size=size,
        entry_count=estimate,
        message_count=round(estimate * messages / entries) if entries else 0,
        partial=True,
    )


def search_in_pieces(f: BinaryIO, search: Callable[[bytes, int], Iterable[Any]], cap: int) -> list[Any] | None:
    """Full-text search of a huge pi file, ``SEARCH_PIECE`` bytes of whole lines at a time, so
    memory follows the piece and the longest line, not the file. ``search(buf, cap)`` searches
    a session's bytes (the header line first) for at most ``cap`` hits with 1-based line
    numbers; each piece is searched behind the header and its hits renumbered. None when the
    file is not above ``WINDOW_LIMIT`` or not a pi session (the caller reads it whole)."""
    if os.fstat(f.fileno()).st_size <= WINDOW_LIMIT:
        return None
    parsed = SessionScan.of(read_at(f, 0, HEAD))
    if parsed is None:
        return None
    body = parsed.body
    header = read_at(f, 0, body)
    header_lines = header.count(b"\n")
    lines_before = header_lines
    hits: list[Any] = []
    carry = b""
    at = body
    while len(hits) < cap:
        chunk = read_at(f, at, SEARCH_PIECE)
        at += len(chunk)
        buf = carry + chunk
        cut = len(buf) if not chunk else buf.rfind(b"\n") + 1
        piece, carry = buf[:cut], buf[cut:]
        if piece:
            for h in search(header + piece, cap - len(hits)):
                hits.append(replace(h, line=h.line - header_lines + lines_before))
            lines_before += piece.count(b"\n")
        if not chunk:
            break
    return hits
