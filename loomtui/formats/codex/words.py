"""A Codex rollout's entries in its own words (``Source.entry_words``): prompts, assistant
messages, reasoning, tool calls and their outputs, injected context — by the kind ``read.py``
gave each line, not the pi entries it maps them to."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from loomtui.session.entries import Entry
from loomtui.session.source import EntryKind, EntryWords

#: the kinds ``read._Walk`` gives the lines it makes entries of
_KINDS = {
    "prompt": EntryKind("user prompt", "user prompts"),
    "context": EntryKind("injected message", "injected messages"),
    "assistant": EntryKind("assistant message", "assistant messages"),
    "thinking": EntryKind("reasoning item", "reasoning items"),
    "tool-call": EntryKind("tool call", "tool calls"),
    "tool-result": EntryKind("tool output", "tool outputs"),
    "model": EntryKind("model change", "model changes"),
    "compaction": EntryKind("compaction", "compactions"),
}
#: injected context by who it is from (``read.to_pi``'s customType)
_CONTEXT = {"developer": "developer", "context": "environment and instructions"}
_HEADINGS = {"developer": "developer message", "context": "injected context"}
#: the lines ``read.py`` makes hidden custom messages of (developer and environment context)
HIDDEN = "injected messages: the developer and environment context Codex adds without showing it"


def codex_words(kinds: Mapping[str, str]) -> EntryWords:
    """The words of one rollout, whose entries' kinds are ``kinds`` (entry id -> kind)."""

    def kind(e: Entry) -> EntryKind:
        found = _KINDS.get(kinds.get(e.id, ""))
        if found is None:  # a row of loomtui's (a fork's "from parent")
            return (
                EntryKind(f"{e.aux} row", f"{e.aux} rows") if e.type == "custom_message" else EntryKind(e.type, e.type)
            )
        if found is _KINDS["context"] and isinstance(e.aux, str):
            return found._replace(part=_CONTEXT.get(e.aux, e.aux))
        return found

    return EntryWords(kind, heading, HIDDEN)


def heading(m: dict[str, Any]) -> str | None:
    """A message of ``context`` as Codex calls it (a prompt and a reply: pi's role)."""
    role = m.get("role")
    if role == "toolResult":
        return f"tool output ({m.get('toolName')})" if m.get("toolName") else "tool output"
    if role == "compactionSummary":
        return "compaction summary"
    if role != "custom":
        return None
    ctype = str(m.get("customType") or "")
    return _HEADINGS.get(ctype, ctype) or None
