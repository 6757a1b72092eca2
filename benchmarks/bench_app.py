#!/usr/bin/env python3
"""The browser app on a 100k-entry session: first paint, cursor move, filter switch, search
keystroke, peak RSS.

    uv run python benchmarks/bench_app.py [--file F] [--entries 100000] [--moves 40] [--size 160x50]

Targets (issue 4): first paint after launch <= 1.0 s (pi's /tree: about 3 s on the same file),
cursor move <= 16 ms, filter switch <= 150 ms, search keystroke <= 50 ms end to end, peak RSS
<= 400 MB.

The persistent index is a private one made before the runs (``--cold``: none); the user's
``~/.cache/loomtui`` is never read or written. Each run is a fresh child process that drives the real ``LoomApp`` headless with
``App.run_test`` (Pilot), so imports, the file open, the model and Textual's rendering all
count. How each figure is taken:

* first paint: from the parent's spawn of the child to the moment the tree widget draws its
  first row (``TreeView.render_line`` with a loaded model); "chrome" is the first paint of the
  screen at all (the app shows a loading indicator while a big file opens in a worker thread).
* cursor move / filter switch / search keystroke: from the key press entering the app to the
  first repaint that shows its effect (the compositor's update of the changed lines, hooked at
  ``App._display``), wall clock, median over the presses. "all settled" is the last repaint
  before the app is idle again (for a cursor move it includes the detail pane, which follows
  60 ms after the last move). CPU is the process time of the whole press incl. Pilot.
* peak RSS: ``ru_maxrss`` of the child at the end.
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHILD = r"""
import sys, time, json, os
T_SPAWN = float(sys.argv[2])
t_start = time.time()
# what `loomtui FILE` does first (loomtui/formats/opening): a child parses the tail of a big
# session while Textual is imported
from loomtui.formats.opening import Opening
opening = Opening.before_app(sys.argv[1]) if os.environ.get("LOOMTUI_BENCH_SPLIT", "1") == "1" else None
import asyncio, resource, statistics
from loomtui.app.app import LoomApp
from loomtui.app.widgets.tree_view import TreeView
from loomtui.app.screens.browser import BrowserScreen
t_imported = time.time()

marks = {}
orig_render_line = TreeView.render_line
def render_line(self, y):
    line = orig_render_line(self, y)
    if self.model is not None and "tree" not in marks:  # the first row made and drawn
        marks["tree"] = time.time()
    return line
TreeView.render_line = render_line

# the end of each repaint: Screen._compositor updates are sent through App._display
pending = {}
orig_display = LoomApp._display
def _display(self, screen, renderable):
    if "chrome" not in marks:
        marks["chrome"] = time.time()
    if pending.get("t0") is not None and renderable is not None:
        pending.setdefault("paints", []).append(time.perf_counter())
    return orig_display(self, screen, renderable)
LoomApp._display = _display

# where the load goes: the session open and the view model, timed inside the worker
import loomtui.formats.opening as opening_module
from loomtui.view.model import TreeModel
orig_open = opening_module.open_session
def timed_open(path, split=None, **kw):
    t = time.perf_counter()
    try:
        return orig_open(path, split, **kw)
    finally:
        marks["open_s"] = time.perf_counter() - t
opening_module.open_session = timed_open
orig_model_init = TreeModel.__init__
def timed_model_init(self, *a, **k):
    t = time.perf_counter()
    try:
        return orig_model_init(self, *a, **k)
    finally:
        marks.setdefault("model_s", time.perf_counter() - t)
TreeModel.__init__ = timed_model_init

async def main():
    w, h = (int(x) for x in sys.argv[3].split("x"))
    app = LoomApp(sys.argv[1], watch=False, opening=opening)
    out = {}
    async with app.run_test(size=(w, h)) as pilot:
        deadline = time.time() + 120
        while "tree" not in marks:  # (an open that failed shows an error screen: give up)
            assert time.time() < deadline, f"no tree painted; top screen {app.screen!r}"
            await asyncio.sleep(0.005)
        await pilot.pause()
        out["first_paint_s"] = marks["tree"] - T_SPAWN
        out["chrome_paint_s"] = marks["chrome"] - T_SPAWN
        out["imports_s"] = t_imported - t_start
        out["python_start_s"] = t_start - T_SPAWN
        out["open_s"] = marks.get("open_s", float("nan"))
        out["model_s"] = marks.get("model_s", float("nan"))
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        out["rows"] = len(screen.model)
        out["entries"] = len(screen.manager.index.entries)
        # let the search warm-up worker finish before timing keystrokes
        await app.workers.wait_for_complete()
        await pilot.pause(0.2)

        async def timed(key):
            # from the key event entering the app to the last paint that follows it
            pending.clear()
            pending["t0"] = time.perf_counter()
            c0 = time.process_time()
            await pilot.press(key)
            await pilot.pause()
            c1 = time.process_time()
            paints = pending.get("paints") or []
            t0 = pending["t0"]
            pending.clear()
            first = paints[0] - t0 if paints else float("nan")
            last = paints[-1] - t0 if paints else float("nan")
            return first, c1 - c0, last

        def summary(samples):
            walls = [s[0] for s in samples if s[0] == s[0]]
            cpus = [s[1] for s in samples]
            lasts = [s[2] for s in samples if s[2] == s[2]]
            if not walls:
                walls = lasts = [float("nan")]
            return {"median_ms": statistics.median(walls) * 1000, "max_ms": max(walls) * 1000,
                    "last_median_ms": statistics.median(lasts) * 1000,
                    "cpu_median_ms": statistics.median(cpus) * 1000, "n": len(samples)}

        n = int(sys.argv[4])
        out["noop_key"] = summary([await timed("f12") for _ in range(10)])
        samples = []
        for i in range(n):
            samples.append(await timed("down" if i % 4 != 3 else "up"))
        out["cursor_move"] = summary(samples)
        samples = [await timed(k) for k in ("pagedown", "pagedown", "pageup", "end", "home")]
        out["page_home_end"] = summary(samples)
        samples = []
        for key in ("ctrl+t", "ctrl+u", "ctrl+l", "ctrl+a", "ctrl+d", "ctrl+o", "ctrl+o", "ctrl+shift+o", "ctrl+d"):
            samples.append(await timed(key))
        out["filter_switch"] = summary(samples)
        samples = []
        for ch in "refactor cache":
            samples.append(await timed("space" if ch == " " else ch))
        out["search_keystroke"] = summary(samples)
        samples = [await timed("backspace") for _ in range(5)]
        out["search_backspace"] = summary(samples)
        # the view model alone (TreeModel.set_query), for the same keystrokes
        model = screen.model
        saved = model.query
        model.set_query("")
        costs = []
        for ch in "refactor cache":
            t = time.perf_counter()
            model.type_text(ch)
            costs.append(time.perf_counter() - t)
        out["model_keystroke_ms"] = statistics.median(costs) * 1000
        out["model_keystroke_max_ms"] = max(costs) * 1000
        costs = []
        for _ in range(5):
            t = time.perf_counter()
            model.backspace()
            costs.append(time.perf_counter() - t)
        out["model_backspace_ms"] = statistics.median(costs) * 1000
        costs = []
        for mode in ("no-tools", "user-only", "labeled-only", "all", "default"):
            model.set_query("")
            t = time.perf_counter()
            model.set_filter(mode)
            costs.append(time.perf_counter() - t)
        out["model_filter_ms"] = statistics.median(costs) * 1000
        model.set_query(saved)
        screen.tree.rows_changed()
        await pilot.pause()
        pending.clear()
        t = time.perf_counter()
        await pilot.press("escape")
        await pilot.pause()
        out["escape_clear_s"] = time.perf_counter() - t
        # the detail pane for the selected entry (debounced after keyboard moves)
        t = time.perf_counter()
        screen._show_detail(force=True)
        await pilot.pause()
        out["detail_update_ms"] = (time.perf_counter() - t) * 1000
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("RESULT " + json.dumps(out))

asyncio.run(main())
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--file", default=None, help="session file (default: benchmarks/data/s100k.jsonl)")
    ap.add_argument("--entries", type=int, default=100_000)
    ap.add_argument("--moves", type=int, default=40)
    ap.add_argument("--size", default="160x50")
    ap.add_argument("--runs", type=int, default=1, help="repeat the whole child run (first paint varies)")
    ap.add_argument("--pi", action="store_true", help="also time pi's first /tree screen on the same file")
    ap.add_argument(
        "--cold", action="store_true", help="no persistent index (default: a private one, made before the runs)"
    )
    args = ap.parse_args()
    if args.file:
        path = Path(args.file)
    else:
        from benchmarks.common import session_file

        path = session_file(args.entries)
    env = {**os.environ, "TEXTUAL_ANIMATIONS": "none", "HOME": os.environ.get("HOME", "/root")}
    # a private persistent index (never the user's ~/.cache), made once before the runs
    import shutil
    import tempfile

    cache = tempfile.mkdtemp(prefix="loomtui-bench-app-")
    import atexit

    atexit.register(shutil.rmtree, cache, True)
    env["LOOMTUI_CACHE_DIR"] = cache
    if args.cold:
        env["LOOMTUI_NO_CACHE"] = "1"
    else:
        env.pop("LOOMTUI_NO_CACHE", None)
        subprocess.run(
            [sys.executable, "-m", "loomtui", "tree", str(path)],
            env=env,
            cwd=str(ROOT),
            stdout=subprocess.DEVNULL,
            check=True,
        )
        deadline = time.time() + 60  # written by a background child after the output
        while time.time() < deadline and not any(f.endswith(".lti") for f in os.listdir(cache)):
            time.sleep(0.1)
        time.sleep(0.5)
    from benchmarks.common import compile_bytecode

    compile_bytecode()
    results = []
    for _ in range(args.runs):
        t_spawn = time.time()
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, str(path), repr(t_spawn), args.size, str(args.moves)],
            capture_output=True,
            text=True,
            env=env,
            cwd=str(ROOT),
        )
        line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
        if line is None:
            print(proc.stdout[-2000:], proc.stderr[-4000:], file=sys.stderr)
            return 1
        results.append(json.loads(line[len("RESULT ") :]))
    r = results[0]
    fp = statistics.median(x["first_paint_s"] for x in results)
    chrome = statistics.median(x["chrome_paint_s"] for x in results)

    def verdict(value: float, target: float) -> str:
        return "ok" if value <= target else "OVER"

    print(f"file: {path} ({r['entries']:,} entries, {r['rows']:,} rows in the default filter), terminal {args.size}")
    print(
        f"first paint after launch   {fp:7.3f} s   (target <= 1.0 s: {verdict(fp, 1.0)}); "
        f"screen chrome {chrome:.3f} s, python start {r['python_start_s']:.3f} s, imports {r['imports_s']:.3f} s"
    )
    print(f"  in the loading worker: SessionManager.open {r['open_s']:.3f} s, TreeModel() {r['model_s']:.3f} s")
    rows = [
        ("no-op key (baseline)", r["noop_key"], None),
        ("cursor move", r["cursor_move"], 16),
        ("page/home/end", r["page_home_end"], None),
        ("filter switch", r["filter_switch"], 150),
        ("search keystroke", r["search_keystroke"], 50),
        ("search backspace", r["search_backspace"], 50),
    ]
    for name, s, target in rows:
        if s["median_ms"] != s["median_ms"]:  # nothing to repaint (the no-op key)
            print(f"{name:26s} no repaint; {s['cpu_median_ms']:6.1f} ms CPU per key incl. Pilot")
            continue
        tgt = f"(target <= {target} ms: {verdict(s['median_ms'], target)})" if target else ""
        print(
            f"{name:26s} {s['median_ms']:7.1f} ms median, {s['max_ms']:7.1f} ms max to the repaint; "
            f"all settled {s['last_median_ms']:6.1f} ms; {s['cpu_median_ms']:6.1f} ms CPU per key incl. Pilot  {tgt}"
        )
    print(
        f"{'  view model alone':26s} set_query {r['model_keystroke_ms']:.1f} ms median "
        f"({r['model_keystroke_max_ms']:.1f} max), backspace {r['model_backspace_ms']:.1f} ms, "
        f"set_filter {r['model_filter_ms']:.1f} ms"
    )
    print(f"{'Esc (clear search)':26s} {r['escape_clear_s'] * 1000:7.1f} ms (incl. Pilot waits)")
    print(f"{'detail pane update':26s} {r['detail_update_ms']:7.1f} ms (after a move; debounced 60 ms)")
    print(
        f"peak RSS                   {r['peak_rss_mb']:7.1f} MB  (target <= 400 MB: {verdict(r['peak_rss_mb'], 400)})"
    )
    if args.pi:
        from benchmarks.common import PI_CURRENT, pi_available, run_measured

        if not pi_available():
            print("pi: not installed (run ../shared/oracle/ensure_peer.sh)")
        else:
            wall, rss, out = run_measured(PI_CURRENT.first_screen_cmd(path), PI_CURRENT.env())
            try:
                first = json.loads(out.strip().splitlines()[-1])["total_first_screen_ms"] / 1000
            except (ValueError, KeyError, IndexError):
                first = float("nan")
            print(
                f"{PI_CURRENT.name} (this run)     first /tree screen {first:.3f} s (process {wall:.2f} s), "
                f"peak RSS {rss:.0f} MB; loomtui first paint is {first / fp:.1f}x faster, "
                f"{rss / r['peak_rss_mb']:.1f}x less memory"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
