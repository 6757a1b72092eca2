"""Codex CLI rollout files (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``) as loomtui sessions.

Read-only (``formats.agent.session``); the format as far as it is known is in docs/agent-formats.md.

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

from loomtui.formats.agent.kinds import CODEX
from loomtui.formats.agent.session import (
    AgentSession,
    AgentSource,
    file_lines,
    header_for,
    read_file_bytes,
)
from loomtui.formats.agent.tools import CODEX_TOOLS, shown_calls
from loomtui.formats.codex import resume as codex_resume
from loomtui.formats.codex.words import codex_words
from loomtui.session.entries import Entry
from loomtui.session.errors import Diagnostic, SessionFormatError
from loomtui.session.manager import entry_from_dict
from loomtui.session.memory import bulk_allocation

ENVELOPES = (
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
    "world_state",
    "inter_agent_communication",
    "ordinal",
)
CONTEXT_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "<permissions",
    "# AGENTS.md",
    "<INSTRUCTIONS>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<collaboration_mode>",
)
CALLS = ("function_call", "custom_tool_call", "web_search_call", "local_shell_call", "tool_search_call")
OUTPUTS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output", "tool_search_output")
ATTACHED_CAP = 200


def looks_like_codex(obj: Any) -> bool:
    return (
        isinstance(obj, dict)
        and obj.get("type") in ENVELOPES
        and isinstance(obj.get("payload"), dict)
        and "timestamp" in obj
    )


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
        d = {"type": "message", **base, "message": {"role": "user", "content": _prompt_content(p.get("content"))}}
    elif kind == "context":
        d = {
            "type": "custom_message",
            **base,
            "customType": "developer" if p.get("role") == "developer" else "context",
            "content": _text(p.get("content")),
            "display": False,
        }
    elif obj.get("type") == "compacted":
        d = {
            "type": "compaction",
            **base,
            "summary": p.get("message") if isinstance(p.get("message"), str) else "",
            "firstKeptEntryId": e.id,
            "tokensBefore": src.extra["compact_before"].get(e.id, 0),
        }
    elif kind == "model":
        d = {"type": "model_change", **base, "provider": "openai", "modelId": p.get("model")}
    elif pt in OUTPUTS:
        d = _output(src, base, p)
    else:
        d = _assistant_item(src, e, base, p)
    info: dict[str, Any] = {
        "tool": CODEX,
        "line": src.spans[e.id][2] if e.id in src.spans else None,
        "type": f"{obj.get('type')}/{pt}" if pt else obj.get("type"),
        "kind": kind,
    }
    if e.id in src.stray:
        info["stray"] = src.stray[e.id]
    if e.hidden:
        d["hidden"] = e.hidden
    if src.attached.get(e.id):
        info["attached"] = src.attached[e.id]
    d["agentSource"] = info
    return d


def _prompt_content(parts: Any) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = []
    for b in parts if isinstance(parts, list) else []:
        if isinstance(b, dict) and b.get("type") in ("input_text", "text"):
            content.append({"type": "text", "text": b.get("text") or ""})
        elif isinstance(b, dict) and b.get("type") == "input_image":
            url = b.get("image_url") or ""
            mime = url[5 : url.find(";")] if url.startswith("data:") and ";" in url else "image"
            content.append({"type": "image", "data": url.partition(",")[2], "mimeType": mime})
    return content


def _output(src: AgentSource, base: dict[str, Any], p: dict[str, Any]) -> dict[str, Any]:
    """A tool call's output: a ``toolResult`` message."""
    out = p.get("output")
    if isinstance(out, dict):
        out = out.get("content") or orjson.dumps(out).decode()
    return {
        "type": "message",
        **base,
        "message": {
            "role": "toolResult",
            "toolCallId": _str(p.get("call_id")),
            "toolName": src.extra["tool_names"].get(_str(p.get("call_id"))),
            "content": [{"type": "text", "text": out if isinstance(out, str) else _text(out)}],
            "isError": False,
        },
    }


def _assistant_item(src: AgentSource, e: Entry, base: dict[str, Any], p: dict[str, Any]) -> dict[str, Any]:
    """A message, reasoning or tool call item: an assistant message."""
    pt = p.get("type")
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
        blocks = [
            {"type": "toolCall", "id": _str(p.get("call_id")) or e.id, "name": p.get("name") or pt, "arguments": args}
        ]
        stop = "toolUse"
    m: dict[str, Any] = {
        "role": "assistant",
        "content": blocks,
        "provider": "openai",
        "model": src.extra["models"].get(e.id),
        "stopReason": stop,
    }
    if e.id in src.usage:
        m["usage"] = src.usage[e.id]
    return {"type": "message", **base, "message": m}


def _describe(obj: dict[str, Any]) -> str:
    p = obj.get("payload") if isinstance(obj.get("payload"), dict) else {}
    t = obj.get("type")
    if t == "turn_context":
        return f"model {p.get('model')}, cwd {p.get('cwd')}" + (
            f", effort {p.get('effort')}" if p.get("effort") else ""
        )
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
    rows, diags = _rows(data)
    metas = [r for r in rows if r[0].get("type") == "session_meta"]
    if not metas:
        raise SessionFormatError(f"{path}: a Codex rollout without a session_meta line")
    meta = metas[0][0].get("payload")
    meta = meta if isinstance(meta, dict) else {}
    sid = str(meta.get("id") or os.path.splitext(os.path.basename(path))[0])
    # a token_count has cached input (a cache read) and no cache write
    src = AgentSource(CODEX, path, sid, label_dir=label_dir, resumer=codex_resume, keeps_cache_write=False)
    src.preamble = [data[metas[0][1] : metas[0][1] + metas[0][2]]]
    walk = _Walk(src, rows, meta)
    src.entry_words = codex_words(src.extra["kinds"])
    fork_end = _replayed_prefix(rows, metas)
    if fork_end:
        walk.from_parent(fork_end[1])
    for n, row in enumerate(rows):
        if n == 0 and row[0].get("type") == "session_meta":
            continue
        if fork_end and n == fork_end[0]:
            walk.hidden = None
        walk.row(*row)
    skeletons = walk.skeletons
    for x in skeletons:
        if x.id in src.stray and not x.hidden:
            x.hidden = "stray"
    ex = src.extra
    if "head" in ex and skeletons:
        src._attached.setdefault(skeletons[0].id, [])[:0] = ex.pop("head")
    fork = meta.get("forked_from_id")
    header = header_for(
        src,
        meta.get("cwd"),
        meta.get("timestamp"),
        {"tool": CODEX, "originator": meta.get("originator"), "cliVersion": meta.get("cli_version")}
        | ({"parentSession": fork} if isinstance(fork, str) and fork else {}),
    )
    sm = AgentSession(header, src, lambda m, e, obj: to_pi(src, e, obj))
    sm.index.build(skeletons)
    sm.index.diagnostics[:0] = diags
    sm.index.leaf_id = walk.parent
    sm._leaf = walk.parent
    _totals(src, sm, len(skeletons), len(rows))
    sm.load_stored_labels()
    return sm


def _rows(data: bytes) -> tuple[list[tuple[dict[str, Any], int, int, int]], list[Diagnostic]]:
    """(object, offset, size, line) of each line that is a JSON object; diagnostics for the rest."""
    diags: list[Diagnostic] = []
    rows: list[tuple[dict[str, Any], int, int, int]] = []
    for off, size, line in file_lines(data):
        try:
            obj = orjson.loads(data[off : off + size])
        except orjson.JSONDecodeError:
            diags.append(Diagnostic(line, "not valid JSON: skipped"))
            continue
        if not isinstance(obj, dict):
            diags.append(Diagnostic(line, "not a JSON object: skipped"))
            continue
        rows.append((obj, off, size, line))
    return rows, diags


def _totals(src: AgentSource, sm: AgentSession, entries: int, lines: int) -> None:
    """The token total and the file's own tree (``info``)."""
    total = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}
    for u in src.usage.values():
        total = _add(total, u)
    src.extra["usage"] = {**total, "responses": len(src.usage)}
    idx = sm.index
    src.stats = {
        "entries": entries,
        "lines": lines,
        "roots": [r.id for r in idx.roots],
        "leaves": [x.id for x in idx.entries if not idx.child_lists().get(x.id)],
        "branchPoints": [
            {"id": k, "children": len(v), "kind": "rollback"} for k, v in idx.child_lists().items() if len(v) > 1
        ],
    }


def _is_user_item(obj: dict[str, Any]) -> bool:
    p = obj.get("payload")
    return (
        obj.get("type") == "response_item"
        and isinstance(p, dict)
        and p.get("type") == "message"
        and p.get("role") == "user"
    )


def _is_user_event(obj: dict[str, Any]) -> bool:
    p = obj.get("payload")
    return obj.get("type") == "event_msg" and isinstance(p, dict) and p.get("type") == "user_message"


def confirmed_prompts(rows: list[tuple[dict[str, Any], int, int, int]]) -> set[int] | None:
    """The lines of the user messages that an ``event_msg/user_message`` confirms as prompts:
    for each such event, the nearest response item before it when that is a user message (Codex
    writes the item, then the event), else the nearest one after it. The texts need not be equal
    (a redacted rollout, a prompt with attachments). None when the rollout has no such event."""
    items = [k for k, r in enumerate(rows) if r[0].get("type") == "response_item"]
    events = [k for k, r in enumerate(rows) if _is_user_event(r[0])]
    if not events:
        return None
    out: set[int] = set()
    at = 0  # items[at] is the first item after the event
    for k in events:
        while at < len(items) and items[at] < k:
            at += 1
        for j in (at - 1, at):
            if 0 <= j < len(items) and _is_user_item(rows[items[j]][0]) and rows[items[j]][3] not in out:
                out.add(rows[items[j]][3])
                break
    return out


class _Walk:
    """The rollout's lines in file order: entries chained on the previous one, rollbacks,
    tokens, model changes, and the lines kept in the detail pane."""

    def __init__(
        self, src: AgentSource, rows: list[tuple[dict[str, Any], int, int, int]], meta: dict[str, Any]
    ) -> None:
        self.src = src
        self.meta = meta
        #: lines of the user messages an ``event_msg/user_message`` confirms (None: the rollout
        #: has no such events, so every user message that is not injected context is a prompt)
        self.prompts: set[int] | None = confirmed_prompts(rows)
        self.ex: dict[str, Any] = {
            "kinds": {},
            "models": {},
            "tool_names": {},
            "compact_before": {},
            "placeholders": {},
            "lines": len(rows),
            "forkedFrom": meta.get("forked_from_id"),
        }
        src.extra = self.ex
        self.skeletons: list[Entry] = []
        self.parent: str | None = None
        self.last_assistant: str | None = None
        self.pending: dict[str, Any] | None = None
        self.turns: list[str] = []  # prompt entries on the current path
        self.prev_total: Any = None
        self.model: str | None = None
        self.last_total = 0
        self.hidden: str | None = None
        self.current: str | None = None

    def from_parent(self, replayed: int) -> None:
        """A fork: the replayed lines go under a "from parent" row (shown in the all filter)."""
        pid = "from-parent"
        ph = {
            "type": "custom_message",
            "id": pid,
            "parentId": None,
            "timestamp": self.meta.get("timestamp"),
            "customType": "from parent",
            "content": f"replayed from {self.meta.get('forked_from_id')} ({replayed} lines; the all filter shows them)",
            "display": True,
        }
        self.ex["placeholders"][pid] = ph
        e = entry_from_dict(dict(ph))
        assert e is not None
        e.data = None
        self.skeletons.append(e)
        self.parent = pid
        self.hidden = "from-parent"

    def row(self, obj: dict[str, Any], off: int, size: int, line: int) -> None:
        t = obj.get("type")
        p = obj.get("payload") if isinstance(obj.get("payload"), dict) else {}
        if t == "response_item":
            kind = self._item(p, line)
        elif t == "event_msg":
            self._event(p)
            kind = None
        else:
            kind = self._other(t, p, line)
        if kind is None:
            self._keep(obj, p, line)
        else:
            self._entry(obj, kind, off, size, line)

    def _item(self, p: dict[str, Any], line: int) -> str | None:
        pt = p.get("type")
        if pt == "message":
            role = p.get("role")
            if role == "user":
                context = _text(p.get("content")).lstrip().startswith(CONTEXT_PREFIXES)
                real = line in self.prompts if self.prompts is not None else True
                return "prompt" if real and not context else "context"
            return "assistant" if role == "assistant" else "context"
        if pt == "reasoning":
            return "thinking"
        if pt in CALLS:
            if isinstance(p.get("call_id"), str):
                self.ex["tool_names"][p["call_id"]] = str(p.get("name") or pt)
            return "tool-call"
        return "tool-result" if pt in OUTPUTS else None

    def _other(self, t: Any, p: dict[str, Any], line: int) -> str | None:
        if t == "turn_context" and isinstance(p.get("model"), str):
            changed = self.model is not None and p["model"] != self.model
            self.model = p["model"]
            return "model" if changed else None
        if t == "compacted":
            self.ex["compact_before"][f"L{line}"] = self.last_total
            return "compaction"
        return None

    def _event(self, p: dict[str, Any]) -> None:
        pt = p.get("type")
        if pt == "thread_rolled_back":
            self._rollback(p.get("num_turns"))
        elif pt == "token_count" and isinstance(p.get("info"), dict):
            self._tokens(p["info"])

    def _rollback(self, k: Any) -> None:
        """The last ``k`` turns are dropped: the next entry hangs off the entry before them."""
        k = k if isinstance(k, int) and k > 0 else 1
        if not self.turns:
            return
        drop = self.turns[-min(k, len(self.turns)) :]
        first = next(x for x in self.skeletons if x.id == drop[0])
        self.parent = first.parent_id
        del self.turns[-len(drop) :]
        for x in _descendants(self.skeletons, drop[0]):
            self.src.stray.setdefault(x, f"rolled back ({k} turn{'s' if k != 1 else ''})")

    def _tokens(self, info: dict[str, Any]) -> None:
        tot = info.get("total_token_usage")
        if tot == self.prev_total:
            return  # a repeat of the previous count
        last = info.get("last_token_usage")
        u = usage_of(last) if isinstance(last, dict) else _diff(tot, self.prev_total)
        if self.last_assistant is not None:
            self.src._usage[self.last_assistant] = _add(self.src._usage.get(self.last_assistant, {}), u)
        else:
            self.pending = _add(self.pending or {}, u)
        self.prev_total = tot
        self.last_total = usage_of(tot)["totalTokens"] if isinstance(tot, dict) else self.last_total

    def _keep(self, obj: dict[str, Any], p: dict[str, Any], line: int) -> None:
        """A line that is no entry: listed with the entry before it (or the first one)."""
        target = self.current or (self.skeletons[0].id if self.skeletons else None)
        if target is None:
            pt = p.get("type")
            t = obj.get("type")
            self.ex.setdefault("head", []).append(
                {"line": line, "type": f"{t}/{pt}" if pt else t, "text": _describe(obj)}
            )
        else:
            _attach(self.src, target, line, obj)

    def _entry(self, obj: dict[str, Any], kind: str, off: int, size: int, line: int) -> None:
        src = self.src
        eid = f"L{line}"
        self.ex["kinds"][eid] = kind
        self.ex["models"][eid] = self.model
        src._spans[eid] = (off, size, line)
        skel = Entry(eid, self.parent, "message")
        skel.line = line
        d = to_pi(src, skel, obj)
        if self.hidden:
            d["hidden"] = self.hidden
        e = entry_from_dict(d, line=line)
        assert e is not None
        e.data = None
        e.tool_calls = shown_calls(CODEX_TOOLS, e.tool_calls)  # each row as pi shows the same tool
        self.skeletons.append(e)
        if kind == "prompt":
            self.turns.append(eid)
        if kind in ("assistant", "thinking", "tool-call"):
            self.last_assistant = eid
            if self.pending:
                src._usage[eid] = _add(src._usage.get(eid, {}), self.pending)
                self.pending = None
        self.parent = eid
        self.current = eid


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
