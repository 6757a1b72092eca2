"""Codex sessions in the picker: where the tool keeps them, one file's row, its lines'
searchable text (the lister ``formats/sources.py`` names; ``session/agent_catalog.py`` walks,
caches and draws what it gives).

``$CODEX_HOME/sessions/**/rollout-*.jsonl`` and ``archived_sessions/`` (default ``~/.codex``); a
fork's parent is its ``forked_from_id``; a row's ``branch_count`` counts ``thread_rolled_back``
events. An entry is named by its line (``L<n>``), as the reader names it. Light on purpose: the
picker imports it, not the reader.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from loomtui.formats.agent.kinds import CODEX, TOOL_NAMES
from loomtui.session.agent_catalog import AgentLister, AgentRow, Layout, home_from_env, joined_text, json_lines

#: the envelopes whose first line marks a file as Codex's
ENVELOPES = ("session_meta", "response_item", "event_msg", "turn_context", "compacted")
#: user messages that are context Codex sent, not a prompt: not counted as messages
CONTEXT_PREFIXES = ("<environment_context>", "<user_instructions>", "<permissions", "# AGENTS.md", "<INSTRUCTIONS>")


def roots(env: Mapping[str, str]) -> list[str]:
    home = home_from_env(env, "CODEX_HOME", "~/.codex")
    return [os.path.join(home, "sessions"), os.path.join(home, "archived_sessions")]


def is_session(name: str) -> bool:
    return name.startswith("rollout-") and name.endswith(".jsonl")


def claims(obj: dict[str, Any]) -> bool:
    return isinstance(obj.get("payload"), dict) and obj.get("type") in ENVELOPES


def _s(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def row(_path: str, buf: bytes) -> AgentRow:
    meta: dict[str, Any] | None = None
    first = None
    last_ts = None
    messages = entries = rollbacks = 0
    for _n, o in json_lines(buf):
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
                if p.get("role") == "assistant" or not joined_text(p.get("content")).lstrip().startswith(
                    CONTEXT_PREFIXES
                ):
                    messages += 1
                last_ts = o.get("timestamp") or last_ts
    meta = meta or {}
    return AgentRow(
        id=_s(meta.get("id")),
        cwd=_s(meta.get("cwd")),
        name=None,
        first_message=first,
        created=meta.get("timestamp"),
        modified=last_ts,
        message_count=messages,
        branch_count=rollbacks,
        parent=_s(meta.get("forked_from_id")),
        entry_count=entries,
    )


def search_text(obj: dict[str, Any], line: int) -> tuple[str, str, str | None]:
    """(kind, searchable text, ``L<line>``) of one line: a response item's message, reasoning
    summary, tool call or output."""
    p = obj.get("payload")
    if not isinstance(p, dict) or obj.get("type") != "response_item":
        return "", "", None
    kind, text = _item_text(p)
    return kind, text, f"L{line}"


def _item_text(p: dict[str, Any]) -> tuple[str, str]:
    """(kind, text) of a response item's payload."""
    pt = p.get("type")
    if pt == "message":
        return str(p.get("role")), joined_text(p.get("content"))
    if pt == "reasoning":
        return "thinking", " ".join(s.get("text", "") for s in p.get("summary") or [] if isinstance(s, dict))
    for key in ("arguments", "input", "output"):
        if isinstance(p.get(key), str):
            return ("toolResult" if key == "output" else "tool"), p[key]
    return "", ""


LISTER = AgentLister(
    tool=CODEX,
    tag="codex",
    name=TOOL_NAMES[CODEX],
    roots=roots,
    layout=Layout(is_session, depths=(0, 5), linked_folders=False),
    claims=claims,
    row=row,
    search_text=search_text,
)
