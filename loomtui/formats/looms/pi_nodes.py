"""pi session entries as OpenLoom v2 nodes, and back (docs/formats.md, "OpenLoom").

Export (``pi_node``): user → ``human``, assistant → ``model`` (an agent per provider/model,
usage as generation provenance), everything else that is a message or summary → ``system``.
The node's content is what an OpenLoom reader can show: text and image blocks; a tool call is
written as the row pi shows for it (``[bash: make]``), a tool result as its text (from
``content``, or the ``output`` list another writer keeps it in), a bash execution as ``$ cmd``
and its output, a summary as its text. pi's own fields go to ``extensions.pi``; the pi blocks
the node writes differently (a tool call, a text block with more fields) are kept by their
index in ``extensions.loomtui.piBlocks``, and ``extensions.loomtui.piField`` names the field the
content came from when it is not ``content``.

Reading back (``restore``): a node whose content is still exactly what its ``extensions.pi``
entry exports to becomes that pi entry again, so loomtui shows it as the pi session did (a
tool result under its call's row, an aborted reply, a compaction); any other node (edited
elsewhere, made by another tool) is read as a node.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from loomtui.formats.base.common import iso_ms, parse_iso
from loomtui.view.text import format_tool_call

PI_NODE_TYPES = ("message", "custom_message", "compaction", "branch_summary")
_USAGE = (("input", "promptTokens"), ("output", "completionTokens"), ("totalTokens", "totalTokens"))
#: where, under ``extensions.loomtui``, the pi blocks a node writes differently are kept
PI_BLOCKS = "piBlocks"
#: the message field a node's content came from when it is not ``content``
PI_FIELD = "piField"
#: message roles whose node text is made of their other fields (nothing to put back)
_MADE_OF_FIELDS = ("bashExecution", "branchSummary", "compactionSummary")
#: entry fields a restored entry leaves out: the reader gives the entry its place in the tree
_NOT_RESTORED = ("id", "parentId", "timestamp")

#: a call's tool and arguments as shown, by call id (None: as the blocks name them)
Calls = dict[Any, tuple[Any, Any]] | None
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


def _node_block(block: dict[str, Any], first: bool, calls: Calls) -> dict[str, Any]:
    """One pi block as an OpenLoom block; thinking and other unknown blocks are kept verbatim.
    ``calls``: a call's tool and arguments as the tree row shows them, by call id (another
    tool's calls mapped onto pi's, ``formats/agent/tools.py``)."""
    btype = block.get("type")
    if btype == "text":
        t = block.get("text")
        return {"type": "text", "text": t if isinstance(t, str) else ""}
    if btype == "image":
        return _image(block)
    if btype == "toolCall":
        cid = block.get("id")
        shown = calls.get(cid) if calls and isinstance(cid, str) else None
        name, args = shown if shown is not None else (block.get("name"), block.get("arguments"))
        call = format_tool_call(name, args, "")
        return {"type": "text", "text": call if first else "\n" + call}
    return block


def _pi_block(block: Any) -> Any:
    """The pi block an OpenLoom block stands for where the node keeps no original."""
    if isinstance(block, dict) and block.get("type") == "image":
        ref = block.get("ref")
        head, sep, data = ref.partition(";base64,") if isinstance(ref, str) else ("", "", "")
        if sep and head.startswith("data:"):
            return {"type": "image", "data": data, "mimeType": head[len("data:") :]}
    return block


class _Blocks:
    """Writes one entry's content as v2 blocks, keeping (by index) the pi blocks it writes
    differently."""

    __slots__ = ("calls", "kept")

    def __init__(self, calls: Calls) -> None:
        self.calls = calls
        self.kept: dict[str, Any] = {}

    def __call__(self, content: Any) -> list[dict[str, Any]]:
        if isinstance(content, str):
            return [{"type": "text", "text": content}]
        out: list[dict[str, Any]] = []
        if not isinstance(content, list):
            return out
        for block in content:
            if not isinstance(block, dict):
                continue
            made = _node_block(block, not out, self.calls)
            if _pi_block(made) != block:
                self.kept[str(len(out))] = block
            out.append(made)
        return out


def _text(s: Any) -> list[dict[str, Any]]:
    return [{"type": "text", "text": s if isinstance(s, str) else ""}]


# messages by role ----------------------------------------------------------------------------
def _user(msg: dict[str, Any], _agents: dict[str, Any], blocks: _Blocks) -> Parts:
    return blocks(msg.get("content")), {"role": "human"}, {}, {}


def _assistant(msg: dict[str, Any], agents: dict[str, Any], blocks: _Blocks) -> Parts:
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
    return blocks(msg.get("content")), author, {}, gen


def _bash(msg: dict[str, Any], _agents: dict[str, Any], _blocks: _Blocks) -> Parts:
    cmd = msg.get("command") if isinstance(msg.get("command"), str) else ""
    output = msg.get("output") if isinstance(msg.get("output"), str) else ""
    meta = {"excluded": True} if msg.get("excludeFromContext") is True else {}
    return _text(f"$ {cmd}\n{output}" if output else f"$ {cmd}"), SYSTEM, meta, {}


def _summary_message(msg: dict[str, Any], _agents: dict[str, Any], _blocks: _Blocks) -> Parts:
    return _text(msg.get("summary")), SYSTEM, {}, {}


def _other_message(msg: dict[str, Any], _agents: dict[str, Any], blocks: _Blocks) -> Parts:
    return blocks(msg.get(content_field(msg))), SYSTEM, {}, {}


ROLE_PARTS: dict[Any, Callable[[dict[str, Any], dict[str, Any], _Blocks], Parts]] = {
    "user": _user,
    "assistant": _assistant,
    "bashExecution": _bash,
    "branchSummary": _summary_message,
    "compactionSummary": _summary_message,
}


def content_field(msg: dict[str, Any]) -> str:
    """The field a message's node content comes from: ``content``, or the ``output`` list a
    tool result of another writer keeps its text in when it has no content."""
    if msg.get("role") == "toolResult" and not msg.get("content") and isinstance(msg.get("output"), (list, str)):
        return "output"
    return "content"


# entries by type -----------------------------------------------------------------------------
def _message(d: dict[str, Any], ext: dict[str, Any], agents: dict[str, Any], blocks: _Blocks) -> Parts:
    msg = d.get("message") if isinstance(d.get("message"), dict) else {}
    role = msg.get("role")
    field = content_field(msg)
    ext["message"] = {k: v for k, v in msg.items() if k != field}
    build = ROLE_PARTS.get(role, _other_message) if isinstance(role, str) else _other_message
    return build(msg, agents, blocks)


def _custom(d: dict[str, Any], ext: dict[str, Any], _agents: dict[str, Any], blocks: _Blocks) -> Parts:
    ext.pop("content", None)
    return blocks(d.get("content")), SYSTEM, {}, {}


def _summary(d: dict[str, Any], ext: dict[str, Any], _agents: dict[str, Any], _blocks: _Blocks) -> Parts:
    ext.pop("summary", None)
    return _text(d.get("summary")), SYSTEM, {}, {}


TYPE_PARTS: dict[Any, Callable[[dict[str, Any], dict[str, Any], dict[str, Any], _Blocks], Parts]] = {
    "message": _message,
    "custom_message": _custom,
    "compaction": _summary,
    "branch_summary": _summary,
}


def pi_node(d: dict[str, Any], agents: dict[str, Any], calls: Calls = None) -> dict[str, Any] | None:
    """The node for a pi entry (None for entries that are not nodes); adds the agents it uses.
    ``calls``: its tool calls as the tree row shows them, by call id (None: as written)."""
    t = d.get("type")
    build = TYPE_PARTS.get(t) if isinstance(t, str) else None
    if build is None:
        return None
    ext: dict[str, Any] = {k: v for k, v in d.items() if k not in ("id", "parentId")}
    writer = _Blocks(calls)
    blocks, author, meta, gen = build(d, ext, agents, writer)
    lt: dict[str, Any] = {}
    if writer.kept:
        lt[PI_BLOCKS] = writer.kept
    msg = d.get("message")
    if t == "message" and isinstance(msg, dict) and content_field(msg) != "content":
        lt[PI_FIELD] = content_field(msg)
    node: dict[str, Any] = {"id": d["id"], "content": blocks, "author": dict(author)}
    created = parse_iso(d.get("timestamp"))
    if created is not None:
        node["createdAt"] = iso_ms(created)
    if meta:
        node["meta"] = meta
    if gen:
        node["generation"] = gen
    node["extensions"] = {"pi": ext, "loomtui": lt} if lt else {"pi": ext}
    return node


# reading back --------------------------------------------------------------------------------
def _dict(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _pi_content(content: list[Any], kept: dict[str, Any]) -> list[Any]:
    return [kept[str(i)] if isinstance(kept.get(str(i)), dict) else _pi_block(b) for i, b in enumerate(content)]


def restore(node: dict[str, Any]) -> dict[str, Any] | None:
    """The pi entry a node exported from a pi session stands for (without its id, parent and
    timestamp); None when the node has none, or its content is no longer what it exports to."""
    ext = node.get("extensions")
    pi = _dict(ext).get("pi") if isinstance(ext, dict) else None
    content = node.get("content")
    if not isinstance(pi, dict) or pi.get("type") not in PI_NODE_TYPES or not isinstance(content, list):
        return None
    if "agentSource" in pi:  # another tool's line (Claude Code, Codex) as loomtui read it: a node
        return None
    lt = _dict(ext.get("loomtui")) if isinstance(ext, dict) else {}
    blocks = _pi_content(content, _dict(lt.get(PI_BLOCKS)))
    entry = {k: copy.deepcopy(v) for k, v in pi.items() if k not in _NOT_RESTORED}
    t = entry["type"]
    if t == "message":
        msg = entry["message"] = dict(_dict(entry.get("message")))
        if msg.get("role") not in _MADE_OF_FIELDS:
            field = lt.get(PI_FIELD)
            msg[field if field in ("content", "output") else "content"] = blocks
    elif t == "custom_message":
        entry["content"] = blocks
    else:
        texts = [b.get("text") for b in content if isinstance(b, dict)]
        entry["summary"] = texts[0] if len(texts) == 1 else None
    entry["id"] = node.get("id")
    again = pi_node(entry, {})
    if again is None or again["content"] != content:
        return None
    entry.pop("id")
    return entry
