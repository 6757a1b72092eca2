"""Media of an OpenLoom export (``looms/export.py``): embedded media moved into a bundle once it
passes the threshold, bundle members carried over, bundle media embedded as ``data:`` URIs when
the output is plain JSON (docs/formats.md, "OpenLoom")."""

from __future__ import annotations

import re
from typing import Any

from loomtui.formats.base.common import LoomSource, unique_id
from loomtui.formats.looms.media import (
    BUNDLE_THRESHOLD,
    bundle_path,
    extension_for,
    parse_data_uri,
    read_member,
    to_data_uri,
)


def _safe_name(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", s)[:60] or "media"


def _media_blocks(doc: dict[str, Any]) -> Any:
    """``(node id, content list, index, block)`` of every image and audio block."""
    tree_list = doc.get("trees") if isinstance(doc.get("trees"), list) else []
    for tree in tree_list:
        if not isinstance(tree, dict) or not isinstance(tree.get("nodes"), dict):
            continue
        for nid, node in tree["nodes"].items():
            content = node.get("content") if isinstance(node, dict) else None
            if not isinstance(content, list):
                continue
            for i, block in enumerate(content):
                if isinstance(block, dict) and block.get("type") in ("image", "audio"):
                    yield nid, content, i, block


class _Media:
    """Where each media block of an export will find its bytes."""

    def __init__(self, src: LoomSource | None, bundle: bool, notes: list[str]) -> None:
        self.src = src
        self.bundle = bundle
        self.notes = notes
        #: the source bundle's members, when the export reads from a bundle
        self.source_members = src.bundle_members if src is not None and src.is_bundle and src.path is not None else None
        self.members: dict[str, bytes | None] = {}
        self.inline: list[tuple[str, int, dict[str, Any]]] = []
        self.total = 0

    def block(self, nid: str, content: list[Any], i: int, block: dict[str, Any]) -> None:
        ref = block.get("ref")
        uri = parse_data_uri(ref)
        if uri is not None:
            self.total += uri.size
            self.inline.append((nid, i, block))
            return
        member = bundle_path(ref)
        if member is None or self.source_members is None or member not in self.source_members:
            self.notes.append(f"node {nid}: {block.get('type')} ref {str(ref)[:60]!r} does not resolve; kept as is")
        elif self.bundle:
            self.members[member] = None
        else:
            assert self.src is not None and self.src.path is not None  # source_members is set only then
            data = read_member(self.src.path, member)
            content[i] = block = dict(block)
            block["ref"] = to_data_uri(data, block.get("mimeType"))
            self.total += len(data)

    def carry_source_members(self) -> None:
        """A whole export to a bundle carries every member of the source bundle."""
        assert self.src is not None and self.source_members is not None
        for name in self.source_members:
            if name != self.src.bundle_member and name not in self.members:
                self.members[name] = None


def gather_media(
    doc: dict[str, Any], src: LoomSource | None, bundle: bool, full: bool, notes: list[str]
) -> dict[str, bytes | None]:
    """Move or inline media so every ref resolves; returns the bundle members to write (None:
    copied from the source bundle while the export is written, streamed)."""
    media = _Media(src, bundle, notes)
    for nid, content, i, block in _media_blocks(doc):
        media.block(nid, content, i, block)
    if bundle and full and media.source_members:
        media.carry_source_members()
    if bundle and media.total > BUNDLE_THRESHOLD:
        _move_into_bundle(media.inline, media.members)
    elif not bundle and media.total > BUNDLE_THRESHOLD:
        notes.append(
            f"embedded media is {media.total / (1 << 20):.1f} MB; an output name ending in .zip writes an "
            "OpenLoom bundle instead"
        )
    return media.members


def _move_into_bundle(inline: list[tuple[str, int, dict[str, Any]]], members: dict[str, bytes | None]) -> None:
    """Embedded media becomes bundle members; the blocks refer to them by name."""
    taken = set(members) | {"tree.openloom"}
    for nid, i, block in inline:
        uri = parse_data_uri(block.get("ref"))
        assert uri is not None
        name = unique_id(f"{_safe_name(nid)}-{i}.{extension_for(block.get('mimeType') or uri.mime)}", taken)
        taken.add(name)
        members[name] = uri.decode()
        block["ref"] = name
