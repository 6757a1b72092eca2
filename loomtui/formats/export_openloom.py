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
  as generation provenance), everything else that is a message or summary → ``system``; pi's
  own fields go to ``extensions.pi``; label entries become bookmarks; settings entries
  (model/thinking changes, custom, labels, session_info) are not nodes.
* ``OUT`` ending in ``.zip`` writes a bundle: ``tree.openloom`` plus media files; embedded
  media is moved into it once it passes about 1 MB (docs/formats.md, "OpenLoom"). Bundle media exported to plain JSON
  is embedded as ``data:`` URIs so that every ref resolves.
"""

from __future__ import annotations

import copy
import re
import zipfile
from dataclasses import dataclass, field
from typing import Any

from loomtui.formats.common import (
    LoomSource,
    dump_json,
    iso_ms,
    loom_source,
    new_ulid,
    now_iso,
    parse_iso,
    unique_id,
)
from loomtui.formats.media import (
    BUNDLE_THRESHOLD,
    bundle_path,
    extension_for,
    parse_data_uri,
    read_member,
    write_bundle,
    to_data_uri,
)
from loomtui.formats.openloom import label_of_node, set_node_label
from loomtui.session.entries import Entry
from loomtui.session.errors import LoomError
from loomtui.session.manager import SessionManager
from loomtui.session.store import write_new_file


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("loomtui")
    except Exception:  # noqa: BLE001 - running from a source tree
        return "0"


GENERATOR = {"name": "loomtui", "version": _version()}
PI_NODE_TYPES = ("message", "custom_message", "compaction", "branch_summary")
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


# pi entries -> nodes ---------------------------------------------------------------------------
def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    out: list[dict[str, Any]] = []
    if not isinstance(content, list):
        return out
    for block in content:
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype == "text":
            t = block.get("text")
            out.append({"type": "text", "text": t if isinstance(t, str) else ""})
        elif btype == "image":
            data, mime = block.get("data"), block.get("mimeType")
            if isinstance(data, str) and not data.startswith("blob:"):
                out.append({"type": "image", "ref": to_data_uri_b64(data, mime), "mimeType": mime or "image/png"})
            else:
                what = f"image {mime}" if isinstance(mime, str) and mime else "image"
                out.append({"type": "text", "text": f"[{what} not embedded in the session]"})
        else:
            out.append(block)  # thinking, toolCall, …: unknown block types, kept verbatim
    return out


def to_data_uri_b64(b64: str, mime: Any) -> str:
    m = mime if isinstance(mime, str) and mime else "application/octet-stream"
    return f"data:{m};base64,{b64}"


def _pi_node(d: dict[str, Any], agents: dict[str, Any]) -> dict[str, Any] | None:
    t = d.get("type")
    ext: dict[str, Any] = {k: v for k, v in d.items() if k not in ("id", "parentId")}
    meta: dict[str, Any] = {}
    gen: dict[str, Any] = {}
    author: dict[str, Any] = {"role": "system"}
    if t == "message":
        msg = d.get("message") if isinstance(d.get("message"), dict) else {}
        ext["message"] = {k: v for k, v in msg.items() if k != "content"}
        role = msg.get("role")
        blocks = _blocks(msg.get("content"))
        if role == "user":
            author = {"role": "human"}
        elif role == "assistant":
            author = {"role": "model"}
            provider, model = msg.get("provider"), msg.get("model")
            if isinstance(provider, str):
                gen["provider"] = provider
            if isinstance(model, str) and model:
                gen["model"] = model
                ref = f"{provider}:{model}" if isinstance(provider, str) and provider else model
                agents.setdefault(ref, {"name": model, "type": "model", "modelRef": ref})
                author["agentId"] = ref
            usage = msg.get("usage")
            if isinstance(usage, dict):
                u = {dst: usage[src] for src, dst in (("input", "promptTokens"), ("output", "completionTokens"),
                                                      ("totalTokens", "totalTokens"))
                     if isinstance(usage.get(src), (int, float)) and not isinstance(usage.get(src), bool)}
                if u:
                    gen["usage"] = u
        elif role == "bashExecution":
            cmd = msg.get("command") if isinstance(msg.get("command"), str) else ""
            output = msg.get("output") if isinstance(msg.get("output"), str) else ""
            blocks = [{"type": "text", "text": f"$ {cmd}\n{output}" if output else f"$ {cmd}"}]
            if msg.get("excludeFromContext") is True:
                meta["excluded"] = True
        elif role in ("branchSummary", "compactionSummary"):
            s = msg.get("summary")
            blocks = [{"type": "text", "text": s if isinstance(s, str) else ""}]
    elif t == "custom_message":
        ext.pop("content", None)
        blocks = _blocks(d.get("content"))
    elif t in ("compaction", "branch_summary"):
        s = d.get("summary")
        ext.pop("summary", None)
        blocks = [{"type": "text", "text": s if isinstance(s, str) else ""}]
    else:
        return None
    node: dict[str, Any] = {"id": d["id"], "content": blocks, "author": author}
    created = parse_iso(d.get("timestamp"))
    if created is not None:
        node["createdAt"] = iso_ms(created)
    if meta:
        node["meta"] = meta
    if gen:
        node["generation"] = gen
    node["extensions"] = {"pi": ext}
    return node


def _system_prompt(entries: list[dict[str, Any]]) -> str | None:
    for d in entries:
        if d.get("type") == "session_init":
            sp = d.get("systemPrompt")
            if isinstance(sp, list):
                sp = "\n".join(x for x in sp if isinstance(x, str))
            if isinstance(sp, str) and sp:
                return sp
    return None


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


def _safe_name(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", s)[:60] or "media"


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


# the export ----------------------------------------------------------------------------------
def build_document(
    manager: SessionManager, leaf_id: str | None = None, no_system_context: bool = False
) -> tuple[dict[str, Any], list[str]]:
    """The OpenLoom v2 document for ``manager`` (whole, or the branch ending at ``leaf_id``)."""
    idx = manager.index
    src = loom_source(manager)
    notes: list[str] = []
    branch = leaf_id is not None
    if branch:
        if leaf_id not in idx.by_id:
            raise LoomError(f"entry {leaf_id} not found")
        selected = idx.path_to(leaf_id)
    else:
        selected = list(idx.entries)
    loaded = {e.id: manager.load(e) for e in selected}
    node_entries = [e for e in selected if _is_node(loaded[e.id])]
    node_ids = {e.id for e in node_entries}

    def node_parent(e: Entry) -> str | None:
        p = idx.parent_of(e)
        while p is not None and p.id not in node_ids:
            p = idx.parent_of(p)
        return p.id if p is not None else None

    def sort_key(e: Entry) -> tuple[int, int]:
        ol = loaded[e.id].get("openloom")
        if isinstance(ol, dict) and isinstance(ol.get("position"), int):
            return (0, ol["position"])
        return (1, e.index)

    node_entries.sort(key=sort_key)

    # nodes
    pi_agents: dict[str, Any] = {}
    nodes: dict[str, dict[str, Any]] = {}
    for e in node_entries:
        d = loaded[e.id]
        ol = d.get("openloom")
        label = idx.label_of(e.id)
        if isinstance(ol, dict):
            node = copy.deepcopy(ol["node"])
            imported = src.labels.get(e.id) if src is not None else label_of_node(ol["node"])
            if label != imported:
                set_node_label(node, label)
        else:
            made = _pi_node(d, pi_agents)
            if made is None:
                continue
            node = made
            if label:
                set_node_label(node, label)
        nodes[e.id] = node

    # edges
    taken: set[str] = set(nodes)
    for e in node_entries:
        ol = loaded[e.id].get("openloom")
        if isinstance(ol, dict):
            for rec in ol.get("edges", []):
                eid = rec["edge"].get("id") if isinstance(rec.get("edge"), dict) else None
                if isinstance(eid, str):
                    taken.add(eid)
    positions: dict[str, int] | None = None
    keyed: list[tuple[tuple[int, int], dict[str, Any]]] = []
    repairs: list[dict[str, Any]] = []
    parent_of: dict[str, str | None] = {}
    for e in node_entries:
        nid = e.id
        parent = node_parent(e)
        parent_of[nid] = parent
        ol = loaded[nid].get("openloom")
        has_parent_edge = False
        if isinstance(ol, dict):
            for rec in ol.get("edges", []):
                status, edge = rec.get("status"), rec.get("edge")
                if status == "parent" and parent is not None:
                    kept = _filter_sources(edge, node_ids)
                    if kept is not None:
                        keyed.append(((0, rec["index"]), kept))
                        has_parent_edge = True
                elif status == "annotation":
                    kept = _filter_sources(edge, node_ids)
                    if kept is not None:
                        keyed.append(((0, rec["index"]), kept))
                elif status in ("extra", "cycle", "orphan") and not branch:
                    repairs.append({"index": rec["index"], "edge": edge, "reason": status})
        if parent is not None and not has_parent_edge:
            if positions is None:
                positions = _dfs_positions(manager)
            eid = unique_id(f"e-{nid}", taken)
            taken.add(eid)
            keyed.append(((1, positions.get(nid, 0)),
                          {"id": eid, "type": "continuation", "sources": [{"nodeId": parent, "role": "primary"}],
                           "targetNodeId": nid}))
    keyed.sort(key=lambda kv: kv[0])
    edges = [edge for _k, edge in keyed]

    roots = [nid for nid in nodes if parent_of.get(nid) is None]
    if src is not None and not branch and src.root_ids is not None and sorted(src.root_ids) == sorted(roots):
        roots = list(src.root_ids)

    leaf = leaf_id if branch else manager.get_leaf_id()
    current: str | None = None
    for e in reversed(idx.path_to(leaf)):
        if e.id in nodes:
            current = e.id
            break

    # references: editedFrom, tags, agents
    for node in nodes.values():
        ef = node.get("editedFrom")
        if ef is not None and ef not in nodes:
            node.pop("editedFrom")
            ext = node.setdefault("extensions", {})
            if isinstance(ext, dict):
                ext.setdefault("loomtui", {})["editedFrom"] = ef

    if src is not None:
        tree, container, other_trees = _tree_from_source(src, branch, nodes, edges, roots, current, leaf_id)
        if repairs or (src.repairs and not branch):
            ext = tree.setdefault("extensions", {})
            if isinstance(ext, dict):
                ext = tree["extensions"] = dict(ext)
                lt = dict(ext.get("loomtui") or {})
                lt["repairs"] = sorted(src.repairs + repairs, key=lambda r: r.get("index", 0))
                ext["loomtui"] = lt
                notes.append(f"{len(lt['repairs'])} edge(s) the tree could not use are kept in "
                             "extensions.loomtui.repairs")
    else:
        tree = _tree_from_pi(manager, branch, nodes, edges, roots, current, leaf_id, pi_agents,
                             [loaded[e.id] for e in selected])
        container, other_trees = None, []

    # every tag and agent referenced resolves
    used_tags = _tags_used(nodes)
    defined = {t.get("name") for t in tree.get("tags", []) if isinstance(t, dict)} if isinstance(
        tree.get("tags"), list) else set()
    missing_tags = [t for t in used_tags if t not in defined]
    if missing_tags:
        tree["tags"] = list(tree.get("tags") or []) + [{"name": t} for t in missing_tags]
    registry: dict[str, Any] = {}
    for where in (container or {}, tree):
        if isinstance(where.get("agents"), dict):
            registry.update(where["agents"])
    missing_agents = [a for a in _agents_used(nodes) if a not in registry]
    if missing_agents:
        agents = dict(tree.get("agents") or {})
        for aid in missing_agents:
            author = next(n["author"] for n in nodes.values()
                          if isinstance(n.get("author"), dict) and n["author"].get("agentId") == aid)
            name = author.get("name") if isinstance(author.get("name"), str) else aid
            agents[aid] = {"name": name, "type": "human" if author.get("role") == "human" else "model"}
        tree["agents"] = agents

    if no_system_context:
        tree = _strip_tree(tree)
        other_trees = [_strip_tree(t) for t in other_trees]
        if container is not None and "agents" in container:
            container["agents"] = _strip_system_prompts(container["agents"])

    if container is None:
        container = {"format": "open-loom", "version": "2.0", "exportedAt": now_iso(), "generator": dict(GENERATOR),
                     "trees": None}
    doc = {}
    for k, v in container.items():
        doc[k] = v
    if src is not None and src.container is not None and not branch:
        trees = list(other_trees)
        trees[src.tree_index] = tree
        doc["trees"] = trees
    else:
        doc["trees"] = [tree]
    return doc, notes


def _tree_from_source(
    src: LoomSource,
    branch: bool,
    nodes: dict[str, dict[str, Any]],
    edges: list[dict[str, Any]],
    roots: list[str],
    current: str | None,
    leaf_id: str | None,
) -> tuple[dict[str, Any], dict[str, Any] | None, list[Any]]:
    tree: dict[str, Any] = {}
    for k, v in src.tree.items():
        if k == "nodes":
            tree[k] = nodes
        elif k == "edges":
            tree[k] = edges
        elif k == "rootNodeIds":
            tree[k] = roots
        elif k == "currentNodeId":
            if current is not None:
                tree[k] = current
        elif k == "updatedAt":
            tree[k] = now_iso()
        else:
            tree[k] = v
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
    return tree, container, other_trees


def _tree_from_pi(
    manager: SessionManager,
    branch: bool,
    nodes: dict[str, dict[str, Any]],
    edges: list[dict[str, Any]],
    roots: list[str],
    current: str | None,
    leaf_id: str | None,
    agents: dict[str, Any],
    entries: list[dict[str, Any]],
) -> dict[str, Any]:
    header = manager.get_header()
    sid = header.get("id") if isinstance(header.get("id"), str) and header.get("id") else None
    name = manager.get_session_name() or (header.get("title") if isinstance(header.get("title"), str) else "")
    tree: dict[str, Any] = {"id": new_ulid() if branch or sid is None else sid, "title": name or "", "mode": "dialogue"}
    sp = _system_prompt(entries)
    if sp:
        tree["systemContext"] = sp
    tree["rootNodeIds"] = roots
    if current is not None:
        tree["currentNodeId"] = current
    created = parse_iso(header.get("timestamp"))
    if created is not None:
        tree["createdAt"] = iso_ms(created)
    tree["updatedAt"] = now_iso()
    tree["nodes"] = nodes
    tree["edges"] = edges
    if agents:
        tree["agents"] = agents
    ext: dict[str, Any] = {"pi": {"header": header}}
    if branch:
        ext["loomtui"] = {"source": {"sessionId": sid, "path": manager.path, "nodeId": leaf_id}}
    tree["extensions"] = ext
    return tree


def _media(doc: dict[str, Any], src: LoomSource | None, bundle: bool, full: bool,
           notes: list[str]) -> dict[str, bytes | None]:
    """Move or inline media so every ref resolves; returns the bundle members to write (None:
    copied from the source bundle while the export is written, streamed)."""
    members: dict[str, bytes | None] = {}
    inline: list[tuple[str, int, dict[str, Any]]] = []
    total = 0
    tree_list = doc.get("trees") if isinstance(doc.get("trees"), list) else []
    from_bundle = src is not None and src.is_bundle and src.path is not None
    for tree in tree_list:
        if not isinstance(tree, dict) or not isinstance(tree.get("nodes"), dict):
            continue
        for nid, node in tree["nodes"].items():
            content = node.get("content") if isinstance(node, dict) else None
            if not isinstance(content, list):
                continue
            for i, block in enumerate(content):
                if not isinstance(block, dict) or block.get("type") not in ("image", "audio"):
                    continue
                ref = block.get("ref")
                uri = parse_data_uri(ref)
                if uri is not None:
                    total += uri.size
                    inline.append((nid, i, block))
                    continue
                member = bundle_path(ref)
                if from_bundle and member is not None and src is not None and src.bundle_members is not None \
                        and member in src.bundle_members and src.path is not None:
                    if bundle:
                        members[member] = None
                    else:
                        data = read_member(src.path, member)
                        content[i] = block = dict(block)
                        block["ref"] = to_data_uri(data, block.get("mimeType"))
                        total += len(data)
                else:
                    notes.append(f"node {nid}: {block.get('type')} ref {str(ref)[:60]!r} does not resolve; kept as is")
    if bundle and from_bundle and full and src is not None and src.path is not None and src.bundle_members:
        for name in src.bundle_members:
            if name != src.bundle_member and name not in members:
                members[name] = None
    if bundle and total > BUNDLE_THRESHOLD:
        taken = set(members) | {"tree.openloom"}
        for nid, i, block in inline:
            uri = parse_data_uri(block.get("ref"))
            assert uri is not None
            name = unique_id(f"{_safe_name(nid)}-{i}.{extension_for(block.get('mimeType') or uri.mime)}", taken)
            taken.add(name)
            members[name] = uri.decode()
            block["ref"] = name
    elif not bundle and total > BUNDLE_THRESHOLD:
        notes.append(f"embedded media is {total / (1 << 20):.1f} MB; an output name ending in .zip writes an "
                     "OpenLoom bundle instead")
    return members


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
    members = _media(doc, src, bundle, leaf_id is None, notes)
    data = dump_json(doc)
    if bundle:
        write_bundle(out, data, members, src.path if src is not None else None, _STORED)
    else:
        write_new_file(out, data)
    tree = doc["trees"][src.tree_index if src is not None and src.container is not None and leaf_id is None else 0]
    return ExportResult(out, len(tree.get("nodes") or {}), len(tree.get("edges") or []), len(members), bundle, notes)
