"""The typed scan (session/typed_scan.py) makes exactly the skeleton the general route makes
(orjson, then ``entries.fill``), or leaves the line to it."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from loomtui.session import jsonvalue, typed_scan
from loomtui.session.entries import RAW_ARGS_CAP, Entry, call_args, fill
from loomtui.session.split import FIELDS

LONG = "word " * 2000
EMOJI = "\U0001f600" * 900
ESCAPED = 'a"b\\c\n\u00e9' * 400


def _general(line: bytes) -> Entry:
    obj = jsonvalue.loads(line)  # orjson, else as JSON.parse reads it (the general route)
    e = Entry(obj["id"], obj.get("parentId"), obj["type"])
    fill(e, obj)
    return e


def _same(line: bytes) -> bool:
    """Whether the typed scan took ``line``; asserts it made the general route's skeleton."""
    try:
        typed = typed_scan.entry(typed_scan.decode(line))
    except typed_scan.ERRORS:
        return False
    general = _general(line)
    for f in FIELDS:
        if f == "stamp":  # a timestamp string is kept packed (``entries.packed_stamp``)
            f = "timestamp"
        got, want = getattr(typed, f), getattr(general, f)
        if f == "tool_calls" and got is not None:
            # small arguments are kept as their JSON bytes and decoded where shown
            got = tuple((i, n, call_args(a)) for i, n, a in got)
            assert [[type(x) for x in c] for c in got] == [[type(x) for x in c] for c in want], line[:200]
        assert got == want, (f, line[:200])
        assert type(got) is type(want), (f, line[:200])
    return True


def _line(**fields: object) -> bytes:
    return json.dumps(
        {"type": "message", "id": "e1", "parentId": "p0", "timestamp": "2026-01-01T00:00:00.000Z", **fields}
    ).encode()


def _msg(**m: object) -> bytes:
    return _line(message=m)


TEXTS = ["", "  ", "hi", LONG, EMOJI, ESCAPED, " " * 3000 + "x", "\u3000" * 2100 + "y", "x" * 199, "é" * 200]

TYPED = [
    _msg(role="user", content="hello"),
    *[_msg(role="user", content=t) for t in TEXTS],
    *[_msg(role="user", content=[{"type": "text", "text": t}]) for t in TEXTS],
    _msg(
        role="user",
        content=[{"type": "text", "text": "a"}, {"type": "image", "data": "xx"}, {"type": "text", "text": LONG}],
    ),
    _msg(role="user", content=[{"type": "text"}, {"type": "text", "text": None}, {"type": "text", "text": "z"}]),
    _msg(role="user", content=[]),
    _msg(role="user"),
    *[
        _msg(
            role="assistant",
            content=[{"type": "thinking", "thinking": LONG}, {"type": "text", "text": t}],
            stopReason="stop",
        )
        for t in TEXTS
    ],
    _msg(
        role="assistant",
        content=[
            {"type": "text", "text": LONG},
            {"type": "text", "text": None},
            {"type": "text", "text": "  more"},
            {
                "type": "toolCall",
                "id": "c1",
                "name": "bash",
                "arguments": {"command": "ls", "n": 3, "deep": {"a": [1, 2]}},
            },
            {"type": "toolCall", "id": "c2", "name": "read", "arguments": {"path": "x" * 900}},
            {"type": "toolCall", "id": "c3", "name": "none"},
            {"type": "toolCall", "id": "c4", "name": "n", "arguments": 12345678901234567890123},
            {"type": "toolCall", "id": "c5", "name": "edit", "arguments": {"path": "a", "new": "y" * 2000}},
            {"type": "toolCall", "id": "c6", "name": "ls", "arguments": []},
        ],
        stopReason="toolUse",
        usage={"input": 1, "cost": {"total": 0.1}},
    ),
    _msg(
        role="assistant", content=[{"type": "text", "text": " "}, {"type": "text", "text": LONG}], stopReason="length"
    ),
    _msg(role="assistant", content="plain", stopReason="error", errorMessage="boom " * 200),
    _msg(role="assistant", content=None, errorMessage=""),
    _msg(role="assistant"),
    _msg(role="toolResult", toolCallId="c1", toolName="bash", content=[{"type": "text", "text": LONG}], isError=False),
    _msg(role="toolResult", toolCallId="c1", toolName="bash", content="output"),
    _msg(role="toolResult"),
    _msg(role="bashExecution", command="ls -la", output="x", content=[{"type": "text", "text": "out"}]),
    _msg(role="bashExecution"),
    _msg(role="custom", customType="note", content="hey"),
    _msg(role="hookMessage", customType="note", content=[{"type": "text", "text": "x"}]),
    _msg(role="branchSummary", summary="s", content=""),
    _msg(content="no role"),
    _line(),
    _line(message=None),
    _line(parentId=None),
    _line(timestamp=None),
    *[_line(timestamp=t) for t in ("", "\x00late", "2026-01-01T00:00:00+02:00 \u00e9\U0001f600", "x" * 300)],
    json.dumps({"type": "message", "id": "e1"}).encode(),
    _line(type="label", label="good", targetId="t1"),
    _line(type="label", label=None, targetId="t1"),
    _line(type="model_change", provider="anthropic", modelId="m1"),
    _line(type="model_change", provider="anthropic", modelId=None, model="m2"),
    _line(type="model_change", model="m2"),
    _line(type="thinking_level_change", thinkingLevel="high"),
    _line(type="branch_summary", fromId="x", summary="sum"),
    _line(type="compaction", summary="sum", firstKeptEntryId="x", tokensBefore=12345),
    _line(type="compaction", tokensBefore=18446744073709551615),
    _line(type="custom", customType="ext", data={"a": 1}),
    _line(type="session_info", name="  my session "),
    b'{"type":"message","id":"a","id":"b","message":{"role":"user","content":"x"}}',
    # arguments orjson does not read: kept as their bytes, read as JSON.parse reads them when shown
    *[
        b'{"type":"message","id":"a","message":{"role":"assistant","content":[{"type":"toolCall","id":"c",'
        b'"name":"bash","arguments":' + args + b"}]}}"
        for args in (b'{"n":1e999}', b'{"n":-1e400,"m":[1e999]}')
    ],
]

GENERAL = [
    _line(hidden=True),
    _line(hidden=False),
    _line(id=5),
    _line(parentId=7),
    _line(timestamp=1767225600000),
    _line(message="text"),
    _msg(role=5, content="x"),
    _msg(role="user", content=5),
    _msg(role="user", content=["plain string block"]),
    _msg(role="assistant", content=[{"type": "toolCall", "id": 5, "name": "x"}]),
    _msg(role="assistant", stopReason=3),
    _msg(role="user", content=[{"type": "text", "text": "x" * 3000 + "\ud83d"}]),
    _line(type="compaction", tokensBefore=1.5),
    _msg(role="user", content=[{"type": "text", "text": 5}]),
    _line(type="compaction", tokensBefore=123456789012345678901234567890),
    _line(type="custom_message", customType="x", content="y"),
    _line(type="context_edit", targetId="x", replacement=None),
    _line(type="session"),
    _line(type="unknown_kind"),
    json.dumps({"id": "e1", "parentId": None}).encode(),
    # orjson leaves these to the stdlib codec (session/jsonvalue.py): so does the typed scan
    b'{"type":"message","id":"a","skipped":1e999,"deep":' + b"[" * 3000 + b"]" * 3000 + b"}",
    b'{"type":"message","id":"a","skipped":"\\ud83d"}',
]


@pytest.mark.parametrize("line", TYPED, ids=range(len(TYPED)))
def test_typed_lines_make_the_general_skeleton(line: bytes) -> None:
    assert _same(line)


@pytest.mark.parametrize("line", GENERAL, ids=range(len(GENERAL)))
def test_unusual_lines_are_left_to_the_general_route(line: bytes) -> None:
    assert not _same(line)


def test_small_arguments_are_kept_as_their_bytes() -> None:
    """A tool call's arguments up to ``RAW_ARGS_CAP`` bytes are the line's own JSON; longer
    ones are decoded (and their long strings cut) while reading."""
    small = b'{"path": "a.py",  "offset": 10}'
    big = orjson.dumps({"path": "p", "content": "z" * RAW_ARGS_CAP})
    line = (
        b'{"type":"message","id":"a","message":{"role":"assistant","content":['
        b'{"type":"toolCall","id":"c1","name":"read","arguments":' + small + b"},"
        b'{"type":"toolCall","id":"c2","name":"write","arguments":' + big + b"}]}}"
    )
    e = typed_scan.entry(typed_scan.decode(line))
    assert e.tool_calls is not None
    (_, _, kept), (_, _, decoded) = e.tool_calls
    assert kept == small and call_args(kept) == {"path": "a.py", "offset": 10}
    assert decoded == {"path": "p", "content": "z" * 400}
    assert call_args(decoded) is decoded


def test_timestamps_are_kept_packed() -> None:
    """A timestamp string is kept as an int of its bytes and read back as that very string."""
    for t in ("2026-01-01T00:00:07.687Z", "", "\u00e9", "\x00x", "a\x00"):
        e = typed_scan.entry(typed_scan.decode(_line(timestamp=t)))
        assert e.timestamp == t and type(e.timestamp) is str
        assert type(e.stamp) is (str if t.startswith("\x00") else int)
    general = _general(_line(timestamp=1767225600000))
    assert general.timestamp == 1767225600000 and type(general.timestamp) is int


def test_long_texts() -> None:
    """Long texts of escapes and multi-byte characters, cut at 200 units at every offset."""
    for pad in range(0, 16):
        for body in (ESCAPED, EMOJI, "\u00e9" * 1500, "\\" * 3000, "\u20ac" * 1000, '"' * 3000):
            text = "x" * pad + body
            assert _same(_msg(role="toolResult", toolCallId="c", content=[{"type": "text", "text": text}]))
            assert _same(_msg(role="assistant", content=[{"type": "text", "text": text}]))


def test_fixture_sessions(tmp_path: Path) -> None:
    """Every line of the repository's pi session fixtures: typed, or left to the general route."""
    root = Path(__file__).resolve().parents[1] / "fixtures"
    taken = 0
    for path in sorted(root.rglob("*.jsonl")):
        for line in path.read_bytes().splitlines():
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if not (isinstance(obj, dict) and isinstance(obj.get("id"), str) and isinstance(obj.get("type"), str)):
                continue
            if obj["type"] == "session" or not (obj.get("parentId") is None or isinstance(obj["parentId"], str)):
                continue
            taken += _same(line)
    assert taken > 50
