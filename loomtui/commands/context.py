"""`loomtui context FILE [--leaf ID] [--json]`: what pi would send to the model at a leaf.

pi's ``buildSessionContext`` (docs/formats.md §8): the messages on the path from the root to the
leaf, a compaction's system checkpoint and summary in place of what it replaced, context edits
applied, custom messages and branch summaries as pi sends them; the thinking level and the model
that apply there. A system message shows its sections and the tools it adds or removes. Text output shows one block
per message (role, then its text); ``--json`` prints pi's message objects.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import Any

from loomtui.commands._args import check
from loomtui.commands._output import print_line, write_text
from loomtui.commands.progress import open_showing_progress
from loomtui.session.errors import LoomError
from loomtui.session.jsstr import js_json
from loomtui.session.source import PI, EntryWords
from loomtui.view.blocks import text_of
from loomtui.view.printable import printable
from loomtui.view.words import counted


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="a pi/omp, Claude Code or Codex session, or a loom")
    p.add_argument("--leaf", metavar="ID", help="the leaf (default: the session's, the file's last entry)")
    p.add_argument("--json", action="store_true", help="pi's message objects as JSON")


def message_text(m: dict[str, Any]) -> str:
    """The text a message carries, for the text output (tool calls as name and arguments)."""
    role = m.get("role")
    if role in ("compactionSummary", "branchSummary"):
        return str(m.get("summary") or "")
    if role == "bashExecution":
        return f"$ {m.get('command') or ''}\n{m.get('output') or ''}".rstrip()
    if role == "system":
        return _system_text(m)
    content = m.get("content")
    parts = [text_of(content)] if text_of(content) else []
    if isinstance(content, list):
        for b in content:
            if isinstance(b, dict) and b.get("type") == "toolCall":
                parts.append(f"[tool call {b.get('name')}: {js_json(b.get('arguments'))}]")
            elif isinstance(b, dict) and b.get("type") == "image":
                parts.append(f"[image {b.get('mimeType') or 'image'}]")
    return "\n".join(parts)


def _system_text(m: dict[str, Any]) -> str:
    """A system message (pi 1.6.0): its text, the prompt sections it sets or removes, the tools
    it adds or removes."""
    parts = [text_of(m.get("content"))] if text_of(m.get("content")) else []
    sections = m.get("sections")
    if isinstance(sections, dict):
        for name, text in sections.items():
            body = text if isinstance(text, str) else js_json(text)
            parts.append(f"[section {name} removed]" if text is None else f"[section {name}]\n{body}")
    for key, verb in (("toolsAdded", "added"), ("toolsRemoved", "removed")):
        tools = m.get(key)
        if isinstance(tools, list) and tools:
            names = [str(t.get("name")) if isinstance(t, dict) else js_json(t) for t in tools]
            parts.append(f"[tools {verb}: {', '.join(names)}]")
    return "\n".join(parts)


def run(args: argparse.Namespace) -> int:
    sm = open_showing_progress(args.file)
    if not sm.source.leaf_moves:
        # an OCP run, the loom configuration map: rows of their own, no conversation for a model
        # (said before ``check`` refuses their ``--leaf``)
        raise LoomError(
            f"{args.file} is {sm.source.a_name}, not a conversation: there is no context a model is sent "
            "(`context` shows what pi sends at a leaf of a session or loom)"
        )
    check(args, sm)
    # one message decoded at a time: the path of a session of screenshots may be gigabytes
    plan = sm.session_context_plan(args.leaf)
    messages = (m for m in (item.message() for item in plan.items) if m is not None)
    if args.json:
        _print_json(plan.thinking_level, plan.model, messages)
        return 0
    model = plan.model or {}
    pi = sm.source.kind == PI  # the thinking level and a model change are pi's entries
    name = "/".join(str(model[k]) for k in ("provider", "modelId") if model.get(k))
    count = sum(1 for item in plan.items if item.certain or item.message() is not None)
    parts = [counted(count, "message"), f"model {name or ('(none)' if pi else 'not in the file')}"]
    if pi:
        parts.append(f"thinking {plan.thinking_level}")
    print_line(printable("; ".join(parts)))
    words = sm.source.entry_words
    for m in messages:
        print_line("")
        print_line(printable(f"── {_heading(m, words)}"))
        text = message_text(m) if isinstance(m, dict) else js_json(m)
        if text:
            print_line(printable(text, keep_lines=True))
    return 0


def _heading(m: Any, words: EntryWords | None) -> str:
    """The role (with the custom type or tool name), or what the source calls the message
    (``Source.entry_words``); a value that is not a message object (a hand-edited file) is sent
    by pi as it is and shown as such."""
    if not isinstance(m, dict):
        return "(not a message object)"
    said = words.heading(m) if words is not None else None
    if said:
        return said
    role = str(m.get("role"))
    if m.get("customType"):
        role += f" [{m.get('customType')}]"
    if m.get("toolName"):
        role += f" ({m.get('toolName')})"
    return role


def _print_json(thinking_level: str, model: Any, messages: Iterable[Any]) -> None:
    """``js_json`` of the whole context, written a message at a time."""
    head = js_json({"thinkingLevel": thinking_level, "model": model, "messages": []})
    write_text(head[:-2])  # up to the messages' "["
    for i, m in enumerate(messages):
        write_text(("," if i else "") + js_json(m))
    print_line("]}")
