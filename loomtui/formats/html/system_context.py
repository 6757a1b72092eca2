"""What ``export-html --no-system-context`` leaves out of the page's records: system prompts, a
system message's tools, system context (``html/export.py``)."""

from __future__ import annotations

from typing import Any

from loomtui.session.entries import Entry


def has_system_context(e: Entry) -> bool:
    return (
        e.type in ("session_init", "custom_message", "compaction")
        or e.data is not None
        or (e.type == "message" and e.role == "system")
    )


def without_system(obj: Any) -> Any:
    """An entry (or header) without system prompts or system context."""
    if not isinstance(obj, dict):
        return obj
    out = {k: v for k, v in obj.items() if k not in ("systemPrompt", "systemContext", "systemMessage")}
    if out.get("type") == "custom_message" and out.get("customType") == "system":
        out["content"] = "(system context left out)"
    msg = out.get("message")
    if out.get("type") == "message" and isinstance(msg, dict) and msg.get("role") == "system":
        # a system prompt and its tools: only what the entry is and when it was written stay
        out["message"] = {"role": "system", "content": "(system prompt left out)", "timestamp": msg.get("timestamp")}
    return out
