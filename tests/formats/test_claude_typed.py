"""The typed scan of Claude Code lines (``formats/claude/typed.py``) keeps exactly what the
general route (orjson, ``claude/scan.py``'s line kinds) keeps, or leaves the line to it:
compared on every fixture, on every shape of line it takes or leaves, and on odd values."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from loomtui.formats.claude import scan as claude_scan
from loomtui.formats.claude import typed
from loomtui.session.entries import Entry

SLOTS = [s for s in Entry.__struct_fields__ if s != "data"]
ROOT = Path(__file__).resolve().parents[2]
SID = "5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19"


def _facts(sc: claude_scan.Scan) -> dict[str, Any]:
    return {
        "skels": [tuple(getattr(e, f) for f in SLOTS) for e in sc.skels],
        "by_id": sc.by_id,
        "kids": sc.kids,
        "roots": sc.roots,
        "forks": sc.forks,
        "kinds": sc.kinds,
        "side": sc.side,
        "logical": sc.logical,
        "books": sc.books,
        "progress": sc.progress,
        "tool_names": sc.tool_names,
        "agent_calls": sc.agent_calls,
        "results": sc.results,
        "agent_ids": sc.agent_ids,
        "side_roots": sc.side_roots,
        "usage": sc.usage(),
        "head": (sc.session_id, sc.cwd, sc.version, sc.forked_from, sc.lines, sc.line_no, sc.last_main_i),
        "diags": [(d.line, d.reason) for d in sc.diags],
        "read_to": sc.read_to,
    }


def _scan(path: Path) -> claude_scan.Scan:
    fd = os.open(path, os.O_RDONLY)
    try:
        return claude_scan.scan(fd)
    finally:
        os.close(fd)


def _both(path: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """Scan ``path`` typed and general only; asserts the two keep the same; returns how many
    lines the typed scan took."""
    taken = []
    real = typed.skeleton

    def counted(*a: Any) -> Any:
        out = real(*a)
        taken.append(1)
        return out

    with monkeypatch.context() as m:
        m.setattr(typed, "skeleton", counted)
        fast = _facts(_scan(path))

    def refuse(raw: Any) -> Any:
        raise typed.Unusual

    with monkeypatch.context() as m:
        m.setattr(typed, "decode", refuse)
        general = _facts(_scan(path))
    for key in general:
        assert fast[key] == general[key], key
    # the same types too (a text, an id: str; a usage: the dict orjson makes)
    for a, b in zip(fast["skels"], general["skels"]):
        assert [type(x) for x in a] == [type(x) for x in b]
    assert [type(u[4]) for u in fast["usage"]] == [type(u[4]) for u in general["usage"]]
    return len(taken)


def _fixtures(shared_dir: Path) -> list[Path]:
    return sorted((shared_dir / "fixtures" / "claude").rglob("*.jsonl"))


def test_every_fixture_scans_the_same(shared_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = _fixtures(shared_dir)
    assert files
    taken = sum(_both(p, monkeypatch) for p in files)
    assert taken > 700  # the usual lines are typed


def test_a_generated_session_scans_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "gen.jsonl"
    gen = ROOT / "benchmarks" / "gen_claude_session.py"
    subprocess.run([sys.executable, str(gen), str(out), "--lines", "3000", "--rewind-every", "9"], check=True)
    assert _both(out, monkeypatch) > 2000


def _head() -> dict[str, Any]:
    return {
        "parentUuid": None,
        "isSidechain": False,
        "sessionId": SID,
        "cwd": "/p",
        "version": "2.1.0",
        "type": "user",
        "message": {"role": "user", "content": "start"},
        "uuid": "u0",
        "timestamp": "2026-01-01T00:00:00.000Z",
    }


def _line(n: int, **fields: Any) -> dict[str, Any]:
    return {
        "parentUuid": "u0",
        "isSidechain": False,
        "sessionId": SID,
        "type": "assistant",
        "uuid": f"x{n}",
        "timestamp": "2026-01-01T00:00:01.000Z",
        **fields,
    }


LONG = "word " * 200
EMOJI = "\U0001f600" * 150
TEXTS = ["", "  ", "hi", LONG, EMOJI, 'a"b\\c\n\u00e9' * 40, "\u3000" * 120 + "y", "x" * 199]
USAGE = {"input_tokens": 3, "output_tokens": 5, "cache_read_input_tokens": 7, "cache_creation_input_tokens": 1}


def _assistant(content: Any, **msg: Any) -> dict[str, Any]:
    return {"message": {"role": "assistant", "id": "m1", "content": content, **msg}, "requestId": "r1"}


#: the usual lines: an answer, a tool call and its result, a prompt, a hook line, a stop hook
USUAL: list[dict[str, Any]] = [
    _assistant([{"type": "text", "text": LONG}], stop_reason="end_turn", usage=USAGE),
    _assistant([{"type": "tool_use", "id": "c1", "name": "Bash", "input": {"command": "ls"}}], usage=USAGE),
    {
        "type": "user",
        "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "out"}]},
        "toolUseResult": {"stdout": "out", "stderr": "", "interrupted": False},
    },
    {"type": "user", "message": {"role": "user", "content": "a prompt"}},
    {"type": "attachment", "attachment": {"type": "hook_success", "content": "ok"}},
    {"type": "system", "subtype": "stop_hook_summary", "hookCount": 1},
]
SHAPES: list[dict[str, Any]] = [
    *USUAL,
    *[_assistant(t, stop_reason="end_turn", usage=USAGE) for t in TEXTS],
    *[_assistant([{"type": "text", "text": t}], stop_reason="tool_use") for t in TEXTS],
    _assistant([{"type": "thinking", "thinking": LONG, "signature": "s"}], usage={**USAGE, "x": [1, {"y": 2}]}),
    _assistant([{"type": "text", "text": "a"}, {"type": "text"}, {"type": "text", "text": None}, {"type": "image"}]),
    _assistant(
        [
            {"type": "text", "text": "run"},
            {"type": "tool_use", "id": "c1", "name": "Bash", "input": {"command": "ls", "n": 12345678901234567890}},
            {"type": "tool_use", "id": "c2", "name": "Read", "input": {"file_path": "/a", "offset": 1.5}},
            {"type": "server_tool_use", "id": "c3", "name": "WebSearch", "input": {"query": "q"}},
            {"type": "tool_use", "id": None, "name": None},
            {"type": "tool_use", "id": "c4", "name": "Nope", "input": [1, {"a": LONG * 3}]},
            {"type": "tool_use", "id": "c5", "name": "Task", "input": {"prompt": "p", "subagent_type": "x"}},
            {"type": "tool_use", "id": "c6", "name": "Agent", "input": "not an object"},
        ],
        stop_reason="tool_use",
        usage=USAGE,
    ),
    _assistant([], stop_reason="refusal"),
    _assistant(None, stop_reason="weird"),
    _assistant("x", stop_reason=None, usage=None),
    _assistant("x", usage=[1]),
    {"message": None},
    {"message": {"content": "no role"}},
    *[{"type": "user", "message": {"role": "user", "content": t}} for t in TEXTS],
    {"type": "user", "message": {"role": "user", "content": "<command-name>/doctor</command-name> go"}},
    {"type": "user", "message": {"role": "user", "content": "  !ls"}},
    {"type": "user", "message": {"role": "user", "content": "hi"}, "isMeta": True},
    {"type": "user", "message": {"role": "user", "content": "hi"}, "isMeta": False},
    {"type": "user", "message": {"role": "user", "content": "s"}, "isCompactSummary": True},
    {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "list prompt"}]}},
    {"type": "user", "message": {"role": "user", "content": []}},
    {"type": "user", "message": {"role": "user"}},
    *[
        {
            "type": "user",
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": cid, "content": t}]},
            "toolUseResult": tur,
        }
        for cid, t, tur in [
            ("c1", "out", {"stdout": "out", "stderr": ""}),
            ("c2", LONG, "Error: x"),
            ("c5", EMOJI, {"status": "completed", "agentId": "a1"}),
            ("c6", "", [1, 2]),
            ("zz", "x", None),
            (None, "x", {"agentId": 5}),
            ("c1", [{"type": "text", "text": "in a list"}], True),
        ]
    ],
    {
        "type": "user",
        "message": {
            "content": [
                {"type": "tool_result", "tool_use_id": "c1", "content": "a"},
                {"type": "tool_result", "tool_use_id": "c2", "content": "b"},
            ]
        },
    },
    {"type": "user", "message": {"content": [{"type": "text", "text": "t"}, {"type": "tool_result", "content": "b"}]}},
    {"type": "progress", "data": {"type": "hook_progress", "hookName": "h"}},
    {"type": "progress", "data": {"type": ""}},
    {"type": "progress", "data": "text"},
    {"type": "progress"},
    {"type": "attachment", "attachment": {"type": "hook_success", "content": LONG}},
    {"type": "attachment", "attachment": {"type": 5}},
    {"type": "system", "subtype": "stop_hook_summary", "hookCount": 1},
    {"type": "system", "subtype": "local_command", "content": "<local-command-stdout>hi</local-command-stdout>"},
    {"type": "system", "subtype": "informational", "content": LONG},
    {"type": "system", "subtype": "informational", "content": ["x"]},
    {"type": "system", "subtype": "compact_boundary", "compactMetadata": {"trigger": "manual", "preTokens": 9}},
    {"type": "system"},
    {"type": "summary", "summary": "s", "leafUuid": "u0"},
    {"type": "assistant", "error": "rate_limit", "isApiErrorMessage": True, "message": {"content": "limit"}},
    {"type": "assistant", "error": None, "message": {"content": "ok"}},
    {"type": "queue-operation"},
    {"type": None},
    {"timestamp": 5},
    {"isSidechain": True},
    {"isSidechain": "yes"},
    {"parentUuid": None},
    {"parentUuid": 7},
    {"parentUuid": "missing-parent"},
    {"uuid": ""},
    {"uuid": 3},
    {"uuid": "u0"},
]


@pytest.mark.parametrize("shape", range(len(SHAPES)))
def test_each_shape_scans_the_same(shape: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "s.jsonl"
    calls = _line(
        1, **_assistant([{"type": "tool_use", "id": c, "name": n} for c, n in (("c1", "Bash"), ("c5", "Task"))])
    )
    rows = [_head(), calls, _line(2, **SHAPES[shape])]
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    _both(f, monkeypatch)


def test_the_usual_shapes_are_typed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "s.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in [_head(), *(_line(n, **s) for n, s in enumerate(USUAL))]))
    assert _both(f, monkeypatch) == len(USUAL)


RAW_LINES = [
    b'{"parentUuid":"u0","type":"user","uuid":"x9","message":{"content":"lone \\ud800 half"}}',
    b'{"parentUuid":"u0","type":"user","uuid":"x9","message":{"content":"pair \\ud83d\\ude00"}}',
    b'{"parentUuid":"u0","type":"user","uuid":"x9","message":{"content":"x"},"n":[' + b"[" * 1100 + b"]" * 1100 + b"]}",
    b'{"parentUuid":"u0","type":"user","uuid":"x9","message":{"content":"x"}',
    b"[1, 2]",
    b"   ",
    b'{"parentUuid":"u0","type":"user","uuid":"x9","uuid":"x10","message":{"content":"dup key"}}',
    b'{"parentUuid":"u0","type":"user","uuid":"x9","message":{"content":"x"},"message":{"content":"y"}}',
]


@pytest.mark.parametrize("raw", RAW_LINES)
def test_raw_lines_scan_the_same(raw: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "s.jsonl"
    f.write_bytes(json.dumps(_head()).encode() + b"\n" + raw + b"\n" + raw + b"\n")
    _both(f, monkeypatch)


@pytest.mark.parametrize("seed", range(4))
def test_odd_values_scan_the_same(seed: int, shared_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    odd: list[Any] = [None, 1, "x", [], {}, True, -5, 1.5, [{"type": None}], {"type": "tool_result"}, "\U0001f600"]

    def mutate(v: Any, depth: int = 0) -> None:
        if isinstance(v, (dict, list)) and v:
            k = rng.choice(list(v)) if isinstance(v, dict) else rng.randrange(len(v))
            if rng.random() < 0.5 or depth > 3:
                v[k] = rng.choice(odd)
            else:
                mutate(v[k], depth + 1)

    for src in _fixtures(shared_dir)[:4]:
        rows = []
        for raw in src.read_text(encoding="utf-8").splitlines()[:200]:
            obj = json.loads(raw)
            if rng.random() < 0.4:
                mutate(obj)
            rows.append(json.dumps(obj, ensure_ascii=rng.random() < 0.5))
        f = tmp_path / f"{src.stem[:20]}.jsonl"
        f.write_text("\n".join(rows) + "\n")
        _both(f, monkeypatch)


def test_a_line_only_json_parse_reads_is_an_entry_with_its_detail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The one difference left: a number beyond a double's range or bytes that are not UTF-8 in
    a field the skeleton never reads. orjson refuses such a line; the typed scan reads it, as
    Claude Code's JSON.parse does, and its detail is read the same way."""
    from loomtui.formats.detect import open_any

    f = tmp_path / "s.jsonl"
    odd = [
        b'{"parentUuid":"u0","type":"user","uuid":"x1","message":{"role":"user","content":"big"},"n":1e400}',
        b'{"parentUuid":"x1","type":"assistant","uuid":"x2","message":{"content":[{"type":"thinking",'
        b'"thinking":"\xff\xfe"},{"type":"text","text":"answer"}]}}',
    ]
    f.write_bytes(json.dumps(_head()).encode() + b"\n" + b"\n".join(odd) + b"\n")
    sm = open_any(str(f))
    ids = [e.id for e in sm.index.entries]
    assert ids == ["u0", "x1", "x2"]
    detail = sm.load(sm.index.by_id["x2"])
    assert [b.get("text") for b in detail["message"]["content"] if b.get("type") == "text"] == ["answer"]
    assert sm.load(sm.index.by_id["x1"])["message"]["content"] == [{"type": "text", "text": "big"}]
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    out = tmp_path / "out"
    out.mkdir()
    branched = sm.create_branched_session("x2", dir=str(out))  # the lines as written, checked first
    assert Path(branched).read_bytes().count(b"\n") == 3

    def refuse(raw: Any) -> Any:
        raise typed.Unusual

    monkeypatch.setattr(typed, "decode", refuse)
    assert [e.id for e in open_any(str(f)).index.entries] == ["u0"]  # the general route skips both


def test_a_line_without_a_uuid_is_read_when_asked_for(tmp_path: Path) -> None:
    """The typed scan keeps a line without a uuid as its bytes: the tree reads only the kinds
    it looks for (a summary naming the session, the last prompt), the rest when lines are
    attached to their entries; a line only JSON.parse reads is read so too."""
    from loomtui.formats.detect import open_any

    f = tmp_path / "s.jsonl"
    rows = [
        json.dumps(_head()).encode(),
        b'{"type":"file-history-snapshot","messageId":"u0","snapshot":{"messageId":"u0"}}',
        b'{"type":"summary","summary":"the  title","leafUuid":"u0","n":1e400}',
    ]
    f.write_bytes(b"\n".join(rows) + b"\n")
    sc = _scan(f)
    assert [type(b[0]) for b in sc.book_lines] == [bytes, bytes]
    assert sc.book_types == ["file-history-snapshot", "summary"]
    assert sc.book(1)["summary"] == "the  title" and type(sc.book_lines[0][0]) is bytes
    assert [b[0]["type"] for b in sc.books] == ["file-history-snapshot", "summary"]
    sm = open_any(str(f))
    assert sm.index.session_name == "the title"
    attached = sm.agent.attached["u0"]
    assert [a["type"] for a in attached] == ["file-history-snapshot", "summary"]
