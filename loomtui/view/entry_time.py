"""The time an entry's header shows, in the detail pane and on the HTML page: one rule for
sources that keep times and those whose entry timestamps only order them (a loom, an OCP run)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from loomtui.session.entries import Entry
from loomtui.session.manager import SessionManager


def entry_time(manager: SessionManager, e: Entry, full: dict[str, Any]) -> str | None:
    """The time an entry's header shows: its timestamp where the source keeps times, else the
    time the source knows of it (``Source.entry_time``: an OCP run's start), else its message's
    own (a loom node's ``createdAt``); None: the file keeps none."""
    src = manager.source
    if src.keeps_times:
        ts = full.get("timestamp")
    else:
        ts = src.entry_time(e.id) if src.entry_time is not None else None
    return (ts if isinstance(ts, str) and ts else None) or message_time(full.get("message"))


def message_time(msg: Any) -> str | None:
    """A message's own time (Unix ms, as pi and a loom node's ``createdAt`` keep it) when the
    entry has none."""
    ms = msg.get("timestamp") if isinstance(msg, dict) else None
    if isinstance(ms, bool) or not isinstance(ms, (int, float)):
        return None
    try:
        return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):
        return None
