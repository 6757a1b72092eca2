#!/usr/bin/env python3
"""Opening a 50k-line Claude Code session against opening a pi session of the same size.

    uv run python benchmarks/bench_claude_open.py [--lines 50000] [--runs 7]

The Claude file comes from ``benchmarks/gen_claude_session.py``, the pi file from
``../shared/bench/gen_session.py`` with as many entries as the Claude file has lines; the Claude
file's tool outputs are sized so that both files have about the same bytes (``--tool-output``).
Both are kept in ``benchmarks/data/`` (gitignored). Each measurement is a fresh Python process; runs
alternate between the two files and the medians are compared. Two figures:

* read: ``open_any(FILE)`` inside the process (read, parse, index: what the browser waits for
  before it can draw), bytecode compiled beforehand;
* tree: the whole ``loomtui tree FILE`` process (start-up, open, flatten, every row printed).

Goal: the Claude session opens within 1.2x the time of the pi session.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import compile_bytecode  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DATA = ROOT / "benchmarks" / "data"

MEASURE = r"""
import json, resource, sys, time
from loomtui.formats.detect import open_any
t = time.perf_counter()
sm = open_any(sys.argv[1])
dt = time.perf_counter() - t
print(json.dumps({"entries": len(sm.index.entries), "open_s": dt,
                  "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def files(lines: int) -> tuple[Path, Path]:
    DATA.mkdir(parents=True, exist_ok=True)
    claude = DATA / f"claude{lines // 1000}k-same-size.jsonl"
    pi = DATA / f"pi{lines // 1000}k.jsonl"
    if not claude.exists():
        subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gen_claude_session.py"), str(claude),
                        "--lines", str(lines), "--tool-output", "580"], check=True)
    if not pi.exists():
        subprocess.run([sys.executable, str(SHARED / "bench" / "gen_session.py"), str(pi), "--entries",
                        str(lines - 1)], check=True)
    return claude, pi


def read_once(path: Path) -> dict[str, float]:
    env = {**os.environ, "LOOMTUI_JOBS": "1", "LOOMTUI_NO_CACHE": "1"}
    out = subprocess.run([sys.executable, "-c", MEASURE, str(path)], capture_output=True, text=True, check=True,
                         env=env, cwd=ROOT)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def tree_once(path: Path) -> float:
    env = {**os.environ, "LOOMTUI_JOBS": "1", "LOOMTUI_NO_CACHE": "1"}
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "loomtui", "tree", str(path), "--width", "160", "--color", "never"],
                   stdout=subprocess.DEVNULL, check=True, env=env, cwd=ROOT)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, default=50000)
    ap.add_argument("--runs", type=int, default=7)
    a = ap.parse_args()
    compile_bytecode()
    claude, pi = files(a.lines)
    for p in (claude, pi):
        n = sum(1 for _ in p.open("rb"))
        print(f"{p.name}: {n:,} lines, {p.stat().st_size / 1e6:.1f} MB")
    reads: dict[str, list[float]] = {"claude": [], "pi": []}
    trees: dict[str, list[float]] = {"claude": [], "pi": []}
    rss: dict[str, float] = {}
    entries: dict[str, int] = {}
    for _ in range(a.runs):
        for name, path in (("pi", pi), ("claude", claude)):
            r = read_once(path)
            reads[name].append(r["open_s"])
            rss[name] = max(rss.get(name, 0.0), r["maxrss_mb"])
            entries[name] = int(r["entries"])
    for _ in range(max(3, a.runs // 2)):
        for name, path in (("pi", pi), ("claude", claude)):
            trees[name].append(tree_once(path))
    print(f"{'':<8}{'read median':>12}{'min':>8}{'max':>8}{'peak RSS':>10}{'tree median':>13}{'entries':>9}")
    for name in ("pi", "claude"):
        r, t = reads[name], trees[name]
        print(f"{name:<8}{statistics.median(r):>11.3f}s{min(r):>7.3f}s{max(r):>7.3f}s{rss[name]:>8.0f}MB"
              f"{statistics.median(t):>12.3f}s{entries[name]:>9,}")
    ratio_read = statistics.median(reads["claude"]) / statistics.median(reads["pi"])
    ratio_tree = statistics.median(trees["claude"]) / statistics.median(trees["pi"])
    pairs = sorted(c / p for c, p in zip(reads["claude"], reads["pi"]))
    print(f"claude / pi: read {ratio_read:.2f}x (pairwise {pairs[0]:.2f}-{pairs[-1]:.2f}x, "
          f"median {statistics.median(pairs):.2f}x), whole `loomtui tree` {ratio_tree:.2f}x; goal <= 1.2x")


if __name__ == "__main__":
    main()
