"""The source the looms make: OpenLoom v2 documents and bare trees, OpenLoom v1 (Loom Swift) and
socketteer looms, by content (docs/formats.md); each is read as an OpenLoom v2 tree and opened
as one session (``openloom.build_session``; a socketteer loom a skeleton per node,
``socketteer_read.py``). Bundles (``bundle.py``) hold one of these."""

from __future__ import annotations

from typing import Any

from loomtui.formats.base.common import OPENLOOM_V1, OPENLOOM_V2, OPENLOOM_V2_TREE, SOCKETTEER
from loomtui.formats.base.document import REFUSED, Adapter, Document
from loomtui.formats.looms import openloom, socketteer, socketteer_read
from loomtui.session.errors import Diagnostic, SessionFormatError
from loomtui.session.manager import SessionManager

#: the kinds a bundle may hold (all of them)
KINDS = (OPENLOOM_V2, OPENLOOM_V2_TREE, OPENLOOM_V1, SOCKETTEER)


def kind_of(doc: Any) -> str | None:
    """The loom a parsed JSON document is (``REFUSED``: an OpenLoom ``format`` loomtui does not
    read; None: not a loom, or a pi session header, which the opener reads itself)."""
    if isinstance(doc, dict):
        if "format" in doc:
            return OPENLOOM_V2 if doc.get("format") == "open-loom" else REFUSED
        if doc.get("type") == "session":
            return None
        if isinstance(doc.get("trees"), list):
            return OPENLOOM_V2
        if "nodes" in doc and ("edges" in doc or "rootNodeIds" in doc):
            return OPENLOOM_V2_TREE
        if isinstance(doc.get("nodes"), dict) and "rootNodeId" in doc:
            return OPENLOOM_V1
    if socketteer.looks_like_socketteer(doc):
        return SOCKETTEER
    return None


def _build(o: Document, tree: dict[str, Any], fmt: str, **more: Any) -> SessionManager:
    return openloom.build_session(
        tree,
        fmt,
        path=o.path,
        sha=o.sha,
        bundle_members=o.bundle_members,
        bundle_heads=o.bundle_heads,
        diagnostics=o.diag,
        **more,
    )


def _open_v2(o: Document) -> SessionManager:
    doc = o.doc
    _check_version(doc, o.where, o.diag)
    trees = doc.get("trees")
    if not isinstance(trees, list) or not trees:
        raise SessionFormatError(f"{o.where}: OpenLoom document without trees")
    if "format" not in doc:
        o.diag.append(Diagnostic(0, "document has trees but no format field; read as OpenLoom 2.0"))
    ids = [t.get("id") if isinstance(t, dict) else None for t in trees]
    index = _tree_index(o, trees, ids)
    return _build(o, trees[index], OPENLOOM_V2, container=doc, tree_index=index, tree_ids=[str(i) for i in ids])


def _tree_index(o: Document, trees: list[Any], ids: list[Any]) -> int:
    """The tree to show: the one ``tree_id`` names, else the first (noted when there are more)."""
    if o.tree_id is not None:
        if o.tree_id not in ids:
            shown = ", ".join(str(i) for i in ids)
            raise SessionFormatError(f"{o.where}: no tree with id {o.tree_id!r} (trees: {shown})")
        return ids.index(o.tree_id)
    index = next((i for i, t in enumerate(trees) if isinstance(t, dict)), -1)
    if index < 0:
        raise SessionFormatError(f"{o.where}: none of the document's trees is an object")
    if len(trees) > 1:
        o.diag.append(
            Diagnostic(
                0, f"document holds {len(trees)} trees; showing the first ({ids[index]}); open another by its tree id"
            )
        )
    return index


def _open_v2_tree(o: Document) -> SessionManager:
    if o.tree_id is not None and o.doc.get("id") != o.tree_id:
        raise SessionFormatError(f"{o.where}: the tree's id is {o.doc.get('id')!r}, not {o.tree_id!r}")
    return _build(o, o.doc, OPENLOOM_V2_TREE)


def _open_v1(o: Document) -> SessionManager:
    tree, extras = openloom.v1_to_tree(o.doc, o.diag)
    return _build(o, tree, OPENLOOM_V1, extras=extras)


def _open_socketteer(o: Document) -> SessionManager:
    # a skeleton per node, each full entry made when asked (a loom can hold a million nodes)
    return socketteer_read.open_socketteer(
        o.doc,
        socketteer.title_for(o.path),
        path=o.path,
        sha=o.sha,
        bundle_members=o.bundle_members,
        bundle_heads=o.bundle_heads,
        diag=o.diag,
    )


def _check_version(doc: dict[str, Any], where: str, diag: list[Diagnostic]) -> None:
    version = doc.get("version")
    if isinstance(version, (int, float)) and not isinstance(version, bool):
        version = str(version)
    if not isinstance(version, str) or not version.strip():
        diag.append(Diagnostic(0, "OpenLoom document without a version; read as 2.0"))
        return
    major = version.strip().split(".")[0]
    if major != "2":
        raise SessionFormatError(
            f"{where}: OpenLoom version {version} is not supported (loomtui reads 2.x); a newer loomtui may read it"
        )


ADAPTER = Adapter(
    "OpenLoom and socketteer looms",
    kind_of=kind_of,
    openers={
        OPENLOOM_V2: _open_v2,
        OPENLOOM_V2_TREE: _open_v2_tree,
        OPENLOOM_V1: _open_v1,
        SOCKETTEER: _open_socketteer,
    },
)
