#!/usr/bin/env python3
"""`loomtui tree` and the /tree view model on a 100k-entry session, next to pi.

    uv run python benchmarks/bench_tree.py [--entries 100000]

Prints: whole-process wall time and peak RSS of `loomtui tree FILE` (open + layout + print
every row) beside pi's open + first /tree screen (`node shared/oracle/bench_ref.mjs FILE
--first-screen-only`) of pi 1.6.0 (the current release, the reference of every ratio) and of
pi 0.73.1 (the release earlier goals were quoted against, a second column), runs interleaved;
``--cpus 0`` pins every process to one CPU. Then, on the loaded model, the time of each filter
switch and of each keystroke of "refactor" typed in no-tools mode (what bench_ref.mjs times for
pi). Goals: tree ≤ 0.35× pi 1.6.0's time and ≤ 0.30× its peak memory, filter switch ≤ 100 ms,
search keystroke ≤ 30 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.bench_reopen import measured  # noqa: E402
from benchmarks.common import (  # noqa: E402
    PI_CURRENT,
    PI_OLD,
    compile_bytecode,
    load_average,
    ms,
    pair_ratios,
    run_measured,
    session_file,
)


def main() -> None:
    os.environ["LOOMTUI_NO_CACHE"] = "1"  # also this process's own opens: plain reads, no ~/.cache
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=5, help="runs of each (interleaved)")
    ap.add_argument("--cpus", default="", help="taskset CPU list for every process, e.g. 0 (one CPU)")
    ap.add_argument("--no-old", action="store_true", help="leave out the pi 0.73.1 column")
    ap.add_argument("--no-search", action="store_true", help="only the whole-process comparison")
    a = ap.parse_args()
    path = session_file(a.entries)
    print(f"session: {path} ({path.stat().st_size / 1e6:.0f} MB, {a.entries} entries)")

    # a plain read every run (the persistent index and its row memo: benchmarks/bench_reopen.py)
    env = {**os.environ, "NO_COLOR": "1", "LOOMTUI_NO_CACHE": "1"}
    compile_bytecode()
    pin = ["taskset", "-c", a.cpus] if a.cpus else []
    ours_cmd = [*pin, sys.executable, "-m", "loomtui", "tree", str(path), "--width", "200"]
    releases = [r for r in (PI_CURRENT, PI_OLD) if r.available() and (r is PI_CURRENT or not a.no_old)]
    ours: list[tuple[float, float, float]] = []  # (wall s, CPU s, peak RSS MB)
    refs: dict[str, list[tuple[float, float, float]]] = {r.name: [] for r in releases}
    for _ in range(a.runs):  # interleaved, so all see the same machine load
        ours.append(measured(ours_cmd, env))
        for r in releases:
            refs[r.name].append(measured([*pin, *r.first_screen_cmd(path)], r.env()))
    print(load_average() + (f"; pinned to CPU {a.cpus}" if a.cpus else ""))
    wall, rss = min(w for w, _, _ in ours), max(r for _, _, r in ours)
    print(
        f"loomtui tree:        {wall:.2f} s best, {statistics.median(w for w, _, _ in ours):.2f} s median, "
        f"CPU {statistics.median(c for _, c, _ in ours):.2f} s median, peak {rss:.0f} MB   ({a.runs} runs)"
    )
    for r in releases:
        runs = refs[r.name]
        pw, pr = min(w for w, _, _ in runs), max(m for _, _, m in runs)
        print(
            f"{r.name} first /tree: {pw:.2f} s best, {statistics.median(w for w, _, _ in runs):.2f} s median, "
            f"CPU {statistics.median(c for _, c, _ in runs):.2f} s median, peak {pr:.0f} MB"
        )
        goal = "   (goal <= 0.35x time, <= 0.30x memory)" if r is PI_CURRENT else ""
        print(
            f"  ratio to {r.name}: time {wall / pw:.2f}x best/best, "
            f"{pair_ratios([o[0] for o in ours], [x[0] for x in runs])}; CPU "
            f"{pair_ratios([o[1] for o in ours], [x[1] for x in runs])}; memory {rss / pr:.2f}x{goal}"
        )
    if not releases:
        print("pi reference: not installed (sh ../shared/oracle/ensure_peer.sh), skipped")
    elif not a.no_search:
        full = run_measured(PI_CURRENT.first_screen_cmd(path, first_screen_only=False), PI_CURRENT.env())[2]
        try:
            ref = json.loads(full.strip().splitlines()[-1])
            print(
                f"{PI_CURRENT.name} filter cycle: {ref['filter_cycle_ms']:.0f} ms; "
                f"search {ref['search_8keys_ms'] / 8:.0f} ms/key"
            )
        except (ValueError, KeyError, IndexError):
            pass
    if a.no_search:
        return

    from loomtui.session.manager import SessionManager
    from loomtui.view.model import TreeModel

    manager = SessionManager.open(str(path))
    model = TreeModel(manager)
    for mode in ("no-tools", "user-only", "labeled-only", "all", "default"):
        t = time.perf_counter()
        model.set_filter(mode)
        print(f"filter -> {mode:<13} {ms(time.perf_counter() - t):>9}  rows {len(model)}")
    t = time.perf_counter()
    model.warm_search()
    print(f"search index warm-up {ms(time.perf_counter() - t):>9}  (once, after first paint)")
    model.cycle_filter(1)
    times = []
    for ch in "refactor":
        t = time.perf_counter()
        model.type_text(ch)
        times.append(time.perf_counter() - t)
        print(f"  key {ch!r}: {ms(times[-1]):>9}  rows {len(model)}")
    print(f"search keystroke:    mean {ms(sum(times) / len(times))}, worst {ms(max(times))}  (goal <= 30 ms)")


if __name__ == "__main__":
    main()
