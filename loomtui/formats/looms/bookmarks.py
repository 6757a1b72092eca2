"""Save the labels of an opened loom back into its file as bookmarks.

A loom session lives in memory, so a label set in the app (an in-memory ``label`` entry) is
lost on exit unless it is written back. ``save_bookmarks`` re-reads the original file, checks
that it did not change since it was opened, applies only the labels that differ from what the
file said, and rewrites the file atomically, keeping the previous bytes as ``FILE.bak``
(``FILE.bak.2``… when a backup already exists). Everything else in the document is untouched,
and the JSON style (indentation, ASCII escapes) follows the original.

Where a label goes:
* OpenLoom v2 — ``meta.bookmarked`` and ``meta.bookmarkLabel`` (no label text for ``bookmark``);
* OpenLoom v1 — ``isBookmarked``, ``bookmarkTitle`` and the ``bookmarkedNodes`` copy;
* socketteer — the ``bookmark`` tag, and a ``loomtui_label`` field when the text is not
  ``bookmark`` (socketteer has no label text).
"""

from __future__ import annotations

import io
import os
import zipfile
import zlib
from typing import Any

from loomtui.formats.base.common import (
    MAX_DOCUMENT_BYTES,
    OPENLOOM_V1,
    OPENLOOM_V2,
    OPENLOOM_V2_TREE,
    SOCKETTEER,
    LoomSource,
    dump_like,
    load_exact,
    loom_source,
    sha256,
)
from loomtui.formats.looms import socketteer
from loomtui.formats.looms.openloom_entry import set_node_label
from loomtui.formats.looms.openloom_v1 import apply_v1_label
from loomtui.session.errors import WriteConflict, WriteRefused
from loomtui.session.fileio import open_regular
from loomtui.session.manager import SessionManager
from loomtui.session.source import SavedLabels
from loomtui.session.store import backup_name, replace_file_with_backup, resolve_target

#: what a save wrote: nodes whose bookmark changed, and where the previous file went (None
#: when nothing was written)
SaveResult = SavedLabels


def pending_changes(manager: SessionManager) -> dict[str, str | None]:
    """Node id → new label (None = cleared) for every label that differs from the file."""
    src = loom_source(manager)
    if src is None:
        return {}
    nodes = set(src.node_ids)
    current = {t: lab for t, (lab, _ts) in manager.index.labels.items() if t in nodes and lab}
    changes: dict[str, str | None] = {}
    for nid in src.node_ids:
        now, before = current.get(nid), src.labels.get(nid)
        if now != before:
            changes[nid] = now
    return changes


def _v2_nodes(doc: Any, src: LoomSource) -> dict[str, Any]:
    tree = doc
    if src.format == OPENLOOM_V2:
        trees = doc.get("trees") if isinstance(doc, dict) else None
        tree = trees[src.tree_index] if isinstance(trees, list) and len(trees) > src.tree_index else None
    nodes = tree.get("nodes") if isinstance(tree, dict) else None
    if isinstance(nodes, dict):
        return nodes
    if isinstance(nodes, list):
        return {n["id"]: n for n in nodes if isinstance(n, dict) and isinstance(n.get("id"), str)}
    return {}


def _apply(doc: Any, src: LoomSource, changes: dict[str, str | None]) -> int:
    n = 0
    if src.format in (OPENLOOM_V2, OPENLOOM_V2_TREE):
        nodes = _v2_nodes(doc, src)
        for nid, label in changes.items():
            node = nodes.get(nid)
            if isinstance(node, dict):
                set_node_label(node, label)
                n += 1
    elif src.format == OPENLOOM_V1:
        for nid, label in changes.items():
            n += apply_v1_label(doc, nid, label)
    elif src.format == SOCKETTEER:
        for nid, label in changes.items():
            n += socketteer.apply_label(doc, nid, label)
    return n


def save_bookmarks(manager: SessionManager, path: str | None = None) -> SaveResult:
    """Write the manager's labels into its OpenLoom/socketteer file as bookmarks.

    Raises WriteRefused for sessions that are not looms, WriteConflict when the file changed
    on disk since it was opened (reopen it, then label again).
    """
    src = loom_source(manager)
    if src is None:
        raise WriteRefused("only OpenLoom and socketteer files keep bookmarks; pi sessions keep label entries")
    path = path or src.path
    if path is None:
        raise WriteRefused("this loom was not read from a file; export it instead")
    changes = pending_changes(manager)
    if not changes:
        return SaveResult(0, None)
    path = resolve_target(path)  # through a symlink: the file it names is rewritten, the link stays
    try:
        fd = open_regular(path)
        try:
            st = os.fstat(fd)
            raw = os.read(fd, st.st_size + 1) if st.st_size <= MAX_DOCUMENT_BYTES else b""
        finally:
            os.close(fd)
    except OSError as exc:
        raise WriteConflict(f"cannot read {path}: {exc.strerror}; nothing was written") from None
    if len(raw) != st.st_size:
        raise WriteConflict(f"{path} changed on disk since it was opened; reopen it before saving bookmarks")
    if src.sha256 is not None and sha256(raw) != src.sha256:
        raise WriteConflict(f"{path} changed on disk since it was opened; reopen it before saving bookmarks")
    if src.is_bundle:
        try:
            data = _rewrite_bundle(raw, src, changes)
        except (
            zipfile.BadZipFile,
            zipfile.LargeZipFile,
            NotImplementedError,
            RuntimeError,
            EOFError,
            zlib.error,
            OSError,
        ) as exc:
            raise WriteRefused(f"{path}: cannot rewrite the bundle ({exc}); nothing was written") from None
    else:
        doc = load_exact(raw, path)
        _apply(doc, src, changes)
        data = dump_like(raw, doc)
    backup = backup_name(path)
    replace_file_with_backup(path, data, backup, expect=(st.st_size, st.st_mtime_ns))

    # the session now matches the file
    src.sha256 = sha256(data)
    for nid, label in changes.items():
        if label:
            src.labels[nid] = label
        else:
            src.labels.pop(nid, None)
        src.saved_labels.setdefault(nid, []).append(label)
        d = manager.get_entry(nid)
        ol = d.get("openloom") if isinstance(d, dict) else None
        if isinstance(ol, dict) and isinstance(ol.get("node"), dict):
            set_node_label(ol["node"], label)
    return SaveResult(len(changes), backup)


def _rewrite_bundle(raw: bytes, src: LoomSource, changes: dict[str, str | None]) -> bytes:
    """The bundle with its document rewritten and every other member copied as it was."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(raw)) as zin, zipfile.ZipFile(out, "w") as zout:
        for info in zin.infolist():
            blob = zin.read(info)
            if info.filename == src.bundle_member:
                doc = load_exact(blob, f"{src.path}:{info.filename}")
                _apply(doc, src, changes)
                blob = dump_like(blob, doc)
            zout.writestr(info, blob, compress_type=info.compress_type)
    return out.getvalue()


class BookmarkSaver:
    """The ``LabelSaver`` of OpenLoom and socketteer sources: labels become bookmarks."""

    def pending(self, manager: SessionManager) -> int:
        return len(pending_changes(manager))

    def save(self, manager: SessionManager) -> SavedLabels:
        return save_bookmarks(manager)


SAVER = BookmarkSaver()
