"""A Claude Code session's entries in its own words (``Source.entry_words``): prompts,
assistant lines, tool results, commands, meta lines, and the progress, attachment and system
lines Claude Code writes for hooks and bookkeeping — not the pi ``custom`` and
``custom_message`` entries ``lines.py`` maps them to."""

from __future__ import annotations

from typing import Any

from loomtui.session.entries import Entry
from loomtui.session.source import EntryKind, EntryWords

_MESSAGES = {
    "user": EntryKind("user prompt", "user prompts"),
    "assistant": EntryKind("assistant line", "assistant lines"),
    "toolResult": EntryKind("tool result", "tool results"),
}
#: the custom messages (``scan._meta``, ``scan._system``, ``subagents._placeholder``) by customType
_SHOWN = {
    "command": EntryKind("command", "commands"),
    "meta": EntryKind("meta line", "meta lines"),
    "compact summary": EntryKind("compact summary", "compact summaries"),
    "subagent": EntryKind("subagent run", "subagent runs"),
}
_COMPACTION = EntryKind("compaction boundary", "compaction boundaries")
#: bookkeeping lines (``custom`` entries whose text is "type: subtype") by the line's type
_LINES = ("progress", "attachment", "system")


def line_kind(e: Entry) -> EntryKind:
    if e.type == "message":
        return _MESSAGES.get(e.role or "") or EntryKind(f"{e.role} message", f"{e.role} messages")
    if e.type == "custom_message":
        ctype = str(e.aux)
        if ctype.startswith("system: "):
            return EntryKind("system message", "system messages", ctype[len("system: ") :])
        return _SHOWN.get(ctype) or EntryKind(ctype, ctype)
    if e.type == "compaction":
        return _COMPACTION
    if e.type == "custom":
        t, _, sub = str(e.text).partition(": ")
        if t in _LINES:
            return EntryKind(f"{t} line", f"{t} lines", sub or None)
        return EntryKind(f"{t} line", f"{t} lines")
    return EntryKind(e.type, e.type)


def heading(m: dict[str, Any]) -> str | None:
    """A message of ``context`` as Claude Code calls it (a prompt and a reply: pi's role)."""
    role = m.get("role")
    if role == "toolResult":
        return f"tool result ({m.get('toolName')})" if m.get("toolName") else "tool result"
    if role == "compactionSummary":
        return "compaction summary"
    if role != "custom":
        return None
    ctype = str(m.get("customType") or "")
    if ctype.startswith("system: "):
        return f"system message ({ctype[len('system: ') :]})"
    return _SHOWN[ctype].one if ctype in _SHOWN else ctype or None


#: the lines ``lines.py`` makes hidden custom messages of (``isMeta``, compact summaries)
HIDDEN = "meta lines Claude Code adds to the conversation without showing them"

CLAUDE_WORDS = EntryWords(line_kind, heading, HIDDEN)
