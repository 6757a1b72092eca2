#!/usr/bin/env python3
"""Huge image-heavy pi sessions (400 MB, 1 GB, 2 GB of inline base64 screenshots), next to pi.

    uv run python benchmarks/bench_huge.py [--sizes 400M,1G,2G] [--runs 3] [--dir DIR] [--keep]

Each session is written by benchmarks/gen_image_session.py (deterministic) into a temporary
directory, measured, and deleted (``--keep`` keeps them; ``--dir`` reuses files already there).
For each size, interleaved so both see the same machine load:

* ``loomtui tree FILE`` cold (no persistent index: ``--no-cache``) and pi's open + first /tree
  screen (``node shared/oracle/bench_ref.mjs FILE --first-screen-only``, as bench_tree.py times
  it): wall time and peak RSS of each process; pi may fail (node cannot hold a file of more than
  512 MB as one string) — that is reported with its time and peak RSS until it failed;
* ``loomtui info FILE`` cold;
* ``loomtui tree FILE`` warm (the persistent index written by a first open);
* the app (``LoomApp`` headless, 160x50, no index): time from spawn to the first tree row drawn,
  then the detail pane shown for 40 image entries in turn; peak RSS of the process; then the
  same first paint with the index present.

A cold open reads every byte of the file: when the file is not in the page cache, the disk is
the floor (about 5 s per GB on this machine's disk), for loomtui and pi alike.

Goals (issue 13): peak RSS <= 0.25x pi's (or pi fails and loomtui does not), time <= 0.4x pi's,
and a 2 GB file opens (tree, info, the app's first paint).
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

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import PI_CURRENT, compile_bytecode, pi_available  # noqa: E402
from benchmarks.gen_image_session import generate, parse_size  # noqa: E402

PROBE = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)\n"
    "dt = time.perf_counter() - t\n"
    "err = p.stderr.decode(errors='replace').strip().splitlines()\n"
    "why = next((l for l in err if 'Error' in l), err[-1] if err else '')\n"
    "print('%f %d %d %s' % (dt, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, p.returncode, why[:160]))\n"
)

APP_CHILD = r"""
import sys, time, json, os, resource
T_SPAWN = float(sys.argv[2])
from loomtui.formats.opening import Opening
opening = Opening.before_app(sys.argv[1])  # as `loomtui FILE` starts it
import asyncio
from loomtui.app.app import LoomApp
from loomtui.app.widgets.tree_view import TreeView
marks = {}
orig = TreeView.render_line
def render_line(self, y):
    line = orig(self, y)
    if self.model is not None and "tree" not in marks:  # the first row made and drawn
        marks["tree"] = time.time()
    return line
TreeView.render_line = render_line

async def main():
    app = LoomApp(sys.argv[1], watch=False, opening=opening)
    out = {}
    async with app.run_test(size=(160, 50)) as pilot:
        while "tree" not in marks:
            await asyncio.sleep(0.005)
        out["first_paint_s"] = marks["tree"] - T_SPAWN
        out["rss_at_paint_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        screen = app.screen
        model = screen.model
        model.set_filter("all")
        shown = 0
        t = time.perf_counter()
        for i in range(len(model)):
            e = model.entry_at(i)
            if e.size < 100_000:
                continue
            model.select_row(i)
            screen._show_detail(force=True)
            await pilot.pause()
            shown += 1
            if shown == 40:
                break
        out["detail_shown"] = shown
        out["detail_each_ms"] = (time.perf_counter() - t) * 1000 / max(shown, 1)
        out["entries"] = len(screen.manager.index.entries)
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("RESULT " + json.dumps(out))

asyncio.run(main())
"""


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, bool, str]:
    """(wall seconds, peak RSS MB, succeeded, why it failed) of one child process."""
    out = subprocess.run([sys.executable, "-c", PROBE, *cmd], capture_output=True, text=True, env=env)
    wall, kb, rc, *why = out.stdout.strip().split(" ", 3)
    return float(wall), int(kb) / 1024, rc == "0", (why[0] if why else "")


def app_first_paint(path: Path, env: dict[str, str]) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", APP_CHILD, str(path), repr(time.time())],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])  # type: ignore[no-any-return]
    raise SystemExit(f"app run failed: {out.stderr[-2000:]}")


def fmt(samples: list[tuple[float, float, bool, str]]) -> str:
    ok = [s for s in samples if s[2]]
    if not ok:
        return (
            f"FAILED after {statistics.median(s[0] for s in samples):.2f} s, peak "
            f"{max(s[1] for s in samples):.0f} MB: {samples[0][3]}"
        )
    return (
        f"{min(s[0] for s in ok):.2f} s best, {statistics.median(s[0] for s in ok):.2f} s median, "
        f"peak {max(s[1] for s in ok):.0f} MB"
        + ("" if len(ok) == len(samples) else f" ({len(samples) - len(ok)} runs failed)")
    )


def bench_size(path: Path, runs: int, with_pi: bool, with_app: bool) -> None:
    st = path.stat()
    print(f"\n== {path.name}: {st.st_size / 1e6:.0f} MB")
    cache = tempfile.mkdtemp(prefix="loomtui-bench-huge-cache-")
    env = {**os.environ, "NO_COLOR": "1", "LOOMTUI_CACHE_DIR": cache}
    ours_cmd = [sys.executable, "-m", "loomtui", "tree", str(path), "--width", "200", "--no-cache"]
    info_cmd = [sys.executable, "-m", "loomtui", "info", str(path), "--no-cache"]
    pi_cmd = PI_CURRENT.first_screen_cmd(path) if with_pi else []
    pi_env = {**PI_CURRENT.env(), "NO_COLOR": "1", "LOOMTUI_CACHE_DIR": cache}
    ours, infos, refs = [], [], []
    try:
        for _ in range(runs):
            ours.append(run(ours_cmd, env))
            if with_pi:
                refs.append(run(pi_cmd, pi_env))
            infos.append(run(info_cmd, env))
        print(f"loomtui tree, cold:  {fmt(ours)}")
        print(f"loomtui info, cold:  {fmt(infos)}")
        if with_pi:
            print(f"pi open + /tree:     {fmt(refs)}")
            if all(r[2] for r in refs):
                pairs = [o[0] / r[0] for o, r in zip(ours, refs)]
                best = min(o[0] for o in ours) / min(r[0] for r in refs)
                mem = max(o[1] for o in ours) / max(r[1] for r in refs)
                print(
                    f"ratio:               time {statistics.median(pairs):.2f}x median of pairs, {best:.2f}x best/best"
                    f" (goal <= 0.40x); peak RSS {mem:.3f}x (goal <= 0.25x)"
                )
            elif all(o[2] for o in ours):
                print(
                    "ratio:               pi fails on this file, loomtui opens it "
                    f"(peak RSS {max(o[1] for o in ours):.0f} MB vs pi's {max(r[1] for r in refs):.0f} MB "
                    "when it failed)"
                )
        warm_cmd = ours_cmd[:-1]
        run(warm_cmd, env)  # writes the index (in a background child)
        time.sleep(2)
        warm = [run(warm_cmd, env) for _ in range(runs)]
        print(
            f"loomtui tree, warm:  {fmt(warm)}  (index {sum(f.stat().st_size for f in Path(cache).iterdir()) / 1e3:.0f} KB)"
        )
        if with_app:
            apps = [app_first_paint(path, {**env, "LOOMTUI_NO_CACHE": "1"}) for _ in range(max(1, runs - 1))]
            fp = [a["first_paint_s"] for a in apps]
            print(
                f"app first paint:     {min(fp):.2f} s best, {statistics.median(fp):.2f} s median "
                f"(RSS {max(a['rss_at_paint_mb'] for a in apps):.0f} MB); detail pane over "
                f"{apps[0]['detail_shown']:.0f} image entries: {statistics.median(a['detail_each_ms'] for a in apps):.0f}"
                f" ms each, peak RSS after {max(a['peak_rss_mb'] for a in apps):.0f} MB"
            )
            warm_apps = [app_first_paint(path, env) for _ in range(max(1, runs - 1))]
            fp = [a["first_paint_s"] for a in warm_apps]
            print(
                f"app first paint, warm: {min(fp):.2f} s best, {statistics.median(fp):.2f} s median "
                f"(RSS {max(a['rss_at_paint_mb'] for a in warm_apps):.0f} MB)"
            )
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="400M,1G,2G")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--dir", help="generate into (and reuse files from) this directory")
    ap.add_argument("--keep", action="store_true", help="keep the generated sessions")
    ap.add_argument("--no-pi", action="store_true")
    ap.add_argument("--no-app", action="store_true")
    a = ap.parse_args()
    compile_bytecode()
    with_pi = pi_available() and not a.no_pi
    if not with_pi:
        print("pi reference: not installed (sh ../shared/oracle/ensure_peer.sh) or --no-pi, skipped")
    directory = Path(a.dir) if a.dir else Path(tempfile.mkdtemp(prefix="loomtui-bench-huge-"))
    directory.mkdir(parents=True, exist_ok=True)
    made: list[Path] = []
    try:
        for size in a.sizes.split(","):
            path = directory / f"images-{size.lower()}.jsonl"
            if not path.exists():
                t = time.perf_counter()
                n = generate(str(path), parse_size(size))
                made.append(path)
                print(f"generated {path} ({n} entries) in {time.perf_counter() - t:.0f} s")
            bench_size(path, a.runs, with_pi, not a.no_app)
    finally:
        if not a.keep:
            for p in made:
                p.unlink(missing_ok=True)
            if not a.dir:
                shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
