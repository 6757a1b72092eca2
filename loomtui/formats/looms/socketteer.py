"""socketteer/loom JSON (the original Tkinter loom) → an OpenLoom v2 Tree (docs/formats.md §8, socketteer).

The file nests the tree under ``root`` (each node has ``children`` in sibling order); the
loader also accepts a bare node or a bare list of nodes, as socketteer's own ``load_tree_data``
does. Node ``text`` is a segment: the document is the segments along the path, so the tree is
a buffer-mode tree.

* ``meta.source`` ``AI | prompt | mixed`` → author ``model | human | mixed``; a node without a
  source has no author (it shows as ``[node]``: no role is made up). socketteer keeps no times,
  so the entries have none.
* tags, and the legacy ``bookmark``/``archived``/``canonical`` flags, → ``meta.tags``;
  ``bookmark`` → ``meta.bookmarked``; ``archived`` or any tag the registry hides → ``meta.pruned``.
* ``generation {id, index}`` → ``generation {requestId, completionIndex, model?}`` through
  ``model_responses``; ``selected_node_id`` → ``currentNodeId``.
* everything else of a node (``visited``, ``open``, ``chapter_id``, ``multimedia``, …) →
  ``extensions["socketteer-loom"]``; the top-level keys (chapters, settings, …) → the tree's.

socketteer has no label text; a label other than ``bookmark`` is kept in the node's
``loomtui_label`` field when bookmarks are saved back.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from typing import Any

from loomtui.formats.base.common import DEFAULT_LABEL, socketteer_uuid, unique_id
from loomtui.session.errors import Diagnostic

SOURCE_TO_ROLE = {"AI": "model", "prompt": "human", "mixed": "mixed"}
LEGACY_FLAGS = ("bookmark", "archived", "canonical")
LABEL_FIELD = "loomtui_label"
EXT = "socketteer-loom"


def looks_like_socketteer(obj: Any) -> bool:
    """A nested ``root`` with text/children, a bare node, or a bare list of nodes."""
    if isinstance(obj, dict):
        root = obj.get("root")
        if isinstance(root, dict) and ("children" in root or "text" in root):
            return True
        return isinstance(obj.get("text"), str) and isinstance(obj.get("children"), list)
    if isinstance(obj, list) and obj:
        return all(isinstance(n, dict) and "text" in n for n in obj)
    return False


def root_of(doc: Any) -> tuple[dict[str, Any] | None, str]:
    """The root node and the file's shape: ``"root"``, ``"node"`` or ``"list"``."""
    if isinstance(doc, dict) and isinstance(doc.get("root"), dict):
        return doc["root"], "root"
    if isinstance(doc, dict):
        return doc, "node"
    if isinstance(doc, list):
        return {"text": "", "children": doc}, "list"
    return None, "none"


#: diagnostics of one kind kept one by one (the rest are counted)
SAME_DIAGNOSTICS = 20


def walk(doc: Any, diag: list[Diagnostic] | None = None) -> list[tuple[str, dict[str, Any], str | None, Any]]:
    """Every node in pre-order as ``(id, node, parent id, original id)``.

    Ids are the file's; a missing or repeated id gets a deterministic uuid5 from the node's
    parent and position, so reading the same file twice gives the same ids (bookmark saves rely on it).
    """
    return [(nid, node, parent, raw) for nid, node, parent, raw, _i, _mark in iter_nodes(doc, diag)]


#: one node of ``iter_nodes``: id, node, parent id, original id, its index among the parent's
#: children, and what the caller sent back for its parent
NodeRecord = tuple[str, dict[str, Any], "str | None", Any, int, Any]


def iter_nodes(doc: Any, diag: list[Diagnostic] | None = None) -> Generator[NodeRecord, Any, None]:
    """``walk`` one node at a time, without a list of them all (a loom can hold a million).

    A value ``send`` back for a node is handed to each of its children as the record's last
    item (None with a plain ``for``): a reader can carry state down the tree without a map of
    every node. The diagnostics come in the same order as ``walk`` gives them.
    """
    root, shape = root_of(doc)
    if root is None:
        return
    seen: set[str] = set()
    stack: list[tuple[dict[str, Any], str | None, int, Any]] = [(root, None, 0, None)]
    missing = _MissingIds(None if shape == "list" else diag, diag)
    while stack:
        node, parent, i, carried = stack.pop()
        raw = node.get("id")
        # the usual id inline (a loop over every node); any other by the one rule
        nid = raw if type(raw) is str and raw and raw not in seen else node_id(raw, parent, i, seen, missing, diag)
        seen.add(nid)
        mark = yield (nid, node, parent, raw, i, carried)
        kids = node.get("children")
        if kids is None:
            continue
        if not isinstance(kids, list):
            if diag is not None:
                diag.append(Diagnostic(0, f"node {nid}: children is not a list; ignored"))
            continue
        for k in range(len(kids) - 1, -1, -1):
            child = kids[k]
            if isinstance(child, dict):
                stack.append((child, nid, k, mark))
            elif diag is not None:
                diag.append(Diagnostic(0, f"node {nid}: child #{k} is not an object; ignored"))
    missing.done()


def node_id(
    raw: Any, parent: str | None, i: int, seen: set[str], missing: _MissingIds, diag: list[Diagnostic] | None
) -> str:
    """A node's id: its own (a string, or an integer written as one), else one made from its
    place (``missing`` counts it), and a repeated one replaced by one made from it (a diagnostic
    says so). The one rule of the whole-tree conversion and of the skeleton read."""
    nid = str(raw) if isinstance(raw, (str, int)) and not isinstance(raw, bool) and str(raw) else None
    if nid is None:
        nid = socketteer_uuid(f"node:{parent}:{i}")
        missing.add(parent, i, nid)
    elif nid in seen:
        dup = nid
        nid = socketteer_uuid(f"dup:{parent}:{i}:{dup}")
        if diag is not None:
            where = f"child #{i} of {parent}" if parent is not None else "the root"
            diag.append(Diagnostic(0, f"duplicate node id {dup!r} ({where}); this one is given {nid}"))
    return nid


class _MissingIds:
    """The diagnostics of nodes without an id: a loom of a million such nodes would otherwise
    carry a million; the first ``SAME_DIAGNOSTICS`` are kept, the rest counted in one line.
    ``root_diag``: where the root's goes (None for a list-shaped file, whose roots have none)."""

    def __init__(self, root_diag: list[Diagnostic] | None, diag: list[Diagnostic] | None) -> None:
        self.root_diag, self.diag, self.count = root_diag, diag, 0

    def add(self, parent: str | None, i: int, nid: str) -> None:
        diag = self.diag if parent is not None else self.root_diag
        if diag is None:
            return
        self.count += 1
        if self.count <= SAME_DIAGNOSTICS:
            where = f"child #{i} of {parent}" if parent is not None else "the root"
            diag.append(Diagnostic(0, f"{where} has no id; given {nid}"))

    def done(self) -> None:
        if self.diag is not None and self.count > SAME_DIAGNOSTICS:
            self.diag.append(
                Diagnostic(0, f"… and {self.count - SAME_DIAGNOSTICS:,} more nodes without an id (given ids as above)")
            )


def _tags(node: dict[str, Any]) -> list[str]:
    raw = node.get("tags")
    tags = [t for t in raw if isinstance(t, str)] if isinstance(raw, list) else []
    for flag in LEGACY_FLAGS:
        if node.get(flag) is True and flag not in tags:
            tags.append(flag)
    return tags


def socketteer_label(node: dict[str, Any], tags: list[str] | None = None) -> str | None:
    """The label the node's bookmark shows as (None when not bookmarked); ``tags``: its
    ``_tags`` when the caller has them."""
    if "bookmark" not in (_tags(node) if tags is None else tags):
        return None
    text = node.get(LABEL_FIELD)
    return text.strip() if isinstance(text, str) and text.strip() else DEFAULT_LABEL


class _Context:
    """What the whole document contributes to each node: the tag registry (and the tags it
    hides), the model responses generations point to, and the chapters."""

    __slots__ = ("chapter_starts", "chapters", "hiding", "registry", "responses")

    def __init__(self, top: dict[str, Any]) -> None:
        registry = top.get("tags")
        self.registry: dict[str, Any] = registry if isinstance(registry, dict) else {}
        self.hiding = {k for k, v in self.registry.items() if isinstance(v, dict) and v.get("hide") is True}
        responses = top.get("model_responses")
        self.responses: dict[str, Any] = responses if isinstance(responses, dict) else {}
        chapters = top.get("chapters")
        self.chapters: dict[str, Any] = chapters if isinstance(chapters, dict) else {}
        self.chapter_starts = {
            c.get("root_id"): c.get("title")
            for c in self.chapters.values()
            if isinstance(c, dict) and isinstance(c.get("root_id"), (str, int, float, type(None)))
        }


def _meta(n: dict[str, Any], tags: list[str], ctx: _Context) -> dict[str, Any]:
    """A node's v2 ``meta``: bookmark and its label, pruned (archived or a hiding tag), tags."""
    meta: dict[str, Any] = {}
    if "bookmark" in tags:
        meta["bookmarked"] = True
        lab = n.get(LABEL_FIELD)
        if isinstance(lab, str) and lab.strip() and lab.strip() != DEFAULT_LABEL:
            meta["bookmarkLabel"] = lab.strip()
    if "archived" in tags or ctx.hiding.intersection(tags):
        meta["pruned"] = True
    if tags:
        meta["tags"] = tags
    return meta


def _generation(n: dict[str, Any], ctx: _Context) -> dict[str, Any]:
    """``generation {id, index}`` → ``{model?, requestId, completionIndex}`` (empty when none)."""
    src = n.get("generation")
    gen: dict[str, Any] = {}
    if not isinstance(src, dict):
        return gen
    rid = src.get("id")
    if isinstance(rid, str):
        resp = ctx.responses.get(rid)
        if isinstance(resp, dict) and isinstance(resp.get("model"), str):
            gen["model"] = resp["model"]
        gen["requestId"] = rid
    idx = src.get("index")
    if isinstance(idx, int) and not isinstance(idx, bool):
        gen["completionIndex"] = idx
    return gen


def _node(nid: str, n: dict[str, Any], raw_id: Any, tags: list[str], ctx: _Context) -> dict[str, Any]:
    """One socketteer node as a v2 node."""
    text = n.get("text")
    meta_src = n.get("meta")
    source = meta_src.get("source") if isinstance(meta_src, dict) else None
    node: dict[str, Any] = {"id": nid, "content": [{"type": "text", "text": text if isinstance(text, str) else ""}]}
    if isinstance(source, str) and source:
        node["author"] = {"role": SOURCE_TO_ROLE.get(source, source)}
    meta = _meta(n, tags, ctx)
    if meta:
        node["meta"] = meta
    gen = _generation(n, ctx)
    if gen:
        node["generation"] = gen
    ext = {k: v for k, v in n.items() if k not in ("children", "text", "id")}
    if raw_id is not None and str(raw_id) != nid:
        ext["originalId"] = raw_id
    if ext:
        node["extensions"] = {EXT: ext}
    return node


def _extra(nid: str, n: dict[str, Any], ctx: _Context) -> dict[str, Any]:
    """What the detail pane shows beyond the v2 node: chapter, chapter start, visited, media."""
    extra: dict[str, Any] = {}
    chapter_id = n.get("chapter_id")
    chapter = ctx.chapters.get(chapter_id) if isinstance(chapter_id, str) else None
    if isinstance(chapter, dict) and isinstance(chapter.get("title"), str):
        extra["chapter"] = chapter["title"]
    start = ctx.chapter_starts.get(nid)
    if isinstance(start, str):
        extra["chapterStart"] = start
    if "visited" in n:
        extra["visited"] = n["visited"]
    media = n.get("multimedia")
    if isinstance(media, list) and media:
        extra["multimedia"] = media
    return extra


def to_tree(doc: Any, name: str, diag: list[Diagnostic]) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """A socketteer document → (v2 Tree, per-node extras for the entries)."""
    root, shape = root_of(doc)
    top = doc if isinstance(doc, dict) and shape == "root" else {}
    ctx = _Context(top)
    records = walk(doc, diag)
    nodes: dict[str, dict[str, Any]] = {}
    extras: dict[str, dict[str, Any]] = {}
    edges: list[dict[str, Any]] = []
    used_tags: dict[str, None] = {}  # insertion-ordered set
    taken = {r[0] for r in records}
    for nid, n, parent, raw_id in records:
        tags = _tags(n)
        used_tags.update(dict.fromkeys(tags))
        nodes[nid] = _node(nid, n, raw_id, tags, ctx)
        extra = _extra(nid, n, ctx)
        if extra:
            extras[nid] = {"socketteer": extra}
        if parent is not None:
            eid = unique_id(f"e-{nid}", taken)
            taken.add(eid)
            edges.append(
                {
                    "id": eid,
                    "type": "continuation",
                    "sources": [{"nodeId": parent, "role": "primary"}],
                    "targetNodeId": nid,
                }
            )
    root_id = records[0][0] if records else None
    return _tree(top, shape, name, root_id, nodes, edges, list(used_tags), ctx), extras


def _tree(
    top: dict[str, Any],
    shape: str,
    name: str,
    root_id: str | None,
    nodes: dict[str, dict[str, Any]],
    edges: list[dict[str, Any]],
    used_tags: list[str],
    ctx: _Context,
) -> dict[str, Any]:
    """The v2 Tree around the converted nodes: the document's other keys go to its extensions."""
    tree: dict[str, Any] = {
        "id": socketteer_uuid(f"tree:{root_id}"),
        "title": name,
        "mode": "buffer",
        "rootNodeIds": [root_id] if root_id else [],
    }
    selected = top.get("selected_node_id")
    if isinstance(selected, str) and selected:
        tree["currentNodeId"] = selected
    tree["nodes"] = nodes
    tree["edges"] = edges
    tag_defs = [{"name": t} for t in ctx.registry if isinstance(t, str)]
    tag_defs += [{"name": t} for t in used_tags if t not in ctx.registry]
    if tag_defs:
        tree["tags"] = tag_defs
    ext_top = {k: v for k, v in top.items() if k != "root"}
    if shape != "root":
        ext_top["shape"] = shape
    if ext_top:
        tree["extensions"] = {EXT: ext_top}
    return tree


def apply_label(doc: Any, nid: str, label: str | None) -> bool:
    """Write a label into a socketteer document as its ``bookmark`` tag."""
    for rid, node, _parent, _raw in walk(doc):
        if rid != nid:
            continue
        tags = node.get("tags")
        if label:
            if not isinstance(tags, list):
                node["tags"] = tags = []
            if "bookmark" not in tags and node.get("bookmark") is not True:
                tags.append("bookmark")
            if label != DEFAULT_LABEL:
                node[LABEL_FIELD] = label
            else:
                node.pop(LABEL_FIELD, None)
        else:
            if isinstance(tags, list):
                node["tags"] = [t for t in tags if t != "bookmark"]
            if node.get("bookmark") is True:
                node["bookmark"] = False
            node.pop(LABEL_FIELD, None)
        return True
    return False


def title_for(path: str | None) -> str:
    if not path:
        return ""
    base = os.path.basename(path)
    for suffix in (".json", ".txt"):
        if base.lower().endswith(suffix):
            return base[: -len(suffix)]
    return base
