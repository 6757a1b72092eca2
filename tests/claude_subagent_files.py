"""Small Claude Code sessions with subagent runs, written by the tests: a 2.1.x session whose
``Task`` call ran a subagent kept in ``<session>/subagents/agent-<id>.jsonl``, and a 1.0.x one
whose subagent run is an inline sidechain of the same file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SID = "5e55a0d1-0000-4000-8000-000000000001"
AGENT = "a1b2c3d4e5f6a7b8c"
AT = "2026-09-30T10:00:0{}Z"


def _write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _main_lines(sidechain: bool) -> list[dict[str, Any]]:
    common = {"sessionId": SID, "cwd": "/home/user/proj", "version": "2.1.2"}
    task = {"description": "look around", "prompt": "Look around the repository.", "subagent_type": "Explore"}
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": "t1", "content": "done"}
    lines: list[dict[str, Any]] = [
        {
            **common,
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "timestamp": AT.format(0),
            "message": {"role": "user", "content": "Explore the repository"},
        },
        {
            **common,
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "timestamp": AT.format(1),
            "requestId": "q1",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "Task", "input": task}],
            },
        },
        {
            **common,
            "type": "user",
            "uuid": "r1",
            "parentUuid": "a1",
            "timestamp": AT.format(5),
            "message": {"role": "user", "content": [result]},
            **({} if sidechain else {"toolUseResult": {"agentId": AGENT, "status": "completed"}}),
        },
        {
            **common,
            "type": "assistant",
            "uuid": "a2",
            "parentUuid": "r1",
            "timestamp": AT.format(6),
            "requestId": "q2",
            "message": {"id": "m2", "role": "assistant", "content": [{"type": "text", "text": "Done."}]},
        },
    ]
    if sidechain:
        lines[2:2] = _run_lines(inline=True)
    return lines


def _run_lines(inline: bool = False) -> list[dict[str, Any]]:
    common = {"sessionId": SID, "cwd": "/home/user/proj", "version": "2.1.2", "isSidechain": True}
    if not inline:
        common["agentId"] = AGENT
    return [
        {
            **common,
            "type": "user",
            "uuid": "s1",
            "parentUuid": None,
            "timestamp": AT.format(2),
            "message": {"role": "user", "content": "Look around the repository."},
        },
        {
            **common,
            "type": "assistant",
            "uuid": "s2",
            "parentUuid": "s1",
            "timestamp": AT.format(3),
            "requestId": "q9",
            "message": {"id": "m9", "role": "assistant", "content": [{"type": "text", "text": "It holds a README."}]},
        },
    ]


def session_with_subagent_file(project: Path) -> tuple[Path, Path]:
    """(the session, its subagent run's file) in the 2.1.x layout."""
    main = _write(project / f"{SID}.jsonl", _main_lines(sidechain=False))
    run = _write(project / SID / "subagents" / f"agent-{AGENT}.jsonl", _run_lines())
    return main, run


def session_with_inline_sidechain(project: Path) -> Path:
    """A 1.0.x session: its subagent run's lines are sidechains inline in the file."""
    return _write(project / f"{SID}.jsonl", _main_lines(sidechain=True))
