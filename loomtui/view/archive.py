"""Archived branches: append-only records that hide a subtree from the default views.

A record is one pi ``custom`` entry, ``{"type": "custom", "customType": "loomtui.archive",
"data": {"targetId": ID, "archived": true|false}}``, appended like a label: the file is never
rewritten, the last record per target wins, and ``archived: false`` restores. pi keeps custom
entries out of every filter but "all" (where it shows ``[custom: loomtui.archive]``) and out of
the model's context, so pi reads such a file exactly as before. oh-my-pi's own ``archive``
entries (``{"type": "archive", "targetId", "archived"}``) are honoured too; loomtui does not
write them, because pi would draw each one as an empty row in its default view.

The record is parented on the entry pi would resume from (the file's last entry), so pi's
resume point keeps its conversation. An entry on the active path cannot be archived: that would
hide the conversation the agent continues.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from typing import Any

from loomtui.session.entries import Entry
from loomtui.session.errors import LoomError
from loomtui.session.index import SessionIndex
from loomtui.session.manager import SessionManager
from loomtui.view.flat import Flat

ARCHIVE_TYPE = "loomtui.archive"


class ArchiveRefused(LoomError):
    """The entry cannot be archived (it is on the active path)."""


def is_record(e: Entry) -> bool:
    return (e.type == "custom" and e.text == ARCHIVE_TYPE) or e.type == "archive"


def record_target(obj: dict[str, Any]) -> tuple[str | None, bool]:
    """(target id, archived) of a decoded record."""
    if obj.get("type") == "archive":
        target, flag = obj.get("targetId"), obj.get("archived", True)
    else:
        data = obj.get("data")
        data = data if isinstance(data, dict) else {}
        target, flag = data.get("targetId"), data.get("archived", True)
    return (target if isinstance(target, str) else None), flag is not False


class ArchiveState:
    """Which entries are archived; follows appends by scanning only the new entries."""

    def __init__(self, manager: SessionManager) -> None:
        self.manager = manager
        self._scanned = 0
        self._states: dict[str, bool] = {}
        self._version = -1
        self._ids: frozenset[str] = frozenset()
        self._index: SessionIndex | None = None  # the index scanned (a reload makes a new one)

    def ids(self) -> frozenset[str]:
        """Targets whose last record archives them (and that exist)."""
        index = self.manager.index
        if self._version == index.version and self._index is index:
            return self._ids
        candidates = index.custom_entries  # every custom and archive entry, in file order
        if self._index is not index or self._scanned > len(candidates):
            self._index = index
            self._scanned = 0
            self._states.clear()
        for e in candidates[self._scanned :]:
            if (e.type == "custom" and e.text == ARCHIVE_TYPE) or e.type == "archive":
                target, archived = record_target(self.manager.load(e))
                if target is not None:
                    self._states[target] = archived
        self._scanned = len(candidates)
        self._version = index.version
        self._ids = frozenset(t for t, on in self._states.items() if on and t in index.by_id)
        return self._ids

    def is_archived(self, entry_id: str) -> bool:
        return entry_id in self.ids()

    def archived_above(self, entry_id: str) -> str | None:
        """The archived entry at or above ``entry_id`` (None when its path is not archived)."""
        ids = self.ids()
        if not ids:
            return None
        for e in reversed(self.manager.index.path_to(entry_id)):
            if e.id in ids:
                return e.id
        return None


def drop_archived(flat: Flat, positions: list[int], archived: Iterable[str]) -> list[int]:
    """``positions`` without the archived subtrees (the archived entries included).

    An archived entry on the active path is not hidden: the conversation being continued always
    shows."""
    ranges = []
    for target in archived:
        p = flat.position(target)
        if p is not None and flat.entries[p] not in flat.active:
            ranges.append((p, flat.end(p)))
    if not ranges:
        return positions
    ranges.sort()
    out: list[int] = []
    k = 0
    for lo, hi in ranges:
        if hi <= k:
            continue
        lo = max(lo, k)
        # positions are sorted: copy the stretch before the range, skip the range
        i = bisect_left(positions, k)
        j = bisect_left(positions, lo)
        out.extend(positions[i:j])
        k = hi
    out.extend(positions[bisect_left(positions, k) :])
    return out


def protected_path(manager: SessionManager, view_leaf: str | None) -> set[str]:
    """Entries that cannot be archived: the path to the leaf pi resumes from and the path to
    the leaf the view shows."""
    index = manager.index
    out = {e.id for e in index.path_to(index.leaf_id)}
    if view_leaf is not None:
        out.update(e.id for e in index.path_to(view_leaf))
    return out


def set_archived(manager: SessionManager, target_id: str, archived: bool, view_leaf: str | None = None) -> str:
    """Append one record archiving (or restoring) ``target_id``; returns the record's id.

    Raises ``ArchiveRefused`` for an entry on the active path, LoomError for an unknown entry;
    the manager's in-memory leaf is kept.
    """
    index = manager.index
    if target_id not in index.by_id:
        raise LoomError(f"entry {target_id} not found")
    if archived and target_id in protected_path(manager, view_leaf):
        raise ArchiveRefused(
            f"{target_id} is on the active path (the conversation pi continues); move the leaf to another branch first"
        )
    before = manager.get_leaf_id()
    moved = manager.leaf_moved
    resume = index.leaf_id
    if resume is not None and before != resume:
        manager.branch(resume)
    try:
        return manager.append_custom_entry(ARCHIVE_TYPE, {"targetId": target_id, "archived": archived})
    finally:
        if moved and before is not None and before in index.by_id:
            manager.branch(before)
