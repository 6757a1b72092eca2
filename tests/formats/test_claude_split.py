"""A Claude Code file read on two CPUs (``formats.claude.split``) gives exactly what one pass
gives: entries, rows, diagnostics, the file's own tree, stray marks, tokens, the lines without a
uuid, subagent links. Checked on every fixture and on an adversarial file cut at every line."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from loomtui.formats.claude import read as claude_read
from loomtui.formats.claude import scan as claude_scan
from loomtui.formats.claude import split as claude_split
from loomtui.session.entries import Entry
from loomtui.session.split import FIELDS
from loomtui.view.model import TreeModel

SLOTS = [s for s in Entry.__struct_fields__ if s != "data"]


@pytest.fixture
def merges(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """What each ``merge`` returned (so a test knows the child's scan was used)."""
    seen: list[bool] = []
    real = claude_split.merge

    def merge(head: Any, tail: Any) -> bool:
        seen.append(real(head, tail))
        return seen[-1]

    monkeypatch.setattr(claude_split, "merge", merge)
    return seen


def _snapshot(path: Path) -> tuple[Any, ...]:
    sm = claude_read.read_claude(str(path))
    src = sm.agent
    stats = {k: v() if callable(v) else v for k, v in src.stats.items()}
    rows = []
    for mode in ("default", "all"):
        model = TreeModel(sm, filter_mode=mode)
        rows.append(list(model.plain_rows(120)))
    return (
        [tuple(getattr(e, f) for f in SLOTS) for e in sm.index.entries],
        [(d.line, d.reason) for d in sm.index.diagnostics],
        sm.index.leaf_id,
        sm.index.session_name,
        stats,
        dict(src.stray),
        src.usage,
        src.extra.get("usage"),
        src.attached,
        src.file_labels,
        src.shown_parent,
        src.extra.get("linesWithoutId"),
        rows,
    )


def _split_at(path: Path, offset: int) -> None:
    """Start the child so that it reads from byte ``offset`` (the start of a line)."""
    size = path.stat().st_size
    claude_split.prestart(str(path), (offset - 1) / size, min_bytes=0)


def _fixtures(shared_dir: Path) -> list[Path]:
    return sorted((shared_dir / "fixtures" / "claude").rglob("*.jsonl"))


def test_every_fixture_reads_the_same_split_anywhere(shared_dir: Path, merges: list[bool]) -> None:
    for path in _fixtures(shared_dir):
        whole = _snapshot(path)
        data = path.read_bytes()
        starts = [i + 1 for i, b in enumerate(data) if b == 10 and i + 1 < len(data)]
        for k in (1, len(starts) // 3, len(starts) // 2, len(starts) - 1):
            merges.clear()
            _split_at(path, starts[k])
            assert _snapshot(path) == whole, (path.name, starts[k])
            assert merges == [True], (path.name, starts[k])


def _line(uuid: str, parent: str | None, kind: str, content: Any, **extra: Any) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "user" if kind == "user" else "assistant", "content": content}
    if kind == "assistant":
        msg.update(
            {
                "id": extra.pop("mid", f"msg_{uuid}"),
                "model": "m",
                "usage": extra.pop("usage", {"input_tokens": 1, "output_tokens": len(uuid)}),
            }
        )
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "type": kind,
        "message": msg,
        "uuid": uuid,
        "timestamp": f"2026-01-01T00:00:{len(uuid):02d}Z",
        **extra,
    }


def _adversarial(tmp_path: Path) -> Path:
    """Everything a tail scan cannot know by itself: a session id only later, a Task call in the
    head whose result and subagent come later, a tool call answered much later, a response
    split over lines (same usage), lines without uuid before any entry of a part, sidechains,
    odd lines, a compaction boundary, a duplicate uuid, a torn last line."""
    task = {"type": "tool_use", "id": "task1", "name": "Task", "input": {"prompt": "look around"}}
    bash = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}
    usage = {"input_tokens": 5, "output_tokens": 7}
    rows: list[Any] = [
        {"type": "summary", "summary": "a title", "leafUuid": "a9"},
        _line("p1", None, "user", "first question"),
        "",
        _line("a1", "p1", "assistant", [task], mid="m-1", usage=usage, requestId="r-1"),
        _line("a1b", "a1", "assistant", [bash], mid="m-1", usage=usage, requestId="r-1"),
        "   ",
        {"type": "file-history-snapshot", "messageId": "a1b", "snapshot": {"trackedFileBackups": {}}},
        _line("s1", None, "user", "look around", isSidechain=True, sessionId="S"),
        _line("s2", "s1", "assistant", [{"type": "text", "text": "looked"}], isSidechain=True),
        "{not json",
        [1, 2],
        _line(
            "r1",
            "a1b",
            "user",
            [{"type": "tool_result", "tool_use_id": "t1", "content": "files"}],
            sessionId="S",
            cwd="/w",
            version="2.0",
        ),
        {"type": "queue-operation", "operation": "enqueue", "content": "later"},
        _line(
            "r0",
            "r1",
            "user",
            [{"type": "tool_result", "tool_use_id": "task1", "content": "done"}],
            toolUseResult={"agentId": "abc"},
        ),
        _line("a2", "r0", "assistant", [{"type": "text", "text": "answer"}]),
        _line("p2", "a2", "user", "second"),
        _line("a3", "p2", "assistant", [{"type": "text", "text": "three"}]),
        _line("p3", "a2", "user", "second, asked again"),
        _line("a4", "p3", "assistant", [bash | {"id": "t2"}]),
        _line("a5", "a4", "assistant", [bash | {"id": "t3"}]),
        _line("r3", "a5", "user", [{"type": "tool_result", "tool_use_id": "t3", "content": "x"}]),
        _line("r2", "a4", "user", [{"type": "tool_result", "tool_use_id": "t2", "content": "y"}]),
        {
            "parentUuid": None,
            "logicalParentUuid": "r2",
            "type": "system",
            "subtype": "compact_boundary",
            "uuid": "c1",
            "compactMetadata": {"trigger": "manual", "preTokens": 9},
            "timestamp": "t",
        },
        _line("a5", "c1", "user", "a duplicate uuid"),
        _line("a9", "c1", "assistant", [{"type": "text", "text": "after compaction"}]),
        {"type": "last-prompt", "lastPrompt": "x", "leafUuid": "a9"},
    ]
    path = tmp_path / "adversarial.jsonl"
    text = "\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows)
    path.write_text(text + '\n{"uuid": "torn", "parentUu')
    return path


def test_an_adversarial_file_reads_the_same_cut_at_every_line(tmp_path: Path, merges: list[bool]) -> None:
    path = _adversarial(tmp_path)
    whole = _snapshot(path)
    entries, diags, leaf, usage = whole[0], whole[1], whole[2], whole[6]
    assert leaf == "a9" and len(entries) == 16
    by_id = {e[0]: dict(zip(SLOTS, e)) for e in entries}
    assert by_id["r0"]["tool_name"] == "Task" and by_id["r1"]["tool_name"] == "Bash"
    assert by_id["agent:s1"]["parent_id"] == "r0"  # the sidechain under its Task call's result
    assert by_id["c1"]["parent_id"] == "r2"  # the compaction under its logical parent
    assert by_id["r3"]["hidden"] == "stray"
    assert usage["a1"]["totalTokens"] == 12 and "a1b" not in usage  # one response, counted once
    assert {reason for _line, reason in diags} >= {
        "not valid JSON: skipped",
        "not a JSON object: skipped",
        "duplicate uuid 'a5': the first line with it wins",
    }
    data = path.read_bytes()
    starts = [i + 1 for i, b in enumerate(data) if b == 10]
    first, again = data.index(b'"uuid": "a5"'), data.index(b'"a duplicate uuid"')
    for at in starts:
        merges.clear()
        _split_at(path, at)
        assert _snapshot(path) == whole, at
        # the head holds a5, the tail its duplicate: the parent read the tail itself
        assert merges == [not first < at < again], at


def test_scan_columns_cross_the_pipe_whole(tmp_path: Path) -> None:
    """Every skeleton field crosses the pipe (``split.FIELDS`` is every slot but ``index`` and
    ``data``), and the results a tail scan could not pair are listed for the merge."""
    assert set(FIELDS) == set(Entry.__struct_fields__) - {"index", "data"}
    path = _adversarial(tmp_path)
    fd = claude_read.open_claude_fd(str(path))
    try:
        tail = claude_scan.Scan()
        tail.foreign = []
        at = path.read_bytes().index(b'{"parentUuid": "r1"')
        claude_scan.scan(fd, at, None, tail)
    finally:
        os.close(fd)
    assert ("task1", 0) in tail.foreign and tail.skels[0].tool_name is None


def test_a_prestarted_child_is_handed_over_once_and_only_for_its_file(tmp_path: Path, merges: list[bool]) -> None:
    path = _adversarial(tmp_path)
    other = tmp_path / "other.jsonl"
    other.write_bytes(path.read_bytes())
    whole = _snapshot(other)
    _split_at(path, path.read_bytes().index(b'{"parentUuid": "r1"'))
    assert _snapshot(other) == whole and merges == []  # another file: no child used
    assert _snapshot(path) == whole and merges == [True]
    assert claude_split.take(str(path)) is None


def test_a_replaced_file_is_read_whole(tmp_path: Path, merges: list[bool]) -> None:
    """The path names another file when the read starts: the child's scan is not used."""
    path = _adversarial(tmp_path)
    _split_at(path, path.read_bytes().index(b'{"parentUuid": "r1"'))
    replacement = tmp_path / "new.jsonl"
    replacement.write_bytes(path.read_bytes().replace(b"first question", b"other question"))
    replacement.replace(path)
    sm = claude_read.read_claude(str(path))
    assert merges == []
    assert sm.index.by_id["p1"].text == "other question"


@pytest.mark.parametrize("subagent", [False, True])
def test_marks_that_go_on_through_the_cut_read_the_same_at_every_line(
    tmp_path: Path, merges: list[bool], subagent: bool
) -> None:
    """What leads to a prompt, as the tail's child marks it, goes on in the head: through a
    parent in the head, through a compaction boundary linked under its logical parent, past a
    sidechain; parallel tool calls (stray) on both sides of every cut. Also as a subagent's
    file (every line a sidechain line: all of them shown)."""
    bash = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}

    def call(uuid: str, parent: str, cid: str) -> dict[str, Any]:
        return _line(uuid, parent, "assistant", [bash | {"id": cid}])

    def result(uuid: str, parent: str, cid: str) -> dict[str, Any]:
        return _line(uuid, parent, "user", [{"type": "tool_result", "tool_use_id": cid, "content": "ok"}])

    rows: list[Any] = [
        _line("p1", None, "user", "first"),
        call("a1", "p1", "c1"),
        call("a2", "a1", "c2"),
        result("r1", "a1", "c1"),
        result("r2", "a2", "c2"),
        _line("s1", None, "user", "side task", isSidechain=True),
        _line("s2", "s1", "user", "side prompt", isSidechain=True),
        _line("p2", "r2", "user", "second"),
        call("a3", "p2", "c3"),
        call("a4", "a3", "c4"),
        result("r3", "a3", "c3"),
        result("r4", "a4", "c4"),
        {
            "parentUuid": None,
            "logicalParentUuid": "r4",
            "type": "system",
            "subtype": "compact_boundary",
            "uuid": "cb",
            "compactMetadata": {"trigger": "auto", "preTokens": 9},
            "timestamp": "t",
        },
        _line("p3", "cb", "user", "after the compaction"),
        call("a5", "p3", "c5"),
        call("a6", "a5", "c6"),
        result("r5", "a5", "c5"),
        result("r6", "a6", "c6"),
        # written last under the other side of a3's fork: a4 goes on only because it leads to p3
        {"parentUuid": "r3", "type": "progress", "data": {"type": "hook_progress"}, "uuid": "h1", "timestamp": "t"},
    ]
    path = tmp_path / "through.jsonl"
    path.write_text("".join(json.dumps(r | ({"isSidechain": True} if subagent else {})) + "\n" for r in rows))
    whole = _snapshot(path)
    by_id = {e[0]: dict(zip(SLOTS, e)) for e in whole[0]}
    assert by_id["cb"]["parent_id"] == "r4" and by_id["a4"]["hidden"] is None  # it leads to p3, through cb
    assert by_id["r1"]["hidden"] == by_id["r3"]["hidden"] == by_id["r5"]["hidden"] == "stray"
    data = path.read_bytes()
    for at in [i + 1 for i, b in enumerate(data) if b == 10 and i + 1 < len(data)]:
        merges.clear()
        _split_at(path, at)
        assert _snapshot(path) == whole, at
        assert merges == [True], at
