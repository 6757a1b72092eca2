"""Claude Code and Codex sessions in the picker: where they live, one summary each, search text.

The readers themselves live in ``loomtui.formats`` (a layer above); this module only lists
files and summarises them the way ``catalog`` does for pi (docs/agent-formats.md, "Claude Code and
Codex"):

* Claude Code: ``$CLAUDE_CONFIG_DIR/projects/*/*.jsonl`` (default ``~/.claude``), without the
  ``agent-*.jsonl`` subagent files; the project is the ``cwd`` of the lines, never the folder name.
* Codex: ``$CODEX_HOME/sessions/**/rollout-*.jsonl`` and ``archived_sessions/`` (default
  ``~/.codex``); a fork's parent is its ``forked_from_id``.

A summary's ``branch_count`` counts real branches: prompts that share a parent (rewinds, edits)
for Claude Code, ``thread_rolled_back`` events for Codex.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from loomtui.session.catalog import SessionSummary
    from loomtui.session.fulltext import SearchHit

CLAUDE = "claude-code"
CODEX = "codex"
#: Claude Code lines without a uuid (docs/agent-formats.md)
CLAUDE_BOOKKEEPING = ("summary", "file-history-snapshot", "queue-operation", "last-prompt", "permission-mode", "mode",
                      "custom-title", "agent-name", "ai-title", "pr-link")
CMD_PREFIXES = ("<command-name>", "<command-message>", "<bash-input>", "<bash-stdout>", "<local-command-stdout>",
                "<local-command-caveat>")
CONTEXT_PREFIXES = ("<environment_context>", "<user_instructions>", "<permissions", "# AGENTS.md", "<INSTRUCTIONS>")


def _home(env_name: str, default: str, env: dict[str, str] | os._Environ[str]) -> str:
    value = env.get(env_name)
    return os.path.expanduser(value) if value else os.path.expanduser(default)


def agent_roots(env: dict[str, str] | os._Environ[str] | None = None) -> list[tuple[str, str]]:
    """(tool, directory) of every place Claude Code and Codex keep sessions (existing or not)."""
    env = os.environ if env is None else env
    claude = _home("CLAUDE_CONFIG_DIR", "~/.claude", env)
    codex = _home("CODEX_HOME", "~/.codex", env)
    return [(CLAUDE, os.path.join(claude, "projects")), (CODEX, os.path.join(codex, "sessions")),
            (CODEX, os.path.join(codex, "archived_sessions"))]


def discover_agent(tool: str, root: str) -> list[str]:
    """Session files of ``tool`` under ``root`` (sorted; unreadable folders are skipped)."""
    out: list[str] = []
    if tool == CLAUDE:
        try:
            with os.scandir(root) as it:
                projects = sorted(d.path for d in it if d.is_dir() and not d.name.startswith("."))
        except OSError:
            return out
        for p in projects:
            try:
                with os.scandir(p) as it:
                    out += sorted(f.path for f in it if f.name.endswith(".jsonl") and not f.name.startswith(("agent-", "."))
                                  and f.is_file())
            except OSError:
                continue
        return out
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        if dirpath[len(root):].count(os.sep) > 4:
            dirnames.clear()
        out += sorted(os.path.join(dirpath, f) for f in filenames if f.startswith("rollout-") and f.endswith(".jsonl"))
    return out


def _lines(buf: bytes) -> Iterator[tuple[int, Any]]:
    """(1-based line, decoded JSON object) of every line that is one."""
    for n, raw in enumerate(buf.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            yield n, obj


def sniff(buf: bytes) -> str | None:
    """``claude-code`` / ``codex`` when the first JSON line of ``buf`` is that tool's."""
    for raw in buf[:256 * 1024].split(b"\n")[:40]:
        if not raw.strip():
            continue
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(obj, dict):
            return None
        if isinstance(obj.get("payload"), dict) and obj.get("type") in ("session_meta", "response_item", "event_msg",
                                                                          "turn_context", "compacted"):
            return CODEX
        if "parentUuid" in obj or (obj.get("type") in CLAUDE_BOOKKEEPING and (
                "sessionId" in obj or "messageId" in obj or "leafUuid" in obj)):
            return CLAUDE
        return None
    return None


def _s(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)
                        and b.get("type") in ("text", "input_text", "output_text"))
    return ""


def summary_fields(buf: bytes) -> dict[str, Any] | None:
    """What the picker shows of a Claude Code or Codex file (None for other files)."""
    tool = sniff(buf)
    if tool == CLAUDE:
        return _claude_fields(buf)
    if tool == CODEX:
        return _codex_fields(buf)
    return None


def _claude_fields(buf: bytes) -> dict[str, Any]:
    acc = _ClaudeSummary()
    for _n, o in _lines(buf):
        t = o.get("type")
        if acc.sid is None and isinstance(o.get("sessionId"), str):
            acc.sid = o["sessionId"]
        if t in ("summary", "custom-title", "agent-name"):
            acc.title_line(t, o)
        elif isinstance(o.get("uuid"), str) and not o.get("isSidechain"):
            acc.entry(t, o)
    return acc.fields()


class _ClaudeSummary:
    """What ``_claude_fields`` gathers from a Claude Code file's lines, one line at a time."""

    def __init__(self) -> None:
        self.sid: Any = None
        self.cwd: Any = None
        self.first: str | None = None
        self.name: str | None = None
        self.parent: Any = None
        self.first_ts: Any = None
        self.last_ts: Any = None
        self.messages = 0
        self.entries = 0
        self.prompts_under: dict[Any, int] = {}

    def title_line(self, t: Any, o: dict[str, Any]) -> None:
        """A summary line names the session unless a title or agent name already did."""
        text = o.get("summary") or o.get("customTitle") or o.get("agentName")
        if isinstance(text, str) and (self.name is None or t != "summary"):
            self.name = text

    def entry(self, t: Any, o: dict[str, Any]) -> None:
        self.entries += 1
        fork = o.get("forkedFrom")  # written by /branch (older builds): the source session
        if self.parent is None and isinstance(fork, dict) and isinstance(fork.get("sessionId"), str):
            self.parent = fork["sessionId"] if fork["sessionId"] != self.sid else None
        if self.cwd is None and isinstance(o.get("cwd"), str):
            self.cwd = o["cwd"]
        ts = o.get("timestamp")
        self.first_ts = self.first_ts or ts
        if t in ("user", "assistant"):
            self.messages += 1
            self.last_ts = ts or self.last_ts
        if t == "user" and not o.get("isMeta") and not o.get("isCompactSummary"):
            self._prompt(o)

    def _prompt(self, o: dict[str, Any]) -> None:
        """A user line: the first prompt's text, and prompts counted under their parent (two or
        more under one parent is a branch point). Tool results and slash commands are not prompts."""
        m = o.get("message")
        content = m.get("content") if isinstance(m, dict) else None
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return
        text = _text(content)
        if text.lstrip().startswith(CMD_PREFIXES):
            return
        if self.first is None and text.strip():
            self.first = text
        p = o.get("parentUuid")
        if isinstance(p, str):
            self.prompts_under[p] = self.prompts_under.get(p, 0) + 1

    def fields(self) -> dict[str, Any]:
        branches = sum(1 for k in self.prompts_under.values() if k > 1)
        return {"tool": CLAUDE, "id": self.sid, "cwd": self.cwd, "name": self.name, "first_message": self.first,
                "created": self.first_ts, "modified": self.last_ts, "message_count": self.messages,
                "branch_count": branches, "parent": self.parent, "entry_count": self.entries}


def _codex_fields(buf: bytes) -> dict[str, Any]:
    meta: dict[str, Any] | None = None
    first = None
    last_ts = None
    messages = entries = rollbacks = 0
    for _n, o in _lines(buf):
        p = o.get("payload") if isinstance(o.get("payload"), dict) else {}
        t, pt = o.get("type"), p.get("type")
        if t == "session_meta" and meta is None:
            meta = p
        elif t == "event_msg" and pt == "user_message" and first is None and isinstance(p.get("message"), str):
            first = p["message"]
        elif t == "event_msg" and pt == "thread_rolled_back":
            rollbacks += 1
        elif t == "response_item" or t == "compacted":
            entries += pt != "ghost_snapshot"
            if pt == "message" and p.get("role") in ("user", "assistant"):
                if p.get("role") == "assistant" or not _text(p.get("content")).lstrip().startswith(CONTEXT_PREFIXES):
                    messages += 1
                last_ts = o.get("timestamp") or last_ts
    meta = meta or {}
    return {"tool": CODEX, "id": _s(meta.get("id")), "cwd": _s(meta.get("cwd")), "name": None, "first_message": first,
            "created": meta.get("timestamp"), "modified": last_ts, "message_count": messages,
            "branch_count": rollbacks, "parent": _s(meta.get("forked_from_id")), "entry_count": entries}


def search_text(obj: dict[str, Any]) -> tuple[str, str, str | None]:
    """(kind, searchable text, entry id) of one Claude Code or Codex line ('' when none)."""
    if isinstance(obj.get("payload"), dict):  # Codex
        kind, text = _codex_search_text(obj["payload"]) if obj.get("type") == "response_item" else ("", "")
        return kind, text, None
    uid = obj.get("uuid")
    eid = uid if isinstance(uid, str) else None
    msg = obj.get("message")
    if not isinstance(msg, dict):
        content = obj.get("content")
        return str(obj.get("type") or ""), content if isinstance(content, str) else "", eid
    role = str(msg.get("role") or obj.get("type"))
    content = msg.get("content")
    if isinstance(content, str):
        return role, content, eid
    parts: list[str] = []
    for b in content if isinstance(content, list) else ():
        if isinstance(b, dict):
            if b.get("type") == "tool_result":
                role = "toolResult"
            parts += _claude_block_texts(b)
    return role, "\n".join(parts), eid


def _codex_search_text(p: dict[str, Any]) -> tuple[str, str]:
    """(kind, text) of a Codex response item's payload."""
    pt = p.get("type")
    if pt == "message":
        return str(p.get("role")), _text(p.get("content"))
    if pt == "reasoning":
        return "thinking", " ".join(s.get("text", "") for s in p.get("summary") or [] if isinstance(s, dict))
    for key in ("arguments", "input", "output"):
        if isinstance(p.get(key), str):
            return ("toolResult" if key == "output" else "tool"), p[key]
    return "", ""


def _claude_block_texts(b: dict[str, Any]) -> list[str]:
    """The searchable texts of one content block of a Claude Code message."""
    bt = b.get("type")
    if bt == "text" and isinstance(b.get("text"), str):
        return [b["text"]]
    if bt == "thinking" and isinstance(b.get("thinking"), str):
        return [b["thinking"]]
    if bt == "tool_use":
        inp = b.get("input")
        values = [v if isinstance(v, str) else orjson.dumps(v).decode() for v in inp.values()] if isinstance(inp, dict) else []
        return [str(b.get("name")), *values]
    if bt == "tool_result":
        return [_text(b.get("content"))]
    return []


def summary(path: str, buf: bytes, mtime: float) -> "SessionSummary | None":
    """A Claude Code or Codex file's summary (``agent_catalog``), None for anything else."""
    from loomtui.session.catalog import SessionSummary
    from loomtui.session.scan import NO_MESSAGES, one_line, seconds as _seconds

    f = summary_fields(buf)
    if f is None or not f.get("id"):
        return None
    created = _seconds(f.get("created"))
    created = mtime if math.isnan(created) else created
    modified = _seconds(f.get("modified"))
    name = f.get("name")
    return SessionSummary(
        path=path, id=str(f["id"]), cwd=f.get("cwd") or "", name=one_line(name) if isinstance(name, str) else None,
        first_message=one_line(f["first_message"]) if f.get("first_message") else NO_MESSAGES, created=created,
        modified=created if math.isnan(modified) else modified, message_count=f["message_count"],
        branch_count=f["branch_count"], parent_session=f.get("parent"), version=0, entry_count=f["entry_count"],
        size=len(buf), tool=f["tool"],
    )


def search_file(path: str, buf: bytes, tokens: list[str], probe: bytes | None, cap: int) -> Iterator["SearchHit"]:
    """Full-text search of a Claude Code or Codex file (entry ids as loomtui's readers give them)."""
    from loomtui.session.fulltext import SearchHit, _snippet
    from loomtui.session.scan import loads as _loads

    tool = sniff(buf)
    if tool is None:
        return
    n = 0
    for line, raw in enumerate(buf.split(b"\n"), start=1):
        if probe is not None and probe not in raw.lower():
            continue
        obj = _loads(raw)
        if not isinstance(obj, dict) or obj.get("isSidechain"):
            continue
        kind, text, eid = search_text(obj)
        low_text = text.lower()
        if text and all(t in low_text for t in tokens):
            if tool == CODEX:
                eid = f"L{line}"
            yield SearchHit(path, eid, line, _snippet(text, tokens[0]), kind)
            n += 1
            if n >= cap:
                return
