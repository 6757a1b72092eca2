"""`loomtui context FILE [--leaf ID] [--json]`: what pi would send to the model at a leaf.

pi's ``buildSessionContext`` (docs/formats.md §8): the messages on the path from the root to the
leaf, a compaction's summary in place of what it replaced, custom messages and branch summaries
as pi sends them; the thinking level and the model that apply there. Text output shows one block
per message (role, then its text); ``--json`` prints pi's message objects.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import Any

from loomtui.commands._output import print_line, write_text
from loomtui.formats.opening import open_session
from loomtui.session.errors import LoomError
from loomtui.session.jsstr import js_json
from loomtui.view.blocks import text_of
from loomtui.view.printable import printable


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="a pi/omp session (or another loom)")
    p.add_argument("--leaf", metavar="ID", help="the leaf (default: the session's, the file's last entry)")
    p.add_argument("--json", action="store_true", help="pi's message objects as JSON")


def message_text(m: dict[str, Any]) -> str:
    """The text a message carries, for the text output (tool calls as name and arguments)."""
    role = m.get("role")
    if role in ("compactionSummary", "branchSummary"):
        return str(m.get("summary") or "")
    if role == "bashExecution":
        return f"$ {m.get('command') or ''}\n{m.get('output') or ''}".rstrip()
    content = m.get("content")
    parts = [text_of(content)] if text_of(content) else []
    if isinstance(content, list):
        for b in content:
            if isinstance(b, dict) and b.get("type") == "toolCall":
                parts.append(f"[tool call {b.get('name')}: {js_json(b.get('arguments'))}]")
            elif isinstance(b, dict) and b.get("type") == "image":
                parts.append(f"[image {b.get('mimeType') or 'image'}]")
    return "\n".join(parts)


def run(args: argparse.Namespace) -> int:
    sm = open_session(args.file)
    if args.leaf is not None and args.leaf not in sm.index.by_id:
        raise LoomError(f"entry {args.leaf} is not in {args.file}")
    # one message decoded at a time: the path of a session of screenshots may be gigabytes
    plan = sm.session_context_plan(args.leaf)
    messages = (m for m in (item.message() for item in plan.items) if m is not None)
    if args.json:
        _print_json(plan.thinking_level, plan.model, messages)
        return 0
    model = plan.model or {}
    name = "/".join(str(model[k]) for k in ("provider", "modelId") if model.get(k)) or "(none)"
    count = sum(1 for item in plan.items if item.certain or item.message() is not None)
    print_line(printable(f"{count} messages; model {name}; thinking {plan.thinking_level}"))
    for m in messages:
        role = str(m.get("role"))
        if m.get("customType"):
            role += f" [{m.get('customType')}]"
        if m.get("toolName"):
            role += f" ({m.get('toolName')})"
        print_line("")
        print_line(printable(f"── {role}"))
        text = message_text(m)
        if text:
            print_line(printable(text, keep_lines=True))
    return 0


def _print_json(thinking_level: str, model: Any, messages: Iterable[Any]) -> None:
    """``js_json`` of the whole context, written a message at a time."""
    head = js_json({"thinkingLevel": thinking_level, "model": model, "messages": []})
    write_text(head[:-2])  # up to the messages' "["
    for i, m in enumerate(messages):
        write_text(("," if i else "") + js_json(m))
    print_line("]}")
