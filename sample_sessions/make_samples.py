#!/usr/bin/env python3
"""Write the bundled sample sessions (what `loomtui` shows on a machine without any).

    python3 sample_sessions/make_samples.py [OUT_DIR]

Deterministic: fixed ids, clocks and texts, so running it again reproduces the committed files
byte for byte. Lines are written the way pi writes them (``JSON.stringify``: compact, keys in
insertion order, ``type`` first, non-ASCII kept as UTF-8; pi-session-spec §2 rule 5).

* ``…_5b0c1e2a-….jsonl`` — pi v3: a branched coding session (weather-cli) with a re-edited
  first prompt, read/grep/bash/edit tool calls and results, a `!` bash execution, labels (one
  cleared), a branch summary, a compaction and a session name.
* ``…_7d3e9f10-….jsonl`` — a /fork of the first one (``parentSession`` = its path under
  ``~/.pi/agent/sessions``), made on the "cache responses" prompt: the copied root → branch
  summary path, the re-created label, then new turns.
* ``…_0196f2a4-….jsonl`` — omp: a 256-byte ``type:"title"`` slot line, then the header, then
  omp entry types (session_init, ttsr_injection, mode_change, model_usage, title_change,
  service_tier_change, omp-style model_change) around a plan/edit session.
* ``…_2b9d41c7-….jsonl`` — a v1 legacy pi file: no ids, a linear log, ``branchedFrom`` and old
  header fields, and a compaction that points at the first kept entry by index.
"""

from __future__ import annotations

import json
import os
import sys
from datetime import UTC, datetime, timedelta
from typing import Any

HOME = "/home/dev"


def js(obj: Any) -> str:
    """``JSON.stringify(obj)`` for the values used here."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


class Clock:
    def __init__(self, start: str) -> None:
        self.t = datetime.fromisoformat(start.replace("Z", "+00:00"))

    def tick(self, seconds: float) -> str:
        self.t += timedelta(seconds=seconds)
        return self.iso()

    def iso(self) -> str:
        return self.t.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def ms(self) -> int:
        return int(self.t.timestamp() * 1000)


def usage(inp: int, out: int, cache_read: int = 0, cache_write: int = 0) -> dict[str, Any]:
    """Anthropic-style usage with costs for claude-sonnet-4-5 ($3 / $15 / $0.30 / $3.75 per Mtok)."""
    ci, co, cr, cw = inp * 3e-6, out * 15e-6, cache_read * 0.3e-6, cache_write * 3.75e-6
    return {
        "input": inp,
        "output": out,
        "cacheRead": cache_read,
        "cacheWrite": cache_write,
        "totalTokens": inp + out + cache_read + cache_write,
        "cost": {
            "input": round(ci, 6),
            "output": round(co, 6),
            "cacheRead": round(cr, 6),
            "cacheWrite": round(cw, 6),
            "total": round(ci + co + cr + cw, 6),
        },
    }


class Session:
    """Builds one v3 file: entries are appended under an explicit leaf, as pi's manager does."""

    def __init__(self, header: dict[str, Any], clock: Clock, ids: list[str], *, omp: bool = False) -> None:
        self.header = header
        self.clock = clock
        self.lines: list[str] = []
        self.ids = iter(ids)
        self.leaf: str | None = None
        self.omp = omp
        self.by_id: dict[str, dict[str, Any]] = {}
        self.call_n = 0

    def entry(
        self, etype: str, gap: float = 2.0, parent: Any = "leaf", payload_first: bool = False, **fields: Any
    ) -> str:
        eid = next(self.ids)
        parent_id = self.leaf if parent == "leaf" else parent
        ts = self.clock.tick(gap)
        base = {"id": eid, "parentId": parent_id, "timestamp": ts}
        # custom / custom_message carry their payload before the base keys (spec §2 rule 5)
        obj = {"type": etype, **fields, **base} if payload_first else {"type": etype, **base, **fields}
        self.lines.append(js(obj))
        self.by_id[eid] = obj
        self.leaf = eid
        return eid

    def user(self, text: str | list[dict[str, Any]], gap: float = 20.0, parent: Any = "leaf") -> str:
        ts_gap = gap
        self.clock.tick(0)
        return self.entry(
            "message",
            gap=ts_gap,
            parent=parent,
            message={"role": "user", "content": text, "timestamp": self.clock.ms() + int(ts_gap * 1000)},
        )

    def assistant(
        self,
        blocks: list[dict[str, Any]],
        stop: str = "stop",
        gap: float = 6.0,
        u: tuple[int, int, int, int] = (1200, 240, 9000, 0),
        error: str | None = None,
        model: str = "claude-sonnet-4-5",
    ) -> str:
        msg: dict[str, Any] = {
            "role": "assistant",
            "content": blocks,
            "api": "anthropic-messages",
            "provider": "anthropic",
            "model": model,
            "usage": usage(*u),
            "stopReason": stop,
        }
        if error is not None:
            msg["errorMessage"] = error
        msg["timestamp"] = self.clock.ms() + int(gap * 1000)
        return self.entry("message", gap=gap, message=msg)

    def call(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        self.call_n += 1
        return {
            "type": "toolCall",
            "id": f"toolu_01{self.header['id'][:4]}{self.call_n:04d}Xk9",
            "name": name,
            "arguments": args,
        }

    def result(
        self, call: dict[str, Any], text: str, *, error: bool = False, details: Any = None, gap: float = 1.5
    ) -> str:
        msg: dict[str, Any] = {
            "role": "toolResult",
            "toolCallId": call["id"],
            "toolName": call["name"],
            "content": [{"type": "text", "text": text}],
        }
        if details is not None:
            msg["details"] = details
        msg["isError"] = error
        msg["timestamp"] = self.clock.ms() + int(gap * 1000)
        return self.entry("message", gap=gap, message=msg)

    def tool_turn(
        self,
        think: str | None,
        say: str | None,
        calls: list[tuple[str, dict[str, Any], str]],
        u: tuple[int, int, int, int] = (900, 180, 12000, 0),
    ) -> None:
        """One assistant message with tool calls, then one result per call."""
        blocks: list[dict[str, Any]] = []
        if think:
            blocks.append({"type": "thinking", "thinking": think, "thinkingSignature": "EqMBCkYIBhgCKkA" + "x" * 24})
        if say:
            blocks.append({"type": "text", "text": say})
        made = [self.call(name, args) for name, args, _out in calls]
        blocks += made
        self.assistant(blocks, stop="toolUse", u=u)
        for c, (name, _args, out) in zip(made, calls):
            details = None
            if name == "edit":
                details = {"diff": out}
                out = f"Successfully replaced text in {c['arguments']['path']}."
            self.result(c, out, details=details)

    def text(self, text: str, u: tuple[int, int, int, int] = (1500, 320, 14000, 0)) -> str:
        return self.assistant([{"type": "text", "text": text}], u=u)

    def label(self, target: str, label: str | None, gap: float = 4.0) -> str:
        fields: dict[str, Any] = {"targetId": target}
        if label:
            fields["label"] = label
        return self.entry("label", gap=gap, **fields)

    def write(self, path: str, title_slot: dict[str, Any] | None = None) -> None:
        out = []
        if title_slot is not None:
            out.append(title_line(title_slot))
        out.append(js(self.header))
        out += self.lines
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(out) + "\n")


def title_line(slot: dict[str, Any]) -> str:
    """omp's fixed-width title slot: exactly 256 UTF-8 bytes including the newline."""
    base = js({**slot, "pad": ""})
    pad = 255 - len(base.encode())
    assert pad >= 0, "title too long for the slot"
    line = js({**slot, "pad": " " * pad})
    assert len(line.encode()) == 255
    return line


def file_name(header: dict[str, Any]) -> str:
    return f"{header['timestamp'].replace(':', '-').replace('.', '-')}_{header['id']}.jsonl"


# 1. pi v3: branched coding session -----------------------------------------------------------

FORECAST_PY = '''"""Forecast command: fetch and print the next hours."""
from weather_cli.api import fetch_forecast


def run(city: str, hours: int = 12) -> list[str]:
    data = fetch_forecast(city)
    rows = []
    for hour in data["hourly"][:hours]:
        rows.append(f"{hour['time']}  {hour['temp_c']:>5.1f} °C  {hour['summary']}")
    return rows
'''


def weather_session() -> tuple[Session, str]:
    header = {
        "type": "session",
        "version": 3,
        "id": "5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19",
        "timestamp": "2026-03-02T09:14:05.120Z",
        "cwd": f"{HOME}/weather-cli",
    }
    ids = [
        "a3f1c2d4",
        "b71e09aa",
        "c0d4e5f6",
        "d9e8f7a6",
        "e1f2a3b4",
        "f5a6b7c8",
        "0a1b2c3d",
        "1e2f3a4b",
        "2c3d4e5f",
        "3a4b5c6d",
        "4e5f6a7b",
        "5c6d7e8f",
        "6a7b8c9d",
        "7e8f9a0b",
        "8c9d0e1f",
        "9a0b1c2d",
        "a0b1c2d3",
        "b4c5d6e7",
        "c8d9e0f1",
        "d2e3f4a5",
        "e6f7a8b9",
        "f0a1b2c3",
        "01b2c3d4",
        "15e6f7a8",
        "29a0b1c2",
        "3db4c5d6",
        "41e8f9a0",
        "55c2d3e4",
        "69f6a7b8",
        "7da0b1c2",
        "81e4f5a6",
        "95c8d9e0",
        "a9f2a3b4",
        "bd06c7d8",
        "c1e0f1a2",
        "d54a5b6c",
        "e98e9f0a",
        "fd2c3d4e",
        "0e6f7a8b",
        "12a3b4c5",
        "26d7e8f9",
        "3a1b2c3e",
        "4e5f6a7c",
        "52b3c4d5",
        "66e7f8a9",
        "7a0b1c2e",
        "8e4f5a6c",
        "92c3d4e6",
        "a6f7a8ba",
        "bab1c2d4",
        "ce5f6a7e",
        "d2d3e4f6",
        "e6a7b8ca",
        "fa1b2c3f",
    ]
    s = Session(header, Clock("2026-03-02T09:14:05.120Z"), ids)
    s.entry("model_change", gap=0.004, provider="anthropic", modelId="claude-sonnet-4-5")
    s.entry("thinking_level_change", gap=0.001, thinkingLevel="medium")
    settings = s.leaf

    # a first prompt sent too early, aborted, then re-edited from /tree (sibling user message)
    s.user("forecast crashes, pls fix", gap=25)
    s.assistant([], stop="aborted", gap=2, u=(0, 0, 0, 0), error="Request was aborted")

    first = s.user(
        "`weather forecast Oslo` crashes with a KeyError when the API returns no hourly data "
        "(it happens at night for some stations). Can you find out why and fix it? Keep the "
        "output format unchanged.",
        gap=40,
        parent=settings,
    )
    s.tool_turn(
        "The user reports a KeyError on missing hourly data. Find where `hourly` is read.",
        "Let me find where the hourly data is used.",
        [
            (
                "grep",
                {"pattern": "hourly", "path": "src"},
                'src/weather_cli/forecast.py:8:    for hour in data["hourly"][:hours]:\n'
                'src/weather_cli/api.py:31:    params = {"q": city, "include": "current,hourly"}',
            )
        ],
    )
    s.tool_turn(None, None, [("read", {"path": f"{HOME}/weather-cli/src/weather_cli/forecast.py"}, FORECAST_PY)])
    s.tool_turn(
        "Reproduce first: is there a test with an empty payload?",
        "I'll run the forecast tests to see the current state.",
        [
            (
                "bash",
                {"command": "python -m pytest tests/test_forecast.py -q"},
                "..F\n=================================== FAILURES ===================================\n"
                "_________________________ test_forecast_without_hourly _________________________\n"
                "    def test_forecast_without_hourly(fake_api):\n"
                '        fake_api.respond({"current": {"temp_c": 3.5}})\n'
                ">       assert run(\"Oslo\") == []\nE       KeyError: 'hourly'\n"
                "src/weather_cli/forecast.py:8: KeyError\n1 failed, 2 passed in 0.21s",
            )
        ],
    )
    s.tool_turn(
        "The API omits the key entirely when there is no data; use .get with an empty list.",
        "The API leaves out `hourly` when a station has no data. I'll treat a missing key as no rows.",
        [
            (
                "edit",
                {
                    "path": f"{HOME}/weather-cli/src/weather_cli/forecast.py",
                    "oldText": '    for hour in data["hourly"][:hours]:',
                    "newText": '    for hour in data.get("hourly") or []:\n        if len(rows) == hours:\n            break',
                },
                "--- src/weather_cli/forecast.py\n+++ src/weather_cli/forecast.py\n@@ -7,3 +7,5 @@\n"
                '     rows = []\n-    for hour in data["hourly"][:hours]:\n+    for hour in data.get("hourly") or []:\n'
                "+        if len(rows) == hours:\n+            break\n         rows.append(",
            )
        ],
    )
    s.tool_turn(None, None, [("bash", {"command": "python -m pytest -q"}, "........\n8 passed in 0.34s")])
    fix = s.text(
        "Fixed. `forecast.run` now treats a missing or null `hourly` field as no data and prints "
        "nothing instead of raising `KeyError`. The existing test `test_forecast_without_hourly` "
        "passes, and so does the rest of the suite (8 passed)."
    )
    after_fix = fix

    # a `!` command the user ran themselves
    s.entry(
        "message",
        gap=30,
        message={
            "role": "bashExecution",
            "command": "git diff --stat",
            "output": " src/weather_cli/forecast.py | 4 +++-\n 1 file changed, 3 insertions(+), 1 deletion(-)\n",
            "exitCode": 0,
            "cancelled": False,
            "truncated": False,
            "timestamp": s.clock.ms() + 30000,
        },
    )

    # branch A: a --days option (later abandoned)
    s.user("Now add a --days option to the forecast command so I can ask for up to 3 days.", gap=50)
    s.tool_turn(
        None,
        "Let me look at how the CLI is wired.",
        [
            (
                "read",
                {"path": f"{HOME}/weather-cli/src/weather_cli/cli.py", "offset": 1, "limit": 40},
                "import argparse\n\nfrom weather_cli import forecast\n\n\ndef main(argv=None):\n"
                '    p = argparse.ArgumentParser(prog="weather")\n    sub = p.add_subparsers(dest="cmd")\n'
                '    f = sub.add_parser("forecast")\n    f.add_argument("city")\n'
                '    f.add_argument("--hours", type=int, default=12)\n    args = p.parse_args(argv)\n'
                "    for row in forecast.run(args.city, args.hours):\n        print(row)\n",
            )
        ],
    )
    s.tool_turn(
        None,
        "I'll add `--days` as a shorthand for 24-hour steps, capped at 3.",
        [
            (
                "edit",
                {
                    "path": f"{HOME}/weather-cli/src/weather_cli/cli.py",
                    "oldText": '    f.add_argument("--hours", type=int, default=12)',
                    "newText": '    f.add_argument("--hours", type=int, default=12)\n'
                    '    f.add_argument("--days", type=int, choices=(1, 2, 3))',
                },
                "--- src/weather_cli/cli.py\n+++ src/weather_cli/cli.py\n@@ -10,1 +10,2 @@\n"
                '     f.add_argument("--hours", type=int, default=12)\n+    f.add_argument("--days", type=int, choices=(1, 2, 3))',
            )
        ],
    )
    s.text("Added `--days {1,2,3}`. It's parsed but not used yet: should it override `--hours` or multiply it?")
    s.user("Hmm, the API only returns 48 hours anyway. Let's drop this.", gap=70)
    s.text("Understood — I'll leave `--days` out. Nothing else was changed.")
    s.label(fix, "hourly-fix")  # labelled from /tree before going back to the fix

    # back to the fix with a summary of the abandoned branch (pi's /tree "Summarize")
    s.leaf = after_fix
    s.entry(
        "branch_summary",
        gap=120,
        fromId=after_fix,
        summary="## Goal\nAdd a --days option to `weather forecast`.\n\n## Progress\n- Read cli.py\n"
        "- Added an unused `--days {1,2,3}` argument\n\n## Outcome\nDropped: the API only returns "
        "48 hours of data.",
        details={
            "readFiles": [f"{HOME}/weather-cli/src/weather_cli/cli.py"],
            "modifiedFiles": [f"{HOME}/weather-cli/src/weather_cli/cli.py"],
        },
    )
    s.user("Instead, cache API responses on disk for 10 minutes so repeated calls don't hit the rate limit.", gap=15)
    s.tool_turn(
        "Where is the HTTP call? api.py. A small file cache keyed by the URL, under XDG cache.",
        "Let me read the API module first.",
        [
            (
                "read",
                {"path": f"{HOME}/weather-cli/src/weather_cli/api.py"},
                'import requests\n\nBASE = "https://api.example-weather.test/v2"\n\n\n'
                'def fetch_forecast(city: str) -> dict:\n    params = {"q": city, "include": "current,hourly"}\n'
                '    r = requests.get(f"{BASE}/forecast", params=params, timeout=10)\n'
                "    r.raise_for_status()\n    return r.json()\n",
            )
        ],
    )
    s.tool_turn(
        None,
        "I'll add a small cache module.",
        [
            (
                "write",
                {
                    "path": f"{HOME}/weather-cli/src/weather_cli/cache.py",
                    "content": "import hashlib, json, os, time\n\nTTL = 600\n...",
                },
                f"Successfully wrote 1214 bytes to {HOME}/weather-cli/src/weather_cli/cache.py",
            )
        ],
    )
    s.tool_turn(
        None,
        None,
        [
            (
                "edit",
                {
                    "path": f"{HOME}/weather-cli/src/weather_cli/api.py",
                    "oldText": '    r = requests.get(f"{BASE}/forecast", params=params, timeout=10)\n'
                    "    r.raise_for_status()\n    return r.json()",
                    "newText": '    return cached("forecast", params, lambda: _get("forecast", params))',
                },
                "--- src/weather_cli/api.py\n+++ src/weather_cli/api.py\n@@ -6,5 +6,3 @@\n"
                '-    r = requests.get(f"{BASE}/forecast", params=params, timeout=10)\n-    r.raise_for_status()\n'
                '-    return r.json()\n+    return cached("forecast", params, lambda: _get("forecast", params))',
            )
        ],
    )
    s.tool_turn(None, None, [("bash", {"command": "python -m pytest -q"}, "..........\n10 passed in 0.41s")])
    cache_done = s.text(
        "Responses are now cached in `~/.cache/weather-cli/` for 10 minutes "
        "(`TTL = 600`), keyed by endpoint and parameters. All 10 tests pass."
    )
    s.label(cache_done, "cache-v1")
    s.label(first, "start")
    s.label(first, None)  # cleared again: the label entry has no `label` key

    s.entry(
        "compaction",
        gap=600,
        summary="## Goal\nFix `weather forecast` crashing on missing hourly data; add response caching.\n\n"
        "## Done\n- forecast.run treats a missing `hourly` as no rows (test passes)\n"
        "- cache.py: on-disk cache, 10 min TTL, used by api.fetch_forecast\n\n"
        "## Next\n- tests for cache expiry",
        firstKeptEntryId=cache_done,
        tokensBefore=48213,
        details={
            "readFiles": [
                f"{HOME}/weather-cli/src/weather_cli/forecast.py",
                f"{HOME}/weather-cli/src/weather_cli/api.py",
            ],
            "modifiedFiles": [
                f"{HOME}/weather-cli/src/weather_cli/forecast.py",
                f"{HOME}/weather-cli/src/weather_cli/api.py",
                f"{HOME}/weather-cli/src/weather_cli/cache.py",
            ],
        },
    )
    s.user("Add a test that an expired cache entry is fetched again.", gap=30)
    s.tool_turn(
        None,
        "I'll add a test that moves the clock past the TTL.",
        [
            (
                "write",
                {
                    "path": f"{HOME}/weather-cli/tests/test_cache.py",
                    "content": "def test_expired_entry_is_refetched(tmp_path, monkeypatch):\n    ...",
                },
                f"Successfully wrote 688 bytes to {HOME}/weather-cli/tests/test_cache.py",
            )
        ],
    )
    s.tool_turn(None, None, [("bash", {"command": "python -m pytest tests/test_cache.py -q"}, ".\n1 passed in 0.05s")])
    done = s.text(
        "Added `tests/test_cache.py::test_expired_entry_is_refetched`; it freezes time, "
        "advances it by 601 s and checks that the API is called twice."
    )
    s.entry("session_info", gap=20, name="Fix forecast crash, add response cache")
    s.label(done, "done")
    return s, file_name(header)


# 2. a /fork of the first session ---------------------------------------------------------------


def fork_session(parent: Session, parent_file: str) -> tuple[Session, str]:
    header = {
        "type": "session",
        "version": 3,
        "id": "7d3e9f10-2a6b-4c1d-8e5f-9a0b1c2d3e4f",
        "timestamp": "2026-03-02T11:02:41.907Z",
        "cwd": f"{HOME}/weather-cli",
        "parentSession": f"{HOME}/.pi/agent/sessions/--home-dev-weather-cli--/{parent_file}",
    }
    s = Session(
        header,
        Clock("2026-03-02T11:02:41.907Z"),
        ["5e1c0a7f", "6f2d1b80", "70e3c291", "81f4d3a2", "92a5e4b3", "a3b6f5c4", "b4c7a6d5", "c5d8b7e6"],
    )
    # /fork on "Instead, cache API responses…": the path up to its parent, labels re-created
    keep_until = next(eid for eid, obj in parent.by_id.items() if obj["type"] == "branch_summary")
    path = []
    cur: str | None = keep_until
    while cur is not None:
        path.append(parent.by_id[cur])
        cur = parent.by_id[cur]["parentId"]
    path.reverse()
    for obj in path:
        if obj["type"] != "label":
            s.lines.append(js(obj))
    s.leaf = path[-1]["id"]
    hourly = next(
        eid for eid, obj in parent.by_id.items() if obj["type"] == "label" and obj.get("label") == "hourly-fix"
    )
    s.entry("label", gap=0.002, targetId=parent.by_id[hourly]["targetId"], label="hourly-fix")
    s.clock = Clock("2026-03-02T11:03:30.000Z")
    s.user("Let's try an in-memory LRU cache instead of files — no disk writes.", gap=0)
    s.tool_turn(
        "functools.lru_cache can't expire; write a tiny TTL dict.",
        "I'll add a TTL dictionary in `api.py` rather than a file cache.",
        [
            (
                "edit",
                {
                    "path": f"{HOME}/weather-cli/src/weather_cli/api.py",
                    "oldText": "def fetch_forecast(city: str) -> dict:",
                    "newText": "_CACHE: dict[str, tuple[float, dict]] = {}\n\n\ndef fetch_forecast(city: str) -> dict:",
                },
                "--- src/weather_cli/api.py\n+++ src/weather_cli/api.py\n@@ -5,1 +5,4 @@\n"
                "+_CACHE: dict[str, tuple[float, dict]] = {}\n+\n+\n def fetch_forecast(city: str) -> dict:",
            )
        ],
    )
    s.text(
        "Sketched the in-memory variant. Note it only helps within one process, so repeated "
        "`weather` invocations will still hit the API each time."
    )
    s.entry("session_info", gap=12, name="Forecast cache: in-memory variant")
    return s, file_name(header)


# 3. omp: title slot and omp entry types ------------------------------------------------------------


def omp_session() -> tuple[Session, dict[str, Any], str]:
    header = {
        "type": "session",
        "version": 3,
        "id": "0196f2a4c1d87e3b",
        "timestamp": "2026-03-03T14:30:12.480Z",
        "cwd": f"{HOME}/notes-app",
        "title": "Move notes storage to SQLite",
    }
    ids = [
        "Vq3xK9aB",
        "p_7LmN2c",
        "Zt4-Hw8d",
        "r2YjQ6eE",
        "Ks9Pf1gF",
        "m8Uo_3hG",
        "Dx5Wc7iH",
        "n6Re2TjJ",
        "Gy1Lb4kK",
        "s3Hq-9lL",
        "Ab7Nv0mM",
        "t0Ez5FnN",
        "Jc2Ku8oP",
        "w9Mi1XpQ",
        "Bf6Sd3qR",
        "y4Og7ZrS",
        "Lh8Ta2sT",
        "u1Wk5CtU",
        "Ej3Yr9uV",
        "z5Pn0GvW",
        "Qm7Ab4wX",
        "c2Vs6HxY",
        "Ni9Fe1yZ",
        "h4Kt8Jz0",
    ]
    s = Session(header, Clock("2026-03-03T14:30:12.480Z"), ids, omp=True)
    s.entry("model_change", gap=0.003, model="anthropic/claude-sonnet-4-5")
    s.entry("model_change", gap=0.001, model="anthropic/claude-haiku-4-5", role="smol")
    s.entry("thinking_level_change", gap=0.001, thinkingLevel="high")
    s.entry("service_tier_change", gap=0.001, serviceTier=None)
    s.entry(
        "ttsr_injection",
        gap=0.5,
        injectedRules=[
            "Never write to notes.json directly; go through NoteStore.",
            "Run `bun test` after changing storage code.",
        ],
    )
    first = s.user(
        "The notes app keeps everything in one notes.json that gets rewritten on every "
        "save. Plan a move to SQLite (bun:sqlite), with a migration for existing files.",
        gap=18,
    )
    s.entry("mode_change", gap=0.5, mode="plan")
    s.tool_turn(
        "Survey storage code first.",
        "Let me see how notes are stored today.",
        [
            (
                "grep",
                {"pattern": "notes.json", "path": "src"},
                'src/store.ts:4:const FILE = join(dataDir(), "notes.json");\n'
                "src/store.ts:22:  await Bun.write(FILE, JSON.stringify(notes, null, 2));",
            ),
            (
                "read",
                {"path": f"{HOME}/notes-app/src/store.ts"},
                'import { join } from "node:path";\nimport { dataDir } from "./paths";\n\n'
                'const FILE = join(dataDir(), "notes.json");\n\nexport class NoteStore {\n'
                "  async all(): Promise<Note[]> {\n    const f = Bun.file(FILE);\n"
                "    return (await f.exists()) ? f.json() : [];\n  }\n  // …\n}\n",
            ),
        ],
        u=(2100, 350, 0, 8000),
    )
    s.text(
        "## Plan\n1. `NoteStore` gets a SQLite backend (`notes` table: id, title, body, "
        "updated_at) behind the same interface.\n2. On first start, if `notes.json` exists and "
        "the DB is empty, import it in one transaction and rename the file to "
        "`notes.json.migrated`.\n3. Tests: round-trip, migration, and an empty start.",
        u=(2600, 410, 10100, 0),
    )
    s.entry(
        "model_usage",
        gap=1.2,
        purpose="title",
        role="smol",
        api="anthropic-messages",
        provider="anthropic",
        model="claude-haiku-4-5",
        usage=usage(420, 12),
        stopReason="stop",
    )
    s.entry("title_change", gap=0.1, title="Move notes storage to SQLite", source="auto", trigger="first-message")
    s.user("Looks good, go ahead.", gap=35)
    s.entry("mode_change", gap=0.3, mode="none")
    s.tool_turn(
        None,
        "Implementing the SQLite backend.",
        [
            (
                "write",
                {
                    "path": f"{HOME}/notes-app/src/sqlite-store.ts",
                    "content": 'import { Database } from "bun:sqlite";\n// …',
                },
                f"Wrote 2.1 KB to {HOME}/notes-app/src/sqlite-store.ts",
            ),
            (
                "bash",
                {"command": "bun test"},
                "bun test v1.2.4\n\nsrc/store.test.ts:\n✓ round-trips a note [2.10ms]\n"
                "✓ imports notes.json once [5.83ms]\n✓ starts empty [0.41ms]\n\n 3 pass\n 0 fail\n",
            ),
        ],
        u=(3100, 900, 12000, 0),
    )
    s.text(
        "Done: `SqliteNoteStore` replaces the JSON file, existing `notes.json` files are imported "
        "once and renamed, and all three tests pass."
    )
    s.entry(
        "title_change",
        gap=40,
        title="SQLite storage for notes",
        previousTitle="Move notes storage to SQLite",
        source="user",
    )
    slot = {"type": "title", "v": 1, "title": "SQLite storage for notes", "source": "user", "updatedAt": s.clock.iso()}
    _ = first
    return s, slot, file_name(header)


# 4. v1 legacy pi file --------------------------------------------------------------------------


def v1_session() -> tuple[list[str], str]:
    header = {
        "type": "session",
        "id": "2b9d41c7-6e0a-4f3b-9c8d-1a2b3c4d5e6f",
        "timestamp": "2025-11-18T16:40:03.512Z",
        "cwd": f"{HOME}/dotfiles",
        "provider": "anthropic",
        "modelId": "claude-sonnet-4-5",
        "thinkingLevel": "off",
        "branchedFrom": f"{HOME}/.pi/agent/sessions/--home-dev-dotfiles--/"
        "2025-11-17T10-02-11-004Z_8c1f4e2a-3b5d-4a6c-9e7f-0d1c2b3a4f5e.jsonl",
    }
    c = Clock("2025-11-18T16:40:03.512Z")
    lines = [js(header)]

    def e(obj: dict[str, Any], gap: float) -> None:
        lines.append(js({"type": obj.pop("type"), "timestamp": c.tick(gap), **obj}))

    def msg(role: str, gap: float, **fields: Any) -> None:
        c2 = c.ms() + int(gap * 1000)
        e({"type": "message", "message": {"role": role, **fields, "timestamp": c2}}, gap)

    def asst(content: list[dict[str, Any]], stop: str, gap: float = 5.0) -> None:
        msg(
            "assistant",
            gap,
            content=content,
            api="anthropic-messages",
            provider="anthropic",
            model="claude-sonnet-4-5",
            usage={
                "input": 800,
                "output": 150,
                "cacheRead": 0,
                "cacheWrite": 0,
                "cost": {"input": 0.0024, "output": 0.00225, "cacheRead": 0, "cacheWrite": 0, "total": 0.00465},
            },
            stopReason=stop,
        )

    e({"type": "thinking_level_change", "thinkingLevel": "off"}, 0.01)
    msg("user", 12, content=[{"type": "text", "text": "My zsh prompt takes almost a second to appear. Profile it."}])
    asst(
        [
            {
                "type": "toolCall",
                "id": "toolu_v1a",
                "name": "bash",
                "arguments": {"command": "zsh -i -c 'zmodload zsh/zprof; source ~/.zshrc; zprof' | head -15"},
            }
        ],
        "toolUse",
    )
    msg(
        "toolResult",
        2,
        toolCallId="toolu_v1a",
        toolName="bash",
        content=[
            {
                "type": "text",
                "text": "num  calls                time                       self            name\n"
                " 1)    1         612.40   612.40   71.22%    612.40   71.22%  nvm_auto\n"
                " 2)    2         118.02    59.01   13.72%    118.02   13.72%  compinit",
            }
        ],
        isError=False,
    )
    asst(
        [
            {
                "type": "text",
                "text": "`nvm` initialisation is 71% of the startup time (612 ms). "
                "Loading it lazily on first use of node/npm would fix most of it.",
            }
        ],
        "stop",
    )
    msg("user", 30, content=[{"type": "text", "text": "Do it."}])
    asst(
        [
            {
                "type": "toolCall",
                "id": "toolu_v1b",
                "name": "edit",
                "arguments": {
                    "path": f"{HOME}/dotfiles/zshrc",
                    "oldText": "source $NVM_DIR/nvm.sh",
                    "newText": 'nvm() { unset -f nvm; source $NVM_DIR/nvm.sh; nvm "$@"; }',
                },
            }
        ],
        "toolUse",
    )
    msg(
        "toolResult",
        2,
        toolCallId="toolu_v1b",
        toolName="edit",
        content=[{"type": "text", "text": f"Successfully replaced text in {HOME}/dotfiles/zshrc."}],
        isError=False,
    )
    e({"type": "model_change", "provider": "anthropic", "modelId": "claude-haiku-4-5"}, 20)
    msg("user", 5, content=[{"type": "text", "text": "Measure again."}])
    asst(
        [
            {
                "type": "toolCall",
                "id": "toolu_v1c",
                "name": "bash",
                "arguments": {"command": "for i in 1 2 3; do /usr/bin/time -f %e zsh -i -c exit; done"},
            }
        ],
        "toolUse",
    )
    msg(
        "toolResult",
        2,
        toolCallId="toolu_v1c",
        toolName="bash",
        content=[{"type": "text", "text": "0.21\n0.19\n0.20"}],
        isError=False,
    )
    # compaction: firstKeptEntryIndex counts the header as index 0, so 10 is "Measure again."
    e(
        {
            "type": "compaction",
            "summary": "Profiled zsh startup (nvm 612 ms of 860 ms), made nvm lazy; startup is now ~0.2 s.",
            "firstKeptEntryIndex": 10,
            "tokensBefore": 9120,
        },
        60,
    )
    asst([{"type": "text", "text": "Startup is down to about 0.2 s (from 0.86 s)."}], "stop")
    return lines, file_name(header)


def main(out_dir: str) -> None:
    os.makedirs(out_dir, exist_ok=True)
    weather, weather_file = weather_session()
    weather.write(os.path.join(out_dir, weather_file))
    fork, fork_file = fork_session(weather, weather_file)
    fork.write(os.path.join(out_dir, fork_file))
    omp, slot, omp_file = omp_session()
    omp.write(os.path.join(out_dir, omp_file), title_slot=slot)
    v1_lines, v1_file = v1_session()
    with open(os.path.join(out_dir, v1_file), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(v1_lines) + "\n")
    for name in (weather_file, fork_file, omp_file, v1_file):
        print(os.path.join(out_dir, name))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
