"""Claude Code's and Codex's tool calls shown as pi shows its own tools (formats/agent/tools.py):
tree rows in pi's forms, no fixed cut, edits as diffs in the detail pane."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from loomtui.formats.detect import open_any
from loomtui.view import blocks as B
from loomtui.view.model import TreeModel

HOME = "/home/user"
LONG = "x" * 150

CLAUDE_CALLS: list[tuple[str, dict[str, Any], str]] = [
    (
        "Bash",
        {"command": "git -C /Users/me/src status --short", "description": "status"},
        "[bash: git -C /Users/me/src status --short]",
    ),
    ("Read", {"file_path": f"{HOME}/src/app.py", "offset": 10, "limit": 20}, "[read: ~/src/app.py:10-29]"),
    ("Edit", {"file_path": f"{HOME}/src/app.py", "old_string": "a = 1", "new_string": "a = 2"}, "[edit: ~/src/app.py]"),
    (
        "MultiEdit",
        {
            "file_path": f"{HOME}/x.py",
            "edits": [{"old_string": "x", "new_string": "y"}, {"old_string": "p", "new_string": "q"}],
        },
        "[edit: ~/x.py]",
    ),
    ("Write", {"file_path": f"{HOME}/new.md", "content": "hello"}, "[write: ~/new.md]"),
    ("Grep", {"pattern": "def main", "path": f"{HOME}/src", "output_mode": "content"}, "[grep: /def main/ in ~/src]"),
    ("Glob", {"pattern": "**/*.md"}, "[find: **/*.md in .]"),
    (
        "Task",
        {"description": "Find the config loader", "prompt": "…", "subagent_type": "Explore"},
        "[task: Find the config loader (Explore)]",
    ),
    (
        "TodoWrite",
        {
            "todos": [
                {"content": "a", "status": "completed", "activeForm": "Doing a"},
                {"content": "b", "status": "in_progress", "activeForm": "Doing b"},
            ]
        },
        "[todo: Doing b · 1/2 items done]",
    ),
    ("WebFetch", {"url": "https://example.com/docs", "prompt": "read"}, "[fetch: https://example.com/docs]"),
    ("WebSearch", {"query": "textual pilot"}, "[search: textual pilot]"),
    ("mcp__srv__thing", {"alpha": LONG}, f'[mcp__srv__thing: {{"alpha":"{LONG}"}}]'),
]


def _line(**k: Any) -> str:
    return json.dumps(k)


def claude_file(tmp_path: Path, calls: list[tuple[str, dict[str, Any], str]]) -> Path:
    lines = [
        _line(
            type="user",
            uuid="u0",
            parentUuid=None,
            sessionId="s1",
            cwd=HOME,
            version="2.1.2",
            timestamp="2026-09-30T10:00:00Z",
            message={"role": "user", "content": "go"},
        )
    ]
    parent = "u0"
    for k, (name, args, _row) in enumerate(calls):
        lines.append(
            _line(
                type="assistant",
                uuid=f"a{k}",
                parentUuid=parent,
                sessionId="s1",
                timestamp="2026-09-30T10:00:01Z",
                requestId=f"q{k}",
                message={
                    "id": f"m{k}",
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": f"t{k}", "name": name, "input": args}],
                },
            )
        )
        lines.append(
            _line(
                type="user",
                uuid=f"r{k}",
                parentUuid=f"a{k}",
                sessionId="s1",
                timestamp="2026-09-30T10:00:02Z",
                message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{k}", "content": "ok"}]},
            )
        )
        parent = f"r{k}"
    path = tmp_path / "s1.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def rows(path: Path, width: int = 400) -> list[str]:
    model = TreeModel(open_any(str(path)), home=HOME)
    return [r.strip().removeprefix("› ").removeprefix("• ") for r in model.plain_rows(width)]


def test_claude_tools_rows_are_pis_forms(tmp_path: Path) -> None:
    got = rows(claude_file(tmp_path, CLAUDE_CALLS))
    assert got[1 : 1 + len(CLAUDE_CALLS)] == [row for _n, _a, row in CLAUDE_CALLS]


def test_unknown_tool_row_uses_the_width_not_a_40_character_cut(tmp_path: Path) -> None:
    path = claude_file(tmp_path, CLAUDE_CALLS[-1:])
    wide = list(TreeModel(open_any(str(path)), home=HOME).plain_rows(120))
    assert len(wide[1].rstrip()) > 100  # pi's generic form stops at 40 characters of JSON


def test_malformed_arguments_keep_the_generic_form(tmp_path: Path) -> None:
    path = claude_file(tmp_path, [("Grep", {"file_path": "/a"}, ""), ("Bash", {"cmd": 3}, "")])
    assert rows(path)[1:3] == ['[Grep: {"file_path":"/a"}]', '[Bash: {"cmd":3}]']


def _diff_of(path: Path, entry_id: str) -> list[B.Diff]:
    sm = open_any(str(path))
    out = B.walk(B.entry_blocks(sm, sm.index.by_id[entry_id]))
    return [b for b in out if isinstance(b, B.Diff)]


def test_claude_edit_and_multiedit_show_their_diff(tmp_path: Path) -> None:
    path = claude_file(tmp_path, CLAUDE_CALLS[2:4])
    assert [d.text for d in _diff_of(path, "r0")] == ["- a = 1\n+ a = 2"]
    assert [d.text for d in _diff_of(path, "r1")] == ["- x\n+ y\n- p\n+ q"]


PATCH = "*** Begin Patch\n*** Update File: src/app.py\n@@\n-old\n+new\n*** End Patch"


def codex_file(tmp_path: Path) -> Path:
    def item(n: int, payload: dict[str, Any]) -> str:
        return _line(timestamp=f"2026-09-30T10:00:{n:02d}Z", type="response_item", payload=payload)

    calls = [
        ("function_call", "shell", {"command": ["bash", "-lc", "ls -la src"], "workdir": "/w"}),
        ("function_call", "exec_command", {"cmd": "cargo test --quiet"}),
        ("custom_tool_call", "apply_patch", PATCH),
        (
            "function_call",
            "update_plan",
            {
                "plan": [
                    {"step": "read", "status": "completed"},
                    {"step": "fix it", "status": "in_progress"},
                    {"step": "test", "status": "pending"},
                ]
            },
        ),
    ]
    lines = [
        _line(
            timestamp="2026-09-30T10:00:00Z",
            type="session_meta",
            payload={"id": "c1", "timestamp": "2026-09-30T10:00:00Z", "cwd": "/w", "cli_version": "0.135"},
        ),
        item(1, {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix"}]}),
        _line(
            timestamp="2026-09-30T10:00:01Z",
            type="event_msg",
            payload={"type": "user_message", "message": "fix", "images": []},
        ),
    ]
    for k, (kind, name, args) in enumerate(calls):
        call: dict[str, Any] = {"type": kind, "name": name, "call_id": f"c{k}"}
        if kind == "custom_tool_call":
            call["input"] = args
        else:
            call["arguments"] = json.dumps(args)
        lines.append(item(2 + 2 * k, call))
        out = "custom_tool_call_output" if kind == "custom_tool_call" else "function_call_output"
        lines.append(item(3 + 2 * k, {"type": out, "call_id": f"c{k}", "output": "ok"}))
    path = tmp_path / "rollout-2026-09-30T10-00-00-c1.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_codex_tools_rows_are_pis_forms(tmp_path: Path) -> None:
    got = rows(codex_file(tmp_path))
    assert got[1:] == [
        "[bash: ls -la src]",
        "[bash: cargo test --quiet]",
        "[edit: src/app.py]",
        "[plan: fix it · 1/3 steps done]",
    ]


def test_codex_apply_patch_shows_its_patch_as_a_diff(tmp_path: Path) -> None:
    path = codex_file(tmp_path)
    sm = open_any(str(path))
    result = next(e for e in sm.index.entries if e.role == "toolResult" and e.aux == "c2")
    assert [d.text for d in _diff_of(path, result.id)] == [PATCH]


@pytest.mark.parametrize("name", ["Edit", "MultiEdit"])
def test_detail_title_is_the_rows_form(tmp_path: Path, name: str) -> None:
    call = next(c for c in CLAUDE_CALLS if c[0] == name)
    path = claude_file(tmp_path, [call])
    sm = open_any(str(path))
    calls = [b for b in B.walk(B.entry_blocks(sm, sm.index.by_id["r0"])) if isinstance(b, B.ToolCall)]
    assert calls and calls[0].summary.startswith("[edit: ")
