#!/usr/bin/env python3
"""An OCP run of 10k nodes and 50k attempts: first paint in the app, and `loomtui check`.

    uv run python benchmarks/bench_ocp.py [--nodes 10000] [--attempts 50000] [--runs 3]

Prints, measured in the same run (interleaved, best and median of --runs):

* the app's first paint of the run (a fresh process that starts the real ``LoomApp`` headless,
  from its spawn to the tree widget drawing its first row) beside the wall time of
  ``loomtui tree`` on a 50k-entry pi session; goal (issue 15): ratio ≤ 1.5;
* ``loomtui check`` on the run (whole process, and in-process ``check_files``) beside
  loopmath's ``validate_doc`` alone on the parsed document; goal: ratio ≤ 1.2.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import DATA, compile_bytecode, run_measured, session_file  # noqa: E402
from benchmarks.gen_ocp import make_run  # noqa: E402

CHILD = r"""
import sys, time, json, asyncio
T_SPAWN = float(sys.argv[2])
from loomtui.app.app import LoomApp
from loomtui.app.widgets.tree_view import TreeView
from loomtui.app.screens.browser import BrowserScreen
marks = {}
orig = TreeView.render_line
def render_line(self, y):
    if self.model is not None and "tree" not in marks:
        marks["tree"] = time.time()
    return orig(self, y)
TreeView.render_line = render_line
import loomtui.app.screens.browser as browser_module
orig_open = browser_module.open_session
def timed_open(path, split=None):
    t = time.perf_counter()
    try:
        return orig_open(path, split)
    finally:
        marks["open_s"] = time.perf_counter() - t
browser_module.open_session = timed_open

async def main():
    app = LoomApp(sys.argv[1], watch=False)
    async with app.run_test(size=(160, 50)) as pilot:
        while "tree" not in marks:
            await asyncio.sleep(0.005)
        screen = app.screen
        out = {"first_paint_s": marks["tree"] - T_SPAWN, "open_s": marks.get("open_s"),
               "rows": len(screen.model), "entries": len(screen.manager.index.entries)}
    print("RESULT " + json.dumps(out))
asyncio.run(main())
"""


def app_first_paint(path: str) -> dict[str, float]:
    t = time.time()
    out = subprocess.run([sys.executable, "-c", CHILD, path, repr(t)], capture_output=True, text=True,
                         env={**os.environ, "NO_COLOR": "1"})
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])  # type: ignore[no-any-return]
    raise SystemExit(f"app child failed:\n{out.stderr[-3000:]}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=10_000)
    ap.add_argument("--attempts", type=int, default=50_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--skip-check", action="store_true", help="only the first-paint figures")
    a = ap.parse_args()
    DATA.mkdir(parents=True, exist_ok=True)
    run_path = DATA / f"ocp-{a.nodes // 1000}k-{a.attempts // 1000}k.ocp.json"
    if not run_path.exists():
        import orjson

        run_path.write_bytes(orjson.dumps(make_run(a.nodes, a.attempts)))
    pi_path = session_file(50_000)
    print(f"run: {run_path} ({run_path.stat().st_size / 1e6:.0f} MB, {a.nodes} nodes, {a.attempts} attempts)")
    print(f"pi session: {pi_path} ({pi_path.stat().st_size / 1e6:.0f} MB, 50000 entries)")
    compile_bytecode()
    env = {**os.environ, "NO_COLOR": "1"}
    tree_cmd = [sys.executable, "-m", "loomtui", "tree", str(pi_path), "--width", "200"]
    paints, trees, opens = [], [], []
    for _ in range(a.runs):  # interleaved, so both see the same machine load
        trees.append(run_measured(tree_cmd, env)[0])
        r = app_first_paint(str(run_path))
        paints.append(r["first_paint_s"])
        opens.append(r["open_s"])
    print(f"app first paint (OCP run):   {min(paints):.2f} s best, {statistics.median(paints):.2f} s median "
          f"(open in the worker {min(opens):.2f} s)")
    print(f"loomtui tree (50k pi):       {min(trees):.2f} s best, {statistics.median(trees):.2f} s median")
    print(f"ratio (goal <= 1.5):         {min(paints) / min(trees):.2f} best/best, "
          f"{statistics.median(paints) / statistics.median(trees):.2f} median/median")
    if a.skip_check:
        return
    import orjson
    from loopmath.ocp.conformance import validate_doc

    from loomtui.commands.check import check_files

    doc = orjson.loads(run_path.read_bytes())
    refs, ours, procs, ref_procs = [], [], [], []
    check_cmd = [sys.executable, "-m", "loomtui", "check", "-q", str(run_path)]
    ref_cmd = [sys.executable, "-m", "loopmath.ocp.conformance", str(run_path)]
    for i in range(a.runs):  # interleaved, alternating which goes first
        pair = [("ref", lambda: validate_doc(doc)), ("ours", lambda: check_files([str(run_path)]))]
        for name, fn in (pair if i % 2 == 0 else pair[::-1]):
            t = time.perf_counter()
            fn()
            (refs if name == "ref" else ours).append(time.perf_counter() - t)
        procs.append(run_measured(check_cmd, env)[0])
        ref_procs.append(run_measured(ref_cmd, env)[0])
    print(f"loopmath validate_doc alone: {min(refs):.2f} s best, {statistics.median(refs):.2f} s median")
    print(f"check_files (read + check):  {min(ours):.2f} s best, {statistics.median(ours):.2f} s median "
          f"({min(ours) / min(refs):.2f}x best/best, goal <= 1.2)")
    print(f"loomtui check (process):     {min(procs):.2f} s best ({min(procs) / min(refs):.2f}x validate_doc)")
    print(f"loopmath's CLI (process):    {min(ref_procs):.2f} s best (loomtui check / it: "
          f"{min(procs) / min(ref_procs):.2f}x)")

if __name__ == "__main__":
    main()
