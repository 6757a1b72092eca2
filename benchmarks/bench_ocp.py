#!/usr/bin/env python3
"""An OCP run of 10k nodes and 50k attempts: first paint in the app, and `loomtui check`.

    uv run python benchmarks/bench_ocp.py [--nodes 10000] [--attempts 50000] [--runs 3]

Prints, measured in the same run (interleaved; the median of the pairs' ratios and the best pair):

* the app's first paint of the run (a fresh process that starts the real ``LoomApp`` headless,
  from its spawn to the tree widget drawing its first row: the run's first screen of rows,
  which the child that places the run sends before the rest, see docs/ocp.md) beside the
  wall time of
  ``loomtui tree`` on a 50k-entry pi session, without its persistent index ("cold", a first
  open) and with it ("warm"); goal: ratio ≤ 1.5 to the cold tree. CPU seconds too (user +
  system to the first paint / of the whole tree command): on a busy machine they vary less.
  Then when the whole run is installed and drawn (keys act on it from then on) and when the
  run's detail pane is drawn too (the whole first screen);
* ``loomtui check`` on the run (whole process, and in-process ``check_files``) beside
  loopmath's ``validate_doc`` alone on the parsed document; goal: ratio ≤ 1.2.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import APP_CHILD_START, DATA, compile_bytecode, run_measured, session_file  # noqa: E402
from benchmarks.gen_ocp import make_run  # noqa: E402

CHILD = (
    APP_CHILD_START
    + r"""
import loomtui.formats.opening as opening_module
orig_open = opening_module.open_session
def timed_open(path, *args, **kwargs):
    t = time.perf_counter()
    try:
        return orig_open(path, *args, **kwargs)
    finally:
        marks["open_s"] = time.perf_counter() - t
opening_module.open_session = timed_open

_first_line = TreeView.render_line
def _whole_line(self, y):
    line = _first_line(self, y)
    if self.model is not None and getattr(self, "first_rows", None) is None and "whole" not in marks:
        marks["whole"] = time.time()  # the whole run's rows, drawn (not its first screen alone)
    return line
TreeView.render_line = _whole_line

async def main():
    app = LoomApp(sys.argv[1], watch=False, opening=opening)
    async with app.run_test(size=(160, 50)) as pilot:
        while "tree" not in marks or "detail" not in marks or "whole" not in marks:
            if type(app.screen).__name__ == "ErrorScreen":
                raise SystemExit("the app could not open the file (see loomtui's errors.log)")
            await asyncio.sleep(0.005)
        screen = app.screen
        out = {"first_paint_s": marks["tree"] - T_SPAWN, "screen_s": max(marks["tree"], marks["detail"]) - T_SPAWN,
               "whole_s": marks["whole"] - T_SPAWN,
               "open_s": marks.get("open_s"),
               "cpu_s": marks["cpu"], "rows": len(screen.model), "entries": len(screen.manager.index.entries)}
    print("RESULT " + json.dumps(out))
asyncio.run(main())
"""
)


def app_first_paint(path: str, env: dict[str, str], root: str | None = None) -> dict[str, float] | None:
    """``root``: a directory holding another ``loomtui`` package (an older commit) to time
    instead. None when the app did not paint within ``CHILD_TIMEOUT`` (the pair is left out)."""
    t = time.time()
    if root is not None:
        env = {**env, "PYTHONPATH": root}
    try:
        out = subprocess.run(
            [sys.executable, "-c", CHILD, path, repr(t)],
            capture_output=True,
            text=True,
            env=env,
            cwd=root,
            timeout=CHILD_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        print(f"(an app child did not paint within {CHILD_TIMEOUT} s; that round is left out)")
        return None
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])  # type: ignore[no-any-return]
    raise SystemExit(f"app child failed:\n{out.stderr[-3000:]}")


#: seconds an app child may take to paint (a hung child would stop the whole run)
CHILD_TIMEOUT = 180


def tree_run(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, children included) of one `loomtui tree`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def _pairs(name: str, ours: list[float], ref: list[float]) -> str:
    ratios = [o / r for o, r in zip(ours, ref)]
    best = min(range(len(ratios)), key=ratios.__getitem__)
    return (
        f"{name} median of pairs {statistics.median(ratios):.2f}, best pair {ratios[best]:.2f} "
        f"({ours[best]:.2f} s / {ref[best]:.2f} s)"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=10_000)
    ap.add_argument("--attempts", type=int, default=50_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--skip-check", action="store_true", help="only the first-paint figures")
    ap.add_argument(
        "--before",
        metavar="DIR",
        help="also time the first paint with the loomtui package under DIR (e.g. `git archive` of an "
        "older commit), interleaved with the others",
    )
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
    # a cache directory of this run's own: the pi reference reads its persistent index from the
    # second run on ("warm"); "cold" turns the cache off (what a first open costs)
    cache = tempfile.mkdtemp(prefix="loomtui-bench-ocp-")
    env = {**os.environ, "NO_COLOR": "1", "XDG_CACHE_HOME": cache}
    cold_env = {**env, "LOOMTUI_NO_CACHE": "1"}
    tree_cmd = [sys.executable, "-m", "loomtui", "tree", str(pi_path), "--width", "200"]
    subprocess.run(tree_cmd, stdout=subprocess.DEVNULL, env=env, check=True)  # writes the index
    paints, screens, wholes, cpus, opens, cold, cold_cpu, warm, warm_cpu = [], [], [], [], [], [], [], [], []
    before: list[float] = []
    for _ in range(a.runs):  # interleaved, so all of them see the same machine load
        old = app_first_paint(str(run_path), env, a.before) if a.before else None
        w, c = tree_run(tree_cmd, cold_env)
        r = app_first_paint(str(run_path), env)
        if r is None or (a.before and old is None):
            continue
        if old is not None:
            before.append(old["first_paint_s"])
        cold.append(w)
        cold_cpu.append(c)
        paints.append(r["first_paint_s"])
        screens.append(r["screen_s"])
        wholes.append(r["whole_s"])
        cpus.append(r["cpu_s"])
        opens.append(r["open_s"])
        w, c = tree_run(tree_cmd, env)
        warm.append(w)
        warm_cpu.append(c)
    shutil.rmtree(cache, ignore_errors=True)
    print(
        f"app first paint (OCP run):   {min(paints):.2f} s best, {statistics.median(paints):.2f} s median "
        f"(open in the worker {min(opens):.2f} s best; CPU to first paint {statistics.median(cpus):.2f} s median)"
    )
    print(
        f"loomtui tree (50k pi), cold: {min(cold):.2f} s best, {statistics.median(cold):.2f} s median "
        f"(CPU {statistics.median(cold_cpu):.2f} s)"
    )
    print(
        f"loomtui tree (50k pi), warm: {min(warm):.2f} s best, {statistics.median(warm):.2f} s median "
        f"(CPU {statistics.median(warm_cpu):.2f} s; its persistent index read back)"
    )
    print(
        f"whole run drawn (OCP run):    {min(wholes):.2f} s best, {statistics.median(wholes):.2f} s median "
        "(the first screen replaced by the whole run's rows: keys act from here)"
    )
    print(
        f"whole first screen (OCP run): {min(screens):.2f} s best, {statistics.median(screens):.2f} s median "
        "(the detail pane of the run too, built once the whole run is drawn)"
    )
    print(_pairs("ratio to cold tree (goal <= 1.5):", paints, cold))
    print(_pairs("whole run, ratio to cold tree:   ", wholes, cold))
    print(_pairs("whole screen, ratio to cold tree:", screens, cold))
    print(_pairs("ratio to warm tree:              ", paints, warm))
    print(_pairs("CPU ratio to cold tree:          ", cpus, cold_cpu))
    if before:
        print(f"first paint with {a.before}: {min(before):.2f} s best, {statistics.median(before):.2f} s median")
        print(_pairs("before, ratio to cold tree:      ", before, cold))
        print(_pairs("now / before:                    ", paints, before))
    if a.skip_check:
        return
    import orjson
    from loopmath.ocp.conformance import validate_doc

    from loomtui.commands.check import check_files

    doc = orjson.loads(run_path.read_bytes())
    refs, ours, procs, ref_procs, ref_cpu, our_cpu = [], [], [], [], [], []
    check_cmd = [sys.executable, "-m", "loomtui", "check", "-q", str(run_path)]
    ref_cmd = [sys.executable, "-m", "loopmath.ocp.conformance", str(run_path)]
    for i in range(min(a.runs, 3)):  # interleaved, alternating which goes first
        pair = [("ref", lambda: validate_doc(doc)), ("ours", lambda: check_files([str(run_path)]))]
        for name, fn in pair if i % 2 == 0 else pair[::-1]:
            t, c = time.perf_counter(), time.process_time()
            fn()
            (refs if name == "ref" else ours).append(time.perf_counter() - t)
            (ref_cpu if name == "ref" else our_cpu).append(time.process_time() - c)
        procs.append(run_measured(check_cmd, env)[0])
        ref_procs.append(run_measured(ref_cmd, env)[0])
    print(f"loopmath validate_doc alone: {min(refs):.2f} s best, {statistics.median(refs):.2f} s median")
    print(
        f"check_files (read + check):  {min(ours):.2f} s best, {statistics.median(ours):.2f} s median "
        f"({min(ours) / min(refs):.2f}x best/best, goal <= 1.2)"
    )
    print(_pairs("check_files / validate_doc:  ", ours, refs))
    print(_pairs("the same in CPU seconds:     ", our_cpu, ref_cpu))
    print(f"loomtui check (process):     {min(procs):.2f} s best ({min(procs) / min(refs):.2f}x validate_doc)")
    print(
        f"loopmath's CLI (process):    {min(ref_procs):.2f} s best (loomtui check / it: "
        f"{min(procs) / min(ref_procs):.2f}x)"
    )


if __name__ == "__main__":
    main()
