#!/usr/bin/env python3
"""`loomtui loom-config` on a directory of 2,000 definition files. Goal: < 1 s.

    uv run python benchmarks/bench_loom_config.py [--files 2000] [--runs 5]

The files are generated into a temporary directory, spread over 40 sub-directories: four in
five are definition text files (``name = …`` then ``loom = { … }`` with bare keys, comments and
the odd mistake), one in five an interaction JSON document with versions. Printed: the wall time
of the whole command (a fresh process: start-up, walk, read, rules, table output), for the plain
table, ``--json`` and ``--map``, best and median of several runs, and the in-process read time.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from benchmarks.common import compile_bytecode, run_measured  # noqa: E402

SCOPES = ["Process", "Input", None, "Global"]


def loom_ids(rng: random.Random, n: int) -> list[str]:
    return [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(n)]


def generate(root: str, files: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    pool = loom_ids(rng, 60)
    for i in range(files):
        d = os.path.join(root, f"team-{i % 40:02d}")
        os.makedirs(d, exist_ok=True)
        scope = rng.choice(SCOPES)
        reads = rng.sample(pool, rng.randint(0, 3))
        cfg: dict[str, object] = {"enabled": rng.random() > 0.1, "tapestryTokens": rng.choice([None, 100, 1500, 30000])}
        if scope:
            cfg["scope"] = scope
        if scope == "Input" and rng.random() > 0.2:
            cfg["scopeInput"] = "userName"
        if rng.random() > 0.5:
            cfg["seedFromLoomId"] = rng.choice(pool)
        if reads:
            cfg["readFromLoomIds"] = reads
        if rng.random() > 0.7:
            cfg["vetModel"] = "vet-mini"
        if rng.random() > 0.7:
            cfg["vetRecall"] = True
        if rng.random() > 0.8:
            cfg["nightWeaving"] = True
            cfg["quietMinutes"] = 30
        if i % 5 == 4:
            doc = {"name": f"interaction-{i}", "versions": [{"version": 1, "loom": cfg}, {"version": 2, "loom": cfg}]}
            with open(os.path.join(d, f"interaction-{i}.json"), "w") as f:
                json.dump(doc, f, indent=2)
            continue
        body = []
        for k, v in cfg.items():
            if v is not None:
                body.append(f"  {k} = {json.dumps(v)}")
        text = (
            f'# definition {i}\nname = "agent-{i}"\nmodel = "large"\n\nloom = {{\n' + "\n".join(body) + "\n  # end\n}\n"
        )
        with open(os.path.join(d, f"agent-{i}.loom"), "w") as f:
            f.write(text)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    compile_bytecode()
    with tempfile.TemporaryDirectory(prefix="loomtui-bench-loomcfg-") as root:
        generate(root, args.files)
        print(f"{args.files} files in {root} ({sum(len(fs) for _r, _d, fs in os.walk(root))} on disk)")
        from loomtui.formats.maitento.read import read_paths

        t = time.perf_counter()
        items = read_paths([root])
        read_s = time.perf_counter() - t
        print(f"in process: read + rules for {len(items)} configurations: {read_s * 1000:.0f} ms")
        cmd = [sys.executable, "-m", "loomtui", "loom-config"]
        for extra in ([], ["--json"], ["--map"]):
            walls = []
            for _ in range(args.runs):
                wall, rss, _out = run_measured([*cmd, *extra, root])
                walls.append(wall)
            name = " ".join(["loom-config", *extra, "DIR"])
            verdict = "ok" if min(walls) < 1.0 else "OVER 1 s"
            print(
                f"{name:<28} best {min(walls):.3f} s, median {statistics.median(walls):.3f} s, "
                f"peak {rss:.0f} MB  [{verdict}]"
            )


if __name__ == "__main__":
    main()
