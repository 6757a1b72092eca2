"""Claude Code session files (``~/.claude/projects/<dir>/<sessionId>.jsonl``) as loomtui sessions.

Read-only (``formats.agent_session``); the format as far as it is known is in docs/formats.md.

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

import bisect
import os
import re
from collections import defaultdict
from typing import Any

import orjson

from loomtui.formats.agent_session import CLAUDE, AgentSession, AgentSource, Subagent, file_lines, header_for
from loomtui.session.entries import Entry
from loomtui.session.errors import Diagnostic, SessionFormatError
from loomtui.session.manager import entry_from_dict
from loomtui.session.memory import bulk_allocation

NODE_TYPES = ("user", "assistant", "system", "progress", "attachment")
BOOK_TYPES = ("summary", "file-history-snapshot", "queue-operation", "last-prompt", "permission-mode", "mode",
              "custom-title", "agent-name", "ai-title", "pr-link", "rewind-pointer")
CMD_PREFIXES = ("<command-name>", "<command-message>", "<bash-input>", "<bash-stdout>", "<local-command-stdout>",
                "<local-command-caveat>")
STOP = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "toolUse", "max_tokens": "length",
        "pause_turn": "stop", "refusal": "error"}
STRAY_REASONS = {"progress": "hook progress", "tool": "parallel tool call", "command": "local command",
                 "other": "written twice (retry)"}
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
def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
                       and isinstance(b.get("text"), str))
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

    def n(k: str) -> int:
        v = u.get(k)
        return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0

    return n("input_tokens"), n("output_tokens"), n("cache_read_input_tokens"), n("cache_creation_input_tokens")


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
            out.append({"type": "toolCall", "id": b.get("id"), "name": b.get("name"), "arguments": b.get("input")})
        elif bt == "image":
            src = b.get("source") if isinstance(b.get("source"), dict) else {}
            out.append({"type": "image", "data": src.get("data") or "", "mimeType": src.get("media_type") or "image"})
    return out


def to_pi(src: AgentSource, eid: str, parent: str | None, obj: dict[str, Any], tool_names: dict[str, str]) -> dict[str, Any]:
    """The pi-style entry for one Claude line (see the module doc for the mapping)."""
    t = obj.get("type")
    kind = line_kind(obj)
    base: dict[str, Any] = {"id": eid, "parentId": parent, "timestamp": obj.get("timestamp")}
    msg = obj.get("message") if isinstance(obj.get("message"), dict) else {}
    d: dict[str, Any]
    if t == "assistant":
        m: dict[str, Any] = {"role": "assistant", "content": _blocks(msg.get("content")), "provider": "anthropic",
                             "model": msg.get("model"), "stopReason": STOP.get(msg.get("stop_reason"))}
        if obj.get("isApiErrorMessage") or obj.get("error"):
            m["stopReason"] = "error"
            m["errorMessage"] = text_of(msg.get("content")) or str(obj.get("error"))
        usage = src.usage.get(eid)
        if usage is not None:
            m["usage"] = usage
        d = {"type": "message", **base, "message": m}
    elif kind == "tool_result":
        results = [b for b in msg.get("content") if isinstance(b, dict) and b.get("type") == "tool_result"]
        first = results[0]
        content: list[dict[str, Any]] = []
        for r in results:
            content += _blocks(r.get("content"))
        call = first.get("tool_use_id")
        d = {"type": "message", **base, "message": {
            "role": "toolResult", "toolCallId": call, "toolName": tool_names.get(call) if isinstance(call, str) else None,
            "content": content, "isError": bool(first.get("is_error"))}}
    elif kind in ("meta", "command"):
        text = text_of(msg.get("content"))
        ctype = "compact summary" if obj.get("isCompactSummary") else ("command" if kind == "command" else "meta")
        d = {"type": "custom_message", **base, "customType": ctype,
             "content": command_text(text) if kind == "command" else text, "display": kind == "command"}
    elif t == "user":
        d = {"type": "message", **base, "message": {"role": "user", "content": _blocks(msg.get("content"))}}
    elif t == "system" and obj.get("subtype") == "compact_boundary":
        meta = obj.get("compactMetadata") if isinstance(obj.get("compactMetadata"), dict) else {}
        d = {"type": "compaction", **base, "summary": f"compacted ({meta.get('trigger') or 'auto'})",
             "firstKeptEntryId": eid, "tokensBefore": meta.get("preTokens") or 0}
    elif t == "system" and (obj.get("subtype") in SHOWN_SYSTEM) and isinstance(obj.get("content"), str):
        d = {"type": "custom_message", **base, "customType": f"system: {obj.get('subtype')}",
             "content": command_text(obj["content"]) if obj.get("subtype") == "local_command" else obj["content"],
             "display": True}
    else:
        sub = obj.get("subtype") if t == "system" else (obj.get("data") or {}).get("type") if t == "progress" else (
            (obj.get("attachment") or {}).get("type") if t == "attachment" else None)
        ctype = f"{t}: {sub}" if sub else (f"{t}: hook" if t == "system" else str(t))
        keep = {k: v for k, v in obj.items() if k not in ("parentUuid", "uuid", "sessionId", "cwd", "version",
                                                          "gitBranch", "userType", "isSidechain", "timestamp")}
        d = {"type": "custom", **base, "customType": ctype, "data": keep}
    info: dict[str, Any] = {"tool": CLAUDE, "line": src.spans[eid][2] if eid in src.spans else None,
                            "type": f"{t}/{obj.get('subtype')}" if t == "system" else t, "kind": kind}
    if eid in src.stray:
        info["stray"] = src.stray[eid]
        d["hidden"] = "stray"
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
    d["agentSource"] = info
    return d


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
    for k in ("title", "customTitle", "aiTitle", "agentName", "url", "text", "content"):
        if isinstance(obj.get(k), str):
            return obj[k][:160]
    return ", ".join(list(map(str, obj))[:6])


def read_file_bytes(path: str) -> bytes:
    if os.path.isdir(path):
        raise SessionFormatError(f"{path} is a directory, not a session file")
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as exc:
        raise SessionFormatError(f"cannot open {path}: {exc.strerror}") from None


@bulk_allocation()
def open_claude(path: str, sidechain_root: str | None = None, label_dir: str | None = None) -> AgentSession:
    """Read a Claude Code session file (``sidechain_root``: only that inline sidechain)."""
    path = os.path.abspath(path)
    data = read_file_bytes(path)
    diags: list[Diagnostic] = []
    nodes: list[tuple[dict[str, Any], int, int, int]] = []  # (obj, offset, size, line)
    books: list[tuple[dict[str, Any], int]] = []  # (obj, line)
    seen: set[str] = set()
    lines = 0
    for off, size, line in file_lines(data):
        lines += 1
        try:
            obj = orjson.loads(data[off:off + size])
        except orjson.JSONDecodeError:
            diags.append(Diagnostic(line, "not valid JSON: skipped"))
            continue
        if not isinstance(obj, dict):
            diags.append(Diagnostic(line, "not a JSON object: skipped"))
            continue
        u = obj.get("uuid")
        if isinstance(u, str) and u:
            if u in seen:
                diags.append(Diagnostic(line, f"duplicate uuid {u!r}: the first line with it wins"))
                continue
            seen.add(u)
            nodes.append((obj, off, size, line))
        else:
            books.append((obj, line))
    if not nodes and not books:
        raise SessionFormatError(f"{path}: no Claude Code lines")
    session_id = next((o.get("sessionId") for o, *_ in nodes if isinstance(o.get("sessionId"), str)), None) or next(
        (o.get("sessionId") for o, _ in books if isinstance(o.get("sessionId"), str)), None) or os.path.splitext(
        os.path.basename(path))[0]
    src = AgentSource(CLAUDE, path, session_id, label_dir=label_dir)
    src.extra["lines"] = lines

    by_id = {o["uuid"]: i for i, (o, *_r) in enumerate(nodes)}
    kinds = [line_kind(o) for o, *_r in nodes]
    # the file's own tree (parentUuid as written)
    kids: dict[str, list[int]] = defaultdict(list)
    roots = []
    for i, (o, *_r) in enumerate(nodes):
        p = o.get("parentUuid")
        if p is None:
            roots.append(o["uuid"])
        else:
            kids[p].append(i)
    src.stats = {
        "entries": len(nodes), "lines": lines, "roots": roots,
        "leaves": [o["uuid"] for o, *_r in nodes if o["uuid"] not in kids],
        "branchPoints": [{"id": p, "children": len(k), "kind": fork_class([kinds[i] for i in k])}
                         for p, k in kids.items() if len(k) > 1],
        "danglingParents": sum(len(k) for p, k in kids.items() if p not in by_id),
    }

    # which lines this view shows
    sidechain = [bool(o.get("isSidechain")) for o, *_r in nodes]
    if sidechain_root is not None:
        if sidechain_root not in by_id:
            raise SessionFormatError(f"{path}: no sidechain starting at {sidechain_root}")
        main = _subtree(by_id[sidechain_root], nodes, kids)
    elif any(not s for s in sidechain):
        main = [i for i, s in enumerate(sidechain) if not s]
    else:
        main = list(range(len(nodes)))  # a subagent file: all of it
    main_set = set(main)

    # shown parents: compaction boundaries hang under their logical parent
    parent_of: dict[int, str | None] = {}
    for i in main:
        o = nodes[i][0]
        p = o.get("parentUuid")
        lp = o.get("logicalParentUuid")
        if p is None and isinstance(lp, str) and by_id.get(lp) in main_set and not _descends(by_id[lp], i, nodes, by_id):
            p = lp
            src.shown_parent[o["uuid"]] = lp
        parent_of[i] = p
    shown_kids: dict[str, list[int]] = defaultdict(list)
    for i in main:
        p = parent_of[i]
        if p is not None and by_id.get(p) in main_set:
            shown_kids[p].append(i)

    leaf = _find_leaf(nodes, books, main, shown_kids, by_id, sidechain_root is None and len(main) < len(nodes))
    _mark_stray(src, nodes, kinds, main, shown_kids, leaf, by_id)
    tool_names = _count_usage_and_tools(src, nodes, main if sidechain_root else range(len(nodes)))
    _attach_books(src, nodes, books, main, by_id, diags)

    header = header_for(src, next((o.get("cwd") for o, *_r in nodes if isinstance(o.get("cwd"), str)), ""),
                        nodes[main[0]][0].get("timestamp") if main else None,
                        {"tool": CLAUDE, "version": next((o.get("version") for o, *_r in nodes if o.get("version")), None)})
    sm = AgentSession(header, src, lambda m, e, obj: to_pi(src, e.id, e.parent_id, obj, tool_names))
    skeletons: list[Entry] = []
    for i in main:
        o, off, size, line = nodes[i]
        eid = o["uuid"]
        src.spans[eid] = (off, size, line)
        e = entry_from_dict(to_pi(src, eid, parent_of[i], o, tool_names), line=line)
        if e is not None:
            e.data = None
            skeletons.append(e)
    if sidechain_root is None and len(main) < len(nodes):
        skeletons += _inline_subagents(src, nodes, main_set, kids, by_id, tool_names)
    skeletons += _file_subagents(src, nodes, main, by_id)
    sm.index.build(skeletons)
    sm.index.diagnostics[:0] = diags
    leaf_id = nodes[leaf][0]["uuid"] if leaf is not None else (skeletons[-1].id if skeletons else None)
    sm.index.leaf_id = leaf_id
    sm._leaf = leaf_id
    title = next((o.get("summary") for o, _l in books if o.get("type") == "summary"
                  and o.get("leafUuid") in by_id and isinstance(o.get("summary"), str)), None)
    for o, _l in books:
        if o.get("type") in ("custom-title", "agent-name") and isinstance(o.get("customTitle") or o.get("agentName"), str):
            title = o.get("customTitle") or o.get("agentName")
    if title:
        sm.index.session_name = str(title).strip() or None
    sm.load_stored_labels()
    return sm


def _subtree(start: int, nodes: list[Any], kids: dict[str, list[int]]) -> list[int]:
    out = []
    stack = [start]
    while stack:
        i = stack.pop()
        out.append(i)
        stack.extend(kids.get(nodes[i][0]["uuid"], ()))
    return sorted(out)


def _descends(i: int, ancestor: int, nodes: list[Any], by_id: dict[str, int]) -> bool:
    """True when line ``i`` has ``ancestor`` among its parents (a link would make a cycle)."""
    seen = set()
    cur: int | None = i
    while cur is not None and cur not in seen:
        if cur == ancestor:
            return True
        seen.add(cur)
        p = nodes[cur][0].get("parentUuid") or nodes[cur][0].get("logicalParentUuid")
        cur = by_id.get(p) if isinstance(p, str) else None
    return False


def _find_leaf(nodes: list[Any], books: list[Any], main: list[int], kids: dict[str, list[int]],
               by_id: dict[str, int], skip_sidechain: bool) -> int | None:
    main_set = set(main)
    for o, _line in reversed(books):
        if o.get("type") == "last-prompt" and isinstance(o.get("leafUuid"), str):
            i = by_id.get(o["leafUuid"])
            if i is not None and i in main_set and not kids.get(o["leafUuid"]):
                return i
            break
    for i in reversed(main):
        o = nodes[i][0]
        if o.get("type") in ("user", "assistant", "system") and not (skip_sidechain and o.get("isSidechain")):
            return i
    return main[-1] if main else None


def _mark_stray(src: AgentSource, nodes: list[Any], kinds: list[str], main: list[int],
                kids: dict[str, list[int]], leaf: int | None, by_id: dict[str, int]) -> None:
    on_path: set[int] = set()
    cur = leaf
    while cur is not None and cur not in on_path:
        on_path.add(cur)
        p = nodes[cur][0].get("parentUuid") or src.shown_parent.get(nodes[cur][0]["uuid"])
        cur = by_id.get(p) if isinstance(p, str) else None
    for _p, children in kids.items():
        if len(children) < 2:
            continue
        cls = fork_class([kinds[i] for i in children])
        if cls == "prompt":
            continue
        for c in children:
            if c in on_path:
                continue
            side = []
            stack = [c]
            real = False
            while stack:
                i = stack.pop()
                if kinds[i] == "prompt":
                    real = True
                    break
                side.append(i)
                stack.extend(kids.get(nodes[i][0]["uuid"], ()))
            if not real:
                for i in side:
                    src.stray.setdefault(nodes[i][0]["uuid"], STRAY_REASONS[cls])
    for i in main:
        u = nodes[i][0]["uuid"]
        if kinds[i] == "progress" and i != leaf and not kids.get(u):
            src.stray.setdefault(u, "hook progress")


def _count_usage_and_tools(src: AgentSource, nodes: list[Any], counted: Any) -> dict[str, str]:
    """Usage on the one line that counts per API response; tool_use id -> tool name."""
    best: dict[Any, tuple[bool, int, int]] = {}
    tool_names: dict[str, str] = {}
    for i in counted:
        o = nodes[i][0]
        if o.get("type") != "assistant" or not isinstance(o.get("message"), dict):
            continue
        msg = o["message"]
        content = msg.get("content")
        if isinstance(content, list):
            for b in content:
                if isinstance(b, dict) and b.get("type") in ("tool_use", "server_tool_use") and isinstance(b.get("id"), str):
                    tool_names[b["id"]] = str(b.get("name"))
        u = msg.get("usage")
        if not isinstance(u, dict):
            continue
        mid = msg.get("id")
        key = (mid, o.get("requestId")) if isinstance(mid, str) else ("line", i)
        rank = (not o.get("isSidechain"), sum(_usage_parts(u)), -i)
        if key not in best or rank > best[key]:
            best[key] = rank
    total = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}
    for _key, (_main, _t, neg_i) in best.items():
        o = nodes[-neg_i][0]
        u = pi_usage(o["message"]["usage"])
        src.usage[o["uuid"]] = u
        for k in total:
            total[k] += u[k]
    src.extra["usage"] = {**total, "responses": len(best)}
    return tool_names


def _attach_books(src: AgentSource, nodes: list[Any], books: list[Any], main: list[int], by_id: dict[str, int],
                  diags: list[Diagnostic]) -> None:
    main_lines = [nodes[i][3] for i in main]
    main_set = set(main)
    for o, line in books:
        t = o.get("type")
        target: int | None = None
        ref = o.get("leafUuid") if t in ("summary", "last-prompt") else o.get("messageId")
        if isinstance(ref, str) and by_id.get(ref) in main_set:
            target = by_id[ref]
            if t == "summary" and isinstance(o.get("summary"), str) and o["summary"].strip():
                src.file_labels[ref] = " ".join(o["summary"].split())[:80]
        if target is None and main:
            k = bisect.bisect_left(main_lines, line) - 1
            target = main[k] if k >= 0 else main[0]
        if target is None:
            diags.append(Diagnostic(line, f"{t} line with no entry to show it with"))
            continue
        lst = src.attached.setdefault(nodes[target][0]["uuid"], [])
        if len(lst) < ATTACHED_CAP:
            lst.append({"line": line, "type": t, "text": _describe_book(o)})
        elif len(lst) == ATTACHED_CAP:
            lst.append({"line": line, "type": "…", "text": "more lines attached here; `loomtui info` counts them"})
    src.extra["linesWithoutId"] = len(books)


def _placeholder(src: AgentSource, sub: Subagent, parent: str | None, ts: Any) -> Entry:
    src.subagents[sub.entry_id] = sub
    d = {"type": "custom_message", "id": sub.entry_id, "parentId": parent, "timestamp": ts, "customType": "subagent",
         "content": f"{sub.description} · {sub.entries} entries · Enter opens it", "display": True,
         "agentSource": {"tool": CLAUDE, "kind": "subagent", "file": sub.path, "root": sub.root, "call": sub.call_id}}
    e = entry_from_dict(d)
    assert e is not None
    return e


def _results_by_call(nodes: list[Any], indices: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for i in indices:
        o = nodes[i][0]
        msg = o.get("message")
        if o.get("type") == "user" and isinstance(msg, dict) and isinstance(msg.get("content"), list):
            for b in msg["content"]:
                if isinstance(b, dict) and b.get("type") == "tool_result" and isinstance(b.get("tool_use_id"), str):
                    out.setdefault(b["tool_use_id"], i)
    return out


def _calls(nodes: list[Any], indices: Any) -> dict[str, tuple[int, dict[str, Any]]]:
    out: dict[str, tuple[int, dict[str, Any]]] = {}
    for i in indices:
        o = nodes[i][0]
        msg = o.get("message")
        if o.get("type") == "assistant" and isinstance(msg, dict) and isinstance(msg.get("content"), list):
            for b in msg["content"]:
                if isinstance(b, dict) and b.get("type") == "tool_use" and isinstance(b.get("id"), str):
                    out[b["id"]] = (i, b.get("input") if isinstance(b.get("input"), dict) else {})
    return out


def _inline_subagents(src: AgentSource, nodes: list[Any], main_set: set[int], kids: dict[str, list[int]],
                      by_id: dict[str, int], tool_names: dict[str, str]) -> list[Entry]:
    """1.0.x: sidechains inline in the file, matched to their Task call by the prompt they got."""
    main = sorted(main_set)
    calls = _calls(nodes, main)
    results = _results_by_call(nodes, main)
    by_prompt: dict[str, list[str]] = defaultdict(list)
    for cid, (_i, inp) in calls.items():
        if isinstance(inp.get("prompt"), str):
            by_prompt[inp["prompt"].strip()].append(cid)
    used: set[str] = set()
    out = []
    main_lines = [nodes[i][3] for i in main]
    for i, (o, _off, _size, line) in enumerate(nodes):
        if i in main_set or not o.get("isSidechain"):
            continue
        p = o.get("parentUuid")
        if p is not None and p in by_id:
            continue  # not a sidechain root
        prompt = text_of((o.get("message") or {}).get("content")).strip()
        cid = next((c for c in by_prompt.get(prompt, ()) if c not in used), None)
        if cid is not None:
            used.add(cid)
        size = len(_subtree(i, nodes, kids))
        inp = calls[cid][1] if cid else {}
        desc = inp.get("description") or " ".join(prompt.split())[:60] or "sidechain"
        if cid is not None:
            host = results.get(cid, calls[cid][0])
        else:
            k = bisect.bisect_left(main_lines, line) - 1
            host = main[k] if k >= 0 else (main[0] if main else None)
        sub = Subagent(f"agent:{o['uuid']}", cid, f"{desc} ({inp.get('subagent_type') or 'sidechain'})",
                       src.path, root=o["uuid"], entries=size)
        out.append(_placeholder(src, sub, nodes[host][0]["uuid"] if host is not None else None, o.get("timestamp")))
    return out


def _file_subagents(src: AgentSource, nodes: list[Any], main: list[int], by_id: dict[str, int]) -> list[Entry]:
    """2.0.x ``agent-<id>.jsonl`` beside the session, 2.1.x ``<session>/subagents/agent-<id>.jsonl``:
    linked by the tool result's ``toolUseResult.agentId``."""
    out = []
    folder = os.path.dirname(src.path)
    stem = os.path.splitext(os.path.basename(src.path))[0]
    calls = _calls(nodes, main)
    for i in main:
        o = nodes[i][0]
        tur = o.get("toolUseResult")
        agent = tur.get("agentId") if isinstance(tur, dict) else None
        if not isinstance(agent, str) or not re.fullmatch(r"[A-Za-z0-9_-]{1,80}", agent):
            continue
        found = None
        for d in (os.path.join(folder, stem, "subagents"), os.path.join(folder, src.session_id, "subagents"), folder):
            cand = os.path.join(d, f"agent-{agent}.jsonl")
            if os.path.isfile(cand):
                found = cand
                break
        if found is None:
            continue
        desc = None
        try:
            with open(found[:-len(".jsonl")] + ".meta.json", "rb") as f:
                meta = orjson.loads(f.read())
            if isinstance(meta, dict):
                desc = meta.get("description")
                kind = meta.get("agentType")
        except (OSError, orjson.JSONDecodeError):
            kind = None
        call = None
        msg = o.get("message") if isinstance(o.get("message"), dict) else {}
        for b in msg.get("content") if isinstance(msg.get("content"), list) else []:
            if isinstance(b, dict) and b.get("type") == "tool_result":
                call = b.get("tool_use_id")
        inp = calls.get(call, (0, {}))[1] if isinstance(call, str) else {}
        desc = desc or inp.get("description") or f"agent {agent}"
        try:
            with open(found, "rb") as f:
                count = sum(1 for ln in f if b'"uuid"' in ln)
        except OSError:
            count = 0
        label = f"{desc} ({kind or inp.get('subagent_type') or 'subagent'})"
        sub = Subagent(f"agent:{agent}", call if isinstance(call, str) else None, label, found, entries=count)
        out.append(_placeholder(src, sub, o["uuid"], o.get("timestamp")))
    return out
