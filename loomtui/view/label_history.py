"""What a label entry without a label did, in loomtui's own words, from the label history.

pi's /tree prints every such entry as ``[label: (cleared)]`` (and the tree keeps pi's words),
but one does not always clear something: loomtui's Ctrl+S appends a label entry with no label,
parented on the leaf and targeting it, so that pi resumes there (docs/formats.md §12). What it
did is decided by the labels in file order (§7.4): the label in force on its target just
before it. The history is read once per session state, when a detail asks for it, never at the
open. No Textual here.
"""

from __future__ import annotations

import bisect
import weakref
from typing import Any

from loomtui.session.entries import Entry
from loomtui.session.index import SessionIndex

#: index -> (its version, label entries by target, in file order)
_HISTORY: weakref.WeakKeyDictionary[SessionIndex, tuple[int, dict[str, list[Entry]]]] = weakref.WeakKeyDictionary()


def _key(target: Any) -> str:
    """The target as the index keys its labels."""
    return target if isinstance(target, str) else str(target)


def labels_by_target(index: SessionIndex) -> dict[str, list[Entry]]:
    """The session's label entries by the entry they target, in file order."""
    hit = _HISTORY.get(index)
    if hit is not None and hit[0] == index.version:
        return hit[1]
    out: dict[str, list[Entry]] = {}
    for e in index.entries:
        if e.type == "label" and e.aux is not None:
            out.setdefault(_key(e.aux), []).append(e)
    _HISTORY[index] = (index.version, out)
    return out


def label_before(index: SessionIndex, e: Entry) -> Any:
    """The label in force on ``e``'s target just before the label entry ``e`` (None: none)."""
    if e.aux is None:
        return None
    history = labels_by_target(index).get(_key(e.aux), [])
    at = bisect.bisect_left(history, e.index, key=lambda x: x.index)
    if at == 0:
        return None
    last = history[at - 1]
    return last.text if last.text else None


def cleared_words(index: SessionIndex, e: Entry) -> tuple[str, str | None]:
    """The detail's title of a label entry without a label, and a note: the label it clears, or
    that it cleared nothing (a leaf marker when it sits on its target, as Ctrl+S writes it)."""
    target = e.aux
    before = label_before(index, e)
    if before is not None:
        return f"clears the label [{before}] of {target}", None
    if target is not None and e.parent_id == target:
        return (
            f"leaf marker: moved where pi resumes to {target}",
            f"It cleared nothing ({target} had no label). A label entry without a label, parented on "
            "the entry it targets, is what loomtui's Ctrl+S appends so that pi resumes there.",
        )
    return f"cleared nothing: {target} had no label", None
