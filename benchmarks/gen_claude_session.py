#!/usr/bin/env python3
"""Write a synthetic Claude Code session file (JSONL, 2.1.x layout) for benchmarks.

The shape follows the real files in the fixtures: user prompts; assistant responses split over
several lines (thinking, text, one tool_use each) sharing ``message.id``/``requestId`` with
repeated usage; tool results with sizeable output and ``toolUseResult``; parallel tool calls
(each result hanging off its own call); hook ``progress``/``attachment`` lines; ``system``
stop-hook summaries; ``file-history-snapshot`` and ``last-prompt`` lines without a uuid; and
rewinds (a prompt re-sent from an earlier point). Deterministic for a given --seed.

    python3 benchmarks/gen_claude_session.py OUT.jsonl --lines 50000 [--seed 1] [--rewind-every 60]
"""

from __future__ import annotations

import argparse
import json
import random
import uuid
from datetime import UTC, datetime, timedelta

WORDS = (
    "the session tree keeps every branch so you can return to any earlier "
    "point refactor parser test failing because index off by one add "
    "fixture rename module cache invalidation retry network timeout "
    "label checkpoint compaction summary model context window token"
).split()
TOOLS = ["Read", "Bash", "Edit", "Write", "Grep", "Glob"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--lines", type=int, default=50000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rewind-every", type=int, default=60, help="mean prompts between rewinds")
    ap.add_argument("--tool-output", type=int, default=400, help="mean words of tool output")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    clock = [0]

    def ts() -> str:
        clock[0] += rng.randint(200, 5000)
        return (t0 + timedelta(milliseconds=clock[0])).isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def uid() -> str:
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))

    def words(lo: int, hi: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))

    out = open(a.out, "w", encoding="utf-8")
    written = [0]
    common = {
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/user/project",
        "sessionId": sid,
        "version": "2.1.114",
        "gitBranch": "main",
    }

    def emit(obj: dict) -> None:
        out.write(json.dumps(obj, separators=(",", ":")) + "\n")
        written[0] += 1

    def node(parent: str | None, kind: str, **fields: object) -> str:
        u = uid()
        emit({"parentUuid": parent, **common, "type": kind, **fields, "uuid": u, "timestamp": ts()})
        return u

    prompts: list[str] = []  # parents of earlier prompts, for rewinds
    leaf: str | None = None
    while written[0] < a.lines:
        parent = leaf
        if prompts and rng.random() < 1 / a.rewind_every:
            parent = rng.choice(prompts)  # a rewind: the next prompt takes an earlier parent
        prompt_id = uid()
        emit(
            {
                "type": "file-history-snapshot",
                "messageId": prompt_id,
                "snapshot": {"messageId": prompt_id, "trackedFileBackups": {}, "timestamp": ts()},
                "isSnapshotUpdate": False,
            }
        )
        prompts.append(parent) if parent else None
        emit(
            {
                "parentUuid": parent,
                **common,
                "type": "user",
                "promptId": uid(),
                "message": {"role": "user", "content": words(8, 60)},
                "uuid": prompt_id,
                "timestamp": ts(),
            }
        )
        cur = prompt_id
        for _step in range(rng.randint(1, 6)):
            mid = "msg_" + uid().replace("-", "")[:24]
            rid = "req_" + uid().replace("-", "")[:24]
            usage = {
                "input_tokens": rng.randint(1, 50),
                "cache_creation_input_tokens": rng.randint(0, 5000),
                "cache_read_input_tokens": rng.randint(1000, 90000),
                "output_tokens": rng.randint(10, 900),
                "service_tier": "standard",
            }
            msg = {
                "model": "claude-opus-4-7",
                "id": mid,
                "type": "message",
                "role": "assistant",
                "stop_reason": None,
                "usage": usage,
            }
            if rng.random() < 0.5:
                cur = node(
                    cur,
                    "assistant",
                    requestId=rid,
                    message={
                        **msg,
                        "content": [{"type": "thinking", "thinking": words(20, 120), "signature": uid() * 4}],
                    },
                )
            calls = rng.choice([0, 1, 1, 1, 2, 3])
            if calls == 0 or rng.random() < 0.4:
                cur = node(
                    cur,
                    "assistant",
                    requestId=rid,
                    message={
                        **msg,
                        "stop_reason": "end_turn" if calls == 0 else None,
                        "content": [{"type": "text", "text": words(10, 200)}],
                    },
                )
            call_nodes = []
            for _c in range(calls):
                tid = "toolu_" + uid().replace("-", "")[:24]
                name = rng.choice(TOOLS)
                cur = node(
                    cur,
                    "assistant",
                    requestId=rid,
                    message={
                        **msg,
                        "stop_reason": "tool_use",
                        "content": [
                            {
                                "type": "tool_use",
                                "id": tid,
                                "name": name,
                                "input": {
                                    "file_path": "/home/user/project/" + words(1, 3).replace(" ", "/"),
                                    "command": words(2, 10),
                                },
                            }
                        ],
                    },
                )
                call_nodes.append((cur, tid))
            last = cur
            # results: each hangs off its own call (parallel calls fork); the conversation goes on
            # from the last one written, with a hook line after each result
            for k, (call, tid) in enumerate(reversed(call_nodes)):
                res = node(
                    call,
                    "user",
                    message={
                        "role": "user",
                        "content": [
                            {
                                "tool_use_id": tid,
                                "type": "tool_result",
                                "content": words(a.tool_output // 2, a.tool_output * 3 // 2),
                            }
                        ],
                    },
                    toolUseResult={"stdout": "", "stderr": "", "interrupted": False},
                    sourceToolAssistantUUID=call,
                )
                hook = node(
                    res,
                    "attachment",
                    attachment={
                        "type": "hook_success",
                        "hookName": "PostToolUse:" + "x",
                        "toolUseID": tid,
                        "hookEvent": "PostToolUse",
                        "content": "",
                    },
                )
                if k == len(call_nodes) - 1:
                    last = hook
            cur = last
            if written[0] >= a.lines:
                break
        cur = node(
            cur,
            "system",
            subtype="stop_hook_summary",
            hookCount=1,
            hookInfos=[],
            hookErrors=[],
            preventedContinuation=False,
            level="suggestion",
        )
        emit({"type": "last-prompt", "lastPrompt": words(3, 8), "sessionId": sid})
        leaf = cur
    out.close()


if __name__ == "__main__":
    main()
