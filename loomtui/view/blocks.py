"""An entry as typed blocks: what the detail pane draws and the HTML export writes.

``entry_blocks`` reads one entry (its full JSON, loaded from the session) and returns plain
dataclasses (``view/block_types.py``, all importable from here): a header with where the entry
sits, a title saying what it is, and the content as Markdown text, thinking, tool calls with
their results, diffs, image placeholders, compactions, summaries, custom data and usage figures.
Nothing here knows about Textual, Rich or HTML: text stays raw, exactly as the file holds it,
and each renderer escapes it for its own output (control characters for a terminal, ``<`` and
``&`` for HTML).

Roles (``Title.role``, ``Note.role``) are pi's theme role names (``accent``, ``success``,
``muted``, ``error``, ``dim``, ``warning``, ``customMessageLabel``, ``borderAccent``,
``text``), the same ones the one-line texts use (see ``view/text.py``).

Which entry kind makes which blocks is one table, ``BUILDERS`` (docs/architecture.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from loomtui.session.entries import Entry
from loomtui.session.manager import SessionManager
from loomtui.session.source import PI
from loomtui.view import context_blocks, label_history
from loomtui.view.block_types import (
    Block,
    Compaction,
    Custom,
    Diff,
    Files,
    Header,
    Image,
    Markdown,
    Note,
    Plain,
    Summary,
    Thinking,
    Title,
    ToolCall,
    ToolCallMap,
    ToolResult,
    Usage,
    _number,
    copy_text,
    human_size,
    image_block,
    message_copy_text,
    pretty_json,
    text_of,
    usage_of,
)
from loomtui.view.entry_time import entry_time
from loomtui.view.text import ShownCall, display_text, format_tool_call

#: tools whose first argument is a path (shown as its own line)
PATH_TOOLS = frozenset({"read", "write", "edit", "ls", "grep", "find"})

__all__ = [
    "Block",
    "Compaction",
    "Custom",
    "Diff",
    "Files",
    "Header",
    "Image",
    "Markdown",
    "Note",
    "Plain",
    "Summary",
    "Thinking",
    "Title",
    "ToolCall",
    "ToolCallMap",
    "ToolResult",
    "Usage",
    "copy_text",
    "human_size",
    "image_block",
    "message_copy_text",
    "pretty_json",
    "text_of",
    "usage_of",
    "BUILDERS",
    "MESSAGE_BUILDERS",
    "PATH_TOOLS",
    "args_blocks",
    "content_blocks",
    "entry_blocks",
    "header_of",
    "origin_blocks",
    "result_of",
    "walk",
]


# --- building -------------------------------------------------------------------------------


@dataclass(slots=True)
class _Context:
    manager: SessionManager
    tool_calls: ToolCallMap | None
    entry: Entry
    full: dict[str, Any] = field(default_factory=dict)

    def one_line(self, e: Entry) -> str | None:
        return display_text(e, self.tool_calls) if self.tool_calls is not None else None


def entry_blocks(
    manager: SessionManager, entry: Entry, tool_calls: ToolCallMap | None = None, *, header: bool = True
) -> list[Block]:
    """The blocks of one entry: a ``Header`` (unless ``header=False``), then by kind.

    ``tool_calls`` (the model's toolCallId map) lets compactions and labels show the one-line
    text of the entry they point at. A malformed entry never raises: it becomes its JSON.
    """
    full = manager.load(entry)
    if not isinstance(full, dict):
        full = {}
    ctx = _Context(manager, tool_calls, entry, full)
    out: list[Block] = [header_of(manager, entry, full)] if header else []
    own = manager.source.describe  # a source that writes its own detail (an OCP run)
    text = own(entry.id) if own is not None else None
    if isinstance(text, str):
        out.append(Markdown(text))
        return out
    t = full.get("type", entry.type)
    builder = BUILDERS.get(t) if isinstance(t, str) else None
    if builder is None:
        out.append(Title(str(t or "entry")))
        out.append(Plain(pretty_json(full), "json"))
        return out
    out.extend(builder(ctx))
    out[1 if header else 0 : 1 if header else 0] = context_blocks.edited_notes(manager, entry)
    origin = full.get("agentSource")
    if isinstance(origin, dict):
        out.extend(origin_blocks(origin, manager.source.display_name))
    return out


def origin_blocks(origin: dict[str, Any], file_of: str) -> list[Block]:
    """Where an entry read from another tool's file (Claude Code, Codex) comes from: its line in
    the file (``file_of``: what the file is, in the tool's name: "Claude Code session"), a stray
    fork's reason, and the lines without an id shown with it (docs/agent-formats.md)."""
    out: list[Block] = []
    if origin.get("stray"):
        out.append(Title(f"stray fork: {origin['stray']} (not a rewind; only the all filter shows it)", "warning"))
    if origin.get("kind") == "subagent":
        out.append(Note("Enter opens this subagent; Esc comes back."))
    where = f"line {origin['line']}, " if origin.get("line") else ""
    out.append(Note(f"from the {file_of} file: {where}{origin.get('type') or origin.get('kind')}"))
    attached = origin.get("attached")
    if isinstance(attached, list) and attached:
        out.append(Title(f"{len(attached)} line{'s' if len(attached) != 1 else ''} without an id, shown here"))
        out.append(
            Plain(
                "\n".join(
                    f"line {a.get('line')}  {a.get('type')}  {a.get('text')}" for a in attached if isinstance(a, dict)
                )
            )
        )
    return out


def header_of(manager: SessionManager, e: Entry, full: dict[str, Any]) -> Header:
    idx = manager.index
    msg = full.get("message")
    model = usage = stop = None
    if isinstance(msg, dict) and msg.get("role") == "assistant":
        name, provider = msg.get("model"), msg.get("provider")
        if name:
            model = f"{provider}/{name}" if provider else str(name)
        usage = usage_of(msg.get("usage"))
        if usage is not None and not manager.source.keeps_cache_write:
            usage = replace(usage, cache_write=None)  # not a 0: the format records none
        stop = str(msg.get("stopReason")) if msg.get("stopReason") else None
    parent = idx.parent_of(e)
    siblings = idx.children(parent.id) if parent is not None else idx.roots
    pos = next((i + 1 for i, s in enumerate(siblings) if s is e), 0)
    label = idx.label_of(e.id)
    return Header(
        entry_id=e.id,
        parent_id=e.parent_id,
        timestamp=entry_time(manager, e, full),
        model=model,
        usage=usage,
        stop_reason=stop,
        depth=idx.depth(e),
        sibling=pos,
        siblings=len(siblings),
        children=len(idx.children(e.id)),
        line=e.line,
        label=None if label is None else str(label),
        label_time=idx.label_timestamp(e.id),
    )


#: consecutive text blocks are separate paragraphs (joined bare they run together: "fine.Check")
TEXT_BLOCK_SEP = "\n\n"


def _markdown(text: str) -> Block:
    return Markdown(text) if text.strip() else Note("(empty)")


def content_blocks(content: list[Any], ctx: _Context | None) -> list[Block]:
    """Content blocks in order: runs of text as one Markdown block (a paragraph each), thinking, tool calls with
    their results (with a context: an assistant turn), images as placeholders, others as JSON."""
    out: list[Block] = []
    run: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        bt = block.get("type")
        if bt == "text":
            run.append(str(block.get("text") or ""))
            continue
        if run:
            out.append(_markdown(TEXT_BLOCK_SEP.join(run)))
            run.clear()
        if bt == "thinking":
            out.append(_thinking(block))
        elif bt == "toolCall" and ctx is not None:
            out.append(_tool_call(ctx, block))
        elif bt == "image":
            out.append(image_block(block))
        else:
            out.append(Plain(pretty_json(block), "json"))
    if run:
        out.append(_markdown(TEXT_BLOCK_SEP.join(run)))
    return out


def _thinking(block: dict[str, Any]) -> Thinking:
    if block.get("redacted"):
        return Thinking("", redacted=True)
    return Thinking(str(block.get("thinking") or ""))


def _content(content: Any) -> list[Block]:
    if isinstance(content, str):
        return [_markdown(content)]
    if not isinstance(content, list):
        return [Note("(no content)")] if content is None else [Plain(pretty_json(content), "json")]
    return content_blocks(content, None) or [Note("(no content)")]


def args_blocks(name: Any, args: Any) -> tuple[Block, ...]:
    """A tool call's arguments: the bash command, a path line, written content, an edit as a
    diff; whatever is left as JSON."""
    if not isinstance(args, dict):
        return (Plain(pretty_json(args), "json"),)
    if name == "bash" and isinstance(args.get("command"), str):
        rest = {k: v for k, v in args.items() if k != "command"}
        return (Plain("$ " + args["command"], "command"), *([Plain(pretty_json(rest), "json")] if rest else []))
    if name not in PATH_TOOLS:
        return (Plain(pretty_json(args), "json"),)
    path = args.get("path") or args.get("file_path")
    rest = {k: v for k, v in args.items() if k not in ("path", "file_path")}
    out: list[Block] = [Note(f"path {path}", "text", bold=True)] if path else []
    body = _path_tool_body(name, rest)  # takes the content / old and new text out of ``rest``
    if rest:
        out.append(Plain(pretty_json(rest), "json"))
    if body is not None:
        out.append(body)
    return tuple(out)


def _path_tool_body(name: Any, rest: dict[str, Any]) -> Block | None:
    """What a write writes, or an edit as ``- old`` / ``+ new`` lines (removed from ``rest``)."""
    if name == "write" and isinstance(rest.get("content"), str):
        return Plain(rest.pop("content"))
    if name == "edit" and ("oldText" in rest or "old_string" in rest):
        old = rest.pop("oldText", rest.pop("old_string", ""))
        new = rest.pop("newText", rest.pop("new_string", ""))
        return Diff(_replacement(old, new), "edit")
    if name == "edit" and _is_edit_list(rest.get("edits")):
        # pi's edit with several replacements (``edits[]``), and Claude Code's Edit / MultiEdit
        return Diff(
            "\n".join(_replacement(x.get("oldText", ""), x.get("newText", "")) for x in rest.pop("edits")), "edit"
        )
    if name == "edit" and isinstance(rest.get("patch"), str):
        return Diff(rest.pop("patch"), "edit")  # a patch as Codex's apply_patch writes it
    return None


def _replacement(old: Any, new: Any) -> str:
    return "\n".join(["- " + ln for ln in str(old).split("\n")] + ["+ " + ln for ln in str(new).split("\n")])


def _is_edit_list(edits: Any) -> bool:
    return isinstance(edits, list) and bool(edits) and all(isinstance(x, dict) for x in edits)


def result_of(entry: Entry, msg: dict[str, Any]) -> ToolResult:
    """A toolResult message as a ``ToolResult``: images, the text output, a diff from details."""
    is_error = bool(msg.get("isError"))
    content = msg.get("content")
    parts = (
        content
        if isinstance(content, list)
        else [{"type": "text", "text": content}]
        if isinstance(content, str)
        else []
    )
    body: list[Block] = []
    texts = []
    for b in parts:
        if not isinstance(b, dict):
            continue
        if b.get("type") == "text":
            texts.append(str(b.get("text") or ""))
        elif b.get("type") == "image":
            body.append(image_block(b))
    text = "\n".join(texts)
    body.append(Plain(text if text else "(no output)", "error" if is_error else "output"))
    details = msg.get("details")
    if isinstance(details, dict) and isinstance(details.get("diff"), str):
        body.append(Diff(details["diff"]))
    return ToolResult(entry.id, is_error, tuple(body))


def _tool_call(ctx: _Context, block: dict[str, Any]) -> ToolCall:
    name, args, call_id = block.get("name"), block.get("arguments"), block.get("id")
    found = ctx.manager.index.tool_result(call_id)
    result: ToolResult | None = None
    if found is not None:
        full = ctx.manager.load(found)
        msg = full.get("message") if isinstance(full, dict) else None
        result = result_of(found, msg) if isinstance(msg, dict) else ToolResult(found.id, True, (), malformed=True)
    summary, args_shown = call_view(ctx.manager, name, args)
    return ToolCall(None if name is None else str(name), call_id, summary, args_shown, result)


def call_view(manager: SessionManager, name: Any, args: Any) -> tuple[str, tuple[Block, ...]]:
    """A call's one-line text and argument blocks; another agent's tool as the pi tool it maps
    to (an edit's diff), one pi has no form for with its own arguments."""
    shown, shown_args = manager.tool_call_view(name, args)
    mapped = isinstance(shown, str) and type(shown) is not ShownCall
    return format_tool_call(shown, shown_args), args_blocks(shown, shown_args) if mapped else args_blocks(name, args)


def _call_block(ctx: _Context, call_id: Any) -> tuple[dict[str, Any] | None, tuple[Thinking, ...]]:
    """The toolCall block answered by the current entry, and its turn's thinking when that turn
    has no text (then pi shows no row for it)."""
    idx = ctx.manager.index
    caller = idx.calling_entry(ctx.entry, call_id)
    if caller is None:
        return None, ()
    full = ctx.manager.load(caller)
    msg = full.get("message") if isinstance(full, dict) else None
    content = msg.get("content") if isinstance(msg, dict) else None
    if not isinstance(content, list):
        return None, ()
    call = next(
        (b for b in content if isinstance(b, dict) and b.get("type") == "toolCall" and b.get("id") == call_id), None
    )
    thinking: tuple[Thinking, ...] = ()
    if not any(isinstance(b, dict) and b.get("type") == "text" and str(b.get("text") or "").strip() for b in content):
        thinking = tuple(_thinking(b) for b in content if isinstance(b, dict) and b.get("type") == "thinking")
    return call, thinking


def _files(details: Any) -> tuple[Block, ...]:
    if not isinstance(details, dict):
        return () if details is None else (Plain(pretty_json(details), "json"),)
    out: list[Block] = []
    for key, title in (("readFiles", "read files"), ("modifiedFiles", "modified files")):
        files = details.get(key)
        if isinstance(files, list) and files:
            out.append(Files(title, tuple(str(f) for f in files)))
    rest = {k: v for k, v in details.items() if k not in ("readFiles", "modifiedFiles")}
    if rest:
        out.append(Plain(pretty_json(rest), "json"))
    return tuple(out)


# --- builders, one per entry kind -------------------------------------------------------------


def _message(ctx: _Context) -> list[Block]:
    msg = ctx.full.get("message")
    if not isinstance(msg, dict):
        return [Title("message (no message object)", "error"), Plain(pretty_json(ctx.full), "json")]
    role = msg.get("role")
    role_builder = MESSAGE_BUILDERS.get(role) if isinstance(role, str) else None
    if role_builder is not None:
        return role_builder(ctx, msg)
    kind = f"{role or 'message'}"
    if msg.get("customType"):
        kind += f" [{msg.get('customType')}]"
    out: list[Block] = [Title(kind)]
    if msg.get("content") is not None:
        out.extend(_content(msg.get("content")))
    extra = {k: v for k, v in msg.items() if k not in ("role", "content", "timestamp")}
    if extra:
        out.append(Plain(pretty_json(extra), "json"))
    return out


def _user(ctx: _Context, msg: dict[str, Any]) -> list[Block]:
    return [Title("user", "accent"), *_content(msg.get("content"))]


def _assistant(ctx: _Context, msg: dict[str, Any]) -> list[Block]:
    out: list[Block] = [Title("assistant", "success")]
    err = msg.get("errorMessage")
    if err:
        out.append(Note(f"error: {err}", "error"))
    content = msg.get("content")
    if isinstance(content, str):
        out.append(_markdown(content))
        return out
    if not isinstance(content, list):
        out.append(Note("(no content)"))
        return out
    blocks = content_blocks(content, ctx)
    out.extend(blocks)
    if not blocks and not err:
        out.append(Note("(aborted)" if msg.get("stopReason") == "aborted" else "(no content)"))
    return out


def _tool_result(ctx: _Context, msg: dict[str, Any]) -> list[Block]:
    call_id, name = msg.get("toolCallId"), msg.get("toolName")
    call, thinking = _call_block(ctx, call_id)
    result = result_of(ctx.entry, msg)
    if call is None:
        block = ToolCall(None if name is None else str(name), call_id, "", result=result, found=False)
    else:
        cname, args = call.get("name"), call.get("arguments")
        summary, args_shown = call_view(ctx.manager, cname, args)
        block = ToolCall(None if cname is None else str(cname), call_id, summary, args_shown, result, thinking=thinking)
    return [Title(f"tool result: {name or 'tool'}", "muted"), block]


def _bash(ctx: _Context, msg: dict[str, Any]) -> list[Block]:
    code = msg.get("exitCode")
    facts = [f"exit code {code if code is not None else '—'}"]
    for key, fact in (
        ("cancelled", "cancelled"),
        ("truncated", "output truncated"),
        ("excludeFromContext", "not sent to the model (!!)"),
    ):
        if msg.get(key):
            facts.append(fact)
    if msg.get("fullOutputPath"):
        facts.append(f"full output: {msg.get('fullOutputPath')}")
    output = msg.get("output")
    return [
        Title("bash (user ! command)", "dim"),
        Plain("$ " + str(msg.get("command") or ""), "command"),
        Note("  ".join(facts), "error" if code not in (0, None) else "muted"),
        Plain(str(output) if output else "(no output)", "output"),
    ]


def _compaction(ctx: _Context) -> list[Block]:
    full = ctx.full
    first = full.get("firstKeptEntryId")
    kept = ctx.manager.index.by_id.get(first) if isinstance(first, str) else None
    facts = tuple((k, str(full.get(k))) for k in ("tokensAfter", "method", "shortSummary") if full.get(k) is not None)
    return [
        Compaction(
            summary=str(full.get("summary") or ""),
            tokens_before=_number(full.get("tokensBefore")),
            first_kept_id=first,
            first_kept_text=ctx.one_line(kept) if kept is not None else None,
            by_extension=bool(full.get("fromHook") or full.get("fromExtension")),
            facts=facts,
            files=_files(full.get("details")),
        )
    ]


def _branch_summary(ctx: _Context) -> list[Block]:
    full = ctx.full
    return [
        Summary(
            summary=str(full.get("summary") or ""),
            from_id=full.get("fromId"),
            by_extension=bool(full.get("fromHook") or full.get("fromExtension")),
            files=_files(full.get("details")),
        )
    ]


def _custom_message(ctx: _Context) -> list[Block]:
    full = ctx.full
    title = f"[{full.get('customType')}]"
    if ctx.manager.source.kind == PI:  # pi's custom message, which pi's chat shows or hides
        title += f" custom message ({'shown in the chat' if full.get('display') else 'hidden from the chat'})"
    out: list[Block] = [Title(title, "customMessageLabel")]
    out.extend(_content(full.get("content")))
    if full.get("details") is not None:
        out.append(Title("details"))
        out.append(Plain(pretty_json(full.get("details")), "json"))
    return out


def _custom(ctx: _Context) -> list[Block]:
    return [Custom(ctx.full.get("customType"), ctx.full.get("data"), "data" in ctx.full)]


def _model_change(ctx: _Context) -> list[Block]:
    full = ctx.full
    if "modelId" in full:
        name = f"{full.get('provider')}/{full.get('modelId')}" if full.get("provider") else str(full.get("modelId"))
    else:
        name = str(full.get("model"))
    out: list[Block] = [Title(f"model change: {name}", "dim")]
    if full.get("role"):
        out.append(Note(f"role {full.get('role')}"))
    return out


def _thinking_level_change(ctx: _Context) -> list[Block]:
    return [Title(f"thinking level: {ctx.full.get('thinkingLevel')}", "dim")]


def _label(ctx: _Context) -> list[Block]:
    label, target = ctx.full.get("label"), ctx.full.get("targetId")
    t = ctx.manager.index.by_id.get(target) if isinstance(target, str) else None
    desc = f"on entry {target}"
    if t is None:
        desc += " (not in this session)"
    else:
        line = ctx.one_line(t)
        if line is not None:
            desc += ": " + line
    if label:
        return [Title(f"label: {label}", "warning"), Note(desc)]
    title, note = label_history.cleared_words(ctx.manager.index, ctx.entry)
    return [Title(title, "warning"), *([Note(note)] if note else []), Note(desc)]


def _session_info(ctx: _Context) -> list[Block]:
    name = ctx.full.get("name")
    return [Title(f"session name: {name}" if name else "session name cleared", "dim")]


#: entry type -> builder (an unknown type shows its JSON)
BUILDERS: dict[str, Callable[[_Context], list[Block]]] = {
    "message": _message,
    "compaction": _compaction,
    "branch_summary": _branch_summary,
    "custom_message": _custom_message,
    "custom": _custom,
    "model_change": _model_change,
    "thinking_level_change": _thinking_level_change,
    "label": _label,
    "session_info": _session_info,
    "context_edit": lambda ctx: context_blocks.context_edit_blocks(ctx.manager, ctx.full, ctx.one_line),
    "usage": lambda ctx: context_blocks.usage_blocks(ctx.full),
}

#: message role -> builder (other roles show their content and remaining fields)
MESSAGE_BUILDERS: dict[str, Callable[[_Context, dict[str, Any]], list[Block]]] = {
    "user": _user,
    "assistant": _assistant,
    "toolResult": _tool_result,
    "bashExecution": _bash,
    "system": lambda ctx, msg: context_blocks.system_blocks(ctx.manager, ctx.entry, msg),
}


def walk(blocks: list[Block] | tuple[Block, ...]) -> list[Block]:
    """Every block, nested ones (tool call arguments, results, files) after their parent."""
    out: list[Block] = []
    stack = list(reversed(blocks))
    while stack:
        b = stack.pop()
        out.append(b)
        if isinstance(b, ToolCall):
            inner: list[Block] = [*b.thinking, *b.args]
            if b.result is not None:
                inner.append(b.result)
            stack.extend(reversed(inner))
        elif isinstance(b, ToolResult):
            stack.extend(reversed(b.body))
        elif isinstance(b, (Compaction, Summary)):
            stack.extend(reversed(b.files))
    return out
