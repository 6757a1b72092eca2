"""Rewrite a v1/v2 session file as v3, once, when the user asks (docs/formats.md §6).

pi migrates old files in memory and then rewrites them whole, with random ids. loomtui reads old
files with deterministic ids (``reader.migrated_id``) and never rewrites implicitly; ``loomtui
migrate`` writes what pi's migration would write, but with those same ids — so an id the user
saw (or labelled, or exported) before migrating stays valid after — and, unlike pi, it keeps
every line it could not read, and the omp title slot, verbatim and in place.
"""

from __future__ import annotations

import os
from typing import Any

from loomtui.session import store
from loomtui.session.entries import Entry
from loomtui.session.errors import SessionFormatError, WriteConflict, WriteRefused, cannot_open
from loomtui.session.fileio import open_regular
from loomtui.session.jsstr import js_json
from loomtui.session.reader import LineParser, ParseState, parse_from

CURRENT_VERSION = 3


def migrated_bytes(path: str) -> tuple[bytes, int, int]:
    """The v3 rewrite of the v1/v2 file at ``path``: (new content, old size, old mtime_ns).

    Every physical line maps to one output line, in file order:
    header → the header with ``version: 3`` (pi sets the key in place, or appends it);
    entry → ``JSON.stringify`` of the entry as migrated in memory (original keys, then ``id``
    and ``parentId``; ``firstKeptEntryIndex`` replaced by a trailing ``firstKeptEntryId``;
    ``hookMessage`` roles renamed ``custom``); title slot, unreadable line, second header,
    entry without an id, duplicate → its bytes unchanged; blank line → dropped (pi drops them).
    A torn last line without newline is kept too, and gets its newline.
    """
    try:
        fd = open_regular(path)
    except OSError as exc:
        raise SessionFormatError(cannot_open(path, exc)) from None
    try:
        st = os.fstat(fd)
        state = ParseState()
        entries: list[Entry] = []
        consumed, eof = parse_from(fd, 0, LineParser(state, entries.append))
        if state.header is None:
            raise SessionFormatError(f"{path}: no session header (empty file or not a pi session)")
        if state.version >= CURRENT_VERSION:
            raise WriteRefused(f"{path} is already version {state.version}; nothing to migrate")

        def raw(offset: int, size: int) -> bytes:
            return os.pread(fd, size, offset)

        lines: list[tuple[int, bytes]] = []
        for info in state.lines:
            if info.kind == "header":
                header: dict[str, Any] = dict(state.header)
                header["version"] = CURRENT_VERSION
                lines.append((info.line, js_json(header).encode()))
            else:
                lines.append((info.line, raw(info.offset, info.size)))
        for e in entries:
            assert e.data is not None, "old-version entries are kept decoded by the reader"
            lines.append((e.line, js_json(e.data).encode()))
        if consumed < eof:
            lines.append((state.line_no + 1, raw(consumed, eof - consumed)))
    finally:
        os.close(fd)
    lines.sort(key=lambda item: item[0])
    data = b"".join(line + b"\n" for _, line in lines)
    return data, st.st_size, st.st_mtime_ns


def migrate_file(path: str) -> str:
    """Rewrite the v1/v2 session at ``path`` as v3 atomically; returns the backup's path.

    The original bytes are kept as ``<path>.bak`` (refused when that already exists). Refuses
    v3 files and files that change while being migrated; nothing is written then.
    """
    path = store.resolve_target(os.path.abspath(path))  # a symlink: migrate the file it names
    data, size, mtime_ns = migrated_bytes(path)
    backup = path + ".bak"
    if os.path.lexists(backup):
        raise WriteRefused(f"backup {backup} already exists; move it away first")
    try:
        store.replace_file_with_backup(path, data, backup, expect=(size, mtime_ns))
    except WriteConflict:
        raise WriteConflict(f"{path} changed while it was being migrated; nothing was written") from None
    return backup
