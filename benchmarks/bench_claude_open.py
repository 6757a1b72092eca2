#!/usr/bin/env python3
"""Opening a 50k-line Claude Code session against opening a pi session of the same size.

    uv run python benchmarks/bench_claude_open.py [--lines 50000] [--runs 7]

The Claude file comes from ``benchmarks/gen_claude_session.py``, the pi file from
``../shared/bench/gen_session.py`` with as many entries as the Claude file has lines; the Claude
file's tool outputs are sized so that both files have about the same bytes (``--tool-output``).
Both are kept in ``benchmarks/data/`` (gitignored). Each measurement is a fresh Python process
(persistent index off: first opens); runs alternate between the two files, and each figure is
the median of the per-pair ratios (the best pair beside it). Figures:

* read, one CPU (``LOOMTUI_JOBS=1``): ``open_any(FILE)`` inside the process (read, parse, index:
  what the browser waits for before it can draw), wall time and the process's CPU time (the
  steadier figure on a shared machine), bytecode compiled beforehand;
* read, two CPUs: the open as ``loomtui tree`` does it (a pi file with ``SplitParse``, a Claude
  file with its own tail child, ``formats.claude.split``), wall time;
* tree: the whole ``loomtui tree FILE`` process (start-up, open, flatten, every row printed), two
  CPUs as a user runs it;
* app (``--app``): the browser's first paint, from the spawn of a process that starts as
  ``loomtui FILE`` does (``formats.opening.Opening.before_app``) and drives ``LoomApp`` headless, to the
  first tree row drawn; "app screen": to the whole first screen drawn (the detail pane of the
  leaf too, which the browser builds right after the tree's first paint).

Goal: the Claude session opens within 1.10x the time of the pi session.
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

from benchmarks.common import APP_CHILD_START, compile_bytecode  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DATA = ROOT / "benchmarks" / "data"

MEASURE = r"""
import json, os, resource, sys, time
if os.environ.get("LOOMTUI_JOBS") == "1":
    from loomtui.formats.detect import open_any as open_file
else:
    from loomtui.formats.opening import open_session
    from loomtui.session.split import SplitParse
    def open_file(path):  # as `loomtui tree` opens
        return open_session(path, split=SplitParse.start(path, fraction=0.6))
t = time.perf_counter()
c = time.process_time()
sm = open_file(sys.argv[1])
dt = time.perf_counter() - t
print(json.dumps({"entries": len(sm.index.entries), "open_s": dt, "cpu_s": time.process_time() - c,
                  "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


APP = (
    APP_CHILD_START
    + r"""
async def main():
    app = LoomApp(sys.argv[1], watch=False, opening=opening)
    async with app.run_test(size=(160, 50)):
        while "tree" not in marks or "detail" not in marks:
            await asyncio.sleep(0.005)
    print(json.dumps({"first_paint_s": marks["tree"] - T_SPAWN, "screen_s": max(marks["tree"], marks["detail"]) - T_SPAWN}))
asyncio.run(main())
"""
)


def files(lines: int) -> tuple[Path, Path]:
    DATA.mkdir(parents=True, exist_ok=True)
    claude = DATA / f"claude{lines // 1000}k-same-size.jsonl"
    pi = DATA / f"pi{lines // 1000}k.jsonl"
    if not claude.exists():
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "benchmarks" / "gen_claude_session.py"),
                str(claude),
                "--lines",
                str(lines),
                "--tool-output",
                "580",
            ],
            check=True,
        )
    if not pi.exists():
        subprocess.run(
            [sys.executable, str(SHARED / "bench" / "gen_session.py"), str(pi), "--entries", str(lines - 1)], check=True
        )
    return claude, pi


def read_once(path: Path, jobs: int) -> dict[str, float]:
    env = {**os.environ, "LOOMTUI_JOBS": str(jobs), "LOOMTUI_NO_CACHE": "1"}
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, str(path)], capture_output=True, text=True, check=True, env=env, cwd=ROOT
    )
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def tree_once(path: Path) -> float:
    env = {**os.environ, "LOOMTUI_JOBS": "2", "LOOMTUI_NO_CACHE": "1"}
    t = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "loomtui", "tree", str(path), "--width", "160", "--color", "never"],
        stdout=subprocess.DEVNULL,
        check=True,
        env=env,
        cwd=ROOT,
    )
    return time.perf_counter() - t


def app_once(path: Path) -> tuple[float, float]:
    """(the tree's first rows drawn, the whole first screen drawn: the tree and the detail pane,
    which the browser builds right after the tree's first paint), seconds from the spawn."""
    env = {**os.environ, "LOOMTUI_NO_CACHE": "1"}
    out = subprocess.run(
        [sys.executable, "-c", APP, str(path), repr(time.time())],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=ROOT,
        timeout=600,
    )
    got = json.loads(out.stdout.strip().splitlines()[-1])
    return float(got["first_paint_s"]), float(got["screen_s"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, default=50000)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--app", action="store_true", help="also the browser's first paint")
    a = ap.parse_args()
    compile_bytecode()
    claude, pi = files(a.lines)
    for p in (claude, pi):
        n = sum(1 for _ in p.open("rb"))
        print(f"{p.name}: {n:,} lines, {p.stat().st_size / 1e6:.1f} MB")
    figures: dict[str, dict[str, list[float]]] = {
        k: {"claude": [], "pi": []}
        for k in ("read 1 CPU", "cpu 1 CPU", "read 2 CPUs", "tree") + (("app", "app screen") if a.app else ())
    }
    rss: dict[str, float] = {}
    entries: dict[str, int] = {}
    for _ in range(a.runs):
        for name, path in (("pi", pi), ("claude", claude)):
            r = read_once(path, 1)
            figures["read 1 CPU"][name].append(r["open_s"])
            figures["cpu 1 CPU"][name].append(r["cpu_s"])
            rss[name] = max(rss.get(name, 0.0), r["maxrss_mb"])
            entries[name] = int(r["entries"])
            figures["read 2 CPUs"][name].append(read_once(path, 2)["open_s"])
            figures["tree"][name].append(tree_once(path))
            if a.app:
                paint, screen = app_once(path)
                figures["app"][name].append(paint)
                figures["app screen"][name].append(screen)
    print(f"{'':<8}{'entries':>9}{'peak RSS':>10}" + "".join(f"{k:>14}" for k in figures))
    for name in ("pi", "claude"):
        print(
            f"{name:<8}{entries[name]:>9,}{rss[name]:>8.0f}MB"
            + "".join(f"{statistics.median(v[name]):>13.3f}s" for v in figures.values())
        )
    for k, v in figures.items():
        pairs = sorted(c / p for c, p in zip(v["claude"], v["pi"]))
        print(
            f"claude / pi, {k:<12} median of pairs {statistics.median(pairs):.2f}x, best pair {pairs[0]:.2f}x "
            f"(all {pairs[0]:.2f}-{pairs[-1]:.2f}x); goal <= 1.10x"
        )


if __name__ == "__main__":
    main()
