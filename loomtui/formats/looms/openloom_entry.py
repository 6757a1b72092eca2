"""One OpenLoom v2 node as one pi-style entry (docs/formats.md, "OpenLoom").

The tree reader in ``formats/looms/openloom.py`` validates the graph; this module maps what a single
node holds: the author's role to a message or custom message, the content blocks (media and
unknown blocks become text placeholders), the model and usage of a generation, and the node's
own fields the ``openloom`` record carries for the detail pane (author, tags, rating, …).
"""

from __future__ import annotations

from typing import Any

from loomtui.formats.base.common import DEFAULT_LABEL, SOCKETTEER, epoch_ms, parse_iso
from loomtui.formats.looms.media import describe_ref
from loomtui.formats.looms.pi_nodes import restore
from loomtui.session.entries import content_text
from loomtui.session.errors import Diagnostic

ROLE_TO_PI = {"human": "user", "model": "assistant", "mixed": "assistant"}
#: node ``meta`` fields copied to the entry's ``openloom`` record as they are
META_KEPT = ("tags", "rating", "note")
#: node ``meta`` flags copied when true
META_FLAGS = ("pruned", "excluded")
_MEDIA_FIELDS = ("mimeType", "width", "height", "altText", "durationMs", "transcript")
#: where, under a node's ``extensions.loomtui``, the time of its bookmark is kept
BOOKMARK = "bookmark"
_USAGE = (("promptTokens", "input"), ("completionTokens", "output"), ("totalTokens", "totalTokens"))


class NodeMapper:
    """What every node of one tree is mapped with: the format, the agent registry, the bundle's
    members and their first bytes (None outside a bundle), and the diagnostics list."""

    __slots__ = ("agents", "diag", "fmt", "heads", "members")

    def __init__(
        self,
        fmt: str,
        agents: dict[str, Any],
        members: dict[str, int] | None,
        heads: dict[str, bytes] | None,
        diag: list[Diagnostic],
    ) -> None:
        self.fmt = fmt
        self.agents = agents
        self.members = members
        self.heads = heads
        self.diag = diag

    def note(self, reason: str) -> None:
        self.diag.append(Diagnostic(0, reason))

    # the entry ----------------------------------------------------------------------------------
    def entry(
        self, node: dict[str, Any], nid: str, parent: str | None, ts: str
    ) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        """``(entry, author, meta)``: the entry without its ``openloom`` record, and the node's
        author and meta objects (empty when missing or not objects)."""
        author = node.get("author")
        if not isinstance(author, dict):
            if self.fmt != SOCKETTEER:  # socketteer's nodes without a source have none
                self.note(f"node {nid} has no author; shown as [node]")
            author = {}
        meta = node.get("meta")
        if not isinstance(meta, dict):
            meta = {}
        restored = restore(node)
        if restored is not None:  # a node of loomtui's export of a pi session, as it was
            return self.restored_entry(restored, node, nid, parent, ts), author, meta
        content = self.content(node, nid)
        entry: dict[str, Any] = {"type": "message", "id": nid, "parentId": parent, "timestamp": ts}
        role = author.get("role")
        pi_role = ROLE_TO_PI.get(role) if isinstance(role, str) else None
        if pi_role is None:
            entry["type"] = "custom_message"
            entry["customType"] = role if isinstance(role, str) and role else "node"
            entry["content"] = content
            entry["display"] = True
        else:
            msg: dict[str, Any] = {"role": pi_role, "content": content}
            if pi_role == "assistant":
                gen = node.get("generation")
                self.assistant_fields(msg, author, gen if isinstance(gen, dict) else {}, content)
            created = parse_iso(node.get("createdAt"))
            if created is not None:
                msg["timestamp"] = epoch_ms(created)
            entry["message"] = msg
        return entry, author, meta

    @staticmethod
    def restored_entry(
        pi: dict[str, Any], node: dict[str, Any], nid: str, parent: str | None, ts: str
    ) -> dict[str, Any]:
        """The pi entry a node stands for, at the node's place in the tree; a message's own time
        is the node's ``createdAt`` (the entry's timestamp only orders the nodes)."""
        entry: dict[str, Any] = {"type": pi["type"], "id": nid, "parentId": parent, "timestamp": ts}
        entry.update((k, v) for k, v in pi.items() if k != "type")
        created = parse_iso(node.get("createdAt"))
        if created is not None and isinstance(entry.get("message"), dict):
            entry["message"]["timestamp"] = epoch_ms(created)
        return entry

    def assistant_fields(
        self, msg: dict[str, Any], author: dict[str, Any], gen: dict[str, Any], content: list[dict[str, Any]]
    ) -> None:
        provider, model = model_of(author, gen, self.agents)
        if provider is not None:
            msg["provider"] = provider
        if model is not None:
            msg["model"] = model
        usage = usage_of(gen)
        if usage:
            msg["usage"] = usage
        # pi hides text-less assistant rows whose stopReason is stop/missing; a loom
        # node is never a tool-only step, so an empty one keeps a visible reason
        msg["stopReason"] = "stop" if content_text(content, None).strip() else "empty"
        if author.get("role") == "mixed":
            msg["humanEdited"] = True

    def shown_author(self, nid: str, author: dict[str, Any]) -> dict[str, Any]:
        """The author as the detail pane shows it: role, agent id, the agent, a name."""
        shown: dict[str, Any] = {"role": author.get("role")}
        agent_id = author.get("agentId")
        agent = None
        if agent_id is not None:
            shown["agentId"] = agent_id
            agent = self.agents.get(agent_id) if isinstance(agent_id, str) else None
            if isinstance(agent, dict):
                shown["agent"] = agent
            else:
                agent = None
                self.note(f"node {nid}: author agentId {agent_id!r} is not in the agent registry")
        name = author.get("name")
        if not isinstance(name, str) and agent is not None:
            name = agent.get("name")
        if isinstance(name, str):
            shown["name"] = name
        return shown

    # content ------------------------------------------------------------------------------------
    def content(self, node: dict[str, Any], nid: str) -> list[dict[str, Any]]:
        content = node.get("content")
        if isinstance(content, str):
            return [{"type": "text", "text": content}]
        if not isinstance(content, list):
            if content is not None:
                self.note(f"node {nid}: content is not a list; shown empty")
            return []
        out: list[dict[str, Any]] = []
        placeholders = False
        for i, block in enumerate(content):
            if isinstance(block, dict) and block.get("type") == "text":
                t = block.get("text")
                out.append({"type": "text", "text": t if isinstance(t, str) else ("" if t is None else str(t))})
            else:
                out.append(self.placeholder(block, i, nid))
                placeholders = True
        if placeholders:
            _space_placeholders(out)
        return out

    def placeholder(self, block: Any, i: int, nid: str) -> dict[str, Any]:
        """A text block standing for a media or unknown block in the tree row."""
        if not isinstance(block, dict):
            return {"type": "text", "text": "[invalid block]", "loomPlaceholder": {"blockType": None, "index": i}}
        btype = block.get("type")
        info: dict[str, Any] = {"blockType": btype, "index": i}
        if btype in ("image", "audio"):
            text = self.media_placeholder(block, btype, info, nid)
        else:
            text = f"[{btype} block]" if isinstance(btype, str) and btype else "[block]"
        return {"type": "text", "text": text, "loomPlaceholder": info}

    def media_placeholder(self, block: dict[str, Any], btype: str, info: dict[str, Any], nid: str) -> str:
        """Fills ``info`` with what is known of an image or audio block; returns its row text."""
        for k in _MEDIA_FIELDS:
            if k in block:
                info[k] = block[k]
        media = describe_ref(block, self.members, self.heads)
        info["source"] = media.source
        if media.size is not None:
            info["bytes"] = media.size
        if media.member is not None:
            info["member"] = media.member
        ref = block.get("ref")
        if media.source == "missing":
            where = "the bundle" if self.members is not None else "a bundle (this file is not one)"
            self.note(f"node {nid}: {btype} ref {ref!r} is not in {where}; shown as a placeholder")
        elif media.source == "invalid":
            self.note(f"node {nid}: {btype} ref {str(ref)[:60]!r} is neither a data: URI nor a relative bundle path")
        if media.mismatch:
            info["sniffedType"] = media.mismatch
            self.note(
                f"node {nid}: {btype} declared {block.get('mimeType')!r} but its bytes look like {media.mismatch}"
            )
        words = block.get("altText") if btype == "image" else block.get("transcript")
        if isinstance(words, str) and words.strip():
            return f"[{btype}: {words.strip()}]"
        mime = block.get("mimeType")
        return f"[{btype} {mime}]" if isinstance(mime, str) and mime else f"[{btype}]"


def _space_placeholders(out: list[dict[str, Any]]) -> None:
    """pi joins text blocks without a separator: keep placeholders apart from their neighbours."""
    last = len(out) - 1
    for i, block in enumerate(out):
        if "loomPlaceholder" in block:
            block["text"] = (" " if i > 0 else "") + block["text"] + (" " if i < last else "")


def node_fields(ol: dict[str, Any], node: dict[str, Any], meta: dict[str, Any]) -> None:
    """Copies the node's own fields the detail pane shows into its ``openloom`` record."""
    for key in META_KEPT:
        if key in meta:
            ol[key] = meta[key]
    for key in META_FLAGS:
        if meta.get(key) is True:
            ol[key] = True
    if isinstance(node.get("createdAt"), str):
        ol["createdAt"] = node["createdAt"]
    if "editedFrom" in node:
        ol["editedFrom"] = node["editedFrom"]


def usage_of(gen: dict[str, Any]) -> dict[str, Any] | None:
    """A generation's token usage in pi's names (None when it has none)."""
    u = gen.get("usage")
    if not isinstance(u, dict):
        return None
    out: dict[str, Any] = {}
    for src, dst in _USAGE:
        v = u.get(src)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            out[dst] = v
    return out or None


def model_of(author: dict[str, Any], gen: dict[str, Any], agents: dict[str, Any]) -> tuple[Any, Any]:
    """The provider and model of a generation, completed from the author agent's ``modelRef``."""
    provider = gen.get("provider")
    model = gen.get("model")
    if provider is not None and model is not None:
        return provider, model
    agent_id = author.get("agentId")
    agent = agents.get(agent_id) if isinstance(agent_id, str) else None
    ref = agent.get("modelRef") if isinstance(agent, dict) else None
    if not isinstance(ref, str):
        return provider, model
    p, sep, m = ref.partition(":")
    if sep:
        return (provider if provider is not None else p), (model if model is not None else m)
    return provider, (ref if model is None else model)


def label_of_node(node: dict[str, Any]) -> str | None:
    """The label a node's bookmark shows as (None when not bookmarked)."""
    meta = node.get("meta")
    if not isinstance(meta, dict) or meta.get("bookmarked") is not True:
        return None
    text = meta.get("bookmarkLabel")
    return text.strip() if isinstance(text, str) and text.strip() else DEFAULT_LABEL


def bookmark_time(node: dict[str, Any], label: str) -> str | None:
    """When the node's bookmark ``label`` was set, as loomtui's export wrote it down
    (``extensions.loomtui.bookmark``); None when it did not, or the bookmark changed since."""
    ext = node.get("extensions")
    lt = ext.get("loomtui") if isinstance(ext, dict) else None
    rec = lt.get(BOOKMARK) if isinstance(lt, dict) else None
    if not isinstance(rec, dict) or rec.get("label") != label:
        return None
    ts = rec.get("timestamp")
    return ts if isinstance(ts, str) and parse_iso(ts) is not None else None


def _set_bookmark_time(node: dict[str, Any], label: str | None, ts: str | None) -> None:
    ext = node.get("extensions")
    lt = ext.get("loomtui") if isinstance(ext, dict) else None
    if label and ts:
        ext = node["extensions"] = dict(ext) if isinstance(ext, dict) else {}
        lt = ext["loomtui"] = dict(lt) if isinstance(lt, dict) else {}
        lt[BOOKMARK] = {"label": label, "timestamp": ts}
    elif isinstance(ext, dict) and isinstance(lt, dict) and BOOKMARK in lt:  # the time of another bookmark
        rest = {k: v for k, v in lt.items() if k != BOOKMARK}
        node["extensions"] = {k: v for k, v in ext.items() if k != "loomtui" or rest}
        if rest:
            node["extensions"]["loomtui"] = rest


def set_node_label(node: dict[str, Any], label: str | None, ts: str | None = None) -> None:
    """Write ``label`` into a v2 node's ``meta`` as bookmark (None/empty clears it); ``ts``:
    when it was set, kept in ``extensions.loomtui.bookmark`` (None: not known, none kept)."""
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
    _set_bookmark_time(node, label_of_node(node), ts if isinstance(ts, str) and ts else None)
