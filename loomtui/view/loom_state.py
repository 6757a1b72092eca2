"""The loom tools' part of the tree state: hoist, archived branches shown or not, the mark.

A base of ``TreeModel`` (view/model.py), which applies the hoist and the archive in its filter
step; kept apart so each module stays one concern.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING

from loomtui.view import flat as F
from loomtui.view.archive import ArchiveState

#: drawn in the row of the entry marked for a comparison (one column wide in every terminal)
MARK = "✦ "
#: drawn before the text of an archived entry while archived branches are shown
ARCHIVED_TAG = "[archived] "


class LoomState:
    """Hoist, show-archived and the compare mark (mixed into ``TreeModel``)."""

    hoist_id: str | None
    show_archived: bool
    archive: ArchiveState
    marked_id: str | None
    flat: F.Flat
    selected: int

    if TYPE_CHECKING:

        @property
        def selected_id(self) -> str | None: ...
        def _refilter(self) -> None: ...
        def row_of(self, entry_id: str) -> int | None: ...
        def select_row(self, i: int) -> None: ...

    def hoist(self, entry_id: str | None) -> bool:
        """Show only the subtree under ``entry_id`` (None: the whole tree again); filters, search
        and folds work inside it. False when the entry is not in the tree."""
        if entry_id is not None and entry_id not in self.flat:
            return False
        if entry_id == self.hoist_id:
            return True
        keep = self.selected_id
        self.hoist_id = entry_id
        self._refilter()
        if entry_id is not None and keep is not None:
            # the selection stays where it was when inside, else the hoisted entry
            row = self.row_of(keep)
            self.select_row(row if row is not None else 0)
        return True

    def set_show_archived(self, show: bool) -> None:
        if show != self.show_archived:
            self.show_archived = show
            self._refilter()

    def archives_changed(self) -> None:
        """An archive record was written: hide (or show) what it names."""
        self._refilter()

    def toggle_mark(self) -> str | None:
        """Mark the selected entry for a comparison (or unmark it); returns the mark."""
        sel = self.selected_id
        self.marked_id = None if sel is None or sel == self.marked_id else sel
        return self.marked_id

    def _inside_hoist(self, positions: list[int]) -> list[int]:
        """The positions inside the hoisted subtree (a contiguous stretch of the flat order)."""
        p = self.flat.position(self.hoist_id) if self.hoist_id is not None else None
        if p is None:
            self.hoist_id = None
            return positions
        return positions[bisect_left(positions, p) : bisect_left(positions, self.flat.end(p))]
