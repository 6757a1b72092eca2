#!/usr/bin/env python3
"""Reopening a 100k-entry session with its persistent index, next to pi.

    uv run python benchmarks/bench_reopen.py [--entries 100000] [--runs 3]

Prints whole-process wall time, CPU time (user + system) and peak RSS of `loomtui tree FILE`
cold (no index: the cache dir is emptied before each run), warm (the index and the printed-rows
memo written by the cold run are present: the same command again) and "index only" (the index
is present but the options differ from the memo's: the session is loaded from the index, laid
out and every row formatted), beside pi's open + first /tree screen (`node
shared/oracle/bench_ref.mjs FILE --first-screen-only`) of pi 1.6.0 (the reference) and of pi
0.73.1 (a second column), all interleaved in the same run (``--cpus 0``: one CPU); ratios
are the median of the per-run pairs and the best pair. Then the CPU time to bring the index up
to date after one appended entry (parse the new line + write the small delta file next to the
index), and the size of the cache files. Goals against pi 1.6.0: warm `tree` <= 0.10x
pi's time, RSS <= 0.3x; cold <= 0.35x; one append <= 20 ms CPU.
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

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import PI_CURRENT, PI_OLD, compile_bytecode, load_average, session_file  # noqa: E402

PROBE = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "dt = time.perf_counter() - t\n"
    "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "sys.stderr.write('%f %f %d\\n' % (dt, u.ru_utime + u.ru_stime, u.ru_maxrss))\n"
)


def measured(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, float]:
    """(wall s, CPU s of the process and its children, peak RSS MB) of one run of ``cmd``."""
    out = subprocess.run([sys.executable, "-c", PROBE, *cmd], capture_output=True, env=env)
    wall, cpu, rss_kb = out.stderr.decode().split()[-3:]
    return float(wall), float(cpu), int(rss_kb) / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=3, help="runs of each (interleaved)")
    ap.add_argument("--cpus", default="", help="taskset CPU list for every process, e.g. 0 (one CPU)")
    a = ap.parse_args()
    src = session_file(a.entries)
    work = tempfile.mkdtemp(prefix="loomtui-reopen-")
    cache = os.path.join(work, "cache")
    path = os.path.join(work, "s.jsonl")
    shutil.copyfile(src, path)  # appended to below: never touch the shared data file
    print(f"session: {src} ({os.path.getsize(path) / 1e6:.0f} MB, {a.entries} entries)")
    compile_bytecode()
    env = {**os.environ, "NO_COLOR": "1", "LOOMTUI_CACHE_DIR": cache}
    env.pop("LOOMTUI_NO_CACHE", None)
    pin = ["taskset", "-c", a.cpus] if a.cpus else []
    ours_cmd = [*pin, sys.executable, "-m", "loomtui", "tree", path, "--width", "200"]
    with_pi = PI_CURRENT.available()
    with_old = PI_OLD.available()
    cold, warm, index_only, refs, old_refs = [], [], [], [], []  # type: ignore[var-annotated]
    for n in range(a.runs):  # interleaved, so all see the same machine load
        shutil.rmtree(cache, ignore_errors=True)
        cold.append(measured(ours_cmd, env))
        deadline = time.time() + 30  # index, flat and memo: written by a background child of the cold run
        while time.time() < deadline and not (
            os.path.isdir(cache) and {".lti", ".ltr"} <= {f[-4:] for f in os.listdir(cache)}
        ):
            time.sleep(0.05)
        time.sleep(0.2)
        warm.append(measured(ours_cmd, env))
        # options the memo has not seen (another width each run): the index alone
        index_only.append(measured([*ours_cmd[:-1], str(190 - n)], env))
        if with_pi:
            refs.append(measured([*pin, *PI_CURRENT.first_screen_cmd(path)], PI_CURRENT.env()))
        if with_old:
            old_refs.append(measured([*pin, *PI_OLD.first_screen_cmd(path)], PI_OLD.env()))
        print(
            f"run {n + 1}: cold {cold[-1][0]:.2f} s, warm {warm[-1][0]:.2f} s, index only {index_only[-1][0]:.2f} s"
            + (f", {PI_CURRENT.name} {refs[-1][0]:.2f} s" if with_pi else "")
            + (f", {PI_OLD.name} {old_refs[-1][0]:.2f} s" if with_old else ""),
            flush=True,
        )

    print(load_average() + (f"; pinned to CPU {a.cpus}" if a.cpus else ""))

    def line(name: str, runs: list[tuple[float, float, float]], goal: float | None = None) -> None:
        w, r = min(x[0] for x in runs), max(x[2] for x in runs)
        print(
            f"{name:<22}{w:.2f} s best, {statistics.median(x[0] for x in runs):.2f} s median, "
            f"CPU {statistics.median(x[1] for x in runs):.2f} s median, peak {r:.0f} MB"
        )
        if goal is None:
            return
        for release, against in ((PI_CURRENT, refs), (PI_OLD, old_refs)):
            if not against:
                continue
            pairs = [o[0] / p[0] for o, p in zip(runs, against)]
            cpu_pairs = [o[1] / p[1] for o, p in zip(runs, against)]
            print(
                f"{'':<22}ratio to {release.name}: time {statistics.median(pairs):.2f}x median of pairs, best pair "
                f"{min(pairs):.2f}x; CPU {statistics.median(cpu_pairs):.2f}x; memory "
                f"{r / max(x[2] for x in against):.2f}x"
                + (f"   (goal <= {goal}x time, <= 0.3x memory)" if release is PI_CURRENT else "")
            )

    line("loomtui tree, cold:", cold, 0.35)
    line("loomtui tree, warm:", warm, 0.10)
    line("  index only:", index_only, 0.10)
    if with_pi:
        line(f"{PI_CURRENT.name} first /tree:", refs)
    if with_old:
        line(f"{PI_OLD.name} first /tree:", old_refs)
    else:
        print("pi reference: not installed (sh ../shared/oracle/ensure_peer.sh), skipped")
    for f in sorted(os.listdir(cache)):
        print(f"cache file {f[-4:]}:      {os.path.getsize(os.path.join(cache, f)) / 1e6:.1f} MB")

    # one append, in this process: the reopen that brings the index up to date
    os.environ["LOOMTUI_CACHE_DIR"] = cache
    os.environ.pop("LOOMTUI_NO_CACHE", None)
    from loomtui.session import cache_io, indexcache
    from loomtui.session.manager import SessionManager

    sm = SessionManager.open(path)  # the index is current
    leaf = sm.index.leaf_id
    del sm
    with open(path, "ab") as f:
        f.write(
            json.dumps(
                {
                    "type": "custom",
                    "id": "bench-append-1",
                    "parentId": leaf,
                    "customType": "bench",
                    "timestamp": "2026-05-01T00:00:00.000Z",
                }
            ).encode()
            + b"\n"
        )
    os.environ["LOOMTUI_JOBS"] = "1"  # write the index in this process, so its CPU time counts
    spent: list[float] = []
    real_parse, real_delta = indexcache.parse_from, indexcache.save_delta

    def timed(fn):  # type: ignore[no-untyped-def]
        def run(*args, **kw):  # type: ignore[no-untyped-def]
            c0 = time.process_time()
            try:
                return fn(*args, **kw)
            finally:
                spent.append(time.process_time() - c0)

        return run

    indexcache.parse_from, indexcache.save_delta = timed(real_parse), timed(real_delta)
    t, c = time.perf_counter(), time.process_time()
    sm = SessionManager.open(path)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    indexcache.parse_from, indexcache.save_delta = real_parse, real_delta
    cache_io.reap(block=True)
    print(
        f"index update for 1 append: {sum(spent) * 1000:.1f} ms CPU (parse the new line + write the delta file;"
        f" goal <= 20 ms)"
    )
    assert sm.index.leaf_id == "bench-append-1"
    t, c = time.perf_counter(), time.process_time()
    SessionManager.open(path)
    wall2, cpu2 = time.perf_counter() - t, time.process_time() - c
    print(f"reopen after 1 append: {cpu * 1000:.0f} ms CPU ({wall * 1000:.0f} ms wall): index load + the above")
    print(f"reopen, nothing new:   {cpu2 * 1000:.0f} ms CPU ({wall2 * 1000:.0f} ms wall), index load only")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
