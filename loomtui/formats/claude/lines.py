"""Claude Code session files (``~/.claude/projects/<dir>/<sessionId>.jsonl``) as loomtui sessions.

Read-only (``formats.agent.session``); the format as far as it is known is in docs/agent-formats.md.

* Every line with a ``uuid`` is a tree entry (``parentUuid`` links it; an unknown parent makes a
  root). Kinds, so that pi's five filters keep their meaning: a prompt → user message; an
  assistant line → assistant message whose blocks are text, thinking or tool calls (one API
  response is split over several lines, one block each: thinking-only and tool-call-only lines
  are hidden as pi hides tool-only assistant messages); a ``tool_result`` line → toolResult;
  injected text (``isMeta``, compact summaries) and slash/bash commands → custom messages;
  ``system`` lines with text → custom messages, bookkeeping ``system``/``progress``/``attachment``
  lines → custom entries (shown in the ``all`` filter); ``compact_boundary`` → compaction,
  shown under ``logicalParentUuid``.
* Lines without a ``uuid`` (summaries, file-history snapshots, queue operations, ...) are kept
  and listed in the detail pane of the entry they refer to (``leafUuid``/``messageId``), else of
  the entry before them.
* Stray forks — parallel tool calls, hook progress, local commands, a response written twice —
  are marked; their dead-end side chains are shown only in the ``all`` filter.
* Tokens: each (``message.id``, ``requestId``) counts once, with its largest usage (main chain
  before sidechain copies); total = input + output + cache write + cache read.
* Leaf: ``last-prompt.leafUuid`` when it names an entry without children, else the last
  non-sidechain user/assistant/system line.
* Subagents (inline sidechains, ``agent-*.jsonl``, ``<session>/subagents/``) are one row under
  the tool call that started them; ``AgentSession.open_subagent`` opens one.
"""

from __future__ import annotations

import re
from typing import Any

from loomtui.formats.agent.kinds import CLAUDE
from loomtui.formats.agent.session import AgentSource
from loomtui.formats.claude.lister import BOOKKEEPING, CMD_PREFIXES
from loomtui.session.errors import SessionFormatError, cannot_open
from loomtui.session.fileio import open_regular

NODE_TYPES = ("user", "assistant", "system", "progress", "attachment")
#: lines without a uuid that are bookkeeping: the picker's (``lister.BOOKKEEPING``, what marks a
#: file as Claude Code's) and a rewind's pointer
BOOK_TYPES = (*BOOKKEEPING, "rewind-pointer")
STOP = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "toolUse",
    "max_tokens": "length",
    "pause_turn": "stop",
    "refusal": "error",
}
STRAY_REASONS = {
    "progress": "hook progress",
    "tool": "parallel tool call",
    "command": "local command",
    "other": "written twice (retry)",
}
#: system subtypes shown as messages (the rest is bookkeeping, shown in the ``all`` filter)
SHOWN_SYSTEM = ("away_summary", "local_command", "informational")
_TAG = re.compile(r"<([a-z-]+)>(.*?)</\1>", re.S)
ATTACHED_CAP = 200


def looks_like_claude(obj: Any) -> bool:
    """One decoded line of a Claude Code file (used by content detection)."""
    if not isinstance(obj, dict) or "payload" in obj:
        return False
    t = obj.get("type")
    if t in NODE_TYPES:
        return "parentUuid" in obj and isinstance(obj.get("uuid"), str)
    if t == "summary":
        return "leafUuid" in obj
    return t in BOOK_TYPES[1:] and ("sessionId" in obj or "messageId" in obj or "snapshot" in obj)


# line kinds ------------------------------------------------------------------------------------
def _str(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _dict(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            b.get("text", "")
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        )
    return ""


def line_kind(obj: dict[str, Any]) -> str:
    """prompt, tool_result, meta, command, assistant, progress, system, or the line's type."""
    t = obj.get("type")
    if t in ("progress", "attachment"):
        return "progress"
    if t == "assistant":
        return "assistant"
    if t == "user":
        msg = obj.get("message")
        content = msg.get("content") if isinstance(msg, dict) else None
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return "tool_result"
        if obj.get("isMeta") or obj.get("isCompactSummary"):
            return "meta"
        if text_of(content).lstrip().startswith(CMD_PREFIXES):
            return "command"
        return "prompt"
    return t if isinstance(t, str) else "none"


def fork_class(kinds: list[str]) -> str:
    """Why a line has several children: prompt (a rewind or edit), progress, tool, command, other."""
    if kinds.count("prompt") >= 2:
        return "prompt"
    if "progress" in kinds:
        return "progress"
    if "assistant" in kinds and "tool_result" in kinds:
        return "tool"
    if "command" in kinds:
        return "command"
    return "other"


def command_text(text: str) -> str:
    """``<command-name>/doctor</command-name>…`` → ``/doctor …``; stdout tags → their text."""
    parts = []
    for name, inner in _TAG.findall(text):
        inner = inner.strip()
        if name == "command-message" or not inner:
            continue
        parts.append(("! " + inner) if name == "bash-input" else inner)
    return " ".join(parts) if parts else text


def _usage_parts(u: Any) -> tuple[int, int, int, int]:
    if not isinstance(u, dict):
        return (0, 0, 0, 0)
    g = u.get
    i, o, r, w = g("input_tokens"), g("output_tokens"), g("cache_read_input_tokens"), g("cache_creation_input_tokens")
    if type(i) is int and type(o) is int and type(r) is int and type(w) is int:
        return i, o, r, w  # the usual usage: every count an int
    return _count(i), _count(o), _count(r), _count(w)


def _count(v: Any) -> int:
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0


def pi_usage(u: Any) -> dict[str, Any]:
    i, o, r, w = _usage_parts(u)
    return {"input": i, "output": o, "cacheRead": r, "cacheWrite": w, "totalTokens": i + o + r + w}


# conversion to pi-style entries -------------------------------------------------------------------
def _blocks(content: Any, tool_names: dict[str, str] | None = None) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    out: list[dict[str, Any]] = []
    if not isinstance(content, list):
        return out
    for b in content:
        if not isinstance(b, dict):
            continue
        bt = b.get("type")
        if bt == "text":
            out.append({"type": "text", "text": b.get("text") if isinstance(b.get("text"), str) else ""})
        elif bt == "thinking":
            out.append({"type": "thinking", "thinking": b.get("thinking") or ""})
        elif bt == "redacted_thinking":
            out.append({"type": "thinking", "thinking": "[redacted thinking]"})
        elif bt in ("tool_use", "server_tool_use"):
            out.append(
                {"type": "toolCall", "id": _str(b.get("id")), "name": b.get("name"), "arguments": b.get("input")}
            )
        elif bt == "image":
            src = b.get("source") if isinstance(b.get("source"), dict) else {}
            out.append({"type": "image", "data": src.get("data") or "", "mimeType": src.get("media_type") or "image"})
    return out


def to_pi(
    src: AgentSource, eid: str, parent: str | None, obj: dict[str, Any], tool_names: dict[str, str]
) -> dict[str, Any]:
    """The pi-style entry for one Claude line (see the module doc for the mapping)."""
    kind = line_kind(obj)
    base: dict[str, Any] = {"id": eid, "parentId": parent, "timestamp": obj.get("timestamp")}
    msg = obj.get("message") if isinstance(obj.get("message"), dict) else {}
    if obj.get("type") == "assistant":
        d = _assistant(src, eid, base, obj, msg)
    elif kind == "tool_result":
        d = _tool_result(base, msg, tool_names)
    else:
        d = _other(eid, base, obj, msg, kind)
    if eid in src.stray:
        d["hidden"] = "stray"
    if eid in src.extra.get("replayed", ()):
        d["hidden"] = "from-parent"  # a background fork's copy of its parent's line
    d["agentSource"] = _source_info(src, eid, parent, obj, msg, kind)
    return d


def _assistant(
    src: AgentSource, eid: str, base: dict[str, Any], obj: dict[str, Any], msg: dict[str, Any]
) -> dict[str, Any]:
    m: dict[str, Any] = {
        "role": "assistant",
        "content": _blocks(msg.get("content")),
        "provider": "anthropic",
        "model": msg.get("model"),
        "stopReason": STOP.get(_str(msg.get("stop_reason"))),
    }
    if obj.get("isApiErrorMessage") or obj.get("error"):
        m["stopReason"] = "error"
        m["errorMessage"] = text_of(msg.get("content")) or str(obj.get("error"))
    usage = src.usage_of(eid)
    if usage is not None:
        m["usage"] = usage
    return {"type": "message", **base, "message": m}


def _tool_result(base: dict[str, Any], msg: dict[str, Any], tool_names: dict[str, str]) -> dict[str, Any]:
    results = [b for b in msg.get("content") if isinstance(b, dict) and b.get("type") == "tool_result"]
    first = results[0]
    content: list[dict[str, Any]] = []
    for r in results:
        content += _blocks(r.get("content"))
    call = _str(first.get("tool_use_id"))
    return {
        "type": "message",
        **base,
        "message": {
            "role": "toolResult",
            "toolCallId": call,
            "toolName": tool_names.get(call) if isinstance(call, str) else None,
            "content": content,
            "isError": bool(first.get("is_error")),
        },
    }


def _other(eid: str, base: dict[str, Any], obj: dict[str, Any], msg: dict[str, Any], kind: str) -> dict[str, Any]:
    """Prompts, meta and command lines, system lines, bookkeeping lines."""
    t = obj.get("type")
    sub = obj.get("subtype") if t == "system" else None
    if kind in ("meta", "command"):
        text = text_of(msg.get("content"))
        ctype = "compact summary" if obj.get("isCompactSummary") else ("command" if kind == "command" else "meta")
        return {
            "type": "custom_message",
            **base,
            "customType": ctype,
            "content": command_text(text) if kind == "command" else text,
            "display": kind == "command",
        }
    if t == "user":
        return {"type": "message", **base, "message": {"role": "user", "content": _blocks(msg.get("content"))}}
    if t == "system" and sub == "compact_boundary":
        meta = obj.get("compactMetadata") if isinstance(obj.get("compactMetadata"), dict) else {}
        return {
            "type": "compaction",
            **base,
            "summary": f"compacted ({meta.get('trigger') or 'auto'})",
            "firstKeptEntryId": eid,
            "tokensBefore": meta.get("preTokens") or 0,
        }
    if t == "system" and sub in SHOWN_SYSTEM and isinstance(obj.get("content"), str):
        return {
            "type": "custom_message",
            **base,
            "customType": f"system: {sub}",
            "content": command_text(obj["content"]) if sub == "local_command" else obj["content"],
            "display": True,
        }
    return _bookkeeping(base, obj)


def _bookkeeping(base: dict[str, Any], obj: dict[str, Any]) -> dict[str, Any]:
    """System, progress, attachment and unknown lines: a ``custom`` entry keeping their fields."""
    t = obj.get("type")
    if t == "system":
        sub = obj.get("subtype")
    elif t == "progress":
        sub = _dict(obj.get("data")).get("type")
    else:
        sub = _dict(obj.get("attachment")).get("type") if t == "attachment" else None
    ctype = f"{t}: {sub}" if sub else (f"{t}: hook" if t == "system" else str(t))
    keep = {
        k: v
        for k, v in obj.items()
        if k
        not in (
            "parentUuid",
            "uuid",
            "sessionId",
            "cwd",
            "version",
            "gitBranch",
            "userType",
            "isSidechain",
            "timestamp",
        )
    }
    return {"type": "custom", **base, "customType": ctype, "data": keep}


def _source_info(
    src: AgentSource, eid: str, parent: str | None, obj: dict[str, Any], msg: dict[str, Any], kind: str
) -> dict[str, Any]:
    """What the detail pane says about the line in the file (``agentSource``)."""
    t = obj.get("type")
    info: dict[str, Any] = {
        "tool": CLAUDE,
        "line": src.spans[eid][2] if eid in src.spans else None,
        "type": f"{t}/{obj.get('subtype')}" if t == "system" else t,
        "kind": kind,
    }
    if eid in src.stray:
        info["stray"] = src.stray[eid]
    if obj.get("isSidechain"):
        info["sidechain"] = True
    if isinstance(msg.get("id"), str):
        info["messageId"] = msg["id"]
    if obj.get("requestId"):
        info["requestId"] = obj["requestId"]
    if parent != obj.get("parentUuid"):
        info["fileParent"] = obj.get("parentUuid")
    attached = src.attached.get(eid)
    if attached:
        info["attached"] = attached
    return info


# reading --------------------------------------------------------------------------------------------
def _describe_book(obj: dict[str, Any]) -> str:
    t = obj.get("type")
    if t == "summary":
        return str(obj.get("summary"))[:200]
    if t == "queue-operation":
        c = obj.get("content")
        return f"{obj.get('operation')}: {c[:160] if isinstance(c, str) else ''}".strip()
    if t == "last-prompt":
        return str(obj.get("lastPrompt") or "")[:160]
    if t == "permission-mode":
        return str(obj.get("permissionMode") or obj.get("mode") or "")
    if t == "file-history-snapshot":
        snap = obj.get("snapshot") if isinstance(obj.get("snapshot"), dict) else {}
        files = snap.get("trackedFileBackups")
        n = len(files) if isinstance(files, dict) else 0
        return f"{n} tracked file{'s' if n != 1 else ''}" + (" (update)" if obj.get("isSnapshotUpdate") else "")
    if t == "file-history-delta":  # one tracked file's new backup (2.1.x writes these between snapshots)
        backup = obj.get("backup") if isinstance(obj.get("backup"), dict) else {}
        version = backup.get("version")
        return f"{obj.get('trackingPath')}" + (f" v{version}" if version is not None else "")
    for k in ("title", "customTitle", "aiTitle", "agentName", "url", "text", "content"):
        if isinstance(obj.get(k), str):
            return obj[k][:160]
    return ", ".join(list(map(str, obj))[:6])


def open_claude_fd(path: str) -> int:
    """A descriptor of the regular file at ``path`` (SessionFormatError when it cannot be read)."""
    try:
        return open_regular(path)
    except OSError as exc:
        raise SessionFormatError(cannot_open(path, exc)) from None
