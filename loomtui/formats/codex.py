"""Codex CLI rollout files (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``) as loomtui sessions.

Read-only (``formats.agent_session``); the format as far as it is known is in docs/agent-formats.md.

A rollout is a line in file order. Each conversational ``response_item`` is one entry, chained
on the previous one, so a turn (a prompt and what the agent did for it) is a run of entries:

* a user ``message`` that ``event_msg/user_message`` confirms is a prompt → user message;
  injected context (``<environment_context>``, ``<user_instructions>``, role ``developer``) →
  custom message (hidden from the user-only filter);
* assistant ``message`` → assistant text; ``reasoning`` → assistant thinking (its summary);
  ``function_call`` / ``custom_tool_call`` / ``web_search_call`` → assistant tool call; their
  ``*_output`` → toolResult, paired by ``call_id``;
* ``compacted`` → compaction; a change of ``turn_context.model`` → model_change;
* every other line (``turn_context``, ``event_msg``, ``ghost_snapshot``) is kept and listed in the
  detail pane of the entry before it.

``event_msg/thread_rolled_back {num_turns}`` drops the last N turns: the next entry hangs off
the entry before the first dropped prompt, so the dropped turns stay as a side branch.
Tokens: ``token_count`` events that repeat the previous total are skipped; each other event's
``last_token_usage`` goes to the assistant entry before it (their sum is the final total).
A fork (``session_meta.forked_from_id``) replays its parent's history after a second
``session_meta``: those entries sit under a "from parent" row and show only in the ``all``
filter. The leaf is the last entry after rollbacks.
"""

from __future__ import annotations

import os
from typing import Any

import orjson

from loomtui.formats.agent_session import (
    CODEX,
    AgentSession,
    AgentSource,
    file_lines,
    header_for,
)
from loomtui.formats.claude import read_file_bytes
from loomtui.session.entries import Entry
from loomtui.session.errors import Diagnostic, SessionFormatError
from loomtui.session.manager import entry_from_dict
from loomtui.session.memory import bulk_allocation

ENVELOPES = ("session_meta", "response_item", "event_msg", "turn_context", "compacted", "world_state",
             "inter_agent_communication", "ordinal")
CONTEXT_PREFIXES = ("<environment_context>", "<user_instructions>", "<permissions", "# AGENTS.md", "<INSTRUCTIONS>",
                    "<user_shell_command>", "<turn_aborted>", "<collaboration_mode>")
CALLS = ("function_call", "custom_tool_call", "web_search_call", "local_shell_call", "tool_search_call")
OUTPUTS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output", "tool_search_output")
ATTACHED_CAP = 200


def looks_like_codex(obj: Any) -> bool:
    return (isinstance(obj, dict) and obj.get("type") in ENVELOPES and isinstance(obj.get("payload"), dict)
            and "timestamp" in obj)


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))
    return ""


def usage_of(u: Any) -> dict[str, int]:
    def n(k: str) -> int:
        v = u.get(k) if isinstance(u, dict) else None
        return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0

    inp, cached, out = n("input_tokens"), n("cached_input_tokens"), n("output_tokens")
    total = n("total_tokens") or inp + out
    return {"input": inp - cached, "output": out, "cacheRead": cached, "cacheWrite": 0, "totalTokens": total}


def _add(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    return {k: a.get(k, 0) + b.get(k, 0) for k in ("input", "output", "cacheRead", "cacheWrite", "totalTokens")}


def _args(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            v = orjson.loads(raw)
            return v if isinstance(v, dict) else {"arguments": v}
        except orjson.JSONDecodeError:
            return {"input": raw}
    return raw if isinstance(raw, dict) else {}


def to_pi(src: AgentSource, e: Entry, obj: dict[str, Any]) -> dict[str, Any]:
    """The pi-style entry for one rollout line (see the module doc)."""
    p = obj.get("payload") if isinstance(obj.get("payload"), dict) else {}
    kind = src.extra["kinds"].get(e.id, "")
    base: dict[str, Any] = {"id": e.id, "parentId": e.parent_id, "timestamp": obj.get("timestamp")}
    pt = p.get("type")
    d: dict[str, Any]
    if e.id in src.extra["placeholders"]:
        d = dict(src.extra["placeholders"][e.id])
    elif kind == "prompt":
        content: list[dict[str, Any]] = []
        for b in p.get("content") if isinstance(p.get("content"), list) else []:
            if isinstance(b, dict) and b.get("type") in ("input_text", "text"):
                content.append({"type": "text", "text": b.get("text") or ""})
            elif isinstance(b, dict) and b.get("type") == "input_image":
                url = b.get("image_url") or ""
                mime = url[5:url.find(";")] if url.startswith("data:") and ";" in url else "image"
                content.append({"type": "image", "data": url.partition(",")[2], "mimeType": mime})
        d = {"type": "message", **base, "message": {"role": "user", "content": content}}
    elif kind == "context":
        d = {"type": "custom_message", **base, "customType": "developer" if p.get("role") == "developer" else "context",
             "content": _text(p.get("content")), "display": False}
    elif obj.get("type") == "compacted":
        d = {"type": "compaction", **base, "summary": p.get("message") if isinstance(p.get("message"), str) else "",
             "firstKeptEntryId": e.id, "tokensBefore": src.extra["compact_before"].get(e.id, 0)}
    elif kind == "model":
        d = {"type": "model_change", **base, "provider": "openai", "modelId": p.get("model")}
    elif pt in OUTPUTS:
        out = p.get("output")
        if isinstance(out, dict):
            out = out.get("content") or orjson.dumps(out).decode()
        d = {"type": "message", **base, "message": {
            "role": "toolResult", "toolCallId": _str(p.get("call_id")),
            "toolName": src.extra["tool_names"].get(_str(p.get("call_id"))),
            "content": [{"type": "text", "text": out if isinstance(out, str) else _text(out)}], "isError": False}}
    else:
        blocks: list[dict[str, Any]] = []
        stop = "stop"
        if pt == "message":
            blocks = [{"type": "text", "text": _text(p.get("content"))}]
        elif pt == "reasoning":
            parts = p.get("summary") if isinstance(p.get("summary"), list) else []
            summary = "\n\n".join(s["text"] for s in parts if isinstance(s, dict) and isinstance(s.get("text"), str))
            blocks = [{"type": "thinking", "thinking": summary or "(encrypted reasoning)"}]
        elif pt in CALLS:
            args = _args(p.get("arguments") if "arguments" in p else p.get("input") if "input" in p else p.get("action"))
            blocks = [{"type": "toolCall", "id": _str(p.get("call_id")) or e.id, "name": p.get("name") or pt,
                       "arguments": args}]
            stop = "toolUse"
        m: dict[str, Any] = {"role": "assistant", "content": blocks, "provider": "openai",
                             "model": src.extra["models"].get(e.id), "stopReason": stop}
        if e.id in src.usage:
            m["usage"] = src.usage[e.id]
        d = {"type": "message", **base, "message": m}
    info: dict[str, Any] = {"tool": CODEX, "line": src.spans[e.id][2] if e.id in src.spans else None,
                            "type": f"{obj.get('type')}/{pt}" if pt else obj.get("type"), "kind": kind}
    if e.id in src.stray:
        info["stray"] = src.stray[e.id]
    if e.hidden:
        d["hidden"] = e.hidden
    if src.attached.get(e.id):
        info["attached"] = src.attached[e.id]
    d["agentSource"] = info
    return d


def _describe(obj: dict[str, Any]) -> str:
    p = obj.get("payload") if isinstance(obj.get("payload"), dict) else {}
    t = obj.get("type")
    if t == "turn_context":
        return f"model {p.get('model')}, cwd {p.get('cwd')}" + (f", effort {p.get('effort')}" if p.get("effort") else "")
    pt = p.get("type")
    if pt == "token_count":
        info = p.get("info") if isinstance(p.get("info"), dict) else {}
        tot = info.get("total_token_usage") if isinstance(info.get("total_token_usage"), dict) else {}
        return f"total {tot.get('total_tokens', '?')} tokens"
    for k in ("message", "text", "turn_id", "num_turns"):
        if k in p:
            return f"{k}: {str(p[k])[:160]}"
    return ", ".join(list(map(str, p))[:6])


@bulk_allocation()
def open_codex(path: str, label_dir: str | None = None) -> AgentSession:
    path = os.path.abspath(path)
    data = read_file_bytes(path)
    diags: list[Diagnostic] = []
    rows: list[tuple[dict[str, Any], int, int, int]] = []
    for off, size, line in file_lines(data):
        try:
            obj = orjson.loads(data[off:off + size])
        except orjson.JSONDecodeError:
            diags.append(Diagnostic(line, "not valid JSON: skipped"))
            continue
        if not isinstance(obj, dict):
            diags.append(Diagnostic(line, "not a JSON object: skipped"))
            continue
        rows.append((obj, off, size, line))
    metas = [r for r in rows if r[0].get("type") == "session_meta"]
    if not metas:
        raise SessionFormatError(f"{path}: a Codex rollout without a session_meta line")
    meta = metas[0][0].get("payload")
    meta = meta if isinstance(meta, dict) else {}
    sid = str(meta.get("id") or os.path.splitext(os.path.basename(path))[0])
    src = AgentSource(CODEX, path, sid, label_dir=label_dir)
    src.preamble = [data[metas[0][1]:metas[0][1] + metas[0][2]]]
    prompts: set[str] = set()
    for r in rows:
        pl = r[0].get("payload")
        if r[0].get("type") == "event_msg" and isinstance(pl, dict) and pl.get("type") == "user_message" and isinstance(
                pl.get("message"), str):
            prompts.add(pl["message"])
    have_events = bool(prompts)
    ex: dict[str, Any] = {"kinds": {}, "models": {}, "tool_names": {}, "compact_before": {}, "placeholders": {},
                          "lines": len(rows), "forkedFrom": meta.get("forked_from_id")}
    src.extra = ex
    fork_end = _replayed_prefix(rows, metas)
    skeletons: list[Entry] = []
    parent: str | None = None
    last_assistant: str | None = None
    pending: dict[str, Any] | None = None
    turns: list[str] = []  # prompt entries on the current path
    prev_total: Any = None
    model: str | None = None
    last_total = 0
    hidden: str | None = None
    if fork_end:
        pid = "from-parent"
        ph = {"type": "custom_message", "id": pid, "parentId": None, "timestamp": meta.get("timestamp"),
              "customType": "from parent",
              "content": f"replayed from {meta.get('forked_from_id')} ({fork_end[1]} lines; the all filter shows them)",
              "display": True}
        ex["placeholders"][pid] = ph
        e = entry_from_dict(dict(ph))
        assert e is not None
        e.data = None
        skeletons.append(e)
        parent = pid
        hidden = "from-parent"
    current: str | None = None
    for n, (obj, off, size, line) in enumerate(rows):
        if n == 0 and obj.get("type") == "session_meta":
            continue
        if fork_end and n == fork_end[0]:
            hidden = None
        t = obj.get("type")
        p = obj.get("payload") if isinstance(obj.get("payload"), dict) else {}
        pt = p.get("type")
        kind = None
        if t == "turn_context" and isinstance(p.get("model"), str):
            if model is not None and p["model"] != model:
                kind = "model"
            model = p["model"]
        elif t == "compacted":
            kind = "compaction"
            ex["compact_before"][f"L{line}"] = last_total
        elif t == "response_item" and pt == "message":
            role = p.get("role")
            text = _text(p.get("content"))
            if role == "user":
                real = (text in prompts) if have_events else not text.lstrip().startswith(CONTEXT_PREFIXES)
                kind = "prompt" if real and not text.lstrip().startswith(CONTEXT_PREFIXES) else "context"
            elif role == "assistant":
                kind = "assistant"
            else:
                kind = "context"
        elif t == "response_item" and pt == "reasoning":
            kind = "thinking"
        elif t == "response_item" and pt in CALLS:
            kind = "tool-call"
            if isinstance(p.get("call_id"), str):
                ex["tool_names"][p["call_id"]] = str(p.get("name") or pt)
        elif t == "response_item" and pt in OUTPUTS:
            kind = "tool-result"
        elif t == "event_msg" and pt == "thread_rolled_back":
            k = p.get("num_turns")
            k = k if isinstance(k, int) and k > 0 else 1
            if turns:
                drop = turns[-min(k, len(turns)):]
                first = next(x for x in skeletons if x.id == drop[0])
                parent = first.parent_id
                del turns[-len(drop):]
                for x in _descendants(skeletons, drop[0]):
                    src.stray.setdefault(x, f"rolled back ({k} turn{'s' if k != 1 else ''})")
        elif t == "event_msg" and pt == "token_count":
            info = p.get("info") if isinstance(p.get("info"), dict) else None
            if info is not None:
                tot = info.get("total_token_usage")
                if tot != prev_total:
                    last = info.get("last_token_usage")
                    u = usage_of(last) if isinstance(last, dict) else _diff(tot, prev_total)
                    if last_assistant is not None:
                        src._usage[last_assistant] = _add(src._usage.get(last_assistant, {}), u)
                    else:
                        pending = _add(pending or {}, u)
                    prev_total = tot
                    last_total = usage_of(tot)["totalTokens"] if isinstance(tot, dict) else last_total
        if kind is None:
            target = current or (skeletons[0].id if skeletons else None)
            if target is None:
                ex.setdefault("head", []).append({"line": line, "type": f"{t}/{pt}" if pt else t, "text": _describe(obj)})
            else:
                _attach(src, target, line, obj)
            continue
        eid = f"L{line}"
        ex["kinds"][eid] = kind
        ex["models"][eid] = model
        src._spans[eid] = (off, size, line)
        skel = Entry(eid, parent, "message")
        skel.line = line
        d = to_pi(src, skel, obj)
        if hidden:
            d["hidden"] = hidden
        e = entry_from_dict(d, line=line)
        assert e is not None
        e.data = None
        skeletons.append(e)
        if kind == "prompt":
            turns.append(eid)
        if kind in ("assistant", "thinking", "tool-call"):
            last_assistant = eid
            if pending:
                src._usage[eid] = _add(src._usage.get(eid, {}), pending)
                pending = None
        parent = eid
        current = eid
    for x in skeletons:
        if x.id in src.stray and not x.hidden:
            x.hidden = "stray"
    if "head" in ex and skeletons:
        src._attached.setdefault(skeletons[0].id, [])[:0] = ex.pop("head")
    header = header_for(src, meta.get("cwd"), meta.get("timestamp"),
                        {"tool": CODEX, "originator": meta.get("originator"), "cliVersion": meta.get("cli_version")}
                        | ({"parentSession": meta["forked_from_id"]} if isinstance(meta.get("forked_from_id"), str)
                           and meta["forked_from_id"] else {}))
    sm = AgentSession(header, src, lambda m, e, obj: to_pi(src, e, obj))
    sm.index.build(skeletons)
    sm.index.diagnostics[:0] = diags
    sm.index.leaf_id = parent
    sm._leaf = parent
    total = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}
    for u in src.usage.values():
        total = _add(total, u)
    ex["usage"] = {**total, "responses": len(src.usage)}
    idx = sm.index
    src.stats = {
        "entries": len(skeletons), "lines": len(rows), "roots": [r.id for r in idx.roots],
        "leaves": [x.id for x in idx.entries if not idx.child_lists().get(x.id)],
        "branchPoints": [{"id": k, "children": len(v), "kind": "rollback"} for k, v in idx.child_lists().items()
                         if len(v) > 1],
    }
    sm.load_stored_labels()
    return sm


def _diff(tot: Any, prev: Any) -> dict[str, Any]:
    a, b = usage_of(tot), usage_of(prev or {})
    return {k: a[k] - b[k] for k in a}


def _attach(src: AgentSource, target: str, line: int, obj: dict[str, Any]) -> None:
    p = obj.get("payload") if isinstance(obj.get("payload"), dict) else {}
    pt = p.get("type")
    if pt in ("user_message", "agent_message", "agent_reasoning", "token_count"):
        return  # mirror copies of entries and counters: the entry itself shows them
    lst = src._attached.setdefault(target, [])
    if len(lst) < ATTACHED_CAP:
        lst.append({"line": line, "type": f"{obj.get('type')}/{pt}" if pt else obj.get("type"), "text": _describe(obj)})


def _descendants(skeletons: list[Entry], root: str) -> list[str]:
    out = {root}
    for x in skeletons:
        if x.parent_id in out:
            out.add(x.id)
    return list(out)


def _replayed_prefix(rows: list[Any], metas: list[Any]) -> tuple[int, int] | None:
    """(row index where the fork's own lines start, lines replayed) for a fork, else None.

    After the fork's ``session_meta`` comes the parent's, then the parent's history with its
    own timestamps; the fork's own lines are the first ones at or after the fork's time.
    """
    meta = metas[0][0].get("payload")
    if len(metas) < 2 or not isinstance(meta, dict) or not meta.get("forked_from_id"):
        return None
    start = next(i for i, r in enumerate(rows) if r is metas[1])
    fork_time = str(metas[0][0].get("timestamp") or meta.get("timestamp") or "")
    i = start + 1
    while i < len(rows) and str(rows[i][0].get("timestamp") or "") < fork_time:
        i += 1
    return (i, i - start) if i > start + 1 else None
