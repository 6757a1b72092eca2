"""The block types of ``view/blocks.py`` (plain frozen dataclasses) and the small helpers that
make them from content values: sizes, JSON, images, usage, what Ctrl+Y copies."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from loomtui.session.jsonvalue import dumps_bytes

# --- the blocks ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts and cost of one assistant turn (missing figures are None)."""

    input: int | None = None
    output: int | None = None
    cache_read: int | None = None
    cache_write: int | None = None
    total: int | None = None
    cost: float | None = None

    @property
    def text(self) -> str:
        """``↑in ↓out  Rread Wwrite  N tokens  $cost`` (only the parts present)."""
        parts = []
        if self.input is not None or self.output is not None:
            parts.append(f"↑{self.input or 0:,} ↓{self.output or 0:,}")
        if self.cache_read or self.cache_write:
            # a cache write the entry does not have (a format that records none) is left out
            write = "" if self.cache_write is None else f" W{self.cache_write:,}"
            parts.append(f"R{self.cache_read or 0:,}{write}")
        if self.total is not None:
            parts.append(f"{self.total:,} tokens")
        if self.cost is not None:
            parts.append(f"${self.cost:.4f}")
        return "  ".join(parts)


@dataclass(frozen=True, slots=True)
class Header:
    """Where the entry sits: ids, time, model, position among its siblings, its label."""

    entry_id: str
    parent_id: str | None
    timestamp: Any = None
    model: str | None = None
    usage: Usage | None = None
    stop_reason: str | None = None
    depth: int = 0
    sibling: int = 0
    siblings: int = 0
    children: int = 0
    line: int = 0
    label: str | None = None
    label_time: Any = None


@dataclass(frozen=True, slots=True)
class Title:
    """What the entry (or a section of it) is: ``user``, ``tool result: bash``, …"""

    text: str
    role: str = "text"


@dataclass(frozen=True, slots=True)
class Note:
    """One short fact (``exit code 1``, ``path src/x.py``, ``(no content)``)."""

    text: str
    role: str = "muted"
    bold: bool = False


@dataclass(frozen=True, slots=True)
class Markdown:
    """Message text, to be rendered as Markdown (raw, possibly huge)."""

    text: str


@dataclass(frozen=True, slots=True)
class Plain:
    """Preformatted text: ``command`` (a shell command), ``json``, ``output`` (tool output),
    ``error`` (error output) or ``text``. Renderers cut long ones with a "show all"."""

    text: str
    kind: str = "text"


@dataclass(frozen=True, slots=True)
class Thinking:
    """A thinking block (collapsed by default in the pane)."""

    text: str
    redacted: bool = False


@dataclass(frozen=True, slots=True)
class Image:
    """An image placeholder: the picture itself is never drawn."""

    mime: str
    size: int | None = None
    ref: str | None = None  # a ``blob:`` reference instead of inline data

    @property
    def label(self) -> str:
        if self.ref is not None:
            return f"[image {self.mime}, {self.ref[:24]}…]"
        if self.size is not None:
            return f"[image {self.mime}, {human_size(self.size)}]"
        return f"[image {self.mime}]"


@dataclass(frozen=True, slots=True)
class Diff:
    """A change: ``unified`` diff text (a tool result's details), or ``edit``: the ``- old`` /
    ``+ new`` lines of an edit call's arguments."""

    text: str
    kind: str = "unified"


@dataclass(frozen=True, slots=True)
class Files:
    """Files a compaction or summary read or modified."""

    title: str
    paths: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The answer to a tool call: its entry, whether it failed, what it returned."""

    entry_id: str | None
    is_error: bool
    body: tuple[Block, ...]
    malformed: bool = False


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call beside its result. ``found`` is False when a result's call is not in the
    session; ``result`` is None when a call has no result (yet). ``thinking`` holds the
    calling turn's thinking when that turn has no text of its own (its row is hidden, as in
    pi, so the result's detail is where that thinking can be read)."""

    name: str | None
    call_id: Any
    summary: str
    args: tuple[Block, ...] = ()
    result: ToolResult | None = None
    found: bool = True
    thinking: tuple[Thinking, ...] = ()


@dataclass(frozen=True, slots=True)
class Compaction:
    """A compaction: the summary that replaced the context before ``first_kept_id``."""

    summary: str
    tokens_before: int | None = None
    first_kept_id: Any = None
    first_kept_text: str | None = None
    by_extension: bool = False
    facts: tuple[tuple[str, str], ...] = ()
    files: tuple[Block, ...] = ()


@dataclass(frozen=True, slots=True)
class Summary:
    """A branch summary: what the abandoned branch from ``from_id`` did."""

    summary: str
    from_id: Any = None
    by_extension: bool = False
    files: tuple[Block, ...] = ()


@dataclass(frozen=True, slots=True)
class Custom:
    """A custom entry: extension state, never sent to the model."""

    custom_type: Any
    data: Any = None
    has_data: bool = False


Block = (
    Header
    | Title
    | Note
    | Markdown
    | Plain
    | Thinking
    | Image
    | Diff
    | Files
    | ToolCall
    | ToolResult
    | Compaction
    | Summary
    | Custom
    | Usage
)

#: a toolCallId -> (name, arguments) map (``TreeModel.flat.tool_calls``), for one-line texts
ToolCallMap = dict[Any, tuple[Any, Any]]


# --- helpers --------------------------------------------------------------------------------


def human_size(n: float) -> str:
    if n < 1024:
        return f"{int(n)} B"
    for unit in ("KB", "MB", "GB"):
        n /= 1024
        if n < 1024 or unit == "GB":
            return f"{n:.1f} {unit}"
    return f"{n:.1f} GB"


def pretty_json(value: Any) -> str:
    """Indented JSON of any value from a file (deep, huge integers, lone surrogates)."""
    return dumps_bytes(value, indent=True).decode()


def _number(v: Any) -> int | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return int(v) if math.isfinite(v) else None


def text_of(content: Any, sep: str = "\n") -> str:
    """All text blocks of a content value (a string, or a list of blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return sep.join(
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        )
    return ""


def copy_text(entry: dict[str, Any]) -> str:
    """What Ctrl+Y copies: pi's copy action (the command for bash, the summary for summaries)."""
    t = entry.get("type")
    if t == "message":
        msg = entry.get("message")
        return _message_copy_text(msg if isinstance(msg, dict) else {})
    simple = _COPY_FIELDS.get(t) if isinstance(t, str) else None
    if simple is not None:
        return next((str(entry[k]) for k in simple if entry.get(k)), "")
    if t == "custom_message":
        return text_of(entry.get("content"))
    return pretty_json(entry.get("data") if t == "custom" else entry)


def message_copy_text(entry: dict[str, Any]) -> str | None:
    """pi's copy of the selected /tree entry (Ctrl+X): a message's text blocks (a bash
    execution: its command; an assistant without text: its error), a custom message's text, a
    summary; None where pi has no text to copy (tool calls, labels, settings entries)."""
    t = entry.get("type")
    text: Any = None
    if t == "message":
        msg = entry.get("message")
        msg = msg if isinstance(msg, dict) else {}
        if msg.get("role") == "bashExecution":
            text = msg.get("command")
        elif "content" in msg:
            text = _text_blocks(msg.get("content"))
            if not text and msg.get("role") == "assistant":
                text = msg.get("errorMessage")
    elif t == "custom_message":
        text = _text_blocks(entry.get("content"))
    elif t in ("compaction", "branch_summary"):
        text = entry.get("summary")
    return text if isinstance(text, str) and text.strip() else None


def _text_blocks(content: Any) -> str:
    """pi's whole text of a content value: a string, or its text blocks run together."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(
        str(b.get("text"))
        for b in content
        if isinstance(b, dict) and b.get("type") == "text" and b.get("text") is not None
    )


def _message_copy_text(msg: dict[str, Any]) -> str:
    """A message's copy text: a bash command, an assistant's text (else its tool calls'
    arguments), any other message's text."""
    role, content = msg.get("role"), msg.get("content")
    if role == "bashExecution":
        return str(msg.get("command") or "")
    if role != "assistant" or not isinstance(content, list):
        return text_of(content)
    blocks = [b for b in content if isinstance(b, dict)]
    parts = [str(b.get("text") or "") for b in blocks if b.get("type") == "text"]
    if parts:
        return "\n".join(parts)
    return "\n".join(pretty_json(b.get("arguments")) for b in blocks if b.get("type") == "toolCall")


_COPY_FIELDS: dict[str, tuple[str, ...]] = {
    "compaction": ("summary",),
    "branch_summary": ("summary",),
    "label": ("label",),
    "session_info": ("name",),
    "model_change": ("modelId", "model"),
    "thinking_level_change": ("thinkingLevel",),
}


def image_block(block: dict[str, Any]) -> Image:
    mime = block.get("mimeType") or block.get("mime_type") or "image"
    data = block.get("data")
    if isinstance(data, str):
        if data.startswith("blob:"):
            return Image(str(mime), ref=data)
        return Image(str(mime), size=int(len(data) * 3 / 4 - data[-2:].count("=")))
    return Image(str(mime))


def usage_of(usage: Any) -> Usage | None:
    if not isinstance(usage, dict):
        return None
    cost = usage.get("cost")
    c = cost.get("total") if isinstance(cost, dict) else None
    return Usage(
        input=_number(usage.get("input")),
        output=_number(usage.get("output")),
        cache_read=_number(usage.get("cacheRead")),
        cache_write=_number(usage.get("cacheWrite")),
        total=_number(usage.get("totalTokens")),
        cost=float(c) if isinstance(c, (int, float)) and not isinstance(c, bool) and math.isfinite(c) else None,
    )
