"""Full-text search over session files: every entry whose text holds all the query's words.

Lines are found with the session scanner (``session/scan.py``): only lines whose bytes contain
the query's longest ASCII word are decoded. No Textual here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from loomtui.session import agent_catalog, catalog_window
from loomtui.session.entries import content_text
from loomtui.session.errors import LoomError
from loomtui.session.fileio import open_regular_file
from loomtui.session.jsonvalue import dumps_bytes
from loomtui.session.scan import SessionScan, loads, one_line

#: a search stops after this many hits (and after ``PER_SESSION`` in one session); a
#: ``SearchCapped`` says so, and a search of one session for more takes over from there
SEARCH_LIMIT = 500
PER_SESSION = 20


@dataclass(frozen=True, slots=True)
class SearchProgress:
    done: int
    total: int
    hits: int


@dataclass(frozen=True, slots=True)
class SearchCapped:
    """The search stopped at ``shown`` hits although there are more: in the session at
    ``path``, or (``path`` None) in all, before every session was searched."""

    path: str | None
    shown: int


@dataclass(frozen=True, slots=True)
class SearchHit:
    """An entry whose text holds every query token; ``line`` is its 1-based physical line;
    ``role`` its kind (a message's role, else its type), ``name`` a tool result's tool or a custom
    message's type (the tree's word for the row, ``view/search_words.py``)."""

    path: str
    entry_id: str | None
    line: int
    snippet: str
    role: str
    name: str = ""


def entry_search_text(obj: dict[str, Any]) -> tuple[str, str]:
    """(kind, all searchable text) of one decoded entry: what a person could have typed or read."""
    t = obj.get("type")
    kind = t if isinstance(t, str) else ""
    if t == "message":
        msg = obj.get("message")
        return _message_text(msg) if isinstance(msg, dict) else (kind, "")
    if t == "custom_message":
        c = obj.get("content")
        return kind, c if isinstance(c, str) else content_text(c, None)
    if kind in _TEXT_FIELD:  # ``kind``: the type when it is a string (a list is not hashable)
        text = obj.get(_TEXT_FIELD[kind])
        return kind, text if isinstance(text, str) else ""
    return kind, ""


def _message_text(msg: dict[str, Any]) -> tuple[str, str]:
    """(role, searchable text) of a message: its content blocks, then a bash execution's
    command and output or an error message."""
    role = msg.get("role")
    content = msg.get("content")
    parts: list[str] = []
    if isinstance(content, str):
        parts.append(content)
    elif isinstance(content, list):
        for b in content:
            if isinstance(b, dict):
                parts += _block_texts(b)
    for key in ("command", "output", "errorMessage"):
        v = msg.get(key)
        if isinstance(v, str):
            parts.append(v)
    return (role if isinstance(role, str) else "message"), "\n".join(parts)


def _block_texts(b: dict[str, Any]) -> list[str]:
    bt = b.get("type")
    if bt == "text" and isinstance(b.get("text"), str):
        return [b["text"]]
    if bt == "thinking" and isinstance(b.get("thinking"), str):
        return [b["thinking"]]
    if bt != "toolCall":
        return []
    args = b.get("arguments")
    values = args.values() if isinstance(args, dict) else [args]
    # argument values as written (a path, a command, an edit's text), not as JSON
    return [str(b.get("name")), *(v if isinstance(v, str) else dumps_bytes(v).decode() for v in values)]


#: the one text field of the other entry kinds that full-text search reads
_TEXT_FIELD = {
    "compaction": "summary",
    "branch_summary": "summary",
    "session_info": "name",
    "label": "label",
    "title_change": "title",
}


def _name(obj: dict[str, Any], kind: str) -> str:
    """A tool result's tool, a custom message's type (``SearchHit.name``)."""
    msg = obj.get("message")
    name = obj.get("customType") if kind == "custom_message" else msg.get("toolName") if isinstance(msg, dict) else None
    return name if isinstance(name, str) and kind in ("custom_message", "toolResult") else ""


def _snippet(text: str, token: str, width: int = 80) -> str:
    """About ``width`` characters of ``text`` on one line, the match a third of the way in,
    starting at a word."""
    i = text.lower().find(token)
    if i < 0:
        return one_line(text, width)
    start = max(0, i - width // 3)
    if start > 0:
        m = re.search(r"\s", text[start:i])
        start = start + m.end() if m else start
    out = one_line(text[start : start + width * 2], width)
    return ("…" if start > 0 else "") + out


def _json_escaped(token: str) -> bytes:
    escaped: bytes = orjson.dumps(token)
    return escaped[1:-1]


def search_sessions(
    paths: Iterable[str],
    query: str,
    *,
    per_session: int = PER_SESSION,
    limit: int = SEARCH_LIMIT,
) -> Iterator[SearchProgress | SearchHit | SearchCapped]:
    """Every entry whose text holds all whitespace-separated tokens of ``query`` (any case).

    Yields a ``SearchProgress`` after each file and a ``SearchHit`` per match, so a background
    worker can show progress and stop between items; a ``SearchCapped`` when a session holds
    more than ``per_session`` hits or the search stops at ``limit``. Files are read whole (a
    huge one a piece at a time), but only lines whose bytes contain the query's longest ASCII
    token are decoded.
    """
    tokens = [t for t in query.lower().split() if t]
    paths = list(paths)
    total = len(paths)
    hits = 0
    if not tokens:
        yield SearchProgress(total, total, 0)
        return
    ascii_tokens = [t for t in tokens if t.isascii()]
    probe = _json_escaped(max(ascii_tokens, key=len)) if ascii_tokens else None
    for done, path in enumerate(paths, start=1):
        try:
            found, more = _file_hits(path, tokens, probe, per_session)
        except (OSError, LoomError):
            yield SearchProgress(done, total, hits)
            continue
        for n, h in enumerate(found, start=1):
            yield h
            hits += 1
            if hits >= limit:
                if more or n < len(found):
                    yield SearchCapped(path, n)
                if more or n < len(found) or done < total:
                    yield SearchCapped(None, hits)
                yield SearchProgress(total, total, hits)
                return
        if more:
            yield SearchCapped(path, len(found))
        yield SearchProgress(done, total, hits)


def _file_hits(path: str, tokens: list[str], probe: bytes | None, per_session: int) -> tuple[list[SearchHit], bool]:
    """The first ``per_session`` hits of one file, and whether it holds more."""
    with open_regular_file(path) as f:
        # a huge pi file a piece of whole lines at a time (session/catalog_window.py); one hit
        # past the cap tells that there are more
        found = catalog_window.search_in_pieces(
            f, lambda buf, cap: _search_file(path, buf, tokens, probe, cap), per_session + 1
        )
        if found is None:
            f.seek(0)
            found = list(_search_file(path, f.read(), tokens, probe, per_session + 1))
    more = len(found) > per_session
    found = found[:per_session]
    if found and any(h.entry_id is None for h in found):
        found = _resolve_ids(path, found)
    return found, more


def _search_file(path: str, buf: bytes, tokens: list[str], probe: bytes | None, cap: int) -> Iterator[SearchHit]:
    scan = SessionScan.of(buf)
    if scan is None:
        yield from _search_agent_file(path, buf, tokens, probe, cap)
        return
    n = 0
    for start, end, line in scan.lines_holding(probe):
        obj = loads(buf[start:end])
        if not isinstance(obj, dict) or obj.get("type") in ("session", "title"):
            continue
        kind, text = entry_search_text(obj)
        low_text = text.lower()
        if text and all(t in low_text for t in tokens):
            eid = obj.get("id")
            yield SearchHit(
                path, eid if isinstance(eid, str) else None, line, _snippet(text, tokens[0]), kind, _name(obj, kind)
            )
            n += 1
            if n >= cap:
                return


def _resolve_ids(path: str, hits: list[SearchHit]) -> list[SearchHit]:
    """v1 files have no ids on disk: take the ids loomtui's reader gives their lines."""
    from loomtui.session.manager import SessionManager

    try:
        sm = SessionManager.open(path)
    except Exception:  # noqa: BLE001 - a file that cannot be opened keeps id-less hits
        return hits
    by_line = {e.line: e.id for e in sm.index.entries}
    return [
        h if h.entry_id is not None else SearchHit(h.path, by_line.get(h.line), h.line, h.snippet, h.role, h.name)
        for h in hits
    ]


def _search_agent_file(path: str, buf: bytes, tokens: list[str], probe: bytes | None, cap: int) -> Iterator[SearchHit]:
    """Full-text search of another agent's file, its lines read by its tool's lister (entry ids
    as loomtui's readers give them, ``agent_catalog.py``)."""
    lister = agent_catalog.lister_of(buf)
    if lister is None:
        return
    n = 0
    for line, raw in enumerate(buf.split(b"\n"), start=1):
        if probe is not None and probe not in raw.lower():
            continue
        obj = loads(raw)
        if not isinstance(obj, dict):
            continue
        kind, text, eid = lister.search_text(obj, line)
        low_text = text.lower()
        if text and all(t in low_text for t in tokens):
            yield SearchHit(path, eid, line, _snippet(text, tokens[0]), kind)
            n += 1
            if n >= cap:
                return
