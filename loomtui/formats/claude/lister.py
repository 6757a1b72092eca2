"""Claude Code sessions in the picker: where the tool keeps them, one file's row, its lines'
searchable text (the lister ``formats/sources.py`` names; ``session/agent_catalog.py`` walks,
caches and draws what it gives).

``$CLAUDE_CONFIG_DIR/projects/*/*.jsonl`` (default ``~/.claude``), without the ``agent-*.jsonl``
subagent files; the project is the ``cwd`` of the lines, never the folder name. A row's
``branch_count`` counts prompts that share a parent (rewinds, edits); a ``/branch`` file's
parent is the session its lines were forked from, a background fork's the session it replays
(``background.py``). Light on purpose: the picker imports it, not the reader.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import orjson

from loomtui.formats.agent.kinds import CLAUDE, TOOL_NAMES
from loomtui.formats.claude.background import parent_session_id
from loomtui.session.agent_catalog import AgentLister, AgentRow, Layout, home_from_env, joined_text, json_lines

#: lines without a uuid that mark a file as Claude Code's (docs/agent-formats.md)
BOOKKEEPING = (
    "summary",
    "file-history-snapshot",
    "queue-operation",
    "last-prompt",
    "permission-mode",
    "mode",
    "custom-title",
    "agent-name",
    "ai-title",
    "pr-link",
    "file-history-delta",
)
#: user lines that are a slash command or its output, not a prompt
CMD_PREFIXES = (
    "<command-name>",
    "<command-message>",
    "<bash-input>",
    "<bash-stdout>",
    "<local-command-stdout>",
    "<local-command-caveat>",
)


def roots(env: Mapping[str, str]) -> list[str]:
    return [os.path.join(home_from_env(env, "CLAUDE_CONFIG_DIR", "~/.claude"), "projects")]


def is_session(name: str) -> bool:
    return name.endswith(".jsonl") and not name.startswith(("agent-", "."))


def claims(obj: dict[str, Any]) -> bool:
    return "parentUuid" in obj or (
        obj.get("type") in BOOKKEEPING and ("sessionId" in obj or "messageId" in obj or "leafUuid" in obj)
    )


def row(path: str, buf: bytes) -> AgentRow:
    acc = _Summary()
    for _n, o in json_lines(buf):
        t = o.get("type")
        if acc.sid is None and isinstance(o.get("sessionId"), str):
            acc.sid = o["sessionId"]
        if t in ("summary", "custom-title", "agent-name"):
            acc.title_line(t, o)
        elif isinstance(o.get("uuid"), str) and not o.get("isSidechain"):
            acc.entry(t, o)
    if acc.sid and acc.bg_root and not acc.parent:
        # a background fork: threaded under the session it replays (background.py)
        acc.parent = parent_session_id(path, acc.bg_root)
    return acc.row()


class _Summary:
    """What ``row`` gathers from a Claude Code file's lines, one line at a time."""

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
        self.bg_root: Any = None  # a background fork's first uuid

    def title_line(self, t: Any, o: dict[str, Any]) -> None:
        """A summary line names the session unless a title or agent name already did."""
        text = o.get("summary") or o.get("customTitle") or o.get("agentName")
        if isinstance(text, str) and (self.name is None or t != "summary"):
            self.name = text

    def entry(self, t: Any, o: dict[str, Any]) -> None:
        self.entries += 1
        if self.entries == 1 and o.get("sessionKind") == "bg":
            self.bg_root = o.get("uuid")
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
        text = joined_text(content)
        if text.lstrip().startswith(CMD_PREFIXES):
            return
        if self.first is None and text.strip():
            self.first = text
        p = o.get("parentUuid")
        if isinstance(p, str):
            self.prompts_under[p] = self.prompts_under.get(p, 0) + 1

    def row(self) -> AgentRow:
        return AgentRow(
            id=self.sid,
            cwd=self.cwd,
            name=self.name,
            first_message=self.first,
            created=self.first_ts,
            modified=self.last_ts,
            message_count=self.messages,
            branch_count=sum(1 for k in self.prompts_under.values() if k > 1),
            parent=self.parent,
            entry_count=self.entries,
        )


def search_text(obj: dict[str, Any], _line: int) -> tuple[str, str, str | None]:
    """(kind, searchable text, uuid) of one line; a side chain's lines are its subagent's."""
    if obj.get("isSidechain"):
        return "", "", None
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
            parts += _block_texts(b)
    return role, "\n".join(parts), eid


def _block_texts(b: dict[str, Any]) -> list[str]:
    """The searchable texts of one content block of a Claude Code message."""
    bt = b.get("type")
    if bt == "text" and isinstance(b.get("text"), str):
        return [b["text"]]
    if bt == "thinking" and isinstance(b.get("thinking"), str):
        return [b["thinking"]]
    if bt == "tool_use":
        inp = b.get("input")
        values = (
            [v if isinstance(v, str) else orjson.dumps(v).decode() for v in inp.values()]
            if isinstance(inp, dict)
            else []
        )
        return [str(b.get("name")), *values]
    if bt == "tool_result":
        return [joined_text(b.get("content"))]
    return []


LISTER = AgentLister(
    tool=CLAUDE,
    tag="claude",
    name=TOOL_NAMES[CLAUDE],
    roots=roots,
    layout=Layout(is_session, depths=(1, 1), hidden_folders=False),
    claims=claims,
    row=row,
    search_text=search_text,
)
