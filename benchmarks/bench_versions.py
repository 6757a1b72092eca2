#!/usr/bin/env python3
"""Every benchmark's main work, run by this tree and by an older one, interleaved: after ÷ before.

    uv run python benchmarks/bench_versions.py --before DIR [--runs 5] [--only NAME,...]

``DIR`` holds an older checkout's ``loomtui`` and ``benchmarks`` packages, e.g.
``git archive REV loomtui benchmarks | tar -x -C DIR``. Each work below is the figure one of the
scripts in ``benchmarks/`` is about, done the same way by both trees (``python -m loomtui`` with
the tree as the current directory, or the tree's own app-paint child for the browser). The runs
alternate (before, after, before, …) so both see the same load; printed per work: the median
wall time and CPU seconds (user + system, children included: the steadier figure on a shared
machine) of each, and the median of the pairs' ratios after ÷ before for both (below 1: faster
now). A refactoring that keeps speed shows every ratio within about 1.05.

The works (the script each stands for):

* ``tree cold``: ``tree`` of the 100k-entry session, no index (bench_tree, bench_open);
* ``tree reopened``: the same command again, index and memo kept (bench_reopen "warm");
* ``tree index only``: reopened at another width, so only the index serves (bench_reopen);
* ``info``, ``context``, ``diff``, ``export-branch``: the 100k session, index kept
  (bench_compare, bench_compact);
* ``export-html 10k``: the page of the 10k-entry session (bench_html);
* ``claude tree``: ``tree`` of the 50k-line Claude Code session (bench_claude_open);
* ``ocp check`` and ``ocp tree``: the 10k-node / 50k-attempt run (bench_ocp);
* ``socketteer tree``: a 4 MB wide socketteer loom (bench_loom_open, bench_memory);
* ``app cold`` / ``app reopened``: the browser's first paint of the 100k session (bench_app_open);
* ``app claude``, ``app ocp``: the browser's first paint of those files (bench_claude_open --app,
  bench_ocp).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.bench_claude_open import files as claude_files  # noqa: E402
from benchmarks.bench_reopen import measured  # noqa: E402
from benchmarks.common import DATA, ROOT, load_average, session_file  # noqa: E402

#: run with a tree as the current directory: that tree's own app-paint child, whatever the
#: signature of its ``app_first_paint`` (older trees take no CPU pin)
APP_PAINT = r"""
import json, os, sys
sys.path.insert(0, os.getcwd())
from benchmarks.bench_app_open import app_first_paint
try:
    paint, rss, cpu = app_first_paint(sys.argv[1], "160x50", dict(os.environ), [])
except TypeError:
    paint, rss, cpu = app_first_paint(sys.argv[1], "160x50", dict(os.environ))
print(json.dumps([paint, cpu]))
"""

Work = Callable[[Path, dict[str, str]], tuple[float, float]]  # (tree, env) -> (wall s, CPU s)


def cli(*args: str, new_width: bool = False) -> Work:
    """``loomtui ARGS``; ``new_width``: each run at a width no run before used (``--width`` is
    added), so that a memo of the printed rows never serves and only the index does."""
    widths = iter(range(120, 1 << 20))

    def run(tree: Path, env: dict[str, str]) -> tuple[float, float]:
        here = os.getcwd()
        os.chdir(tree)
        extra = ["--width", str(next(widths))] if new_width else []
        try:
            wall, cpu, _rss = measured([sys.executable, "-m", "loomtui", *args, *extra], env)
        finally:
            os.chdir(here)
        return wall, cpu

    return run


def app(path: str) -> Work:
    def run(tree: Path, env: dict[str, str]) -> tuple[float, float]:
        out = subprocess.run(
            [sys.executable, "-c", APP_PAINT, path], cwd=tree, env=env, capture_output=True, text=True, check=False
        )
        if out.returncode != 0:
            raise SystemExit(f"the app run in {tree} failed:\n{out.stderr[-3000:]}")
        paint, cpu = json.loads(out.stdout.strip().splitlines()[-1])
        return paint, cpu

    return run


def data_files(work: str) -> dict[str, str]:
    """The inputs, generated into benchmarks/data by the scripts that own them when missing."""
    big = session_file(100_000)
    small = session_file(10_000)
    claude, _pi_twin = claude_files(50_000)
    ocp = next(DATA.glob("ocp-10000n-50000a*.json"), None)
    if ocp is None:
        ocp = DATA / "ocp-10000n-50000a.json"
        subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gen_ocp.py"), str(ocp)], check=True)
    sock = Path(work) / "loom20k.json"
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gen_socketteer.py"), "wide", str(sock)], check=True)
    return {"big": str(big), "small": str(small), "claude": str(claude), "ocp": str(ocp), "sock": str(sock)}


def works(f: dict[str, str], work: str) -> dict[str, tuple[Work, bool]]:
    """name -> (the work, whether each run starts with an empty cache)."""
    leaf_pick = leaf_of(f["big"])
    return {
        "tree cold": (cli("tree", f["big"], "--width", "200"), True),
        "tree reopened": (cli("tree", f["big"], "--width", "200"), False),
        "tree index only": (cli("tree", f["big"], new_width=True), False),
        "info": (cli("info", f["big"]), False),
        "context": (cli("context", f["big"]), False),
        "diff": (cli("diff", f["big"], leaf_pick[0], leaf_pick[1]), False),
        "export-branch": (
            cli("export-branch", f["big"], "--leaf", leaf_pick[0], "-o", os.path.join(work, "out.jsonl")),
            False,
        ),
        "export-html 10k": (cli("export-html", f["small"], "-o", os.path.join(work, "page.html")), False),
        "claude tree": (cli("tree", f["claude"], "--width", "200"), True),
        "ocp check": (cli("check", f["ocp"]), True),
        "ocp tree": (cli("tree", f["ocp"], "--width", "200"), True),
        "socketteer tree": (cli("tree", f["sock"], "--width", "200"), True),
        "app cold": (app(f["big"]), True),
        "app reopened": (app(f["big"]), False),
        "app claude": (app(f["claude"]), True),
        "app ocp": (app(f["ocp"]), True),
    }


def leaf_of(path: str) -> tuple[str, str]:
    """Two entry ids on different branches of the session (the last entry and an early one)."""
    last = first = ""
    with open(path, "rb") as fh:
        for n, line in enumerate(fh):
            if n == 2000:
                first = json.loads(line)["id"]
            last = line.decode()
    return json.loads(last)["id"], first


def settled(cache: str, quiet: float = 0.5, limit: float = 60.0) -> None:
    """Wait until nothing in ``cache`` has changed for ``quiet`` seconds (the index and the memo
    are written by a child that may outlive the command)."""
    deadline = time.time() + limit
    last, since = None, time.time()
    while time.time() < deadline:
        try:
            now = sorted((e.name, e.stat().st_size) for e in os.scandir(cache))
        except FileNotFoundError:
            now = []
        if now != last:
            last, since = now, time.time()
        elif now and time.time() - since >= quiet:
            return
        time.sleep(0.05)


def ratio(after: list[float], before: list[float]) -> float:
    return statistics.median(a / b for a, b in zip(after, before, strict=True) if b > 0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", type=Path, required=True, metavar="DIR", help="an older tree's loomtui + benchmarks")
    ap.add_argument("--runs", type=int, default=5, help="runs of each, interleaved")
    ap.add_argument("--only", default="", help="comma-separated works to run (default: all)")
    a = ap.parse_args()
    trees = {"before": a.before.resolve(), "after": ROOT}
    for tree in trees.values():
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "loomtui")], check=False)
    work = tempfile.mkdtemp(prefix="loomtui-versions-")
    files = data_files(work)
    chosen = {w.strip() for w in a.only.split(",") if w.strip()}
    print(f"load average {load_average()}; {a.runs} interleaved runs; before = {trees['before']}")
    print(f"{'work':<18}{'before s':>10}{'after s':>10}{'wall a/b':>10}{'CPU b':>8}{'CPU a':>8}{'CPU a/b':>9}")
    try:
        for name, (run, cold) in works(files, work).items():
            if chosen and name not in chosen:
                continue
            caches = {side: os.path.join(work, f"cache-{side}-{name.replace(' ', '_')}") for side in trees}
            walls: dict[str, list[float]] = {side: [] for side in trees}
            cpus: dict[str, list[float]] = {side: [] for side in trees}
            for r in range(a.runs + (0 if cold else 1)):
                for side, tree in trees.items():
                    if cold:
                        shutil.rmtree(caches[side], ignore_errors=True)
                    env = {**os.environ, "NO_COLOR": "1", "LOOMTUI_CACHE_DIR": caches[side]}
                    env.pop("LOOMTUI_NO_CACHE", None)
                    wall, cpu = run(tree, env)
                    if cold or r > 0:
                        walls[side].append(wall)
                        cpus[side].append(cpu)
                    else:  # a warm work's first run only writes the caches, some after it exits
                        settled(caches[side])
            b, af = walls["before"], walls["after"]
            print(
                f"{name:<18}{statistics.median(b):>10.3f}{statistics.median(af):>10.3f}{ratio(af, b):>10.2f}"
                f"{statistics.median(cpus['before']):>8.2f}{statistics.median(cpus['after']):>8.2f}"
                f"{ratio(cpus['after'], cpus['before']):>9.2f}",
                flush=True,
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
