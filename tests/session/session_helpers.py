"""Builders for hand-made session files (imported by the session and command tests)."""

from __future__ import annotations

import json
from typing import Any

PI_FIXTURES = (
    "dnouri-browse-session",
    "pi-brain-branch-summary",
    "pi-brain-mixed-boundaries",
    "pi-mono-before-compaction",
    "pi-mono-large-session",
)
#: the goldens of these two were made from another (random-id) migration of the same session:
#: compare counts and roles there, not ids
RANDOM_ID_GOLDENS = {"pi-mono-before-compaction", "pi-mono-large-session"}

HEADER = {
    "type": "session",
    "version": 3,
    "id": "sess-0001",
    "timestamp": "2026-03-01T09:00:00.000Z",
    "cwd": "/srv/demo",
}


def msg(
    entry_id: str,
    parent: str | None,
    role: str = "user",
    text: str = "hi",
    ts: str = "2026-03-01T09:00:01.000Z",
    **extra: Any,
) -> dict[str, Any]:
    """A pi message entry in pi's key order."""
    message: dict[str, Any] = {"role": role, "content": [{"type": "text", "text": text}]}
    message.update(extra)
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": ts, "message": message}


def label(
    entry_id: str, parent: str | None, target: str, text: str | None, ts: str = "2026-03-01T09:00:09.000Z"
) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "label", "id": entry_id, "parentId": parent, "timestamp": ts, "targetId": target}
    if text is not None:
        entry["label"] = text
    return entry


def dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
