#!/usr/bin/env python3
"""What each speed mechanism behind the opener buys, on its own benchmark, on two CPUs and on one.

    uv run python benchmarks/bench_mechanisms.py [--entries 100000] [--runs 3] [--only NAME,...]

Every mechanism of ``loomtui/formats/opening`` can be left out (``LOOMTUI_WITHOUT``,
``formats/opening/switches.py``; the persistent index with ``LOOMTUI_NO_CACHE``). For each one
this runs the work it is there for with it and without it, interleaved (so both see the same
load), on both CPUs and pinned to one (``taskset -c 0``), and prints the wall time of each (the
median of the runs), the median of the pairs' ratios "without ÷ with" (above 1: it buys time)
and the CPU seconds. The works:

* ``index``: ``tree`` reopened with only the index kept (no memo, no kept tree), against a cold run;
* ``flat-cache``: ``tree`` reopened with the index (no memo), with and without the kept tree;
* ``tree-memo``: the same ``tree`` command again, with and without the memo;
* ``early-proof``: the app's first paint of the tree reopened (the index kept), with and without
  the index's proof hashed while Textual starts (no kept first screen either way: it needs the
  early proof);
* ``kept-screen``: the app's first paint of the tree reopened, with and without the first screen
  kept by the app's earlier open (painted before the session is read);
* ``split (app)``: the app's first paint of the tree, cold;
* ``early-claude``: the app's first paint of a 50k-line Claude Code session;
* ``early-ocp``: the app's first paint of a 10k-node / 50k-attempt OCP run.

docs/performance.md quotes these figures, one row per mechanism.
"""

from __future__ import annotations

import argparse
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

from benchmarks.bench_app_open import app_first_paint, wait_for_index  # noqa: E402
from benchmarks.bench_reopen import measured  # noqa: E402
from benchmarks.common import DATA, ROOT, compile_bytecode, load_average, session_file  # noqa: E402

Run = Callable[[dict[str, str], list[str]], tuple[float, float]]  # (env, taskset prefix) -> (wall s, CPU s)


def tree_run(path: str) -> Run:
    def run(env: dict[str, str], pin: list[str]) -> tuple[float, float]:
        wall, cpu, _rss = measured([*pin, sys.executable, "-m", "loomtui", "tree", path, "--width", "200"], env)
        return wall, cpu

    return run


def app_run(path: str) -> Run:
    def run(env: dict[str, str], pin: list[str]) -> tuple[float, float]:
        paint, _rss, cpu = app_first_paint(path, "160x50", env, pin)
        return paint, cpu

    return run


def wait_for_kept_screen(cache: str) -> None:
    """The first screen the app's open keeps (written by a thread once it is drawn)."""
    deadline = time.time() + 60
    while time.time() < deadline and not any(f.endswith(".lts") for f in os.listdir(cache)):
        time.sleep(0.05)


def claude_file() -> Path:
    path = DATA / "claude50k-same-size.jsonl"  # as benchmarks/bench_claude_open.py makes it
    if not path.exists():
        DATA.mkdir(parents=True, exist_ok=True)
        gen = ROOT / "benchmarks" / "gen_claude_session.py"
        subprocess.run([sys.executable, str(gen), str(path), "--lines", "50000", "--tool-output", "580"], check=True)
    return path


def ocp_file() -> Path:
    path = DATA / "ocp-10000n-50000a.json"  # as benchmarks/bench_ocp.py makes it
    if not path.exists():
        import orjson

        from benchmarks.gen_ocp import make_run

        DATA.mkdir(parents=True, exist_ok=True)
        path.write_bytes(orjson.dumps(make_run(10_000, 50_000)))
    return path


def compare(name: str, work: Run, with_env: dict[str, str], without_env: dict[str, str], runs: int) -> None:
    """``work`` with the mechanism and without, interleaved, on two CPUs and on one."""
    for label, pin in (("2 CPUs", []), ("1 CPU", ["taskset", "-c", "0"])):
        on: list[tuple[float, float]] = []
        off: list[tuple[float, float]] = []
        for _ in range(runs):
            on.append(work(with_env, pin))
            off.append(work(without_env, pin))
        ratios = [b[0] / a[0] for a, b in zip(on, off) if a[0] > 0]
        print(
            f"{name:<13} {label:<7} with {statistics.median(w for w, _ in on):6.2f} s  "
            f"without {statistics.median(w for w, _ in off):6.2f} s  "
            f"without/with {statistics.median(ratios):.2f}x (best {max(ratios):.2f}x)  "
            f"CPU {statistics.median(c for _, c in on):.2f} / {statistics.median(c for _, c in off):.2f} s",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=3, help="runs of each, interleaved")
    ap.add_argument("--only", default="", help="comma-separated rows to run (default: all)")
    a = ap.parse_args()
    only = {x.strip() for x in a.only.split(",") if x.strip()}
    compile_bytecode()
    work = Path(tempfile.mkdtemp(prefix="loomtui-mechanisms-"))
    src = session_file(a.entries)
    path = str(work / src.name)
    shutil.copyfile(src, path)
    cache = str(work / "cache")
    base = {**os.environ, "NO_COLOR": "1", "LOOMTUI_CACHE_DIR": cache, "HOME": str(work)}
    for k in ("LOOMTUI_NO_CACHE", "LOOMTUI_WITHOUT", "LOOMTUI_JOBS"):
        base.pop(k, None)
    cold = {**base, "LOOMTUI_NO_CACHE": "1"}
    print(f"session: {src} ({os.path.getsize(path) / 1e6:.0f} MB, {a.entries} entries); {load_average()}")

    def wanted(row: str) -> bool:
        return not only or row in only

    tree = tree_run(path)
    if only & {"index", "flat-cache", "tree-memo", "early-proof", "kept-screen"} or not only:
        subprocess.run([sys.executable, "-m", "loomtui", "tree", path], stdout=subprocess.DEVNULL, env=base, check=True)
        wait_for_index(cache)
        shutil.rmtree(cache, ignore_errors=True)  # the index, the kept tree and texts, written anew below
        subprocess.run([sys.executable, "-m", "loomtui", "tree", path], stdout=subprocess.DEVNULL, env=base, check=True)
        wait_for_index(cache)
        index_only = {**base, "LOOMTUI_WITHOUT": "tree-memo,flat-cache"}
        if wanted("index"):
            compare("index", tree, index_only, cold, a.runs)
        if wanted("flat-cache"):
            compare("flat-cache", tree, {**base, "LOOMTUI_WITHOUT": "tree-memo"}, index_only, a.runs)
        if wanted("tree-memo"):
            compare("tree-memo", tree, base, {**base, "LOOMTUI_WITHOUT": "tree-memo"}, a.runs)
        if wanted("early-proof"):
            no_kept = {**base, "LOOMTUI_WITHOUT": "kept-screen"}
            compare(
                "early-proof", app_run(path), no_kept, {**base, "LOOMTUI_WITHOUT": "kept-screen,early-proof"}, a.runs
            )
        if wanted("kept-screen"):
            app_run(path)(base, [])  # the app's open keeps its first screen (the size app_run draws at)
            wait_for_kept_screen(cache)
            compare("kept-screen", app_run(path), base, {**base, "LOOMTUI_WITHOUT": "kept-screen"}, a.runs)
    if wanted("split-app"):
        compare("split (app)", app_run(path), cold, {**cold, "LOOMTUI_WITHOUT": "split"}, a.runs)
    if wanted("early-claude"):
        claude = str(claude_file())
        compare("early-claude", app_run(claude), cold, {**cold, "LOOMTUI_WITHOUT": "early-claude"}, a.runs)
    if wanted("early-ocp"):
        run = str(ocp_file())
        compare("early-ocp", app_run(run), cold, {**cold, "LOOMTUI_WITHOUT": "early-ocp"}, a.runs)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
