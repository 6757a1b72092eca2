"""The usual Claude Code line scanned into typed structs: only what the skeleton reads.

``claude/scan.py`` decodes each line here first. ``msgspec`` reads the line into structs that
declare only the fields ``scan``'s skeletons and facts take (uuid, parent, type, timestamp,
sidechain mark; the message's stop reason, id and content: text, tool calls' ids, names and
inputs, a tool result's call and text; a system line's subtype and text, a hook line's
subtype); every other field (thinking blocks and their signatures, a tool result's
``toolUseResult``, the file's bookkeeping fields, …) is skipped while scanning, never made into
Python objects. A message's usage is kept as its raw bytes (``Scan.usage`` decodes it, when
tokens are first asked for), a tool call's input is decoded by orjson as the general route
decodes it.

Only the usual shapes are typed: a field of another JSON type than the usual one, a line
without a uuid, a root, a line with an error, a meta or compact-summary mark, a subagent's id,
a compaction boundary, content the usual shapes do not cover, anything else unusual raises
(``msgspec.ValidationError``, ``Unusual``, …) before it changes the scan, and ``scan`` reads the
line the general way (orjson), so what the scan keeps is the same either way
(tests/formats/test_claude_typed.py compares the two routes on every shape and on every
fixture). One difference is left, for lines no writer makes: a number beyond a double's range
or bytes that are not UTF-8 inside a field the skeleton never reads (orjson refuses such a
line, the typed scan reads it as JSON.parse, and so Claude Code, does; ``AgentSession.load``
reads its detail the same way).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
import orjson

from loomtui.formats.agent.tools import CLAUDE_TOOLS, pi_call
from loomtui.formats.claude.lines import CMD_PREFIXES, SHOWN_SYSTEM, STOP, command_text
from loomtui.session.entries import Entry, compact_args
from loomtui.session.jsstr import JS_WHITESPACE, utf16_slice

if TYPE_CHECKING:
    from loomtui.formats.claude.scan import Scan

#: a ``Raw`` field that was not in the line
_ABSENT = msgspec.Raw(b"")
_loads = orjson.loads
AGENT_TOOLS = ("Task", "Agent")


class Unusual(Exception):
    """The line holds something the typed scan leaves to the general route."""


class _Block(msgspec.Struct, gc=False):
    """A content block: text, tool use, tool result (other kinds: their type only)."""

    type: str | None = None
    text: str | None = None
    id: str | None = None
    name: str | None = None
    input: msgspec.Raw = _ABSENT
    tool_use_id: str | None = None
    content: str | list[msgspec.Raw] | None = None


class _Message(msgspec.Struct, gc=False):
    content: str | list[_Block] | None = None
    stop_reason: str | None = None
    id: str | None = None
    usage: msgspec.Raw = _ABSENT


class _Sub(msgspec.Struct, gc=False):
    """A hook line's ``data`` / ``attachment``: its type only."""

    type: str | None = None


class _ToolUseResult(msgspec.Struct, rename="camel", gc=False):
    agent_id: msgspec.Raw = _ABSENT


class Line(msgspec.Struct, rename="camel", gc=False):
    """One line, of any kind: the fields ``scan`` reads of a line with a uuid."""

    uuid: str | None = None
    parent_uuid: str | None = None
    type: str | None = None
    timestamp: str | None = None
    is_sidechain: bool = False
    message: _Message | None = None
    request_id: str | None = None
    subtype: str | None = None
    content: str | None = None
    data: _Sub | None = None
    attachment: _Sub | None = None
    tool_use_result: _ToolUseResult | str | list[msgspec.Raw] | None = None
    # present at all: the general route decides
    is_meta: msgspec.Raw = _ABSENT
    is_compact_summary: msgspec.Raw = _ABSENT
    error: msgspec.Raw = _ABSENT
    is_api_error_message: msgspec.Raw = _ABSENT


#: decodes one line (bytes or a memoryview) into a ``Line``
decode = msgspec.json.Decoder(Line).decode
#: what ``decode`` and ``skeleton`` raise for a line they leave to the general route
ERRORS = (msgspec.DecodeError, Unusual, ValueError, TypeError, RecursionError)


def _cut(text: str) -> str:
    """A row text: the first 200 UTF-16 units."""
    return text if len(text) < 100 else (text[:200] if text.isascii() else utf16_slice(text, 200))


def skeleton(s: Line, eid: str, parent: str, sc: Scan, i: int) -> tuple[str, Entry]:
    """(kind, skeleton) of the line ``s`` was decoded from, as ``scan``'s general route makes
    them, with the facts it notes (tool names, Task calls, their results, usage); raises
    before it notes anything when the line is one for the general route."""
    t = s.type
    if t == "assistant":
        return "assistant", _assistant(s, eid, parent, sc, i)
    if t == "user":
        return _user(s, eid, parent, sc, i)
    if t == "progress" or t == "attachment":
        sub = s.data if t == "progress" else s.attachment
        st = sub.type if sub is not None else None
        e = Entry(eid, parent, "custom")
        e.timestamp = s.timestamp
        e.text = f"{t}: {st}" if st else t
        return "progress", e
    if t == "system":
        return "system", _system(s, eid, parent)
    raise Unusual


def _assistant(s: Line, eid: str, parent: str, sc: Scan, i: int) -> Entry:
    if len(s.error) or len(s.is_api_error_message):
        raise Unusual
    m = s.message
    content = m.content if m is not None else None
    e = Entry(eid, parent, "message")
    e.timestamp = s.timestamp
    e.role = "assistant"
    if type(content) is str:
        e.text = _cut(content)
        e.has_text = bool(content.strip(JS_WHITESPACE))
    elif content:
        _blocks(e, content, sc, i)  # type: ignore[arg-type]
    else:
        e.text = ""
        e.has_text = False
    if m is not None:
        sr = m.stop_reason
        e.stop_reason = STOP.get(sr) if sr is not None else None
        u = m.usage
        if len(u):
            raw = bytes(u)
            if raw[:1] == b"{":  # an object: decoded and counted when first asked for (``Scan.usage``)
                sc.usage_lines.append((i, s.is_sidechain, m.id, s.request_id, raw))
    return e


def _blocks(e: Entry, content: list[_Block], sc: Scan, i: int) -> None:
    """An assistant's text, whether it has any, its tool calls as pi shows them; each call's
    tool noted by its id (Task/Agent calls too: where subagents hang)."""
    text = ""
    has = False
    calls = None
    noted = None
    for b in content:
        bt = b.type
        if bt == "text":
            t = b.text
            if t is not None:
                text += t
                if not has and t.strip(JS_WHITESPACE):
                    has = True
        elif bt == "tool_use" or bt == "server_tool_use":
            cid = b.id
            name = b.name
            raw = b.input
            inp = _loads(memoryview(raw)) if len(raw) else None
            if calls is None:
                calls = []
                noted = []
            if sc.shown_calls:
                pname, pargs = pi_call(CLAUDE_TOOLS, name, compact_args(inp))
                calls.append((cid, pname, pargs))
            else:
                calls.append((cid, name, compact_args(inp)))
            if cid is not None:
                noted.append((cid, name, inp))  # type: ignore[union-attr]
    e.text = _cut(text)
    e.has_text = has
    if calls:
        e.tool_calls = tuple(calls)
        names = sc.tool_names
        for cid, name, inp in noted:  # type: ignore[union-attr]
            names[cid] = str(name)
            if name in AGENT_TOOLS:
                sc.agent_calls[cid] = (i, inp if type(inp) is dict else {})


def _user(s: Line, eid: str, parent: str, sc: Scan, i: int) -> tuple[str, Entry]:
    m = s.message
    content = m.content if m is not None else None
    if type(content) is str:
        if len(s.is_meta) or len(s.is_compact_summary):
            raise Unusual
        if content.lstrip().startswith(CMD_PREFIXES):
            e = Entry(eid, parent, "custom_message")
            e.timestamp = s.timestamp
            e.aux = "command"
            e.text = command_text(content)
            e.content_is_str = True
            return "command", e
        e = Entry(eid, parent, "message")
        e.timestamp = s.timestamp
        e.role = "user"
        e.text = _cut(content)
        e.has_text = bool(content.strip(JS_WHITESPACE))
        return "prompt", e
    if not content or len(content) != 1:
        raise Unusual
    r: _Block = content[0]  # type: ignore[assignment]
    inner = r.content
    if r.type != "tool_result" or type(inner) is not str:
        raise Unusual
    tur = s.tool_use_result
    if type(tur) is _ToolUseResult and len(tur.agent_id):
        raise Unusual
    e = Entry(eid, parent, "message")
    e.timestamp = s.timestamp
    e.role = "toolResult"
    call = r.tool_use_id
    e.aux = call
    e.tool_name = sc.tool_names.get(call) if call is not None else None
    e.text = _cut(inner)
    if call is not None and (sc.agent_calls or sc.foreign is not None):
        if call in sc.agent_calls:
            sc.results.setdefault(call, i)
        elif sc.foreign is not None:
            sc.foreign.append((call, i))
    return "tool_result", e


def _system(s: Line, eid: str, parent: str) -> Entry:
    sub = s.subtype
    if sub == "compact_boundary":
        raise Unusual
    text = s.content
    if sub in SHOWN_SYSTEM and text is not None:
        e = Entry(eid, parent, "custom_message")
        e.aux = f"system: {sub}"
        e.text = command_text(text) if sub == "local_command" else text
        e.content_is_str = True
    else:
        e = Entry(eid, parent, "custom")
        e.text = f"system: {sub}" if sub else "system: hook"
    e.timestamp = s.timestamp
    return e
