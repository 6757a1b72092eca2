"""OpenLoom v1 (Loom Swift) documents: read as a v2 Tree, and bookmarks written back.

A v1 document is a map of nodes with ``parentId`` / ``childrenIds``, Swift-epoch dates and
``isBookmarked`` / ``bookmarkTitle`` (docs/formats.md, "OpenLoom").
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from loomtui.formats.base.common import DEFAULT_LABEL, iso_ms, swift_time, unique_id
from loomtui.session.errors import Diagnostic

# OpenLoom v1 -> v2 Tree -----------------------------------------------------------------------
V1_AUTHORS = {"user": "human", "assistant": "model", "system": "system"}
_V1_NODE_MAPPED = ("id", "text", "author", "createdTime", "isBookmarked", "bookmarkTitle", "parentId", "childrenIds")
_V1_TREE_MAPPED = (
    "id",
    "title",
    "description",
    "systemMessage",
    "rootNodeId",
    "currentNodeId",
    "lastModified",
    "nodes",
    "bookmarkedNodes",
)


def v1_to_tree(doc: dict[str, Any], diag: list[Diagnostic]) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """OpenLoom v1 (Loom Swift) → a v2 Tree, per the v2 spec's v1 mapping.

    ``parentId`` gives the topology and the parent's ``childrenIds`` the sibling order; dates
    are Swift-epoch seconds. Fields without a v2 home go to ``extensions["openloom-v1"]``.
    Returns the tree and per-node extras for the entries.
    """
    raw_nodes = doc.get("nodes")
    if not isinstance(raw_nodes, dict):
        diag.append(Diagnostic(0, "OpenLoom v1 file without a nodes map; shown empty"))
        raw_nodes = {}
    nodes: dict[str, dict[str, Any]] = {}
    extras: dict[str, dict[str, Any]] = {}
    v1: dict[str, dict[str, Any]] = {}
    for key, n in raw_nodes.items():
        if not isinstance(n, dict):
            diag.append(Diagnostic(0, f"node {key!r} is not an object; ignored"))
            continue
        v1[key] = n
        nodes[key] = _v1_node(key, n)
        if "rememberedChildId" in n:
            extras[key] = {"rememberedChildId": n["rememberedChildId"]}
    parent_of, listed = _v1_topology(doc, v1, diag)
    tree = _v1_tree_fields(doc, v1)
    tree["nodes"] = nodes
    tree["edges"] = _v1_edges(v1, parent_of, listed, set(nodes))
    ext = {k: v for k, v in doc.items() if k not in _V1_TREE_MAPPED}
    if isinstance(doc.get("systemMessage"), str) and not doc["systemMessage"].strip() and doc["systemMessage"]:
        ext["systemMessage"] = doc["systemMessage"]
    if ext:
        tree["extensions"] = {"openloom-v1": ext}
    return tree, extras


def _v1_node(key: str, n: dict[str, Any]) -> dict[str, Any]:
    """One v1 node as a v2 node: text, author, time, model, bookmark, the rest as an extension."""
    author = n.get("author")
    role = V1_AUTHORS.get(author, author) if isinstance(author, str) else "mixed"
    text = n.get("text")
    node: dict[str, Any] = {
        "id": key,
        "content": [{"type": "text", "text": text if isinstance(text, str) else ""}],
        "author": {"role": role},
    }
    created = swift_time(n.get("createdTime"))
    if created is not None:
        node["createdAt"] = iso_ms(created)
    ext = {k: v for k, v in n.items() if k not in _V1_NODE_MAPPED}
    model = n.get("modelId")
    if role in ("model", "mixed") and isinstance(model, str) and model:
        node["generation"] = {"model": model}
        ext.pop("modelId", None)
    meta: dict[str, Any] = {}
    if n.get("isBookmarked") is True:
        meta["bookmarked"] = True
        title = n.get("bookmarkTitle")
        if isinstance(title, str) and title.strip():
            meta["bookmarkLabel"] = title
    if meta:
        node["meta"] = meta
    if ext:
        node["extensions"] = {"openloom-v1": ext}
    return node


def _v1_topology(
    doc: dict[str, Any], v1: dict[str, dict[str, Any]], diag: list[Diagnostic]
) -> tuple[dict[str, str], dict[str, list[str]]]:
    """Each node's parent (``parentId``; a listed child without one takes its lister) and each
    parent's ``childrenIds`` that agree with it."""
    parent_of: dict[str, str] = {}
    for key, n in v1.items():
        p = n.get("parentId")
        if isinstance(p, str) and p:
            parent_of[key] = p
    listed: dict[str, list[str]] = {}
    for key, n in v1.items():
        kids = n.get("childrenIds")
        if not isinstance(kids, list):
            continue
        for c in kids:
            if _v1_listed_child(doc, v1, parent_of, key, c, diag):
                listed.setdefault(key, []).append(c)
    return parent_of, listed


def _v1_listed_child(
    doc: dict[str, Any],
    v1: dict[str, dict[str, Any]],
    parent_of: dict[str, str],
    key: str,
    c: Any,
    diag: list[Diagnostic],
) -> bool:
    """Whether ``c`` in ``key``'s ``childrenIds`` counts as its child (a diagnostic if not)."""
    if not isinstance(c, str) or c not in v1:
        diag.append(Diagnostic(0, f"node {key} lists unknown child {c!r}; ignored"))
        return False
    if c not in parent_of:
        if c == doc.get("rootNodeId"):
            diag.append(Diagnostic(0, f"root node {c} is listed as a child of {key}; ignored"))
            return False
        diag.append(
            Diagnostic(0, f"node {c} has no parentId but is listed as a child of {key}; {key} is taken as its parent")
        )
        parent_of[c] = key
    elif parent_of[c] != key:
        diag.append(
            Diagnostic(0, f"node {c} is listed as a child of {key} but its parentId is {parent_of[c]}; parentId wins")
        )
        return False
    return True


def _v1_edges(
    v1: dict[str, dict[str, Any]], parent_of: dict[str, str], listed: dict[str, list[str]], taken: set[str]
) -> list[dict[str, Any]]:
    """Continuation edges: per parent, its listed children first, then the others in file order."""
    by_parent: dict[str, list[str]] = defaultdict(list)
    for c, p in parent_of.items():
        by_parent[p].append(c)
    edges: list[dict[str, Any]] = []
    for p in list(v1) + [p for p in by_parent if p not in v1]:
        ordered = [c for c in listed.get(p, []) if parent_of.get(c) == p]
        seen = set(ordered)
        ordered = list(dict.fromkeys(ordered))
        ordered += [c for c in by_parent.get(p, []) if c not in seen]
        for c in ordered:
            eid = unique_id(f"e-{c}", taken)
            taken.add(eid)
            edges.append(
                {"id": eid, "type": "continuation", "sources": [{"nodeId": p, "role": "primary"}], "targetNodeId": c}
            )
    return edges


def _v1_tree_fields(doc: dict[str, Any], v1: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The v2 tree's own fields from the v1 document: id, title, description, system context,
    root, current node, first and last times."""

    def text(key: str) -> str:
        v = doc.get(key)
        return v if isinstance(v, str) else ""

    tree: dict[str, Any] = {"id": text("id"), "title": text("title")}
    if text("description"):
        tree["description"] = doc["description"]
    tree["mode"] = "dialogue"
    if text("systemMessage").strip():
        tree["systemContext"] = doc["systemMessage"]
    root = doc.get("rootNodeId")
    tree["rootNodeIds"] = [root] if isinstance(root, str) else []
    if "currentNodeId" in doc:
        tree["currentNodeId"] = doc["currentNodeId"]
    times = [swift_time(n.get("createdTime")) for n in v1.values()]
    first = min((t for t in times if t is not None), default=None)
    if first is not None:
        tree["createdAt"] = iso_ms(first)
    modified = swift_time(doc.get("lastModified"))
    if modified is not None:
        tree["updatedAt"] = iso_ms(modified)
    return tree


def apply_v1_label(doc: dict[str, Any], nid: str, label: str | None) -> bool:
    """Write a label into an OpenLoom v1 document as its bookmark (``isBookmarked`` etc.)."""
    nodes = doc.get("nodes")
    node = nodes.get(nid) if isinstance(nodes, dict) else None
    if not isinstance(node, dict):
        return False
    node["isBookmarked"] = bool(label)
    if label and label != DEFAULT_LABEL:
        node["bookmarkTitle"] = label
    else:
        node.pop("bookmarkTitle", None)
    marks = doc.get("bookmarkedNodes")
    if isinstance(marks, dict):
        if label:
            marks[nid] = dict(node)
        else:
            marks.pop(nid, None)
    elif label:
        doc["bookmarkedNodes"] = {nid: dict(node)}
    return True


def v1_label(node: dict[str, Any]) -> str | None:
    if node.get("isBookmarked") is not True:
        return None
    t = node.get("bookmarkTitle")
    return t.strip() if isinstance(t, str) and t.strip() else DEFAULT_LABEL
