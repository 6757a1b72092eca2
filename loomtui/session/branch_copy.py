"""The lines of a branch export as pi 1.6.0's createBranchedSession writes them (docs/formats.md §7.5).

pi leaves label entries out of the copied path and re-creates the labels after it. Since label
entries are tree entries, a later entry may be the child of one: pi re-links every copied entry
to the copied entry before it (the first one becomes a root), so the chain stays connected, and a
compaction whose ``firstKeptEntryId`` names a dropped label keeps from the entry that followed
that label. An entry whose line this changes is written again; every other line is copied as it
is in the source file.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from loomtui.session.entries import Entry
from loomtui.session.jsstr import js_json
from loomtui.session.reader import decode_line


@dataclass(frozen=True, slots=True)
class Relink:
    """Where one copied entry goes: its new ``parentId``; for a compaction, the dropped labels
    that its ``firstKeptEntryId`` may name (those before it count: label id → the copied entry
    that stands for it, and that entry's place)."""

    parent: str | None
    first: bool
    place: int
    labels: dict[str, tuple[str, int]] | None = None


def relinks(path: list[Entry]) -> list[tuple[Entry, Relink]]:
    """The entries of ``path`` (root → leaf) that are copied, label entries left out, each with
    its ``Relink``."""
    out: list[tuple[Entry, Relink]] = []
    pending: list[str] = []
    stands_for: dict[str, tuple[str, int]] = {}  # shared: a compaction looks only at earlier places
    parent: str | None = None
    for e in path:
        if e.type == "label":
            pending.append(e.id)
            continue
        for label_id in pending:
            stands_for[label_id] = (e.id, len(out))
        pending.clear()
        out.append((e, Relink(parent, not out, len(out), stands_for if e.type == "compaction" else None)))
        parent = e.id
    return out


def needs_rewrite(e: Entry, relink: Relink) -> bool:
    """Whether the line may change (decided from the skeleton: only a root, a compaction or an
    entry whose parent was a label entry need their line decoded)."""
    return relink.first or relink.labels is not None or e.parent_id != relink.parent


def line_as_written(line: bytes, e: Entry, relink: Relink) -> bytes:
    """``line`` (the entry's line in the source file) as pi writes it into the branch file."""
    if not needs_rewrite(e, relink):
        return line
    obj = decode_line(line)
    if not isinstance(obj, dict):
        return line
    new = dict(obj)
    new["parentId"] = relink.parent
    if relink.labels is not None and "firstKeptEntryId" in obj:
        new["firstKeptEntryId"] = _first_kept(obj, relink)
    if _same(new, obj):
        return line
    return js_json(new).encode()


def with_own_time(line: bytes, fallback: str) -> bytes:
    """``line`` with its entry's ``timestamp`` a real time, for a source whose entry timestamps
    only order its nodes (``Source.keeps_times`` False: a loom, an OCP run): its message's own
    time when it has one (an OpenLoom node's ``createdAt``), else ``fallback`` (when the export
    was written). pi reads every entry's ``timestamp`` as a time."""
    obj = decode_line(line)
    if not isinstance(obj, dict):
        return line
    msg = obj.get("message")
    own = _iso_of_ms(msg.get("timestamp")) if isinstance(msg, dict) else None
    new = dict(obj)
    new["timestamp"] = own or fallback
    return line if _same(new, obj) else js_json(new).encode()


def dated_at(extra: list[dict[str, Any]], ts: str) -> list[dict[str, Any]]:
    """The entries written after a timeless source's branch (its name, its labels), dated ``ts``
    (the export's time) where their timestamp is no time: missing, a 1970 ordering key, or the
    name's, made when the branch was taken."""
    return [
        {**x, "timestamp": ts}
        if x.get("type") == "session_info"
        or not isinstance(x.get("timestamp"), str)
        or x["timestamp"].startswith("1970-")
        else x
        for x in extra
    ]


def _iso_of_ms(ms: Any) -> str | None:
    """Milliseconds since the Unix epoch (pi's ``message.timestamp``) as pi's ISO time, or None."""
    if isinstance(ms, bool) or not isinstance(ms, (int, float)) or not math.isfinite(ms):
        return None
    try:
        dt = datetime.fromtimestamp(ms / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return dt.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _first_kept(obj: dict[str, Any], relink: Relink) -> Any:
    """A retain-none compaction keeps its own id; a dropped label before the compaction becomes
    the entry after it."""
    first = obj["firstKeptEntryId"]
    if not isinstance(first, str) or first == obj.get("id") or relink.labels is None:
        return first
    stands = relink.labels.get(first)
    return stands[0] if stands is not None and stands[1] <= relink.place else first


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """The same members in the same order with the same JSON values (Python's ``0 == False``
    is not JSON's equality)."""
    return list(a) == list(b) and all(type(a[k]) is type(b[k]) and a[k] == b[k] for k in a)
