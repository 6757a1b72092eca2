"""Names for what loomtui writes, made as pi makes them: entry ids, session ids, the time stamps
and a branch export's file name (``session/manager.py``)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from typing import Any


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_entry_id(taken: Any) -> str:
    """8 lowercase hex chars not in ``taken``; a full UUID after 100 collisions (pi's generateId)."""
    for _ in range(100):
        candidate = os.urandom(4).hex()  # the first 8 hex digits of a UUIDv4: all random
        if candidate not in taken:
            return candidate
    import uuid

    return str(uuid.uuid4())


def new_session_id() -> str:
    """A UUIDv7 (what pi 0.73 uses for session ids)."""
    ms = int(datetime.now(UTC).timestamp() * 1000) & ((1 << 48) - 1)
    rand = int.from_bytes(os.urandom(10), "big")
    value = (ms << 80) | (0x7 << 76) | ((rand >> 68) & 0xFFF) << 64 | (0b10 << 62) | (rand & ((1 << 62) - 1))
    import uuid  # only when a session is written: keeps `loomtui tree` start-up short

    return str(uuid.UUID(int=value))


def branch_file_name(timestamp: str, session_id: str) -> str:
    return f"{timestamp.replace(':', '-').replace('.', '-')}_{session_id}.jsonl"
