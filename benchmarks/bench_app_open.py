#!/usr/bin/env python3
"""The browser's first paint on a 100k-entry session, cold (no persistent index) and warm (the
index present), next to pi's open + first /tree screen, measured interleaved in the same run.

    uv run python benchmarks/bench_app_open.py [--entries 100000] [--runs 3] [--size 160x50]

Each loomtui run is a fresh child process started the way ``loomtui FILE`` starts
(``formats/opening.Opening.before_app``: the tail parser is forked before Textual is imported), driving the real
``LoomApp`` headless (``App.run_test``); its first paint is the moment the tree widget draws its
first non-blank row: of the loaded session, or, on a reopen, of the first screen kept from the
earlier open (``formats/opening/kept_screen.py``), drawn before the session is read. The moment
the whole session's rows are drawn (installed: keys act on it) is printed apart, "whole ready".
Both are measured from the parent's spawn of the child. pi's figure is
the whole process (wall and CPU time) of ``node shared/oracle/bench_ref.mjs FILE --first-screen-only`` (node's start,
pi's imports, ``SessionManager.open``, the tree selector's first render).

Prints every run, the median of the per-pair ratios and the best pair (the machine is shared:
the pairs see the same load), and peak RSS. Goals against pi 1.6.0 (pi 0.73.1 a second column):
first paint warm <= 0.20x, cold <= 0.35x. ``--cpus 0`` pins every process to one CPU.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_reopen import measured  # noqa: E402
from benchmarks.common import APP_CHILD_START, PI_CURRENT, PI_OLD, compile_bytecode, load_average, session_file  # noqa: E402

CHILD = (
    APP_CHILD_START
    + r"""
async def main():
    w, h = (int(x) for x in sys.argv[3].split("x"))
    app = LoomApp(sys.argv[1], watch=False, opening=opening)
    async with app.run_test(size=(w, h)) as pilot:
        while "tree" not in marks or "detail" not in marks or "whole" not in marks:
            await asyncio.sleep(0.002)
        out = {"first_paint_s": marks["tree"] - T_SPAWN, "cpu_s": marks["cpu"],
               "whole_s": marks["whole"] - T_SPAWN, "whole_cpu_s": marks["whole_cpu"],
               "screen_s": max(marks["tree"], marks["detail"]) - T_SPAWN,
               "entries": len(app.screen.manager.index.entries)}
        # what the browser writes after the first paint (the index of a cold open, the
        # flattened tree) is written before this process ends, as when a user quits
        await app.workers.wait_for_complete()
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("RESULT " + json.dumps(out), flush=True)
    os._exit(0)  # the index writer (a forked child) and Textual's threads need no goodbye

asyncio.run(main())
"""
)


def app_first_paint(path: str, size: str, env: dict[str, str], pin: list[str]) -> tuple[float, float, float]:
    t = time.time()
    proc = subprocess.run(
        [*pin, sys.executable, "-c", CHILD, path, repr(t), size], capture_output=True, text=True, env=env, cwd=str(ROOT)
    )
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if line is None:
        raise SystemExit(f"the app run failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")
    r = json.loads(line[len("RESULT ") :])
    SCREENS.append(r["screen_s"] - r["first_paint_s"])
    WHOLES.append((r["whole_s"], r["peak_rss_mb"], r["whole_cpu_s"]))
    return r["first_paint_s"], r["peak_rss_mb"], r["cpu_s"]


#: per app run: how long after the tree's first rows the detail pane was drawn too (the whole
#: first screen; pi's /tree screen, the reference, has no detail pane)
SCREENS: list[float] = []
#: per app run: (wall, peak RSS, CPU) when the whole session's rows were drawn (keys act on it);
#: the first paint may be a first screen kept from an earlier open, drawn before the read
WHOLES: list[tuple[float, float, float]] = []


def wait_for_index(cache: str) -> None:
    deadline = time.time() + 60  # written by a background child of the cold run
    while time.time() < deadline:
        if os.path.isdir(cache) and any(f.endswith(".lti") for f in os.listdir(cache)):
            time.sleep(0.3)  # renamed into place: complete
            return
        time.sleep(0.05)


def report(
    name: str,
    ours: list[tuple[float, float, float]],
    pi: list[tuple[float, float]],
    goal: float | None,
    release: str = PI_CURRENT.name,
) -> None:
    times = [t for t, _, _ in ours]
    cpus = [c for _, _, c in ours]
    rss = max(r for _, r, _ in ours)
    if name:
        print(
            f"{name:<26}{min(times):.2f} s best, {statistics.median(times):.2f} s median, "
            f"CPU {statistics.median(cpus):.2f} s median, peak {rss:.0f} MB"
        )
    if not pi:
        return
    if pi:
        pairs = [o / p[0] for o, p in zip(times, pi)]
        cpu_pairs = [o / p[1] for o, p in zip(cpus, pi)]
        best = min(range(len(pairs)), key=pairs.__getitem__)
        print(
            f"{'':<26}ratio to {release}: {statistics.median(pairs):.2f}x median of pairs, best pair "
            f"{pairs[best]:.2f}x ({times[best]:.2f} s / {pi[best][0]:.2f} s); CPU {statistics.median(cpu_pairs):.2f}x"
            + (f"   (goal <= {goal}x)" if goal else "")
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=100_000)
    ap.add_argument("--file", default=None, help="a session file (default: the generated one)")
    ap.add_argument("--runs", type=int, default=3, help="runs of each (interleaved)")
    ap.add_argument("--size", default="160x50")
    ap.add_argument("--cpus", default="", help="taskset CPU list for every process, e.g. 0 (one CPU)")
    a = ap.parse_args()
    src = Path(a.file) if a.file else session_file(a.entries)
    work = tempfile.mkdtemp(prefix="loomtui-app-open-")
    cache = os.path.join(work, "cache")
    path = os.path.join(work, src.name)
    shutil.copyfile(src, path)
    print(f"session: {src} ({os.path.getsize(path) / 1e6:.0f} MB), terminal {a.size}")
    compile_bytecode()
    env = {**os.environ, "TEXTUAL_ANIMATIONS": "none", "LOOMTUI_CACHE_DIR": cache}
    env.pop("LOOMTUI_NO_CACHE", None)
    pin = ["taskset", "-c", a.cpus] if a.cpus else []
    with_pi, with_old = PI_CURRENT.available(), PI_OLD.available()
    cold: list[tuple[float, float, float]] = []
    warm: list[tuple[float, float, float]] = []
    warm_whole: list[tuple[float, float, float]] = []
    refs: list[tuple[float, float]] = []
    old_refs: list[tuple[float, float]] = []
    pi_rss = 0.0
    try:
        for n in range(a.runs):  # interleaved: a pair sees the same machine load
            shutil.rmtree(cache, ignore_errors=True)
            cold.append(app_first_paint(path, a.size, env, pin))
            wait_for_index(cache)
            warm.append(app_first_paint(path, a.size, env, pin))
            warm_whole.append(WHOLES[-1])
            line = (
                f"run {n + 1}: app cold {cold[-1][0]:.2f} s, warm {warm[-1][0]:.2f} s "
                f"(whole session ready {warm_whole[-1][0]:.2f} s)"
            )
            if with_pi:
                wall, pcpu, rss = measured([*pin, *PI_CURRENT.first_screen_cmd(path)], PI_CURRENT.env())
                refs.append((wall, pcpu))
                pi_rss = max(pi_rss, rss)
                line += f", {PI_CURRENT.name} {wall:.2f} s"
            if with_old:
                wall, pcpu, _ = measured([*pin, *PI_OLD.first_screen_cmd(path)], PI_OLD.env())
                old_refs.append((wall, pcpu))
                line += f", {PI_OLD.name} {wall:.2f} s"
            print(line, flush=True)
        print(load_average() + (f"; pinned to CPU {a.cpus}" if a.cpus else ""))
        report("app first paint, cold:", cold, refs, 0.35)
        report("", cold, old_refs, None, PI_OLD.name)
        report("app first paint, warm:", warm, refs, 0.20)
        report("", warm, old_refs, None, PI_OLD.name)
        report("whole ready, warm:", warm_whole, refs, None)
        print(
            f"{'detail pane drawn:':<26}{statistics.median(SCREENS) * 1000:.0f} ms median after the tree's first rows "
            f"(max {max(SCREENS) * 1000:.0f} ms)"
        )
        if with_pi:
            walls = [w for w, _ in refs]
            print(
                f"{PI_CURRENT.name + ' first /tree:':<26}{min(walls):.2f} s best, {statistics.median(walls):.2f} s median, "
                f"CPU {statistics.median(c for _, c in refs):.2f} s median, peak {pi_rss:.0f} MB; memory ratio cold "
                f"{max(r for _, r, _ in cold) / pi_rss:.2f}x, warm {max(r for _, r, _ in warm) / pi_rss:.2f}x"
            )
        else:
            print("pi reference: not installed (sh ../shared/oracle/ensure_peer.sh), skipped")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
