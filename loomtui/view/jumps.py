"""Loom navigation beyond pi's keys: jumps between labels and branch points, entries by id
prefix, and a back/forward history of the places visited.

Pure functions of a ``TreeModel`` (they return a row; the caller selects it) and one small
state object, so the app and its tests share the same rules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from loomtui.view.words import counted

if TYPE_CHECKING:
    from loomtui.session.entries import Entry
    from loomtui.session.index import SessionIndex
    from loomtui.view.model import TreeModel


class AmbiguousPrefix(LookupError):
    """More than one entry id starts with the prefix."""

    def __init__(self, prefix: str, matches: list[str]) -> None:
        shown = ", ".join(matches[:5]) + (" …" if len(matches) > 5 else "")
        super().__init__(f"{counted(len(matches), 'entry', 'entries')} start with {prefix!r}: {shown}")
        self.matches = matches


def resolve_prefix(index: SessionIndex, prefix: str) -> Entry:
    """The entry whose id is ``prefix`` or the only one starting with it.

    Raises KeyError when none matches and ``AmbiguousPrefix`` when several do.
    """
    prefix = prefix.strip()
    if not prefix:
        raise KeyError(prefix)
    hit = index.by_id.get(prefix)
    if hit is not None:
        return hit
    matches = [k for k in index.by_id if k.startswith(prefix)]
    if not matches:
        low = prefix.lower()
        matches = [k for k in index.by_id if k.lower().startswith(low)]
    if not matches:
        raise KeyError(prefix)
    if len(matches) > 1:
        raise AmbiguousPrefix(prefix, sorted(matches))
    return index.by_id[matches[0]]


def _scan(model: TreeModel, step: int, test: Callable[[int], bool]) -> int | None:
    """The first row after (``step`` 1) or before (-1) the selection passing ``test``,
    wrapping around once; None when no other row passes."""
    n = len(model)
    if n == 0:
        return None
    i = model.selected
    for _ in range(n - 1):
        i = (i + step) % n
        if test(i):
            return i
    return None


def next_label(model: TreeModel, step: int = 1) -> int | None:
    """Row of the next (previous) labelled entry among the visible rows."""
    labels = model.index.labels
    return _scan(model, step, lambda i: model.entry_at(i).id in labels)


def next_branch_point(model: TreeModel, step: int = 1) -> int | None:
    """Row of the next (previous) visible entry with more than one visible child."""
    kids = model.rows.kids
    return _scan(model, step, lambda i: kids[i] > 1)


def not_shown_words(model: TreeModel, entry_id: str) -> str:
    """Why a jump to ``entry_id`` did not land on it (the model has selected what it could).

    The search is named when it is what hides the entry (the filter shows it), with the key
    that clears it; else the filter (or the archive). Where the selection went is said only
    when something is selected.
    """
    from loomtui.view.archive import drop_archived  # with the model: not at the app's start

    p = model.flat.position(entry_id)
    unsearched = model.filter_positions() if model.query and p is not None else []
    if unsearched and not model.show_archived:
        unsearched = drop_archived(model.flat, unsearched, model.archive.ids())
    if p in set(unsearched):
        why = f"{entry_id} is hidden by the search {model.query!r}; Esc clears it"
    else:
        why = f"{entry_id} is not shown with this filter (or archived)"
    selected = model.selected_entry
    if selected is None:
        return why + "."
    cur = model.index.by_id.get(entry_id)
    while cur is not None and cur.id != selected.id:
        cur = model.index.parent_of(cur)
    where = "selected the nearest entry above it" if cur is not None else "no entry above it is shown"
    return f"{why}; {where}."


class History:
    """Places visited (entry ids), like a browser's back and forward.

    ``visit`` is called with the entry the cursor leaves before a jump (and the one it lands
    on); plain cursor moves are not history. Back from the newest place first records where the
    cursor is, so Forward returns there.
    """

    def __init__(self, limit: int = 200) -> None:
        self.places: list[str] = []
        self.at = -1
        self.limit = limit

    def visit(self, entry_id: str | None) -> None:
        if entry_id is None:
            return
        if 0 <= self.at < len(self.places) and self.places[self.at] == entry_id:
            return
        del self.places[self.at + 1 :]
        self.places.append(entry_id)
        if len(self.places) > self.limit:
            del self.places[0]
        self.at = len(self.places) - 1

    def jumped(self, from_id: str | None, to_id: str | None) -> None:
        """A jump from one entry to another: both are places."""
        self.visit(from_id)
        self.visit(to_id)

    def back(self, current: str | None) -> str | None:
        if current is not None and (self.at < 0 or self.places[self.at] != current):
            self.visit(current)
        if self.at <= 0:
            return None
        self.at -= 1
        return self.places[self.at]

    def forward(self, current: str | None = None) -> str | None:
        if self.at + 1 >= len(self.places):
            return None
        self.at += 1
        return self.places[self.at]

    @property
    def can_back(self) -> bool:
        return self.at > 0

    @property
    def can_forward(self) -> bool:
        return self.at + 1 < len(self.places)
