"""An OCP run's rows in the run's own words (``Source.entry_words``): the run, its nodes (by
kind), attempts and groups, not the ``custom_message`` entries they are inside loomtui."""

from __future__ import annotations

from loomtui.session.entries import Entry
from loomtui.session.source import EntryKind, EntryWords

#: the rows that are not a node, by the kind ``tree.make_rows`` gives them
_ROWS = {
    "run": EntryKind("run", "runs"),
    "attempt": EntryKind("attempt", "attempts"),
    "group": EntryKind("group", "groups"),
    "missing node": EntryKind("missing node", "missing nodes"),
}


def row_kind(e: Entry) -> EntryKind:
    """The row's kind; a node row's kind is the node's (``impl``, ``review``)."""
    kind = e.aux if isinstance(e.aux, str) else ""
    return _ROWS.get(kind) or EntryKind("node", "nodes", kind or None)


OCP_WORDS = EntryWords(row_kind)
