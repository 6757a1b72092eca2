"""Claude Code's background forks: a session file whose lines say ``"sessionKind": "bg"``.

``/bg`` (and ``claude --bg`` from a session) starts a new session id and file in the same
project directory that first replays the parent's conversation, line for line with the
original uuids, then goes on. ``replay_of`` finds the parent: the other session file of the
directory (``agent-*.jsonl`` aside) holding the fork's first uuid near its start, preferring one
that is not a background fork itself; its uuids are the lines the fork replays
(docs/agent-formats.md, "Background forks").
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

import orjson

#: how much of a sibling file is searched for the fork's first uuid (the parent's root is among
#: its first lines)
HEAD = 1 << 20
_UUID = re.compile(rb'"uuid"\s*:\s*"([^"\\]+)"')
_SESSION_ID = re.compile(rb'"sessionId"\s*:\s*"([^"\\]+)"')
_BG = re.compile(rb'"sessionKind"\s*:\s*"bg"')


@dataclass(frozen=True)
class Replay:
    """The parent a background fork replays, and the uuids of its lines."""

    session_id: str | None
    path: str
    uuids: frozenset[str]


def is_bg_line(raw: bytes) -> bool:
    """Whether one decoded-to-be line has the top-level ``"sessionKind": "bg"``."""
    if not _BG.search(raw):
        return False
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return False
    return isinstance(obj, dict) and obj.get("sessionKind") == "bg"


def _head(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(HEAD)
    except OSError:
        return b""


def parent_path(path: str, first_uuid: str) -> str | None:
    """The session file beside ``path`` whose first MiB names ``first_uuid`` as a line's uuid
    (not a background fork itself when one such file is not), or None."""
    folder = os.path.dirname(os.path.abspath(path))
    needle = re.compile(rb'"uuid"\s*:\s*"' + re.escape(first_uuid.encode()) + rb'"')
    found: list[tuple[bool, str]] = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return None
    for name in names:
        other = os.path.join(folder, name)
        if not name.endswith(".jsonl") or name.startswith("agent-") or other == os.path.abspath(path):
            continue
        head = _head(other)
        m = needle.search(head)
        if m is not None:
            start = head.rfind(b"\n", 0, m.start()) + 1
            end = head.find(b"\n", m.end())
            found.append((is_bg_line(head[start : end if end >= 0 else len(head)]), other))
    found.sort(key=lambda x: x[0])  # files that are not forks first
    return found[0][1] if found else None


def replay_of(path: str, first_uuid: str) -> Replay | None:
    """What the background fork at ``path`` replays (None when no parent is beside it)."""
    parent = parent_path(path, first_uuid)
    if parent is None:
        return None
    try:
        with open(parent, "rb") as f:
            data = f.read()
    except OSError:
        return None
    sid = _SESSION_ID.search(data)
    return Replay(
        sid.group(1).decode() if sid else None,
        parent,
        frozenset(m.decode("utf-8", "replace") for m in _UUID.findall(data)),
    )


def parent_session_id(path: str, first_uuid: str) -> str | None:
    """The session id of the parent ``parent_path`` finds (from its first MiB), or None."""
    parent = parent_path(path, first_uuid)
    if parent is None:
        return None
    m = _SESSION_ID.search(_head(parent))
    return m.group(1).decode("utf-8", "replace") if m else None
