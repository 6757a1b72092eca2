"""Open a socketteer loom with one small skeleton per node (docs/architecture.md, "Reading").

``socketteer.to_tree`` converts a whole document into an OpenLoom v2 Tree, and the OpenLoom
reader turns every node of it into a full entry: for a loom of a million short nodes that is
several KB a node (a v2 node, an edge, its record, the entry and its ``openloom`` record).
Here each node keeps only what the tree, the filters and search need — an :class:`LoomNodeEntry`
holding the node of the parsed document, its position and the skeleton fields — and its full
entry is made from the node when something asks for it (detail pane, exports, bookmark saves),
by the same per-node mapping, so it is the entry the whole-tree conversion would have made.
The few full entries made lately are kept (a detail pane asks for one again and again).

A socketteer tree needs none of the OpenLoom reader's repairs: it is nested, so every node but
the root has exactly one parent, ids are made unique by ``socketteer.iter_nodes``, and the
edge into a node is the ``position - 1``-th edge of the converted tree.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from loomtui.formats.base.common import (
    DOCUMENT_REPAIRS,
    LOOM_LEAF_RULE,
    SOCKETTEER,
    LoomSource,
    order_time,
    socketteer_uuid,
    unique_id,
)
from loomtui.formats.looms.bookmarks import SAVER
from loomtui.formats.looms.openloom_entry import ROLE_TO_PI, NodeMapper, node_fields, set_node_label
from loomtui.formats.looms.socketteer import (
    SAME_DIAGNOSTICS,
    SOURCE_TO_ROLE,
    _Context,
    _extra,
    _MissingIds,
    _node,
    _tags,
    _tree,
    node_id,
    root_of,
    socketteer_label,
)
from loomtui.formats.looms.words import SOCKETTEER_WORDS
from loomtui.session.entries import LINE_AT, Entry, _fill_assistant_blocks, content_text, has_text_content
from loomtui.session.errors import Diagnostic
from loomtui.session.manager import SessionManager
from loomtui.session.source import Source

#: full entries kept after they were made (the detail pane and search ask for a few, often)
KEPT_ENTRIES = 256

_DATA: Any = Entry.__dict__["data"]  # the fields LoomNodeEntry's properties stand in front of
_TIMESTAMP: Any = Entry.__dict__["timestamp"]
#: the keys of a node that has only text and children (``_Reading.read`` takes a short way)
_PLAIN_KEYS = frozenset(("text", "children"))


class LoomNodeEntry(Entry, gc=True):
    """The skeleton of one socketteer node: the node itself (in the parsed document), its
    pre-order position and the loom it belongs to; ``data`` is made from them when read, and
    ``timestamp`` (the ordering key ``order_time(position)``) when asked. Made by ``node_entry``;
    tracked by the collector, unlike ``Entry`` (the loom refers to its entries)."""

    node: Any = None
    pos: int = 0
    loom: Any = None

    @property  # type: ignore[override]
    def data(self) -> dict[str, Any] | None:
        kept = _DATA.__get__(self, LoomNodeEntry)
        return kept if kept is not None else self.loom.entry(self)

    @data.setter
    def data(self, value: dict[str, Any] | None) -> None:
        _DATA.__set__(self, value)

    @property  # type: ignore[override]
    def timestamp(self) -> Any:
        ts = _TIMESTAMP.__get__(self, LoomNodeEntry)
        return ts if ts is not None else order_time(self.pos)

    @timestamp.setter
    def timestamp(self, value: Any) -> None:
        _TIMESTAMP.__set__(self, value)


def node_entry(
    entry_id: str,
    parent_id: str | None,
    etype: str,
    aux: Any,
    text: str | None,
    hidden: str | None,
    node: dict[str, Any],
    pos: int,
    loom: LoomNodes,
) -> LoomNodeEntry:
    """A node's skeleton, every field given at once (a loom can make a million of these): no
    role, timestamp or span (line 0, offset -1, size 0: ``entries.span``)."""
    return LoomNodeEntry(
        entry_id,
        parent_id,
        etype,
        None,
        None,
        -1,
        0,
        text,
        aux,
        False,
        None,
        None,
        None,
        False,
        hidden,
        None,
        node,
        pos,
        loom,
    )


class LoomNodes:
    """What every node's full entry is made with: the document's context (tag registry,
    responses, chapters), the bundle's members, the source (bookmarks saved since the file was
    read), the edge ids that are not ``e-<id>``, and the entries made lately."""

    def __init__(self, ctx: _Context, members: dict[str, int] | None, heads: dict[str, bytes] | None) -> None:
        self.ctx = ctx
        self.members = members
        self.heads = heads
        self.source: LoomSource | None = None
        #: node id -> the id of the edge into it, where it is not ``e-<id>`` (ids that collide)
        self.edge_ids: dict[str, str] = {}
        self._kept: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def entry(self, e: LoomNodeEntry) -> dict[str, Any]:
        with self._lock:
            hit = self._kept.get(e.id)
        if hit is not None:
            return hit
        made = self.make(e)
        with self._lock:
            hit = self._kept.setdefault(e.id, made)  # two threads: both get the first one kept
            while len(self._kept) > KEPT_ENTRIES:
                del self._kept[next(iter(self._kept))]
        return hit

    def make(self, e: LoomNodeEntry) -> dict[str, Any]:
        """The node's full entry, as ``openloom.build_session`` makes it from ``to_tree``."""
        n, nid, pos, parent = e.node, e.id, e.pos, e.parent_id
        ctx = self.ctx
        node = _node(nid, n, n.get("id"), _tags(n), ctx)
        if self.source is not None:
            for label in self.source.saved_labels.get(nid, ()):
                set_node_label(node, label)  # what a bookmark save did to the node it held
        mapper = NodeMapper(SOCKETTEER, {}, self.members, self.heads, [])
        entry, author, meta = mapper.entry(node, nid, parent, order_time(pos))
        edges: list[dict[str, Any]] = []
        if parent is not None:
            edge = {
                "id": self.edge_ids.get(nid, f"e-{nid}"),
                "type": "continuation",
                "sources": [{"nodeId": parent, "role": "primary"}],
                "targetNodeId": nid,
            }
            edges.append({"index": pos - 1, "edge": edge, "status": "parent"})
        ol: dict[str, Any] = {
            "format": SOCKETTEER,
            "node": node,
            "position": pos,
            "edges": edges,
            "parentEdge": pos - 1 if parent is not None else None,
        }
        ol["author"] = mapper.shown_author(nid, author)
        node_fields(ol, node, meta)
        extra = _extra(nid, n, ctx)
        if extra:
            ol["socketteer"] = extra
        entry["openloom"] = ol
        if e.hidden:
            entry["hidden"] = e.hidden
        if meta.get("excluded") is True:
            entry["excluded"] = True
        return entry


def _skeleton(
    nid: str, n: dict[str, Any], parent: str | None, pos: int, hidden: str | None, loom: LoomNodes
) -> LoomNodeEntry:
    """What ``entry_from_dict`` keeps of the node's entry (the fields ``entries.fill`` sets,
    by the functions it uses), without making the entry."""
    text = n.get("text")
    if not isinstance(text, str):
        text = ""
    meta = n.get("meta")
    source = meta.get("source") if isinstance(meta, dict) else None
    role = SOURCE_TO_ROLE.get(source, source) if isinstance(source, str) and source else None
    pi_role = ROLE_TO_PI.get(role) if role is not None else None
    if pi_role is None:
        # a custom message keeps all its text (pi searches all of it)
        return node_entry(nid, parent, "custom_message", role or "node", text, hidden or None, n, pos, loom)
    e = node_entry(nid, parent, "message", None, None, hidden or None, n, pos, loom)
    e.role = pi_role
    content = [{"type": "text", "text": text}]
    if pi_role == "assistant":
        _fill_assistant_blocks(e, content)
        e.stop_reason = "stop" if text.strip() else "empty"
    else:
        e.text = content_text(content)
        e.has_text = has_text_content(content)
    return e


def _edge_ids(ids: list[str]) -> dict[str, str]:
    """The ids ``to_tree`` gives edges that are not ``e-<node id>``: only when a node id starts
    with ``e-`` can one collide (then every edge id is worked out as ``to_tree`` does)."""
    taken = set(ids)
    odd: dict[str, str] = {}
    for nid in ids[1:]:  # the root has no edge into it
        eid = unique_id(f"e-{nid}", taken)
        taken.add(eid)
        if eid != f"e-{nid}":
            odd[nid] = eid
    return odd


class _Reading:
    """The skeletons of one document as ``iter_nodes`` walks it, and what the walk gathers on
    the way: tags used, labels, the end of the first branch, whether edge ids can collide."""

    def __init__(self, loom: LoomNodes) -> None:
        self.loom = loom
        self.skeletons: list[LoomNodeEntry] = []
        self.used_tags: dict[str, None] = {}  # insertion-ordered set
        self.labels: dict[str, str] = {}
        self.first_branch_end = 0  # the leaf when the file names none: the end of the first branch
        self.on_first_branch = True
        self.collide = False

    def read(self, doc: Any, diag: list[Diagnostic]) -> None:
        """``iter_nodes`` and ``add`` in one loop: the same nodes, ids, skeletons and
        diagnostics in the same order, without a generator step and a record per node (a
        chain of a million nodes spends most of its opening here). A node of only ``text``
        and ``children`` (the usual node of a deep chain) takes a short way, inline: no id, no
        tags, no meta, so no label, no role, and hidden only below a pruned node; any other
        node is read by ``_named``."""
        root, shape = root_of(doc)
        if root is None:
            return
        loom = self.loom
        skeletons = self.skeletons
        append = skeletons.append
        seen: set[str] = set()
        see = seen.add
        missing = _MissingIds(None if shape == "list" else diag, diag)
        stack: list[tuple[dict[str, Any], str | None, int, str | None]] = [(root, None, 0, None)]
        push, pop = stack.append, stack.pop
        plain_keys = _PLAIN_KEYS
        make_uuid = socketteer_uuid
        named = self._named
        last_id: str | None = None  # the id of the node read before (the first branch follows it)
        on_first_branch = True
        quiet_missing = False
        unnamed = 0
        while stack:
            n, parent, i, parent_hidden = pop()
            pos = len(skeletons)
            if n.keys() <= plain_keys:
                nid = make_uuid(f"node:{parent}:{i}")
                if quiet_missing and parent is not None:
                    unnamed += 1  # past the diagnostics kept one by one: only counted
                else:
                    missing.add(parent, i, nid)
                    quiet_missing = missing.count >= SAME_DIAGNOSTICS
                hidden = "pruned-branch" if parent_hidden is not None else None
                text = n.get("text")
                e = node_entry(
                    nid, parent, "custom_message", "node", text if isinstance(text, str) else "", hidden, n, pos, loom
                )
            else:
                e = named(n, parent, i, parent_hidden, pos, seen, missing, diag)
                nid = e.id
                hidden = e.hidden
            see(nid)
            if on_first_branch and pos:
                if parent == last_id:
                    self.first_branch_end = pos
                else:
                    on_first_branch = False
            last_id = nid
            append(e)
            kids = n.get("children")
            if kids is None:
                continue
            if not isinstance(kids, list):
                diag.append(Diagnostic(0, f"node {nid}: children is not a list; ignored"))
                continue
            mark = hidden
            for k in range(len(kids) - 1, -1, -1):
                child = kids[k]
                if isinstance(child, dict):
                    push((child, nid, k, mark))
                else:
                    diag.append(Diagnostic(0, f"node {nid}: child #{k} is not an object; ignored"))
        missing.count += unnamed
        missing.done()
        self.on_first_branch = on_first_branch

    def _named(
        self,
        n: dict[str, Any],
        parent: str | None,
        i: int,
        parent_hidden: str | None,
        pos: int,
        seen: set[str],
        missing: _MissingIds,
        diag: list[Diagnostic],
    ) -> LoomNodeEntry:
        """The skeleton of a node with more than text and children: its own id (or one made for
        it, a repeated one replaced), its tags, label and whether it is pruned."""
        raw = n.get("id")
        # the usual id inline (a loop over every node); any other by the one rule
        nid = raw if type(raw) is str and raw and raw not in seen else node_id(raw, parent, i, seen, missing, diag)
        tags = _tags(n)
        if tags:
            self.used_tags.update(dict.fromkeys(tags))
        pruned = "archived" in tags or bool(self.loom.ctx.hiding.intersection(tags))
        hidden = "pruned" if pruned else ("pruned-branch" if parent_hidden is not None else None)
        label = socketteer_label(n, tags)
        if label is not None:
            self.labels[nid] = label
        if nid.startswith("e-"):
            self.collide = True
        return _skeleton(nid, n, parent, pos, hidden, self.loom)


def open_socketteer(
    doc: Any,
    name: str,
    *,
    path: str | None,
    sha: str | None,
    bundle_members: dict[str, int] | None,
    bundle_heads: dict[str, bytes] | None,
    diag: list[Diagnostic],
) -> SessionManager:
    """A socketteer document as a session, one skeleton per node (the module doc)."""
    _root, shape = root_of(doc)
    top = doc if isinstance(doc, dict) and shape == "root" else {}
    ctx = _Context(top)
    loom = LoomNodes(ctx, bundle_members, bundle_heads)
    reading = _Reading(loom)
    reading.read(doc, diag)
    skeletons = reading.skeletons
    ids = [e.id for e in skeletons]
    if reading.collide:
        loom.edge_ids = _edge_ids(ids)
    root_id = ids[0] if ids else None
    tree = _tree(top, shape, name, root_id, None, None, list(reading.used_tags), ctx)  # type: ignore[arg-type]
    leaf = _leaf(tree.get("currentNodeId"), skeletons, reading.first_branch_end, diag)
    ordered: list[Entry] = [e for e in skeletons if e is not leaf]
    if leaf is not None:
        ordered.append(leaf)
    for line, e in enumerate(ordered, start=1):
        e.span = line << LINE_AT  # the line number; offset -1, size 0 (``entries.span``)
    return _session(tree, name, ordered, ids, leaf, reading.labels, loom, path, sha, bundle_members, diag)


def _leaf(
    current: Any, skeletons: list[LoomNodeEntry], first_branch_end: int, diag: list[Diagnostic]
) -> LoomNodeEntry | None:
    """The node the file selects, else the end of the first branch (as the OpenLoom reader picks)."""
    if isinstance(current, str):
        for e in skeletons:
            if e.id == current:
                return e
    if current is not None:
        diag.append(Diagnostic(0, f"currentNodeId {current!r} is not a node; the leaf is the end of the first branch"))
    return skeletons[first_branch_end] if skeletons else None


def _session(
    tree: dict[str, Any],
    name: str,
    ordered: list[Entry],
    ids: list[str],
    leaf: Entry | None,
    labels: dict[str, str],
    loom: LoomNodes,
    path: str | None,
    sha: str | None,
    bundle_members: dict[str, int] | None,
    diag: list[Diagnostic],
) -> SessionManager:
    """The manager around the skeletons, with the source ``openloom.build_session`` gives a loom."""
    tree_id = tree["id"]
    header: dict[str, Any] = {
        "type": "session",
        "version": 3,
        "id": tree_id,
        "timestamp": None,
        "cwd": "",
        "loom": {
            "format": SOCKETTEER,
            "title": name,
            "mode": "buffer",
            "nodes": len(ids),
            "trees": 1,
            "treeIndex": 0,
            "bundle": bundle_members is not None,
        },
    }
    origin = os.path.abspath(path) if path else None
    src = LoomSource(
        format=SOCKETTEER,
        path=origin,
        sha256=sha,
        tree=tree,
        tree_ids=[tree_id],
        mode="buffer",
        agents={},
        labels=labels,
        node_ids=ids,
        leaf=leaf.id if leaf is not None else None,
        root_ids=list(tree["rootNodeIds"]) or None,
        bundle_members=bundle_members,
    )
    loom.source = src
    source = Source(
        SOCKETTEER,
        origin,
        labels="memory",
        saver=SAVER,
        document=src,
        name="socketteer loom",
        keeps_times=False,
        keeps_usage=False,
        leaf_rule=LOOM_LEAF_RULE,
        diagnostics_are=DOCUMENT_REPAIRS,
        export_note="the path from the root to this node, as pi session entries",
        entry_words=SOCKETTEER_WORDS,
    )
    return SessionManager.from_skeletons(header, ordered, diag, labels=labels, source=source, session_name=name)
