"""Where pi already resumes a session: the one rule of Ctrl+S (persist the leaf) and of resume
(Alt+W, ``loomtui resume``), which append nothing when it holds.

pi 1.6.0 resumes at the file's last entry. The file "ends at" an entry when its last entry is
that entry, or comes after it with nothing between that the default filter shows: a label, a
``session_info``, a settings change (omp: its own kinds, such as ``title_change``). Those are
the entries the header's leaf steps over (``TreeModel.shown_leaf_id``), so the entry the header
names is one the file ends at. A tool-only assistant reply is a turn of the conversation, not a
setting: the file does not end before one.
"""

from __future__ import annotations

from collections.abc import Callable

from loomtui.session.entries import Entry
from loomtui.session.manager import SessionManager
from loomtui.view import flat as F
from loomtui.view import omp

#: the classes of entries the default filter never shows (a tool-only reply is HIDDEN, and content)
_SETTLED = frozenset(range(7)) - F.MODE_CLASSES["default"] - {F.HIDDEN}


def file_ends_at(manager: SessionManager, leaf: str | None) -> list[Entry] | None:
    """The entries the file ends with after ``leaf`` when pi already resumes there ([]: the
    file's last entry is ``leaf``); None when it does not (something after ``leaf`` on the
    last entry's path is shown, or ``leaf`` is not on that path)."""
    index = manager.index
    cur = index.by_id.get(index.leaf_id) if index.leaf_id is not None else None
    if leaf is None or cur is None:
        return None
    kinds: frozenset[str] | None = None
    after: list[Entry] = []
    while cur is not None and cur.id != leaf:
        kinds = _kinds(manager) if kinds is None else kinds
        if F.visibility_class(cur, None, kinds) not in _SETTLED:
            return None
        after.append(cur)
        cur = index.parent_of(cur)
    if cur is None:
        return None
    after.reverse()
    return after


def marked_leaf(
    manager: SessionManager, leaf: str | None, class_of: Callable[[Entry], int] | None = None
) -> str | None:
    """The entry the tree marks as the leaf and the header names, in every filter: ``leaf``
    itself, or, when the default filter does not show it (a label or settings entry written
    last), its nearest ancestor that filter shows. ``class_of``: each entry's visibility class
    (the tree's own, ``Flat.classes``; else ``flat.visibility_class`` with ``leaf`` as the leaf)."""
    by_id = manager.index.by_id
    cur = by_id.get(leaf) if leaf is not None else None
    if class_of is None:
        kinds = _kinds(manager)

        def class_of(e: Entry) -> int:
            return F.visibility_class(e, leaf, kinds)

    allowed = F.MODE_CLASSES["default"]
    while cur is not None:
        if class_of(cur) in allowed:
            return cur.id
        cur = manager.index.parent_of(cur)
    return leaf


def _kinds(manager: SessionManager) -> frozenset[str]:
    """The kinds the default filter hides: omp's for a session oh-my-pi wrote, else pi's."""
    if omp.is_omp_session(manager.title, manager.path, manager.index.entries):
        return omp.filter_kinds(manager.load)
    return F.SETTINGS_TYPES


def ends_words(after: list[Entry]) -> str:
    """The entries the file ends with after the point, in a notice: " (with z5Pn0GvW, which the
    default filter does not show)"; "" when there are none."""
    if not after:
        return ""
    ids = [e.id for e in after]
    named = ", ".join(ids) if len(ids) <= 3 else f"{', '.join(ids[:2])} and {len(ids) - 2} more"
    return f" (with {named}, which the default filter does not show)"
