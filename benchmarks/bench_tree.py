#!/usr/bin/env python3
"""`loomtui tree` and the /tree view model on a 100k-entry session, next to pi.

    uv run python benchmarks/bench_tree.py [--entries 100000]

Prints: whole-process wall time and peak RSS of `loomtui tree FILE` (open + layout + print
every row) beside pi's open + first /tree screen (`node shared/oracle/bench_ref.mjs FILE
--first-screen-only`) when node and the reference package are present; then, on the loaded
model, the time of each filter switch and of each keystroke of "refactor" typed in no-tools
mode (what bench_ref.mjs times for pi). Goals (issue 3): tree ≤ 0.4× pi's time and memory,
filter switch ≤ 100 ms, search keystroke ≤ 30 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import SHARED, compile_bytecode, ms, pi_available, run_measured, session_file  # noqa: E402


def main() -> None:
    os.environ["LOOMTUI_NO_CACHE"] = "1"  # also this process's own opens: plain reads, no ~/.cache
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=5, help="runs of each (interleaved)")
    a = ap.parse_args()
    path = session_file(a.entries)
    print(f"session: {path} ({path.stat().st_size / 1e6:.0f} MB, {a.entries} entries)")

    # a plain read every run (the persistent index and its row memo: benchmarks/bench_reopen.py)
    env = {**os.environ, "NO_COLOR": "1", "LOOMTUI_NO_CACHE": "1"}
    compile_bytecode()
    ours_cmd = [sys.executable, "-m", "loomtui", "tree", str(path), "--width", "200"]
    pi_cmd = ["node", str(SHARED / "oracle" / "bench_ref.mjs"), str(path), "--first-screen-only"]
    with_pi = pi_available()
    ours, refs = [], []
    for _ in range(a.runs):  # interleaved, so both see the same machine load
        ours.append(run_measured(ours_cmd, env))
        if with_pi:
            refs.append(run_measured(pi_cmd))
    wall, rss = min(w for w, _, _ in ours), max(r for _, r, _ in ours)
    print(f"loomtui tree:        {wall:.2f} s best, {statistics.median(w for w, _, _ in ours):.2f} s median, "
          f"peak {rss:.0f} MB   ({a.runs} runs)")
    if with_pi:
        pw, pr = min(w for w, _, _ in refs), max(r for _, r, _ in refs)
        print(f"pi first /tree:      {pw:.2f} s best, {statistics.median(w for w, _, _ in refs):.2f} s median, "
              f"peak {pr:.0f} MB")
        pairs = [o[0] / r[0] for o, r in zip(ours, refs)]
        print(f"ratio:               time {wall / pw:.2f}x best/best, {statistics.median(pairs):.2f}x median of "
              f"pairs  memory {rss / pr:.2f}x   (goal <= 0.40x both)")
        full = run_measured(["node", str(SHARED / "oracle" / "bench_ref.mjs"), str(path)])[2]
        try:
            ref = json.loads(full.strip().splitlines()[-1])
            print(f"pi filter cycle:     {ref['filter_cycle_ms']:.0f} ms; search {ref['search_8keys_ms'] / 8:.0f} ms/key")
        except (ValueError, KeyError, IndexError):
            pass
    else:
        print("pi reference: not installed (sh ../shared/oracle/ensure_peer.sh), skipped")

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
