"""pi session entries as OpenLoom v2 nodes, for ``looms/export.py`` (docs/formats.md, "OpenLoom").

user → ``human``, assistant → ``model`` (an agent per provider/model, usage as generation
provenance), everything else that is a message or summary → ``system``; pi's own fields go to
``extensions.pi``. Settings entries (model/thinking changes, custom, labels, session_info) are
not nodes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from loomtui.formats.base.common import iso_ms, new_ulid, parse_iso
from loomtui.session.ids import now_iso
from loomtui.session.manager import SessionManager

PI_NODE_TYPES = ("message", "custom_message", "compaction", "branch_summary")
_USAGE = (("input", "promptTokens"), ("output", "completionTokens"), ("totalTokens", "totalTokens"))

#: what an entry contributes to its node: content blocks, author, meta and generation
Parts = tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any], dict[str, Any]]
SYSTEM: dict[str, Any] = {"role": "system"}


def to_data_uri_b64(b64: str, mime: Any) -> str:
    m = mime if isinstance(mime, str) and mime else "application/octet-stream"
    return f"data:{m};base64,{b64}"


def _image(block: dict[str, Any]) -> dict[str, Any]:
    data, mime = block.get("data"), block.get("mimeType")
    if isinstance(data, str) and not data.startswith("blob:"):
        return {"type": "image", "ref": to_data_uri_b64(data, mime), "mimeType": mime or "image/png"}
    what = f"image {mime}" if isinstance(mime, str) and mime else "image"
    return {"type": "text", "text": f"[{what} not embedded in the session]"}


def blocks_of(content: Any) -> list[dict[str, Any]]:
    """pi content as v2 blocks: text and images; thinking, tool calls, … are kept verbatim."""
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
            out.append(_image(block))
        else:
            out.append(block)  # thinking, toolCall, …: unknown block types, kept verbatim
    return out


def _text(s: Any) -> list[dict[str, Any]]:
    return [{"type": "text", "text": s if isinstance(s, str) else ""}]


# messages by role ----------------------------------------------------------------------------
def _user(msg: dict[str, Any], _agents: dict[str, Any]) -> Parts:
    return blocks_of(msg.get("content")), {"role": "human"}, {}, {}


def _assistant(msg: dict[str, Any], agents: dict[str, Any]) -> Parts:
    author: dict[str, Any] = {"role": "model"}
    gen: dict[str, Any] = {}
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
        u = {
            dst: usage[src]
            for src, dst in _USAGE
            if isinstance(usage.get(src), (int, float)) and not isinstance(usage.get(src), bool)
        }
        if u:
            gen["usage"] = u
    return blocks_of(msg.get("content")), author, {}, gen


def _bash(msg: dict[str, Any], _agents: dict[str, Any]) -> Parts:
    cmd = msg.get("command") if isinstance(msg.get("command"), str) else ""
    output = msg.get("output") if isinstance(msg.get("output"), str) else ""
    meta = {"excluded": True} if msg.get("excludeFromContext") is True else {}
    return _text(f"$ {cmd}\n{output}" if output else f"$ {cmd}"), SYSTEM, meta, {}


def _summary_message(msg: dict[str, Any], _agents: dict[str, Any]) -> Parts:
    return _text(msg.get("summary")), SYSTEM, {}, {}


def _other_message(msg: dict[str, Any], _agents: dict[str, Any]) -> Parts:
    return blocks_of(msg.get("content")), SYSTEM, {}, {}


ROLE_PARTS: dict[Any, Callable[[dict[str, Any], dict[str, Any]], Parts]] = {
    "user": _user,
    "assistant": _assistant,
    "bashExecution": _bash,
    "branchSummary": _summary_message,
    "compactionSummary": _summary_message,
}


# entries by type -----------------------------------------------------------------------------
def _message(d: dict[str, Any], ext: dict[str, Any], agents: dict[str, Any]) -> Parts:
    msg = d.get("message") if isinstance(d.get("message"), dict) else {}
    ext["message"] = {k: v for k, v in msg.items() if k != "content"}
    role = msg.get("role")
    build = ROLE_PARTS.get(role, _other_message) if isinstance(role, str) else _other_message
    return build(msg, agents)


def _custom(d: dict[str, Any], ext: dict[str, Any], _agents: dict[str, Any]) -> Parts:
    ext.pop("content", None)
    return blocks_of(d.get("content")), SYSTEM, {}, {}


def _summary(d: dict[str, Any], ext: dict[str, Any], _agents: dict[str, Any]) -> Parts:
    ext.pop("summary", None)
    return _text(d.get("summary")), SYSTEM, {}, {}


TYPE_PARTS: dict[Any, Callable[[dict[str, Any], dict[str, Any], dict[str, Any]], Parts]] = {
    "message": _message,
    "custom_message": _custom,
    "compaction": _summary,
    "branch_summary": _summary,
}


def pi_node(d: dict[str, Any], agents: dict[str, Any]) -> dict[str, Any] | None:
    """The node for a pi entry (None for entries that are not nodes); adds the agents it uses."""
    t = d.get("type")
    build = TYPE_PARTS.get(t) if isinstance(t, str) else None
    if build is None:
        return None
    ext: dict[str, Any] = {k: v for k, v in d.items() if k not in ("id", "parentId")}
    blocks, author, meta, gen = build(d, ext, agents)
    node: dict[str, Any] = {"id": d["id"], "content": blocks, "author": dict(author)}
    created = parse_iso(d.get("timestamp"))
    if created is not None:
        node["createdAt"] = iso_ms(created)
    if meta:
        node["meta"] = meta
    if gen:
        node["generation"] = gen
    node["extensions"] = {"pi": ext}
    return node


def system_prompt(entries: list[dict[str, Any]]) -> str | None:
    for d in entries:
        if d.get("type") == "session_init":
            sp = d.get("systemPrompt")
            if isinstance(sp, list):
                sp = "\n".join(x for x in sp if isinstance(x, str))
            if isinstance(sp, str) and sp:
                return sp
    return None


def tree_from_pi(
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
    """The v2 Tree of a pi session: its header goes to ``extensions.pi``."""
    header = manager.get_header()
    sid = header.get("id") if isinstance(header.get("id"), str) and header.get("id") else None
    name = manager.get_session_name() or (header.get("title") if isinstance(header.get("title"), str) else "")
    tree: dict[str, Any] = {"id": new_ulid() if branch or sid is None else sid, "title": name or "", "mode": "dialogue"}
    sp = system_prompt(entries)
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
