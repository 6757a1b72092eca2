#!/usr/bin/env python3
"""Listing 2,000 sessions: cold (no loomtui cache) and warm (cache hit). Goal: ≤ 1 s each.

    uv run python benchmarks/bench_picker.py [--sessions 2000] [--regen]

Sessions are generated once into ``benchmarks/data/picker-<N>/`` (gitignored): 60 project
buckets, 4–400 entries each (median ≈ 40), tool calls with sizeable results, branches, labels,
``session_info`` names, forks with ``parentSession``, omp title slots and a few v1 files. The
cache goes to a temporary ``XDG_CACHE_HOME`` so the first listing really is cold (the OS page
cache is warm after generation, as it is for recently used sessions).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

WORDS = (
    "parser cache index branch label fork retry timeout refactor flaky test fixture config "
    "schema migrate sqlite tokens context window render widget picker session tree"
).split()


def js(o: object) -> str:
    return json.dumps(o, separators=(",", ":"), ensure_ascii=False)


def iso(t: datetime) -> str:
    return t.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def words(rng: random.Random, lo: int, hi: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))


def make_session(
    rng: random.Random, out_dir: str, n: int, forks_from: list[tuple[str, str, str]]
) -> tuple[str, str, str]:
    project = f"/home/dev/proj{rng.randint(0, 59):02d}"
    bucket = os.path.join(out_dir, "--" + project.strip("/").replace("/", "-") + "--")
    os.makedirs(bucket, exist_ok=True)
    t = datetime(2025, 6, 1, tzinfo=UTC) + timedelta(minutes=n * 97 + rng.randint(0, 90))
    sid = str(uuid.UUID(int=rng.getrandbits(128)))
    header: dict[str, object] = {"type": "session", "version": 3, "id": sid, "timestamp": iso(t), "cwd": project}
    kind = rng.random()
    if forks_from and rng.random() < 0.08:
        parent = rng.choice(forks_from)
        header["cwd"] = project = parent[2]
        bucket = os.path.dirname(parent[0])
        header["parentSession"] = parent[0]
    lines = []
    if kind < 0.1:  # omp title slot
        slot = js(
            {"type": "title", "v": 1, "title": words(rng, 2, 5), "source": "auto", "updatedAt": iso(t), "pad": ""}
        )
        lines.append(slot[:-2] + " " * (255 - len(slot.encode())) + '"}')
    if kind > 0.97:  # v1
        del header["version"]
    lines.append(js(header))
    entries = max(4, int(rng.lognormvariate(3.7, 0.9)))
    entries = min(entries, 400)
    ids: list[str] = []
    leaf = None
    for i in range(entries):
        t += timedelta(seconds=rng.randint(2, 90))
        eid = f"{rng.getrandbits(32):08x}"
        if ids and rng.random() < 0.03:
            leaf = rng.choice(ids)  # branch
        r = rng.random()
        base = {"id": eid, "parentId": leaf, "timestamp": iso(t)}
        if kind > 0.97:
            base = {"timestamp": iso(t)}
        if i % 3 == 0:
            e = {"type": "message", **base, "message": {"role": "user", "content": words(rng, 4, 40)}}
        elif r < 0.04:
            e = {"type": "session_info", **base, "name": words(rng, 2, 4)}
        elif r < 0.08 and ids:
            e = {"type": "label", **base, "targetId": rng.choice(ids), "label": rng.choice(WORDS)}
        elif r < 0.1:
            e = {"type": "custom", "customType": "ext-state", "data": {"n": i}, **base}
        elif i % 3 == 1:
            e = {
                "type": "message",
                **base,
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": words(rng, 5, 60)},
                        {
                            "type": "toolCall",
                            "id": f"toolu_{eid}",
                            "name": "bash",
                            "arguments": {"command": words(rng, 2, 6)},
                        },
                    ],
                    "api": "anthropic-messages",
                    "provider": "anthropic",
                    "model": "claude-sonnet-4-5",
                    "usage": {"input": 900, "output": 200},
                    "stopReason": "toolUse",
                },
            }
        else:
            e = {
                "type": "message",
                **base,
                "message": {
                    "role": "toolResult",
                    "toolCallId": f"toolu_{leaf}",
                    "toolName": "bash",
                    "content": [{"type": "text", "text": words(rng, 40, 400)}],
                    "isError": False,
                },
            }
        lines.append(js(e))
        ids.append(eid)
        leaf = eid
    path = os.path.join(
        bucket,
        f"{iso(datetime.fromisoformat(str(header['timestamp']).replace('Z', '+00:00'))).replace(':', '-').replace('.', '-')}_{sid}.jsonl",
    )
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path, sid, project


def generate(out_dir: str, count: int) -> None:
    rng = random.Random(2000)
    made: list[tuple[str, str, str]] = []
    for n in range(count):
        made.append(make_session(rng, out_dir, n, made))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", type=int, default=2000)
    ap.add_argument("--regen", action="store_true")
    a = ap.parse_args()
    data = os.path.join(HERE, "data", f"picker-{a.sessions}")
    if a.regen and os.path.isdir(data):
        shutil.rmtree(data)
    if not os.path.isdir(data):
        t = time.perf_counter()
        generate(data, a.sessions)
        print(f"generated {a.sessions} sessions in {time.perf_counter() - t:.1f} s")
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(data) for f in fs)
    print(f"data: {data} ({total / 1e6:.1f} MB)")

    from loomtui.session.catalog import SummaryCache, list_sessions
    from loomtui.session.lineage import group_sessions

    with tempfile.TemporaryDirectory() as cache_dir:
        cache_file = os.path.join(cache_dir, "sessions.json")
        results = []
        for label in ("cold", "warm", "warm"):
            t0, c0 = time.perf_counter(), time.process_time()
            sessions = list_sessions([data], cache=SummaryCache(cache_file))
            groups = group_sessions(sessions)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            results.append((label, wall))
            print(
                f"{label:5s} listing: {wall * 1000:7.1f} ms wall, {cpu * 1000:7.1f} ms CPU "
                f"({len(sessions)} sessions, {len(groups)} projects, "
                f"{sum(1 for g in groups for _s, d in g.items if d)} threaded forks)"
            )
        print(f"cache file: {os.path.getsize(cache_file) / 1e6:.2f} MB")
    worst = max(w for _l, w in results)
    print(f"goal ≤ 1 s: {'met' if worst <= 1.0 else 'MISSED'} (worst {worst * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
