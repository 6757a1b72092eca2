"""The usual v3 entry line scanned into typed structs: only what ``entries.fill`` reads.

``reader.LineParser.feed`` decodes most lines of a big session here first. ``msgspec`` reads
the line into structs that declare only the fields the skeleton keeps (id, parent, timestamp,
the message's role, stop reason, tool name and call id, the content's text and tool calls);
every other field (usage, thinking blocks, a tool result's details, …) is
skipped while scanning, never made into Python objects.

Only the usual shapes are typed: a field of another JSON type than the usual one, a kind not
listed in ``_Line``, a ``hidden`` mark, a lone surrogate or anything else unusual raises
(``msgspec.ValidationError``, ``Unusual``, ``ValueError``), and the caller reads the line the
general way (orjson, then ``entries.fill``), so what an entry holds is the same either way
(tests/session/test_typed_scan.py compares the two on every shape).
"""

from __future__ import annotations

from sys import intern
from typing import Any

import msgspec
import orjson

from loomtui.session.entries import (
    MESSAGE,
    RAW_ARGS_CAP,
    TEXT_CAP,
    Entry,
    _js_concat,
    compact_args,
)
from loomtui.session.jsstr import JS_WHITESPACE, utf16_len, utf16_slice

#: a ``Raw`` field that was not in the line
_ABSENT = msgspec.Raw(b"")
_loads = orjson.loads


class Unusual(Exception):
    """The line holds something the typed scan leaves to the general route."""


class _Block(msgspec.Struct, gc=False):
    type: str | None = None
    text: str | None = None
    id: str | None = None
    name: str | None = None
    arguments: msgspec.Raw = _ABSENT


class _Message(msgspec.Struct, rename="camel", gc=False):
    role: str | None = None
    content: str | list[_Block] | None = None
    stop_reason: str | None = None
    error_message: str | None = None
    tool_call_id: str | None = None
    tool_name: str | None = None
    command: str | None = None
    custom_type: str | None = None


class _Base(msgspec.Struct, rename="camel", tag_field="type", gc=False):
    id: str
    parent_id: str | None = None
    timestamp: str | None = None
    hidden: msgspec.Raw = _ABSENT


class _MessageLine(_Base, tag="message"):
    message: _Message | None = None


class _LabelLine(_Base, tag="label"):
    label: str | None = None
    target_id: str | None = None


class _ModelLine(_Base, tag="model_change"):
    model_id: str | None | msgspec.UnsetType = msgspec.UNSET
    model: str | None = None


class _ThinkingLine(_Base, tag="thinking_level_change"):
    thinking_level: str | None = None


class _SummaryLine(_Base, tag="branch_summary"):
    summary: str | None = None


class _CompactionLine(_Base, tag="compaction"):
    summary: str | None = None
    tokens_before: int | None = None


class _CustomLine(_Base, tag="custom"):
    custom_type: str | None = None


class _InfoLine(_Base, tag="session_info"):
    name: str | None = None


_Line = (
    _MessageLine | _LabelLine | _ModelLine | _ThinkingLine | _SummaryLine | _CompactionLine | _CustomLine | _InfoLine
)

#: decodes one line (bytes or a memoryview) into one of the ``_Line`` structs
decode = msgspec.json.Decoder(_Line).decode
#: what ``decode`` raises for a line it does not type (the caller reads it the general way)
ERRORS = (msgspec.DecodeError, Unusual, ValueError, TypeError, RecursionError)

#: the ids of the tool calls read last, each its own string: the result answering one takes
#: that string as its ``aux`` (a result usually follows its call within a few lines), so the
#: two entries share one string (docs/performance.md, "Memory per skeleton entry")
_CALL_IDS: dict[str | None, str | None] = {}
#: ``_CALL_IDS`` is emptied past this many calls without their result
_CALL_IDS_MAX = 1024

#: the roles of most lines, one string each (``sys.intern`` of them)
_ASSISTANT = intern("assistant")
_TOOL_RESULT = intern("toolResult")
_USER = intern("user")

_INT64_MIN = -(1 << 63)
_UINT64_END = 1 << 64


def _blocks(blocks: list[_Block], calls_wanted: bool) -> tuple[str, bool, list[Any] | None]:
    """pi's ``extractContent`` (cut at 200 units), whether any block has text and, with
    ``calls_wanted``, the tool calls, from a content array (``entries._fill_assistant_blocks``,
    ``content_text`` and ``has_text_content`` in one pass)."""
    if len(blocks) == 1:
        b = blocks[0]
        t = b.text
        if b.type == "text" and t is not None:  # the usual tool result, a plain answer
            head = t[:TEXT_CAP]
            return head if head.isascii() else utf16_slice(t, TEXT_CAP), bool(t.strip(JS_WHITESPACE)), None
    out = ""
    capped = False
    has = False
    calls = None
    for b in blocks:
        bt = b.type
        if bt == "text":
            if capped and has:
                continue
            t = b.text
            if t is not None:
                if not has and t.strip(JS_WHITESPACE):
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
        elif bt == "toolCall" and calls_wanted:
            if calls is None:
                calls = [_call(b)]
            else:
                calls.append(_call(b))
    return out, has, calls


def _call(b: _Block) -> tuple[Any, Any, Any]:
    """A tool call as ``entries._fill_assistant_blocks`` keeps it, but for the arguments: up to
    ``RAW_ARGS_CAP`` bytes their JSON as it stands in the line (``entries.call_args`` decodes
    it where shown), longer ones decoded by orjson, as the general route decodes them."""
    args = b.arguments
    name = b.name
    cid = b.id
    if cid is not None:
        if len(_CALL_IDS) >= _CALL_IDS_MAX:
            _CALL_IDS.clear()
        _CALL_IDS[cid] = cid
    n = len(args)
    return (
        cid,
        intern(name) if name is not None else None,
        (bytes(args) if n <= RAW_ARGS_CAP else compact_args(_loads(memoryview(args)))) if n else None,
    )


def _content_text(content: str | list[_Block] | None) -> str:
    """``entries.content_text`` (cap 200) of a typed content."""
    if content is None:
        return ""
    if type(content) is str:
        return utf16_slice(content, TEXT_CAP)
    return _blocks(content, False)[0]  # type: ignore[arg-type]


def _message(eid: str, parent: str | None, stamp: Any, m: _Message | None) -> Entry:
    """``entries._fill_message`` of a typed message: the entry made in one call, every field it
    has computed first."""
    if m is None:
        return Entry(eid, parent, MESSAGE, None, stamp)
    role = m.role
    content = m.content
    if role == "assistant":
        has = False
        calls = None
        if type(content) is list:
            text, has, calls = _blocks(content, True)
        elif content is None:
            text = ""
        else:
            text = utf16_slice(content, TEXT_CAP)  # type: ignore[arg-type]
            has = bool(content.strip(JS_WHITESPACE))  # type: ignore[union-attr]
        stop = m.stop_reason
        err = m.error_message
        return Entry(
            eid,
            parent,
            MESSAGE,
            _ASSISTANT,
            stamp,
            -1,
            0,
            text,
            utf16_slice(err, 400) if err else None,
            has,
            intern(stop) if stop is not None else None,
            None,
            tuple(calls) if calls else None,
        )
    if role == "toolResult":
        cid = m.tool_call_id
        name = m.tool_name
        return Entry(
            eid,
            parent,
            MESSAGE,
            _TOOL_RESULT,
            stamp,
            -1,
            0,
            _content_text(content),
            _CALL_IDS.pop(cid, cid),  # None is never a key: None stays None
            False,
            None,
            intern(name) if name is not None else None,
        )
    if role == "user":
        if type(content) is str:
            head = content[:TEXT_CAP]
            text = head if head.isascii() else utf16_slice(content, TEXT_CAP)
            has = bool(content.strip(JS_WHITESPACE))
        elif content is None:
            text = ""
            has = False
        else:
            text, has, _calls = _blocks(content, False)  # type: ignore[arg-type]
        return Entry(eid, parent, MESSAGE, _USER, stamp, -1, 0, text, None, has)
    if role is None:
        return Entry(eid, parent, MESSAGE, None, stamp, -1, 0, _content_text(content) if content else None)
    role = intern(role)
    if role == "bashExecution":
        return Entry(eid, parent, MESSAGE, role, stamp, -1, 0, m.command, _content_text(content))
    return Entry(
        eid,
        parent,
        MESSAGE,
        role,
        stamp,
        -1,
        0,
        _content_text(content) if content else None,
        m.custom_type if role == "custom" or role == "hookMessage" else None,
    )


def entry(s: Any) -> Entry:
    """The skeleton ``entries.fill`` makes of the line ``s`` was decoded from (``decode``);
    raises ``Unusual`` for what it leaves to the general route. ``line``, ``offset`` and
    ``size`` are the caller's to set."""
    if len(s.hidden):
        raise Unusual
    t = s.timestamp
    # ``entries.packed_stamp``, inline: a string starting with NUL stays a string
    stamp = t if t is None or t[:1] == "\x00" else int.from_bytes(t.encode(), "big")
    cls = type(s)
    if cls is _MessageLine:
        return _message(s.id, s.parent_id, stamp, s.message)
    if cls is _LabelLine:
        return Entry(s.id, s.parent_id, "label", None, stamp, -1, 0, s.label, s.target_id)
    if cls is _ModelLine:
        text = s.model if s.model_id is msgspec.UNSET else s.model_id
        return Entry(s.id, s.parent_id, "model_change", None, stamp, -1, 0, text)
    if cls is _ThinkingLine:
        return Entry(s.id, s.parent_id, "thinking_level_change", None, stamp, -1, 0, s.thinking_level)
    if cls is _SummaryLine:
        return Entry(s.id, s.parent_id, "branch_summary", None, stamp, -1, 0, s.summary)
    if cls is _CompactionLine:
        tokens = s.tokens_before
        if tokens is not None and not _INT64_MIN <= tokens < _UINT64_END:
            raise Unusual  # orjson (and so the general route) makes a float of it
        return Entry(s.id, s.parent_id, "compaction", None, stamp, -1, 0, s.summary, tokens)
    if cls is _CustomLine:
        return Entry(s.id, s.parent_id, "custom", None, stamp, -1, 0, s.custom_type)
    return Entry(s.id, s.parent_id, "session_info", None, stamp, -1, 0, s.name)
