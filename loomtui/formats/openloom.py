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
from datetime import UTC, datetime
from typing import Any

from loomtui.formats.common import (
    DEFAULT_LABEL,
    UNIX_EPOCH,
    LoomSource,
    epoch_ms,
    iso_ms,
    loom_source,
    parse_iso,
    synthetic_time,
)
from loomtui.formats.media import describe_ref
from loomtui.session.entries import content_text
from loomtui.session.errors import Diagnostic
from loomtui.session.manager import SessionManager
from loomtui.session.source import Source

ROLE_TO_PI = {"human": "user", "model": "assistant", "mixed": "assistant"}
KNOWN_EDGE_TYPES = ("continuation", "annotation")


def label_of_node(node: dict[str, Any]) -> str | None:
    """The label a node's bookmark shows as (None when not bookmarked)."""
    meta = node.get("meta")
    if not isinstance(meta, dict) or meta.get("bookmarked") is not True:
        return None
    text = meta.get("bookmarkLabel")
    return text.strip() if isinstance(text, str) and text.strip() else DEFAULT_LABEL


def set_node_label(node: dict[str, Any], label: str | None) -> None:
    """Write ``label`` into a v2 node's ``meta`` as bookmark (None/empty clears it)."""
    meta = node.get("meta")
    meta = dict(meta) if isinstance(meta, dict) else {}
    if label:
        meta["bookmarked"] = True
        if label == DEFAULT_LABEL:
            meta.pop("bookmarkLabel", None)
        else:
            meta["bookmarkLabel"] = label
    else:
        meta.pop("bookmarked", None)
        meta.pop("bookmarkLabel", None)
    if meta or "meta" in node:
        node["meta"] = meta


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


def _placeholder(block: Any, i: int, members: dict[str, int] | None, heads: dict[str, bytes] | None,
                 nid: str, diag: list[Diagnostic]) -> dict[str, Any]:
    """A text block standing for a media or unknown block in the tree row."""
    if not isinstance(block, dict):
        return {"type": "text", "text": "[invalid block]", "loomPlaceholder": {"blockType": None, "index": i}}
    btype = block.get("type")
    info: dict[str, Any] = {"blockType": btype, "index": i}
    if btype in ("image", "audio"):
        for k in ("mimeType", "width", "height", "altText", "durationMs", "transcript"):
            if k in block:
                info[k] = block[k]
        media = describe_ref(block, members, heads)
        info["source"] = media.source
        if media.size is not None:
            info["bytes"] = media.size
        if media.member is not None:
            info["member"] = media.member
        ref = block.get("ref")
        if media.source == "missing":
            where = "the bundle" if members is not None else "a bundle (this file is not one)"
            diag.append(Diagnostic(0, f"node {nid}: {btype} ref {ref!r} is not in {where}; shown as a placeholder"))
        elif media.source == "invalid":
            diag.append(Diagnostic(0, f"node {nid}: {btype} ref {str(ref)[:60]!r} is neither a data: URI nor a "
                                      "relative bundle path"))
        if media.mismatch:
            info["sniffedType"] = media.mismatch
            diag.append(Diagnostic(0, f"node {nid}: {btype} declared {block.get('mimeType')!r} but its bytes look "
                                      f"like {media.mismatch}"))
        words = block.get("altText") if btype == "image" else block.get("transcript")
        if isinstance(words, str) and words.strip():
            text = f"[{btype}: {words.strip()}]"
        else:
            mime = block.get("mimeType")
            text = f"[{btype} {mime}]" if isinstance(mime, str) and mime else f"[{btype}]"
    else:
        text = f"[{btype} block]" if isinstance(btype, str) and btype else "[block]"
    return {"type": "text", "text": text, "loomPlaceholder": info}


def _pi_content(node: dict[str, Any], nid: str, members: dict[str, int] | None,
                heads: dict[str, bytes] | None, diag: list[Diagnostic]) -> list[dict[str, Any]]:
    content = node.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        if content is not None:
            diag.append(Diagnostic(0, f"node {nid}: content is not a list; shown empty"))
        return []
    out: list[dict[str, Any]] = []
    for i, block in enumerate(content):
        if isinstance(block, dict) and block.get("type") == "text":
            t = block.get("text")
            out.append({"type": "text", "text": t if isinstance(t, str) else ("" if t is None else str(t))})
        else:
            out.append(_placeholder(block, i, members, heads, nid, diag))
    # pi joins text blocks without a separator: keep placeholders apart from their neighbours
    last = len(out) - 1
    for i, block in enumerate(out):
        if "loomPlaceholder" in block:
            block["text"] = (" " if i > 0 else "") + block["text"] + (" " if i < last else "")
    return out


def _usage(gen: dict[str, Any]) -> dict[str, Any] | None:
    u = gen.get("usage")
    if not isinstance(u, dict):
        return None
    out: dict[str, Any] = {}
    for src, dst in (("promptTokens", "input"), ("completionTokens", "output"), ("totalTokens", "totalTokens")):
        if isinstance(u.get(src), (int, float)) and not isinstance(u.get(src), bool):
            out[dst] = u[src]
    return out or None


def _model_of(author: dict[str, Any], gen: dict[str, Any], agents: dict[str, Any]) -> tuple[Any, Any]:
    provider = gen.get("provider")
    model = gen.get("model")
    agent = agents.get(author.get("agentId")) if isinstance(author.get("agentId"), str) else None
    if isinstance(agent, dict) and isinstance(agent.get("modelRef"), str) and (provider is None or model is None):
        ref = agent["modelRef"]
        p, sep, m = ref.partition(":")
        if sep:
            provider = provider if provider is not None else p
            model = model if model is not None else m
        elif model is None:
            model = ref
    return provider, model


class _TreeReader:
    """Validates and repairs one v2 Tree, then lays it out as entries."""

    def __init__(self, tree: dict[str, Any], fmt: str, agents: dict[str, Any],
                 members: dict[str, int] | None, heads: dict[str, bytes] | None,
                 diag: list[Diagnostic]) -> None:
        self.tree = tree
        self.heads = heads
        #: when the tree has no createdAt: the file's modification time (else the Unix epoch)
        self.fallback_time = UNIX_EPOCH
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
            raw_sources = edge.get("sources")
            sources: list[tuple[str, Any]] = []
            if not isinstance(raw_sources, list) or not raw_sources:
                raw_sources = []
                self.note(f"{name} into {target} has no sources")
            for s in raw_sources:
                if isinstance(s, dict):
                    sid, role = s.get("nodeId"), s.get("role", "primary")
                else:
                    sid, role = s, "primary"
                if not isinstance(sid, str) or sid not in self.nodes:
                    self.note(f"{name} into {target} names unknown source node {sid!r}; that source is ignored")
                    continue
                sources.append((sid, role))
            rec: dict[str, Any] = {"index": i, "edge": edge, "status": "annotation"}
            self.rec_of[i] = rec
            self.incoming[target].append(rec)
            etype = edge.get("type")
            if etype != "continuation":
                # annotation, or an unknown type: preserved, traversed as an annotation (docs/formats.md, "OpenLoom")
                eid = edge.get("id")
                for sid, role in sources:
                    self.annotations[sid].append({"nodeId": target, "type": etype, "edgeId": eid})
                    self.annotates[target].append({"nodeId": sid, "type": etype, "role": role, "edgeId": eid})
                continue
            if not sources:
                rec["status"] = "orphan"
                self.note(f"{name} into {target} has no known source; {target} becomes a root")
                continue
            primaries = [s for s in sources if s[1] == "primary"]
            chosen = primaries[0] if primaries else sources[0]
            if not primaries:
                self.note(f"{name} into {target} has no primary source; {chosen[0]} is taken as the parent")
            if chosen[0] == target:
                rec["status"] = "cycle"
                self.note(f"{name} makes {target} its own parent; ignored")
                continue
            if target in self.parent:
                rec["status"] = "extra"
                self.extra_parents[target].append(chosen[0])
                self.note(f"{name} is a second continuation edge into {target}; the first (edge #{first_into[target]}) "
                          "is kept, this one is listed as an extra parent")
                continue
            rec["status"] = "parent"
            first_into[target] = i
            self.parent[target] = (chosen[0], i)
            skipped = False
            others = []
            for sid, role in sources:
                if not skipped and (sid, role) == chosen:
                    skipped = True
                    continue
                others.append({"nodeId": sid, "role": role})
            if others:
                self.others[target] = others

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
                    cycle = path[pos[cur]:]
                    victim = max(cycle, key=lambda n: self.parent[n][1])
                    _p, idx = self.parent.pop(victim)
                    self.rec_of[idx]["status"] = "cycle"
                    shown = ", ".join(cycle[:5]) + (", …" if len(cycle) > 5 else "")
                    self.note(f"continuation edges form a cycle ({shown}); edge #{idx} into {victim} is ignored "
                              f"and {victim} becomes a root")
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
                    self.note(f"node {r} has no incoming continuation edge but is not in rootNodeIds; "
                              "shown as a root")
                    ok = False
            if ok:
                self.root_ids = list(declared)
        return valid + [r for r in computed if r not in valid]

    # layout -----------------------------------------------------------------------------------
    def build(self, extras: dict[str, dict[str, Any]] | None) -> tuple[list[dict[str, Any]], dict[str, str], str | None,
                                                                       list[str]]:
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
        base = parse_iso(self.tree.get("createdAt")) or self.fallback_time
        position = {nid: i for i, nid in enumerate(self.order)}
        entries: dict[str, dict[str, Any]] = {}
        for i, nid in enumerate(dfs):
            entries[nid] = self.entry(nid, synthetic_time(base, i), position[nid], hidden.get(nid),
                                      (extras or {}).get(nid))

        labels: dict[str, str] = {}
        for nid in self.order:
            lab = label_of_node(self.nodes[nid])
            if lab is not None:
                labels[nid] = lab
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

    def entry(self, nid: str, ts: str, position: int, hidden: str | None,
              extra: dict[str, Any] | None) -> dict[str, Any]:
        node = self.nodes[nid]
        author = node.get("author") if isinstance(node.get("author"), dict) else {}
        role = author.get("role")
        if not isinstance(node.get("author"), dict):
            self.note(f"node {nid} has no author; shown as [node]")
        gen = node.get("generation") if isinstance(node.get("generation"), dict) else {}
        meta = node.get("meta") if isinstance(node.get("meta"), dict) else {}
        content = _pi_content(node, nid, self.members, self.heads, self.diag)
        created = parse_iso(node.get("createdAt"))
        p = self.parent.get(nid)
        entry: dict[str, Any] = {"type": "message", "id": nid, "parentId": p[0] if p else None, "timestamp": ts}
        pi_role = ROLE_TO_PI.get(role) if isinstance(role, str) else None
        if pi_role is not None:
            msg: dict[str, Any] = {"role": pi_role, "content": content}
            if pi_role == "assistant":
                provider, model = _model_of(author, gen, self.agents)
                if provider is not None:
                    msg["provider"] = provider
                if model is not None:
                    msg["model"] = model
                usage = _usage(gen)
                if usage:
                    msg["usage"] = usage
                # pi hides text-less assistant rows whose stopReason is stop/missing; a loom
                # node is never a tool-only step, so an empty one keeps a visible reason
                msg["stopReason"] = "stop" if content_text(content, None).strip() else "empty"
                if role == "mixed":
                    msg["humanEdited"] = True
            if created is not None:
                msg["timestamp"] = epoch_ms(created)
            entry["message"] = msg
        else:
            entry["type"] = "custom_message"
            entry["customType"] = role if isinstance(role, str) and role else "node"
            entry["content"] = content
            entry["display"] = True
        ol: dict[str, Any] = {"format": self.fmt, "node": node, "position": position,
                              "edges": self.incoming.get(nid, []), "parentEdge": p[1] if p else None}
        if nid in self.others:
            ol["otherSources"] = self.others[nid]
        if nid in self.extra_parents:
            ol["extraParents"] = self.extra_parents[nid]
        if nid in self.annotates:
            ol["annotates"] = self.annotates[nid]
        if nid in self.annotations:
            ol["annotations"] = self.annotations[nid]
        shown_author: dict[str, Any] = {"role": role}
        agent_id = author.get("agentId")
        if agent_id is not None:
            shown_author["agentId"] = agent_id
            agent = self.agents.get(agent_id) if isinstance(agent_id, str) else None
            if isinstance(agent, dict):
                shown_author["agent"] = agent
            else:
                self.note(f"node {nid}: author agentId {agent_id!r} is not in the agent registry")
        name = author.get("name")
        if not isinstance(name, str) and isinstance(shown_author.get("agent"), dict):
            name = shown_author["agent"].get("name")
        if isinstance(name, str):
            shown_author["name"] = name
        ol["author"] = shown_author
        for key in ("tags", "rating", "note"):
            if key in meta:
                ol[key] = meta[key]
        for key in ("pruned", "excluded"):
            if meta.get(key) is True:
                ol[key] = True
        if isinstance(node.get("createdAt"), str):
            ol["createdAt"] = node["createdAt"]
        if "editedFrom" in node:
            ol["editedFrom"] = node["editedFrom"]
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
    if path is not None:
        try:
            reader.fallback_time = datetime.fromtimestamp(os.stat(path).st_mtime, UTC)
        except OSError:
            pass
    entries, labels, leaf, _dfs = reader.build(extras)
    mode = tree.get("mode") if isinstance(tree.get("mode"), str) else "dialogue"
    tree_id = tree.get("id") if isinstance(tree.get("id"), str) and tree.get("id") else None
    if tree_id is None:
        diag.append(Diagnostic(0, "tree has no id"))
    created = parse_iso(tree.get("createdAt"))
    title = tree.get("title")
    header: dict[str, Any] = {
        "type": "session",
        "version": 3,
        "id": tree_id or "",
        "timestamp": iso_ms(created or reader.fallback_time),
        "cwd": "",
        "loom": {"format": fmt, "title": title if isinstance(title, str) else "", "mode": mode,
                 "nodes": len(reader.order), "trees": len(tree_ids or [tree_id]), "treeIndex": tree_index,
                 "bundle": bundle_members is not None},
    }
    kept_tree = {k: (None if k in ("nodes", "edges") else v) for k, v in tree.items()}
    kept_container = None
    if container is not None:
        kept_container = {k: (None if k == "trees" else v) for k, v in container.items()}
    origin = os.path.abspath(path) if path else None
    loom = LoomSource(
        format=fmt,
        path=origin,
        sha256=sha,
        tree=kept_tree,
        container=kept_container,
        container_trees=list(container["trees"]) if container is not None and isinstance(container.get("trees"), list)
        else [],
        tree_index=tree_index,
        tree_ids=list(tree_ids or ([tree_id] if tree_id else [])),
        mode=mode,
        agents=agents,
        labels=labels,
        node_ids=list(reader.order),
        leaf=leaf,
        root_ids=reader.root_ids,
        bundle_members=bundle_members,
        repairs=reader.repairs,
    )
    from loomtui.formats.bookmarks import SAVER  # bookmarks reads this module's node helpers

    source = Source(fmt, origin, labels="memory", saver=SAVER, document=loom)
    sm = SessionManager.from_entries(header, entries, diag, labels=labels, source=source,
                                     session_name=title if isinstance(title, str) else None)
    return sm


# OpenLoom v1 (Loom Swift) lives in ``formats/openloom_v1.py``; these names stay importable here
from loomtui.formats.openloom_v1 import apply_v1_label, v1_label, v1_to_tree  # noqa: E402

__all__ = ["apply_v1_label", "v1_label", "v1_to_tree"]
