"""The loom map's rows in its own words (``Source.entry_words``): looms, the interactions that
seed from or read them, the unlinked ones, the inputs not read — not the ``custom_message``
entries they are inside loomtui."""

from __future__ import annotations

from loomtui.session.entries import Entry
from loomtui.session.source import EntryKind, EntryWords

#: the rows by the kind ``session._Rows`` gives them
_ROWS = {
    "loom": EntryKind("loom", "looms"),
    "seeds from it": EntryKind("interaction seeding from a loom", "interactions seeding from a loom"),
    "reads it": EntryKind("interaction reading a loom", "interactions reading a loom"),
    "interactions": EntryKind("group of unlinked interactions", "groups of unlinked interactions"),
    "interaction": EntryKind("unlinked interaction", "unlinked interactions"),
    "not read": EntryKind("group of inputs not read", "groups of inputs not read"),
    "problem": EntryKind("input not read", "inputs not read"),
    "loom-config": EntryKind("empty map", "empty maps"),
}


def row_kind(e: Entry) -> EntryKind:
    kind = str(e.aux)
    return _ROWS.get(kind) or EntryKind(kind, kind)


MAP_WORDS = EntryWords(row_kind)
