"""The message text pi's ``/resume`` search matches a session by: every user and assistant
message's text blocks, joined by spaces (docs/pi-releases.md). Read whole from the file, so
the picker gathers it in the background and its filter uses the first message until then.
No Textual here.
"""

from __future__ import annotations

from typing import Any

from loomtui.session.errors import LoomError
from loomtui.session.fileio import open_regular_file
from loomtui.session.scan import SessionScan, loads

#: a file above this is not read for its text (its first message still matches)
FILE_LIMIT = 32 * 1024 * 1024


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return " ".join(
        b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
    )


def message_text(path: str, limit: int = FILE_LIMIT) -> str | None:
    """The text of every user and assistant message of a pi or omp session, in file order
    (None for another tool's file, a file above ``limit`` or one that cannot be read)."""
    try:
        with open_regular_file(path) as f:
            buf = f.read(limit + 1)
    except (OSError, LoomError):
        return None
    if len(buf) > limit:
        return None
    scan = SessionScan.of(buf)
    if scan is None:
        return None
    parts: list[str] = []
    for start, end, _line in scan.lines_holding(None):
        if buf.find(b'"message"', start, end) < 0:
            continue
        obj = loads(buf[start:end])
        msg = obj.get("message") if isinstance(obj, dict) and obj.get("type") == "message" else None
        if isinstance(msg, dict) and msg.get("role") in ("user", "assistant"):
            text = _text(msg.get("content"))
            if text:
                parts.append(text)
    return " ".join(parts)
