"""OpenLoom trees as sessions: one pi-style entry per node (docs/formats.md, "OpenLoom").

Every loom format ends up here: OpenLoom v1 and socketteer files are first converted into an
OpenLoom v2 Tree (the spec's own import mappings), then :func:`build_session` turns the Tree
into entries for ``SessionManager.from_entries``.

Mapping (what the view and detail pane can rely on):

* node → entry with the node's id. Author ``human`` → user message, ``model`` → assistant
  message, ``mixed`` → assistant message with ``message["humanEdited"] = True``, ``system`` →
  ``custom_message`` with ``customType "system"`` (rendered ``[system]: text``); any other role
  → ``custom_message`` whose customType is that role.
* content: text blocks stay text; image, audio and unknown blocks become text placeholders
  (``[image: alt text]``) carrying ``"loomPlaceholder": {...}`` with the details; the original
  blocks stay in ``entry["openloom"]["node"]``.
* ``entry["openloom"]`` keeps the node verbatim and everything the tree needs to show it:
  incoming edges, other sources of a hyperedge, annotation links, tags, rating, note.
* ``entry["hidden"] = "pruned"`` on pruned nodes and ``"pruned-branch"`` below them (views show
  them only in the ``all`` filter); ``entry["excluded"] = True`` on excluded nodes.
* bookmarks → labels and the tree title → the session name, given to the manager directly
  (no entries are invented, so counts of nodes, leaves and branch points stay true).
* parentId = the first primary source of the node's continuation edge; sibling order = edge
  order, carried by synthetic entry timestamps (tree ``createdAt`` + n ms, in depth-first
  order); the node's own ``createdAt`` is the message ``timestamp``.
* ``currentNodeId`` → the session leaf: its entry is the last one.

Repairs (docs/formats.md, "OpenLoom") never raise; each is a Diagnostic: unknown nodes named by edges, roots or the
current node, continuation cycles, a second continuation edge into a node (the first in array
order wins), wrong or missing ``rootNodeIds``.
"""

from __future__ import annotations

import os
from collections import defaultdict
from typing import Any

from loomtui.formats.base.common import (
    DOCUMENT_REPAIRS,
    LOOM_LEAF_RULE,
    SOCKETTEER,
    LoomSource,
    iso_ms,
    loom_source,
    order_time,
    parse_iso,
)
from loomtui.formats.looms.bookmarks import SAVER
from loomtui.formats.looms.openloom_entry import NodeMapper, bookmark_time, label_of_node, node_fields
from loomtui.formats.looms.words import OPENLOOM_WORDS, SOCKETTEER_WORDS
from loomtui.session.entries import content_text
from loomtui.session.errors import Diagnostic
from loomtui.session.manager import SessionManager
from loomtui.session.source import Source

KNOWN_EDGE_TYPES = ("continuation", "annotation")


def node_text(node: dict[str, Any]) -> str:
    """The text blocks of a node, concatenated."""
    content = node.get("content")
    if isinstance(content, str):
        return content
    out = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
                out.append(block["text"])
    return "".join(out)


def path_text(manager: SessionManager, entry_id: str) -> str:
    """The text along the root → ``entry_id`` path, for the detail pane.

    In a buffer-mode loom (socketteer, OpenLoom ``mode: "buffer"``) each node holds a segment
    and the document is the segments concatenated; in dialogue mode the messages are joined
    by blank lines. Works for pi sessions too (user/assistant text and custom messages).
    """
    src = loom_source(manager)
    buffer = src is not None and src.mode == "buffer"
    parts: list[str] = []
    for e in manager.index.path_to(entry_id):
        d = manager.load(e)
        ol = d.get("openloom")
        if isinstance(ol, dict) and isinstance(ol.get("node"), dict):
            parts.append(node_text(ol["node"]))
        elif e.type == "message" and e.role in ("user", "assistant"):
            msg = d.get("message") or {}
            parts.append(content_text(msg.get("content"), None))
        elif e.type == "custom_message":
            parts.append(content_text(d.get("content"), None))
    if buffer:
        return "".join(parts)
    return "\n\n".join(p for p in parts if p)


# v2 tree -> entries ----------------------------------------------------------------------------
def _describe_edge(i: int, edge: dict[str, Any]) -> str:
    eid = edge.get("id")
    return f"edge #{i} ({eid})" if isinstance(eid, str) and eid else f"edge #{i}"


class _TreeReader:
    """Validates and repairs one v2 Tree, then lays it out as entries."""

    def __init__(
        self,
        tree: dict[str, Any],
        fmt: str,
        agents: dict[str, Any],
        members: dict[str, int] | None,
        heads: dict[str, bytes] | None,
        diag: list[Diagnostic],
    ) -> None:
        self.tree = tree
        self.heads = heads
        self.fmt = fmt
        self.agents = agents
        self.members = members
        self.diag = diag
        self.nodes: dict[str, dict[str, Any]] = {}
        self.order: list[str] = []
        self.incoming: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.parent: dict[str, tuple[str, int]] = {}
        self.others: dict[str, list[dict[str, Any]]] = {}
        self.extra_parents: dict[str, list[str]] = defaultdict(list)
        self.annotates: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.annotations: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.rec_of: dict[int, dict[str, Any]] = {}
        self.repairs: list[dict[str, Any]] = []
        self.root_ids: list[str] | None = None
        self.mapper = NodeMapper(fmt, agents, members, heads, diag)
        #: the per-node link tables an entry's ``openloom`` record carries, under its key
        self.links: tuple[tuple[str, dict[str, Any]], ...] = (
            ("otherSources", self.others),
            ("extraParents", self.extra_parents),
            ("annotates", self.annotates),
            ("annotations", self.annotations),
        )

    def note(self, reason: str) -> None:
        self.diag.append(Diagnostic(0, reason))

    # nodes ------------------------------------------------------------------------------------
    def read_nodes(self) -> None:
        raw = self.tree.get("nodes")
        items: list[tuple[Any, Any]]
        if isinstance(raw, dict):
            items = list(raw.items())
        elif isinstance(raw, list):
            self.note("tree nodes is a list, not a map of id to node; read in list order")
            items = [(n.get("id") if isinstance(n, dict) else None, n) for n in raw]
        else:
            self.note("tree has no nodes map; it is shown empty")
            items = []
        for key, node in items:
            if not isinstance(node, dict):
                self.note(f"node {key!r} is not an object; ignored")
                continue
            nid = key if isinstance(key, str) and key else node.get("id")
            if not isinstance(nid, str) or not nid:
                self.note(f"a node without an id was ignored (keys: {', '.join(sorted(map(str, node))[:6])})")
                continue
            if isinstance(node.get("id"), str) and node["id"] != nid:
                self.note(f"node key {nid!r} holds a node whose id is {node['id']!r}; the key is used")
            if nid in self.nodes:
                self.note(f"duplicate node id {nid!r}: the first one is kept")
                continue
            self.nodes[nid] = node
            self.order.append(nid)

    # edges ------------------------------------------------------------------------------------
    def read_edges(self) -> None:
        raw = self.tree.get("edges")
        if raw is None:
            if len(self.nodes) > 1:
                self.note(f"tree has {len(self.nodes)} nodes but no edges list; every node is a root")
            return
        if not isinstance(raw, list):
            self.note("tree edges is not a list; every node is a root")
            return
        first_into: dict[str, int] = {}
        for i, edge in enumerate(raw):
            if not isinstance(edge, dict):
                self.note(f"edge #{i} is not an object; ignored")
                self.repairs.append({"index": i, "edge": edge, "reason": "not an object"})
                continue
            name = _describe_edge(i, edge)
            target = edge.get("targetNodeId")
            if not isinstance(target, str) or target not in self.nodes:
                self.note(f"{name} targets unknown node {target!r}; ignored")
                self.repairs.append({"index": i, "edge": edge, "reason": "unknown target"})
                continue
            sources = self._sources(name, target, edge.get("sources"))
            rec: dict[str, Any] = {"index": i, "edge": edge, "status": "annotation"}
            self.rec_of[i] = rec
            self.incoming[target].append(rec)
            if edge.get("type") != "continuation":
                # annotation, or an unknown type: preserved, traversed as an annotation (docs/formats.md, "OpenLoom")
                self._annotation(edge, target, sources)
            else:
                self._continuation(rec, name, target, sources, first_into)

    def _sources(self, name: str, target: str, raw: Any) -> list[tuple[str, Any]]:
        """An edge's known source nodes as ``(node id, role)``; unknown ones are noted and left out."""
        if not isinstance(raw, list) or not raw:
            self.note(f"{name} into {target} has no sources")
            return []
        sources: list[tuple[str, Any]] = []
        for s in raw:
            if isinstance(s, dict):
                sid, role = s.get("nodeId"), s.get("role", "primary")
            else:
                sid, role = s, "primary"
            if not isinstance(sid, str) or sid not in self.nodes:
                self.note(f"{name} into {target} names unknown source node {sid!r}; that source is ignored")
                continue
            sources.append((sid, role))
        return sources

    def _annotation(self, edge: dict[str, Any], target: str, sources: list[tuple[str, Any]]) -> None:
        etype, eid = edge.get("type"), edge.get("id")
        for sid, role in sources:
            self.annotations[sid].append({"nodeId": target, "type": etype, "edgeId": eid})
            self.annotates[target].append({"nodeId": sid, "type": etype, "role": role, "edgeId": eid})

    def _continuation(
        self, rec: dict[str, Any], name: str, target: str, sources: list[tuple[str, Any]], first_into: dict[str, int]
    ) -> None:
        """A continuation edge: the parent of ``target`` unless it is unusable or a second one."""
        if not sources:
            rec["status"] = "orphan"
            self.note(f"{name} into {target} has no known source; {target} becomes a root")
            return
        primaries = [s for s in sources if s[1] == "primary"]
        chosen = primaries[0] if primaries else sources[0]
        if not primaries:
            self.note(f"{name} into {target} has no primary source; {chosen[0]} is taken as the parent")
        if chosen[0] == target:
            rec["status"] = "cycle"
            self.note(f"{name} makes {target} its own parent; ignored")
            return
        if target in self.parent:
            rec["status"] = "extra"
            self.extra_parents[target].append(chosen[0])
            self.note(
                f"{name} is a second continuation edge into {target}; the first (edge #{first_into[target]}) "
                "is kept, this one is listed as an extra parent"
            )
            return
        i = rec["index"]
        rec["status"] = "parent"
        first_into[target] = i
        self.parent[target] = (chosen[0], i)
        if len(sources) > 1:
            others = list(sources)
            others.remove(chosen)
            self.others[target] = [{"nodeId": sid, "role": role} for sid, role in others]

    def break_cycles(self) -> None:
        done: set[str] = set()
        for start in self.order:
            if start in done:
                continue
            path: list[str] = []
            pos: dict[str, int] = {}
            cur = start
            while cur not in done:
                if cur in pos:
                    cycle = path[pos[cur] :]
                    victim = max(cycle, key=lambda n: self.parent[n][1])
                    _p, idx = self.parent.pop(victim)
                    self.rec_of[idx]["status"] = "cycle"
                    shown = ", ".join(cycle[:5]) + (", …" if len(cycle) > 5 else "")
                    self.note(
                        f"continuation edges form a cycle ({shown}); edge #{idx} into {victim} is ignored "
                        f"and {victim} becomes a root"
                    )
                    break
                pos[cur] = len(path)
                path.append(cur)
                p = self.parent.get(cur)
                if p is None:
                    break
                cur = p[0]
            done.update(path)

    def roots(self) -> list[str]:
        computed = [n for n in self.order if n not in self.parent]
        declared = self.tree.get("rootNodeIds")
        valid: list[str] = []
        if not isinstance(declared, list) or not declared:
            if self.nodes:
                self.note("rootNodeIds is missing or empty; roots recomputed from the edges")
        else:
            ok = True
            for r in declared:
                if not isinstance(r, str) or r not in self.nodes:
                    self.note(f"rootNodeIds names unknown node {r!r}; ignored")
                    ok = False
                elif r in self.parent:
                    self.note(f"rootNodeIds names {r}, which has a parent edge; it is not shown as a root")
                    ok = False
                elif r in valid:
                    self.note(f"rootNodeIds names {r} twice")
                    ok = False
                else:
                    valid.append(r)
            for r in computed:
                if r not in valid:
                    self.note(f"node {r} has no incoming continuation edge but is not in rootNodeIds; shown as a root")
                    ok = False
            if ok:
                self.root_ids = list(declared)
        return valid + [r for r in computed if r not in valid]

    # layout -----------------------------------------------------------------------------------
    def build(
        self, extras: dict[str, dict[str, Any]] | None
    ) -> tuple[list[dict[str, Any]], dict[str, tuple[str, str | None]], str | None, list[str]]:
        """The entries, the labels with the times they were set (None: not known), the leaf and
        the depth-first order."""
        self.read_nodes()
        self.read_edges()
        self.break_cycles()
        roots = self.roots()
        kids: dict[str, list[tuple[int, str]]] = defaultdict(list)
        for child, (p, idx) in self.parent.items():
            kids[p].append((idx, child))
        for lst in kids.values():
            lst.sort()

        # depth-first order, pruned state cascading down
        dfs: list[str] = []
        hidden: dict[str, str] = {}
        stack: list[tuple[str, str | None]] = [(r, None) for r in reversed(roots)]
        while stack:
            nid, inherited = stack.pop()
            dfs.append(nid)
            meta = self.nodes[nid].get("meta")
            if isinstance(meta, dict) and meta.get("pruned") is True:
                hidden[nid] = "pruned"
            elif inherited:
                hidden[nid] = "pruned-branch"
            below = "pruned" if nid in hidden else None
            for _idx, c in reversed(kids.get(nid, [])):
                stack.append((c, below))

        leaf = self._leaf(roots, kids)
        position = {nid: i for i, nid in enumerate(self.order)}
        entries: dict[str, dict[str, Any]] = {}
        # the entries' timestamps only keep the document's sibling order through pi's sort (the
        # current node comes last in the file): they are not times, and the source says so
        # (``Source.keeps_times``); a node's own createdAt stays on its message
        for i, nid in enumerate(dfs):
            entries[nid] = self.entry(nid, order_time(i), position[nid], hidden.get(nid), (extras or {}).get(nid))

        labels: dict[str, tuple[str, str | None]] = {}
        for nid in self.order:
            lab = label_of_node(self.nodes[nid])
            if lab is not None:
                labels[nid] = (lab, bookmark_time(self.nodes[nid], lab))
        out = [entries[nid] for nid in dfs if nid != leaf]
        if leaf is not None:
            out.append(entries[leaf])
        return out, labels, leaf, dfs

    def _leaf(self, roots: list[str], kids: dict[str, list[tuple[int, str]]]) -> str | None:
        current = self.tree.get("currentNodeId")
        if isinstance(current, str) and current in self.nodes:
            return current
        if current is not None:
            self.note(f"currentNodeId {current!r} is not a node; the leaf is the end of the first branch")
        if not roots:
            return None
        nid = roots[0]
        while kids.get(nid):
            nid = kids[nid][0][1]
        return nid

    def entry(
        self, nid: str, ts: str, position: int, hidden: str | None, extra: dict[str, Any] | None
    ) -> dict[str, Any]:
        node = self.nodes[nid]
        p = self.parent.get(nid)
        entry, author, meta = self.mapper.entry(node, nid, p[0] if p else None, ts)
        ol: dict[str, Any] = {
            "format": self.fmt,
            "node": node,
            "position": position,
            "edges": self.incoming.get(nid, []),
            "parentEdge": p[1] if p else None,
        }
        for key, table in self.links:
            if nid in table:
                ol[key] = table[nid]
        ol["author"] = self.mapper.shown_author(nid, author)
        node_fields(ol, node, meta)
        if extra:
            ol.update(extra)
        entry["openloom"] = ol
        if hidden:
            entry["hidden"] = hidden
        if meta.get("excluded") is True:
            entry["excluded"] = True
        return entry


def merged_agents(container: dict[str, Any] | None, tree: dict[str, Any]) -> dict[str, Any]:
    agents: dict[str, Any] = {}
    for where in (container or {}, tree):
        reg = where.get("agents")
        if isinstance(reg, dict):
            agents.update(reg)
    return agents


def _container_trees(container: dict[str, Any] | None) -> list[Any]:
    trees = container.get("trees") if container is not None else None
    return list(trees) if isinstance(trees, list) else []


def _created(tree: dict[str, Any]) -> str | None:
    """The tree's ``createdAt`` (None: the document gives no time, and none is made up)."""
    created = parse_iso(tree.get("createdAt"))
    return iso_ms(created) if created is not None else None


def _texts(labels: dict[str, tuple[str, str | None]]) -> dict[str, str]:
    return {nid: lab for nid, (lab, _ts) in labels.items()}


def _pi_cwd(tree: dict[str, Any]) -> str:
    """The working directory of the pi session a tree was exported from (its header, kept in
    ``extensions.pi.header``); empty for any other tree."""
    ext = tree.get("extensions")
    pi = ext.get("pi") if isinstance(ext, dict) else None
    header = pi.get("header") if isinstance(pi, dict) else None
    cwd = header.get("cwd") if isinstance(header, dict) else None
    return cwd if isinstance(cwd, str) else ""


def build_session(
    tree: dict[str, Any],
    fmt: str,
    *,
    path: str | None = None,
    sha: str | None = None,
    container: dict[str, Any] | None = None,
    tree_index: int = 0,
    tree_ids: list[str] | None = None,
    bundle_members: dict[str, int] | None = None,
    bundle_heads: dict[str, bytes] | None = None,
    diagnostics: list[Diagnostic] | None = None,
    extras: dict[str, dict[str, Any]] | None = None,
) -> SessionManager:
    """A SessionManager holding one OpenLoom v2 Tree (already converted for other formats)."""
    diag = diagnostics if diagnostics is not None else []
    agents = merged_agents(container, tree)
    reader = _TreeReader(tree, fmt, agents, bundle_members, bundle_heads, diag)
    entries, labels, leaf, _dfs = reader.build(extras)
    mode = tree.get("mode") if isinstance(tree.get("mode"), str) else "dialogue"
    tree_id = tree.get("id") if isinstance(tree.get("id"), str) and tree.get("id") else None
    if tree_id is None:
        diag.append(Diagnostic(0, "tree has no id"))
    title = tree.get("title")
    header: dict[str, Any] = {
        "type": "session",
        "version": 3,
        "id": tree_id or "",
        "timestamp": _created(tree),
        "cwd": _pi_cwd(tree),
        "loom": {
            "format": fmt,
            "title": title if isinstance(title, str) else "",
            "mode": mode,
            "nodes": len(reader.order),
            "trees": len(tree_ids or [tree_id]),
            "treeIndex": tree_index,
            "bundle": bundle_members is not None,
        },
    }
    origin = os.path.abspath(path) if path else None
    loom = LoomSource(
        format=fmt,
        path=origin,
        sha256=sha,
        tree={k: (None if k in ("nodes", "edges") else v) for k, v in tree.items()},
        container=None if container is None else {k: (None if k == "trees" else v) for k, v in container.items()},
        container_trees=_container_trees(container),
        tree_index=tree_index,
        tree_ids=list(tree_ids or ([tree_id] if tree_id else [])),
        mode=mode,
        agents=agents,
        labels=_texts(labels),
        node_ids=list(reader.order),
        leaf=leaf,
        root_ids=reader.root_ids,
        bundle_members=bundle_members,
        repairs=reader.repairs,
    )

    name = "socketteer loom" if fmt == SOCKETTEER else "OpenLoom document"
    source = Source(
        fmt,
        origin,
        labels="memory",
        saver=SAVER,
        document=loom,
        name=name,
        keeps_times=False,
        keeps_usage=fmt != SOCKETTEER,  # a socketteer node keeps no token counts
        keeps_cost=False,  # an OpenLoom generation keeps tokens, no price
        leaf_rule=LOOM_LEAF_RULE,
        diagnostics_are=DOCUMENT_REPAIRS,
        export_note="the path from the root to this node, as pi session entries",
        entry_words=SOCKETTEER_WORDS if fmt == SOCKETTEER else OPENLOOM_WORDS,
    )
    sm = SessionManager.from_entries(
        header, entries, diag, labels=labels, source=source, session_name=title if isinstance(title, str) else None
    )
    return sm


# OpenLoom v1 (Loom Swift) lives in ``formats/looms/openloom_v1.py``; these names stay importable here
from loomtui.formats.looms.openloom_v1 import apply_v1_label, v1_label, v1_to_tree  # noqa: E402

__all__ = ["apply_v1_label", "v1_label", "v1_to_tree"]
