"""The small per-entry skeleton the index keeps in memory.

A 100k-entry session is ~150 MB of JSON; keeping every decoded entry would cost several times
that. Each line is decoded once while loading, the few fields the tree, filters and search need
are kept here, and the full entry is decoded again from its byte span when somebody asks
(docs/architecture.md, "Lazy full entries"). The few words that recur on every line (a kind,
a role, a stop reason, a tool's name) are interned: one string each, not one a line
(docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Callable
from sys import intern
from typing import Any

import msgspec
import orjson

from loomtui.session.jsstr import JS_WHITESPACE, js_trim, utf16_len, utf16_slice

#: pi's getEntryDisplayText cuts message text at 200 UTF-16 units (docs/formats.md §9.4).
TEXT_CAP = 200
#: Longest string kept inside a tool call's arguments; pi prints at most 50 units of any of them.
ARG_CAP = 400
#: a tool call's arguments up to this many bytes of JSON are kept as those bytes (``call_args``)
RAW_ARGS_CAP = 1024

MESSAGE = "message"
_loads = orjson.loads

#: ``Entry.span``: bits 0-39 the line's byte offset + 1, bits 40-79 its size, above them the
#: line number (one int of 40 bytes where three took 96, and two slots fewer)
SIZE_AT = 40
LINE_AT = 80
_FIELD = (1 << 40) - 1
_NOT_OFFSET = ~_FIELD
_NOT_SIZE = ~(_FIELD << SIZE_AT)
_BELOW_LINE = (1 << LINE_AT) - 1


class _Number:
    """A timestamp that is an integer in the file (``Entry.stamp`` keeps ints for packed
    strings, ``packed_stamp``)."""

    __slots__ = ("value",)

    def __init__(self, value: int) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return type(other) is _Number and other.value == self.value

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return f"_Number({self.value!r})"


def packed_stamp(t: str) -> Any:
    """A timestamp string as ``Entry.stamp`` keeps it: its UTF-8 bytes as one int (52 bytes for
    pi's 24 characters where the string takes 73); ``Entry.timestamp`` makes the string again.
    A string starting with NUL (whose bytes an int would not keep) stays a string."""
    b = t.encode()
    return t if b[:1] == b"\x00" else int.from_bytes(b, "big")


def span(line: int, offset: int, size: int) -> int:
    """``line``, ``offset`` and ``size`` packed as ``Entry.span`` holds them (the line number,
    1-based, 0 for none; the byte offset, -1 for an entry that lives in memory; the size)."""
    if line < 0 or not -1 <= offset < _FIELD or not 0 <= size <= _FIELD:
        raise ValueError(f"no line span: line {line}, offset {offset}, size {size}")
    return (offset + 1) | size << SIZE_AT | line << LINE_AT


class Entry(msgspec.Struct, gc=False, eq=False):
    """Skeleton of one session entry (docs/formats.md §4–§5).

    ``text`` holds the entry's main one-line material, by kind: message content text (cut at
    200 units, as pi's ``extractContent``), the bash command, custom_message text, summaries,
    the label of a label entry, the name of session_info, the model id, the thinking level or
    the customType of a custom entry, the targetId of a context edit. ``aux`` holds a second
    field where a kind has one (assistant error message, custom_message customType, label
    targetId, toolResult toolCallId, compaction tokensBefore, a context edit's ``omit`` or
    ``replace``).

    A ``msgspec.Struct``: made in C with every field given or defaulted at once (a Python
    ``__init__`` setting sixteen slots cost four times as much, for every line of a file), not
    tracked by the cyclic collector (no GC header: 16 bytes less an entry; an entry refers to
    strings, ints, tuples and a decoded line, never back to itself), equal only to itself
    (docs/performance.md, "Memory per skeleton entry"). The fields in this order are the
    positional arguments: ``Entry(id, parent_id, type)`` for the usual start.
    """

    id: str
    parent_id: str | None
    type: str
    role: str | None = None
    #: the timestamp (``timestamp``): as the file has it, or a string packed in an int
    stamp: Any = None
    index: int = -1
    #: ``line``, ``offset`` and ``size`` in one int (``span``)
    span: int = 0
    text: str | None = None
    aux: Any = None
    has_text: bool = False
    stop_reason: Any = None
    tool_name: Any = None
    tool_calls: tuple[tuple[Any, Any, Any], ...] | None = None
    #: custom_message content was a plain string (pi searches all of it, not 200 units)
    content_is_str: bool = False
    #: adapters mark entries shown only in the "all" filter (e.g. OpenLoom pruned nodes)
    hidden: str | None = None
    #: the full entry, for entries that live only in memory (adapters, migrated files)
    data: dict[str, Any] | None = None

    def __repr__(self) -> str:
        return f"Entry({self.id!r}, parent={self.parent_id!r}, type={self.type!r}, role={self.role!r})"

    @property
    def timestamp(self) -> Any:
        """The entry's ``timestamp`` as the file has it (a string, usually; None when absent)."""
        v = self.stamp
        if type(v) is int:
            return v.to_bytes((v.bit_length() + 7) >> 3, "big").decode()
        if type(v) is _Number:
            return v.value
        return v

    @timestamp.setter
    def timestamp(self, value: Any) -> None:
        self.stamp = _Number(value) if type(value) is int else value

    @property
    def line(self) -> int:
        """The physical line number in the file (1-based; 0: none)."""
        return self.span >> LINE_AT

    @line.setter
    def line(self, value: int) -> None:
        if value < 0:
            raise ValueError(f"line {value}")
        self.span = (getattr(self, "span", 0) & _BELOW_LINE) | value << LINE_AT

    @property
    def offset(self) -> int:
        """The line's byte offset in the file (-1: the entry lives in memory, ``data``)."""
        return (self.span & _FIELD) - 1

    @offset.setter
    def offset(self, value: int) -> None:
        if not -1 <= value < _FIELD:
            raise ValueError(f"offset {value}")
        self.span = (getattr(self, "span", 0) & _NOT_OFFSET) | (value + 1)

    @property
    def size(self) -> int:
        """The line's size in bytes, without its newline."""
        return (self.span >> SIZE_AT) & _FIELD

    @size.setter
    def size(self, value: int) -> None:
        if not 0 <= value <= _FIELD:
            raise ValueError(f"size {value}")
        self.span = (getattr(self, "span", 0) & _NOT_SIZE) | value << SIZE_AT

    @property
    def is_tool_only_assistant(self) -> bool:
        """docs/formats.md §9.3 rule 1: no text and a stopReason that is stop/toolUse/missing."""
        if self.type != MESSAGE or self.role != "assistant" or self.has_text:
            return False
        sr = self.stop_reason
        return not sr or sr == "stop" or sr == "toolUse"


def content_text(content: Any, cap: int | None = TEXT_CAP) -> str:
    """pi's ``extractContent``: a string, or the text blocks concatenated, cut at ``cap`` units."""
    if isinstance(content, str):
        return content if cap is None else utf16_slice(content, cap)
    if isinstance(content, list):
        if len(content) == 1 and cap is not None:
            # the usual tool result: one text block (cut as the loop below would cut it)
            block = content[0]
            if type(block) is dict and block.get("type") == "text":
                t = block.get("text")
                if type(t) is str:
                    head = t[:cap]
                    return head if head.isascii() else utf16_slice(t, cap)
        out = ""
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                t = block.get("text")
                out += t if isinstance(t, str) else _js_concat(t)
                # 2 * len >= UTF-16 length: only measure when the cap may be reached
                if cap is not None and 2 * len(out) >= cap and utf16_len(out) >= cap:
                    return utf16_slice(out, cap)
        return out
    return ""


def _js_concat(v: Any) -> str:
    from loomtui.session.jsstr import js_string

    return "undefined" if v is None else js_string(v)


def has_text_content(content: Any) -> bool:
    if isinstance(content, str):
        return bool(js_trim(content))
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                t = block.get("text")
                if isinstance(t, str) and js_trim(t):
                    return True
    return False


def compact_args(value: Any, depth: int = 0) -> Any:
    """Keep a tool call's arguments small without changing what pi prints of them."""
    if isinstance(value, str):
        return value if len(value) <= ARG_CAP else value[:ARG_CAP]
    if isinstance(value, dict):
        if depth > 8:
            return {}
        if len(value) <= 12:
            # the usual case: flat arguments with short values need no copy
            for v in value.values():
                tv = type(v)
                if (tv is str and len(v) > ARG_CAP) or tv is dict or tv is list:
                    break
            else:
                return value
        out = {}
        for i, (k, v) in enumerate(value.items()):
            if i >= 12:
                break
            out[k] = compact_args(v, depth + 1)
        return out
    if isinstance(value, list):
        if depth > 8:
            return []
        return [compact_args(v, depth + 1) for v in value[:12]]
    return value


def call_args(args: Any) -> Any:
    """A skeleton's tool-call arguments as decoded JSON. The typed scan keeps small ones as the
    line's raw JSON bytes (``bytes``, which no decoded JSON value is; a decoded dict and its
    strings cost several times as much, and most are never shown) and they are decoded here
    when shown: by orjson, else as JSON.parse reads them, which is what the general route
    makes of the line (docs/performance.md, "Memory per skeleton entry")."""
    if type(args) is not bytes:
        return args
    try:
        return compact_args(_loads(args))
    except ValueError:
        from loomtui.session import jsonvalue

        return compact_args(jsonvalue.loads(args))


def _fill_assistant_blocks(e: Entry, content: list[Any]) -> None:
    """``content_text``, ``has_text_content`` and the tool calls in one pass over the blocks
    (the hot path when loading: about half of all entries are assistant messages)."""
    out = ""
    capped = False
    has = False
    calls = None
    for block in content:
        if not isinstance(block, dict):
            continue
        bt = block.get("type")
        if bt == "text":
            t = block.get("text")
            if isinstance(t, str):
                if not has and js_trim(t):
                    has = True
            elif capped:
                continue
            else:
                t = _js_concat(t)
            if not capped:
                out += t
                if 2 * len(out) >= TEXT_CAP and utf16_len(out) >= TEXT_CAP:
                    out = utf16_slice(out, TEXT_CAP)
                    capped = True
        elif bt == "toolCall":
            name = block.get("name")
            call = (
                call_key(block.get("id")),
                intern(name) if type(name) is str else name,  # a few names, on a third of all lines
                compact_args(block.get("arguments")),
            )
            if calls is None:
                calls = [call]
            else:
                calls.append(call)
    e.text = out
    e.has_text = has
    if calls:
        e.tool_calls = tuple(calls)


class Unmatched:
    """A tool-call id that is an object or array: in pi's ``Map`` it matches nothing."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "[object]"


def call_key(v: Any) -> Any:
    """A tool-call id as a key that matches exactly what pi's ``Map`` lookup matches: strings
    and numbers by value, ``true``/``false`` apart from 1/0, objects and arrays never."""
    if isinstance(v, (dict, list)):
        return Unmatched()
    if isinstance(v, bool):
        return ("bool", v)
    return v


def context_edit_kind(obj: dict[str, Any]) -> str:
    """pi: ``replacement === null`` omits the target; anything else (missing too) replaces it."""
    return "omit" if "replacement" in obj and obj["replacement"] is None else "replace"


def _model_change(e: Entry, obj: dict[str, Any]) -> None:
    e.text = obj.get("modelId") if "modelId" in obj else obj.get("model")


def _label(e: Entry, obj: dict[str, Any]) -> None:
    e.text = obj.get("label")
    e.aux = obj.get("targetId")


def _context_edit(e: Entry, obj: dict[str, Any]) -> None:
    e.text = obj.get("targetId")
    e.aux = context_edit_kind(obj)


def _field(key: str) -> Callable[[Entry, dict[str, Any]], None]:
    def take(e: Entry, obj: dict[str, Any]) -> None:
        e.text = obj.get(key)

    return take


def _fields(*keys: str) -> Callable[[Entry, dict[str, Any]], None]:
    """omp's own kinds: the fields its tree row shows, as a tuple in ``aux``."""

    def take(e: Entry, obj: dict[str, Any]) -> None:
        e.aux = tuple(obj.get(k) for k in keys)

    return take


#: what ``fill`` keeps of the settings-like kinds (rare lines: a call each is cheap)
_SETTINGS_FIELDS: dict[str, Callable[[Entry, dict[str, Any]], None]] = {
    "model_change": _model_change,
    "thinking_level_change": _field("thinkingLevel"),
    "custom": _field("customType"),
    "label": _label,
    "session_info": _field("name"),
    "context_edit": _context_edit,
    "model_usage": _fields("purpose", "role", "provider", "model"),
    "service_tier_change": _fields("serviceTier"),
    "title_change": _fields("title"),
    "mode_change": _fields("mode"),
    "credential_pin": _fields("provider"),
}


def fill(e: Entry, obj: dict[str, Any]) -> None:
    """Copy into ``e`` what the tree, filters and search need from the decoded entry ``obj``.
    Runs once per entry read: a message (most lines) costs one more call, ``_fill_message``."""
    t = e.type
    e.timestamp = obj.get("timestamp")
    hidden = obj.get("hidden")
    if hidden:
        e.hidden = str(hidden)
    if t == MESSAGE:
        _fill_message(e, obj.get("message"))
    elif t == "custom_message":
        e.aux = obj.get("customType")
        c = obj.get("content")
        e.text = content_text(c, None) if c is not None else ""
        e.content_is_str = isinstance(c, str)
    elif t == "compaction":
        e.aux = obj.get("tokensBefore")
        e.text = obj.get("summary") if isinstance(obj.get("summary"), str) else None
    elif t == "branch_summary":
        s = obj.get("summary")
        e.text = s if isinstance(s, str) else None
    else:
        settings = _SETTINGS_FIELDS.get(t)
        if settings is not None:
            settings(e, obj)


def _fill_message(e: Entry, msg: Any) -> None:
    """``fill`` for a message entry: its role and what the role's rows show."""
    if not isinstance(msg, dict):
        e.role = None
        return
    role = msg.get("role")
    e.role = intern(role) if type(role) is str else None
    content = msg.get("content")
    if role == "user":
        if type(content) is str:
            head = content[:TEXT_CAP]
            e.text = head if head.isascii() else utf16_slice(content, TEXT_CAP)
            e.has_text = bool(content.strip(JS_WHITESPACE))
        else:
            e.text = content_text(content)
            e.has_text = has_text_content(content)
    elif role == "assistant":
        if isinstance(content, list):
            _fill_assistant_blocks(e, content)
        else:
            e.text = content_text(content)
            e.has_text = has_text_content(content)
        stop = msg.get("stopReason")
        e.stop_reason = intern(stop) if type(stop) is str else stop
        err = msg.get("errorMessage")
        if err:
            e.aux = utf16_slice(err, 400) if isinstance(err, str) else err
    elif role == "toolResult":
        e.aux = call_key(msg.get("toolCallId"))
        name = msg.get("toolName")
        e.tool_name = intern(name) if type(name) is str else name
        e.text = content_text(content)
    elif role == "bashExecution":
        cmd = msg.get("command")
        e.text = cmd if isinstance(cmd, str) else None
        e.aux = content_text(content)
    else:
        e.text = content_text(content) if content else None
        if role == "custom" or role == "hookMessage":
            e.aux = msg.get("customType")
