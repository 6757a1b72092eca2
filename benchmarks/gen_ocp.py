#!/usr/bin/env python3
"""A generated OCP v0.3 run: ``--nodes`` nodes in groups, dep/fan_in edges forming a DAG, and
``--attempts`` attempts spread over them (retries with ``cause.ref``, some failed, rejected or
in flight), each with cost, model, harness and outcome evidence. Deterministic for a seed.

    uv run python benchmarks/gen_ocp.py OUT.ocp.json [--nodes 10000] [--attempts 50000]
"""

from __future__ import annotations

import argparse
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

KINDS = ("impl", "review", "test", "gate", "docs", "plan")
MODELS = ("model-a", "model-b", "model-c", "model-d")
HARNESSES = ("claude-code", "codex", "pi")


def make_run(nodes: int, attempts: int, seed: int = 7, groups: int = 20) -> dict[str, Any]:
    rnd = random.Random(seed)
    t0 = datetime(2026, 9, 1, tzinfo=UTC)

    def ts(minutes: float) -> str:
        return (t0 + timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")

    gs = [{"id": f"g{i}", "title": f"lane {i}"} for i in range(groups)]
    ns, es = [], []
    for i in range(nodes):
        kind = KINDS[i % len(KINDS)]
        n: dict[str, Any] = {"id": f"N{i}", "kind": kind, "title": f"{kind} step {i}", "group": f"g{i % groups}"}
        ns.append(n)
        if i:
            for p in {rnd.randrange(max(0, i - 50), i) for _ in range(1 + (i % 3 == 0))}:
                es.append(
                    {"from": f"N{p}", "to": f"N{i}", "kind": "fan_in" if kind == "gate" else "dep", "tier": "verified"}
                )
    per = [1] * nodes
    for _ in range(attempts - nodes):
        per[rnd.randrange(nodes)] += 1
    atts = []
    clock = 0.0
    for i, k in enumerate(per):
        prev = None
        for j in range(k):
            aid = f"N{i}.a{j + 1}"
            last = j == k - 1
            status = rnd.choice(("done", "done", "done", "working")) if last else rnd.choice(("failed", "rejected"))
            start, clock = clock, clock + rnd.uniform(1, 30)
            a: dict[str, Any] = {
                "id": aid,
                "node": f"N{i}",
                "n": j + 1,
                "status": status,
                "harness": HARNESSES[(i + j) % 3],
                "model": {"raw": MODELS[(i * 7 + j) % 4], "id": MODELS[(i * 7 + j) % 4]},
                "effort": "high",
                "started_at": ts(start),
                "cause": {"type": "initial"}
                if prev is None
                else {"type": "sent_back", "ref": prev, "reason": f"review found issue {j}"},
                "cost": {
                    "input_tokens": rnd.randrange(1000, 50000),
                    "cached_input_tokens": rnd.randrange(0, 90000),
                    "output_tokens": rnd.randrange(100, 9000),
                    "requests": rnd.randrange(1, 30),
                    "usd": round(rnd.uniform(0.01, 2.0), 4),
                    "basis": "measured",
                },
            }
            if status != "working":
                a["ended_at"] = ts(clock)
                a["outcome"] = {"result": status, "evidence": rnd.choice(("verified", "reported", "heuristic"))}
            atts.append(a)
            prev = aid
    return {
        "ocp": "0.3",
        "producer": {"name": "bench-generator", "version": "1"},
        "privacy": {"profile": "metadata_only"},
        "run": {"id": f"bench-{nodes}-{attempts}", "title": "generated benchmark run", "started_at": ts(0)},
        "groups": gs,
        "nodes": ns,
        "edges": es,
        "attempts": atts,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--nodes", type=int, default=10_000)
    ap.add_argument("--attempts", type=int, default=50_000)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    Path(a.out).write_bytes(orjson.dumps(make_run(a.nodes, a.attempts, a.seed)))


if __name__ == "__main__":
    main()
