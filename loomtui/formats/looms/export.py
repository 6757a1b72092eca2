"""Export a session or loom — whole, or one root → leaf branch — as an OpenLoom v2 document.

The document satisfies the spec's structural invariants (docs/formats.md, "OpenLoom"): every node but the roots is
the target of exactly one continuation edge, ``rootNodeIds`` lists exactly the nodes no
continuation edge targets, ``currentNodeId``, edge sources/targets, tag names and agent ids all
resolve, and edges are written in sibling order.

* An imported OpenLoom v2 document re-exported whole is the same document apart from the
  tree's ``updatedAt``: nodes, edges, unknown fields, ``extensions`` and ``generation`` are
  written back verbatim, in their order (bookmarks follow the session's current labels).
* A branch export is a new tree (fresh id) holding the root → leaf path, the edges between its
  nodes, the tags and agents they use, and ``extensions.loomtui.source`` naming where it came
  from (the rule proposed in docs/formats.md, "OpenLoom").
* A pi session maps user → ``human``, assistant → ``model`` (an agent per provider/model, usage
  as generation provenance), everything else that is a message or summary → ``system``, each
  node's content as text and image blocks (a tool call as its row's text); pi's own fields go
  to ``extensions.pi`` (``looms/pi_nodes.py``); label entries become bookmarks; settings entries
  (model/thinking changes, custom, labels, session_info) are not nodes.
* ``OUT`` ending in ``.zip`` writes a bundle: ``tree.openloom`` plus media files; embedded
  media is moved into it once it passes about 1 MB (docs/formats.md, "OpenLoom"). Bundle media exported to plain JSON
  is embedded as ``data:`` URIs so that every ref resolves.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from loomtui.formats.base.common import (
    LoomSource,
    dump_json,
    loom_source,
    new_ulid,
    unique_id,
)
from loomtui.formats.looms.export_media import gather_media
from loomtui.formats.looms.export_pi import PI_NODE_TYPES, pi_node, tree_from_pi
from loomtui.formats.looms.media import (
    write_bundle,
)
from loomtui.formats.looms.openloom_entry import label_of_node, set_node_label
from loomtui.session.entries import Entry
from loomtui.session.errors import LoomError
from loomtui.session.ids import now_iso
from loomtui.session.manager import SessionManager
from loomtui.session.store import write_new_file
from loomtui.view.words import counted


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("loomtui")
    except Exception:  # noqa: BLE001 - running from a source tree
        return "0"


GENERATOR = {"name": "loomtui", "version": _version()}
_STORED = ("png", "jpg", "gif", "webp", "mp3", "ogg", "flac", "m4a", "weba")


@dataclass
class ExportResult:
    path: str
    nodes: int
    edges: int
    media_files: int = 0
    bundle: bool = False
    notes: list[str] = field(default_factory=list)


def _is_node(d: dict[str, Any]) -> bool:
    return isinstance(d.get("openloom"), dict) or d.get("type") in PI_NODE_TYPES


# helpers -----------------------------------------------------------------------------------
def _filter_sources(edge: dict[str, Any], keep: set[str]) -> dict[str, Any] | None:
    """The edge with only the sources in ``keep`` (None when none is left)."""
    sources = edge.get("sources")
    if not isinstance(sources, list):
        return None

    def sid(s: Any) -> Any:
        return s.get("nodeId") if isinstance(s, dict) else s

    kept = [s for s in sources if sid(s) in keep]
    if not kept:
        return None
    if len(kept) == len(sources):
        return edge
    out = dict(edge)
    out["sources"] = kept
    return out


def _tags_used(nodes: dict[str, dict[str, Any]]) -> list[str]:
    used: list[str] = []
    for n in nodes.values():
        meta = n.get("meta")
        if isinstance(meta, dict) and isinstance(meta.get("tags"), list):
            for t in meta["tags"]:
                if isinstance(t, str) and t not in used:
                    used.append(t)
    return used


def _agents_used(nodes: dict[str, dict[str, Any]]) -> list[str]:
    used: list[str] = []
    for n in nodes.values():
        a = n.get("author")
        if isinstance(a, dict) and isinstance(a.get("agentId"), str) and a["agentId"] not in used:
            used.append(a["agentId"])
    return used


def _strip_system_prompts(agents: Any) -> Any:
    if not isinstance(agents, dict):
        return agents
    out = {}
    for k, a in agents.items():
        if isinstance(a, dict) and isinstance(a.get("configuration"), dict) and "systemPrompt" in a["configuration"]:
            a = dict(a)
            a["configuration"] = {ck: cv for ck, cv in a["configuration"].items() if ck != "systemPrompt"}
        out[k] = a
    return out


def _strip_tree(tree: Any) -> Any:
    if not isinstance(tree, dict):
        return tree
    out = {k: v for k, v in tree.items() if k != "systemContext"}
    if "agents" in out:
        out["agents"] = _strip_system_prompts(out["agents"])
    return out


def _dfs_positions(manager: SessionManager) -> dict[str, int]:
    idx = manager.index
    pos: dict[str, int] = {}
    stack: list[Entry] = list(reversed(idx.roots))
    while stack:
        e = stack.pop()
        if e.id in pos:
            continue
        pos[e.id] = len(pos)
        stack.extend(reversed(idx.children(e.id)))
    return pos


def _edge_ids(ol: Any) -> list[str]:
    """The ids of the edges into an imported node."""
    if not isinstance(ol, dict):
        return []
    out = []
    for rec in ol.get("edges", []):
        eid = rec["edge"].get("id") if isinstance(rec.get("edge"), dict) else None
        if isinstance(eid, str):
            out.append(eid)
    return out


def _move_dangling_edited_from(nodes: dict[str, dict[str, Any]]) -> None:
    """An ``editedFrom`` naming a node outside the export moves to ``extensions.loomtui``."""
    for node in nodes.values():
        ef = node.get("editedFrom")
        if ef is not None and ef not in nodes:
            node.pop("editedFrom")
            ext = node.setdefault("extensions", {})
            if isinstance(ext, dict):
                ext.setdefault("loomtui", {})["editedFrom"] = ef


def _define_tags(tree: dict[str, Any], nodes: dict[str, dict[str, Any]]) -> None:
    """Every tag a node uses is defined in the tree."""
    tags = tree.get("tags")
    defined = {t.get("name") for t in tags if isinstance(t, dict)} if isinstance(tags, list) else set()
    missing = [t for t in _tags_used(nodes) if t not in defined]
    if missing:
        tree["tags"] = list(tree.get("tags") or []) + [{"name": t} for t in missing]


def _define_agents(tree: dict[str, Any], container: dict[str, Any] | None, nodes: dict[str, dict[str, Any]]) -> None:
    """Every agent a node names is in the tree's or the container's registry."""
    registry: dict[str, Any] = {}
    for where in (container or {}, tree):
        if isinstance(where.get("agents"), dict):
            registry.update(where["agents"])
    missing = [a for a in _agents_used(nodes) if a not in registry]
    if not missing:
        return
    agents = dict(tree.get("agents") or {})
    for aid in missing:
        author = next(
            n["author"]
            for n in nodes.values()
            if isinstance(n.get("author"), dict) and n["author"].get("agentId") == aid
        )
        name = author.get("name") if isinstance(author.get("name"), str) else aid
        agents[aid] = {"name": name, "type": "human" if author.get("role") == "human" else "model"}
    tree["agents"] = agents


# the export ----------------------------------------------------------------------------------
class _Export:
    """The nodes, edges and tree of one export; ``leaf_id`` None exports the whole tree."""

    def __init__(self, manager: SessionManager, leaf_id: str | None) -> None:
        self.manager = manager
        self.idx = idx = manager.index
        self.src = loom_source(manager)
        self.leaf_id = leaf_id
        self.branch = leaf_id is not None
        self.notes: list[str] = []
        if leaf_id is not None:
            if leaf_id not in idx.by_id:
                raise LoomError(f"entry {leaf_id} not found")
            self.selected = idx.path_to(leaf_id)
        else:
            self.selected = list(idx.entries)
        self.loaded = {e.id: manager.load(e) for e in self.selected}
        self.node_entries = [e for e in self.selected if _is_node(self.loaded[e.id])]
        self.node_ids = {e.id for e in self.node_entries}
        self.node_entries.sort(key=self._order)
        self.nodes: dict[str, dict[str, Any]] = {}
        self.pi_agents: dict[str, Any] = {}
        self.parent_of: dict[str, str | None] = {}
        self.repairs: list[dict[str, Any]] = []

    def _order(self, e: Entry) -> tuple[int, int]:
        ol = self.loaded[e.id].get("openloom")
        if isinstance(ol, dict) and isinstance(ol.get("position"), int):
            return (0, ol["position"])
        return (1, e.index)

    def node_parent(self, e: Entry) -> str | None:
        """The nearest ancestor that is a node."""
        p = self.idx.parent_of(e)
        while p is not None and p.id not in self.node_ids:
            p = self.idx.parent_of(p)
        return p.id if p is not None else None

    # nodes --------------------------------------------------------------------------------------
    def make_nodes(self) -> None:
        src = self.src
        roleless = 0
        for e in self.node_entries:
            d = self.loaded[e.id]
            ol = d.get("openloom")
            label, when = self.idx.labels.get(e.id) or (None, None)
            if isinstance(ol, dict):
                node = copy.deepcopy(ol["node"])
                imported = src.labels.get(e.id) if src is not None else label_of_node(ol["node"])
                if label != imported:
                    set_node_label(node, label, when)
                if not isinstance(node.get("author"), dict):  # a socketteer node without a source
                    node["author"] = {"role": "human"}
                    roleless += 1
            else:
                calls = {c[0]: (c[1], c[2]) for c in e.tool_calls or () if isinstance(c[0], str)}
                made = pi_node(d, self.pi_agents, calls)
                if made is None:
                    continue
                node = made
                if label:
                    set_node_label(node, label, when)  # the label entry's own time
            self.nodes[e.id] = node
        if roleless:
            self.notes.append(
                f"{counted(roleless, 'node names', 'nodes name')} no author; written with role human (OpenLoom requires one)"
            )

    # edges --------------------------------------------------------------------------------------
    def make_edges(self) -> list[dict[str, Any]]:
        """The edges in sibling order: the imported ones (by their index), then new ones."""
        taken: set[str] = set(self.nodes)
        for e in self.node_entries:
            taken.update(_edge_ids(self.loaded[e.id].get("openloom")))
        positions: dict[str, int] | None = None
        keyed: list[tuple[tuple[int, int], dict[str, Any]]] = []
        for e in self.node_entries:
            nid = e.id
            parent = self.parent_of[nid] = self.node_parent(e)
            has_parent_edge = self._imported_edges(nid, parent, keyed)
            if parent is None or has_parent_edge:
                continue
            if positions is None:
                positions = _dfs_positions(self.manager)
            eid = unique_id(f"e-{nid}", taken)
            taken.add(eid)
            keyed.append(
                (
                    (1, positions.get(nid, 0)),
                    {
                        "id": eid,
                        "type": "continuation",
                        "sources": [{"nodeId": parent, "role": "primary"}],
                        "targetNodeId": nid,
                    },
                )
            )
        keyed.sort(key=lambda kv: kv[0])
        return [edge for _k, edge in keyed]

    def _imported_edges(
        self, nid: str, parent: str | None, keyed: list[tuple[tuple[int, int], dict[str, Any]]]
    ) -> bool:
        """Adds the imported edges into ``nid`` that the export keeps; True when one is its parent
        edge. Edges the tree could not use go to ``repairs`` (whole exports only)."""
        ol = self.loaded[nid].get("openloom")
        if not isinstance(ol, dict):
            return False
        has_parent_edge = False
        for rec in ol.get("edges", []):
            status, edge = rec.get("status"), rec.get("edge")
            if status == "parent" and parent is not None or status == "annotation":
                kept = _filter_sources(edge, self.node_ids)
                if kept is not None:
                    keyed.append(((0, rec["index"]), kept))
                    has_parent_edge = has_parent_edge or status == "parent"
            elif status in ("extra", "cycle", "orphan") and not self.branch:
                self.repairs.append({"index": rec["index"], "edge": edge, "reason": status})
        return has_parent_edge

    def roots(self) -> list[str]:
        roots = [nid for nid in self.nodes if self.parent_of.get(nid) is None]
        src = self.src
        if src is not None and not self.branch and src.root_ids is not None and sorted(src.root_ids) == sorted(roots):
            return list(src.root_ids)
        return roots

    def current(self) -> str | None:
        """The node nearest the leaf on its path (the tree's ``currentNodeId``)."""
        leaf = self.leaf_id if self.branch else self.manager.get_leaf_id()
        for e in reversed(self.idx.path_to(leaf)):
            if e.id in self.nodes:
                return e.id
        return None

    # the tree -----------------------------------------------------------------------------------
    def tree(
        self, edges: list[dict[str, Any]], roots: list[str], current: str | None
    ) -> tuple[dict[str, Any], dict[str, Any] | None, list[Any]]:
        """``(tree, container, the container's other trees)``."""
        src = self.src
        if src is None:
            tree = tree_from_pi(
                self.manager,
                self.branch,
                self.nodes,
                edges,
                roots,
                current,
                self.leaf_id,
                self.pi_agents,
                [self.loaded[e.id] for e in self.selected],
            )
            return tree, None, []
        tree, container, other_trees = _tree_from_source(
            src, self.branch, self.nodes, edges, roots, current, self.leaf_id
        )
        if self.repairs or (src.repairs and not self.branch):
            self._keep_repairs(tree, src)
        return tree, container, other_trees

    def _keep_repairs(self, tree: dict[str, Any], src: LoomSource) -> None:
        ext = tree.setdefault("extensions", {})
        if not isinstance(ext, dict):
            return
        ext = tree["extensions"] = dict(ext)
        lt = dict(ext.get("loomtui") or {})
        lt["repairs"] = sorted(src.repairs + self.repairs, key=lambda r: r.get("index", 0))
        ext["loomtui"] = lt
        self.notes.append(
            f"{counted(len(lt['repairs']), 'edge')} the tree could not use {'is' if len(lt['repairs']) == 1 else 'are'} kept in extensions.loomtui.repairs"
        )


def build_document(
    manager: SessionManager, leaf_id: str | None = None, no_system_context: bool = False
) -> tuple[dict[str, Any], list[str]]:
    """The OpenLoom v2 document for ``manager`` (whole, or the branch ending at ``leaf_id``)."""
    ex = _Export(manager, leaf_id)
    ex.make_nodes()
    edges = ex.make_edges()
    roots = ex.roots()
    current = ex.current()
    _move_dangling_edited_from(ex.nodes)
    tree, container, other_trees = ex.tree(edges, roots, current)
    # every tag and agent referenced resolves
    _define_tags(tree, ex.nodes)
    _define_agents(tree, container, ex.nodes)
    if no_system_context:
        tree = _strip_tree(tree)
        other_trees = [_strip_tree(t) for t in other_trees]
        if container is not None and "agents" in container:
            container["agents"] = _strip_system_prompts(container["agents"])
    if container is None:
        container = {
            "format": "open-loom",
            "version": "2.0",
            "exportedAt": now_iso(),
            "generator": dict(GENERATOR),
            "trees": None,
        }
    doc = dict(container)
    src = ex.src
    if src is not None and src.container is not None and not ex.branch:
        trees = list(other_trees)
        trees[src.tree_index] = tree
        doc["trees"] = trees
    else:
        doc["trees"] = [tree]
    return doc, ex.notes


def _tree_from_source(
    src: LoomSource,
    branch: bool,
    nodes: dict[str, dict[str, Any]],
    edges: list[dict[str, Any]],
    roots: list[str],
    current: str | None,
    leaf_id: str | None,
) -> tuple[dict[str, Any], dict[str, Any] | None, list[Any]]:
    """The imported tree with its fields in their order and the export's nodes and edges."""
    replaced = {"nodes": nodes, "edges": edges, "rootNodeIds": roots}
    tree: dict[str, Any] = {}
    for k, v in src.tree.items():
        if k in replaced:
            tree[k] = replaced[k]
        elif k == "currentNodeId":
            if current is not None:
                tree[k] = current
        else:
            tree[k] = now_iso() if k == "updatedAt" else v
    for k, v in (("id", ""), ("title", ""), ("rootNodeIds", roots), ("nodes", nodes), ("edges", edges)):
        tree.setdefault(k, v)
    keep_current = not branch and current == src.leaf and "currentNodeId" not in src.tree
    if current is not None and not keep_current:
        tree["currentNodeId"] = current
    tree.setdefault("updatedAt", now_iso())
    container = None
    other_trees: list[Any] = []
    if src.container is not None:
        container = dict(src.container)
        other_trees = list(src.container_trees)
    if branch:
        _branch_tree(tree, container, src, nodes, leaf_id)
    return tree, container, other_trees


def _branch_tree(
    tree: dict[str, Any],
    container: dict[str, Any] | None,
    src: LoomSource,
    nodes: dict[str, dict[str, Any]],
    leaf_id: str | None,
) -> None:
    """A branch is a new tree: a fresh id, only the tags and agents it uses, and where it came from."""
    tree["id"] = new_ulid()
    if isinstance(tree.get("tags"), list):
        used = set(_tags_used(nodes))
        tree["tags"] = [t for t in tree["tags"] if isinstance(t, dict) and t.get("name") in used]
    used_agents = set(_agents_used(nodes))
    if isinstance(tree.get("agents"), dict):
        tree["agents"] = {k: v for k, v in tree["agents"].items() if k in used_agents}
    ext = dict(tree.get("extensions") or {}) if isinstance(tree.get("extensions"), dict) else {}
    lt = dict(ext.get("loomtui") or {})
    lt["source"] = {"treeId": src.tree.get("id"), "nodeId": leaf_id}
    ext["loomtui"] = lt
    tree["extensions"] = ext
    if container is not None:
        container["exportedAt"] = now_iso()
        container["generator"] = dict(GENERATOR)
        if isinstance(container.get("agents"), dict):
            container["agents"] = {k: v for k, v in container["agents"].items() if k in used_agents}


# media -------------------------------------------------------------------------------------
def export_openloom(
    manager: SessionManager,
    out: str,
    leaf_id: str | None = None,
    no_system_context: bool = False,
) -> ExportResult:
    """Write ``manager`` (or the branch ending at ``leaf_id``) to ``out`` as OpenLoom v2.

    ``out`` must not exist (written atomically, never over a file). A name ending in ``.zip``
    writes a bundle.
    """
    with manager.checked_spans():  # every entry copied is still the one read
        doc, notes = build_document(manager, leaf_id, no_system_context)
    src = loom_source(manager)
    bundle = out.lower().endswith(".zip")
    # the media step rewrites refs: give it nodes it may change
    for t_i, tree in enumerate(doc["trees"]):
        if isinstance(tree, dict) and isinstance(tree.get("nodes"), dict):
            tree = doc["trees"][t_i] = dict(tree)
            tree["nodes"] = {k: (copy.copy(v) if isinstance(v, dict) else v) for k, v in tree["nodes"].items()}
            for v in tree["nodes"].values():
                if isinstance(v, dict) and isinstance(v.get("content"), list):
                    v["content"] = [dict(b) if isinstance(b, dict) else b for b in v["content"]]
    members = gather_media(doc, src, bundle, leaf_id is None, notes)
    data = dump_json(doc)
    if bundle:
        write_bundle(out, data, members, src.path if src is not None else None, _STORED)
    else:
        write_new_file(out, data)
    tree = doc["trees"][src.tree_index if src is not None and src.container is not None and leaf_id is None else 0]
    return ExportResult(out, len(tree.get("nodes") or {}), len(tree.get("edges") or []), len(members), bundle, notes)
