#!/usr/bin/env python3
"""Live follow on a 100k-entry session: one appended entry, from the write to an updated view.

    uv run python benchmarks/bench_live.py [--trials 20] [--app]

Goal (issue 5): on screen within 100 ms of the write, with ≤ 20 ms of CPU for the update.

1. update: ``SessionManager.refresh()`` (read and index the new bytes) + ``TreeModel.entries_changed``
   + drawing the visible rows (``row_segments`` for one screen of rows), wall and CPU, per append.
2. watcher: the same update driven by ``loomtui.app.watch.follow_file``: time from just before
   the ``write`` to the end of the update (includes the watch latency).
3. ``--app``: the real app headless (``LoomApp`` with live follow): time from the write until the
   browser's model shows the new leaf, and until the browser's compositor has rendered it.

Works on a private copy ``benchmarks/data/live-100k.jsonl`` (made from ``s100k.jsonl``, or
generated with ``/work/shared/bench/gen_session.py``) and truncates it back afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
DATA = os.path.join(HERE, "data")
SOURCE = os.path.join(DATA, "s100k.jsonl")
WORK = os.path.join(DATA, "live-100k.jsonl")
GEN = "/work/shared/bench/gen_session.py"
SCREEN_ROWS = 40


def ensure_file() -> None:
    os.makedirs(DATA, exist_ok=True)
    if not os.path.exists(SOURCE):
        print(f"generating {SOURCE} …", flush=True)
        subprocess.run([sys.executable, GEN, SOURCE, "--entries", "100000"], check=True)
    if not os.path.exists(WORK) or os.path.getsize(WORK) != os.path.getsize(SOURCE):
        shutil.copyfile(SOURCE, WORK)


def entry_line(parent: str | None, n: int) -> bytes:
    now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    msg = {
        "role": "assistant",
        "content": [{"type": "text", "text": f"live append number {n}: " + "word " * 60}],
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
        "usage": {"input": 10, "output": 70},
        "stopReason": "stop",
        "timestamp": int(time.time() * 1000),
    }
    obj = {"type": "message", "id": uuid.uuid4().hex[:8], "parentId": parent, "timestamp": now, "message": msg}
    return (json.dumps(obj, separators=(",", ":")) + "\n").encode()


def write_line(data: bytes) -> None:
    fd = os.open(WORK, os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def draw_screen(model) -> None:  # type: ignore[no-untyped-def]
    """What the tree widget does after an update: the visible rows' segments."""
    top = max(0, model.selected - SCREEN_ROWS // 2)
    for i in range(top, min(len(model), top + SCREEN_ROWS)):
        model.row_segments(i)


def summary(name: str, values: list[float], goal: float | None = None) -> str:
    ms = sorted(v * 1000 for v in values)
    med, worst = statistics.median(ms), ms[-1]
    p90 = ms[min(len(ms) - 1, int(len(ms) * 0.9))]
    tail = (
        f"  goal ≤ {goal:.0f} ms: {'met' if worst <= goal else 'MISSED (worst)' if med <= goal else 'MISSED'}"
        if goal
        else ""
    )
    return f"{name:38s} median {med:7.2f} ms   p90 {p90:7.2f} ms   max {worst:7.2f} ms{tail}"


def bench_update(trials: int) -> None:
    from loomtui.session.manager import SessionManager
    from loomtui.view.model import TreeModel

    t = time.perf_counter()
    sm = SessionManager.open(WORK)
    opened = time.perf_counter() - t
    t = time.perf_counter()
    model = TreeModel(sm, page_size=SCREEN_ROWS)
    built = time.perf_counter() - t
    print(f"open {len(sm.index.entries):,} entries: {opened:.2f} s; TreeModel: {built:.2f} s; rows {len(model):,}")

    refresh_cpu, model_cpu, draw_cpu, total_cpu, total_wall = [], [], [], [], []
    for n in range(trials):
        write_line(entry_line(sm.get_leaf_id(), n))
        w0, c0 = time.perf_counter(), time.process_time()
        fresh = sm.refresh()
        c1 = time.process_time()
        model.entries_changed(fresh, leaf_id=sm.get_leaf_id())
        c2 = time.process_time()
        draw_screen(model)
        c3, w3 = time.process_time(), time.perf_counter()
        assert len(fresh) == 1 and model.leaf_id == fresh[0].id
        refresh_cpu.append(c1 - c0)
        model_cpu.append(c2 - c1)
        draw_cpu.append(c3 - c2)
        total_cpu.append(c3 - c0)
        total_wall.append(w3 - w0)
    print(summary("manager.refresh() CPU", refresh_cpu))
    print(summary("TreeModel.entries_changed() CPU", model_cpu))
    print(summary(f"draw {SCREEN_ROWS} visible rows CPU", draw_cpu))
    print(summary("update total CPU", total_cpu, 20))
    print(summary("update total wall", total_wall))

    # the same, driven by the directory watcher
    async def watched() -> list[float]:
        from loomtui.app.watch import follow_file

        done: asyncio.Queue[float] = asyncio.Queue()

        def on_change(_change: str) -> None:
            fresh = sm.refresh()
            if fresh:
                model.entries_changed(fresh, leaf_id=sm.get_leaf_id())
                draw_screen(model)
                done.put_nowait(time.perf_counter())

        task = asyncio.create_task(follow_file(WORK, on_change))
        await asyncio.sleep(0.2)
        out = []
        for n in range(trials):
            t0 = time.perf_counter()
            write_line(entry_line(sm.get_leaf_id(), 1000 + n))
            t1 = await asyncio.wait_for(done.get(), 5)
            out.append(t1 - t0)
            await asyncio.sleep(0.05)
        task.cancel()
        return out

    print(summary("write → watcher → updated view (wall)", asyncio.run(watched()), 100))


def bench_app(trials: int) -> None:
    """The real app: the watcher, ``apply_appended`` and the screen update, per append.

    "painted" is when the browser screen's compositor has rendered the update (what a terminal
    is then sent): ``Screen._compositor_refresh`` is timed on the browser. "pilot.pause()" is
    the older figure: it also waits for Textual's idle check (``wait_for_idle`` sleeps at least
    20 ms), so it is an upper bound."""
    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
    from loomtui.app.app import LoomApp
    from loomtui.app.screens.browser import BrowserScreen

    async def run() -> dict[str, list[float]]:
        app = LoomApp(WORK, watch=True)
        out: dict[str, list[float]] = {"model": [], "painted": [], "paused": [], "cpu": [], "paint": []}
        missed: list[int] = []
        applied: list[float] = []
        paints: list[tuple[float, float]] = []
        original = BrowserScreen.apply_appended

        def timed(self: BrowserScreen) -> None:
            c0 = time.process_time()
            original(self)
            out["cpu"].append(time.process_time() - c0)
            applied.append(time.perf_counter())

        BrowserScreen.apply_appended = timed  # type: ignore[method-assign]
        async with app.run_test(size=(120, 40)) as pilot:
            t = time.perf_counter()
            while not (isinstance(app.screen, BrowserScreen) and app.screen.model is not None):
                await pilot.pause(0.05)
            screen = app.screen
            # every worker but the file watcher (it runs until the screen closes; an empty list
            # would make wait_for_complete wait for every worker, the watcher included)
            others = [w for w in app.workers if w.group != "session-watch"]
            if others:
                await app.workers.wait_for_complete(others)
            print(f"app: opened in {time.perf_counter() - t:.1f} s (120×40, headless)")
            compositor_refresh = screen._compositor_refresh

            def timed_refresh() -> None:
                p0 = time.perf_counter()
                compositor_refresh()
                paints.append((p0, time.perf_counter()))

            screen._compositor_refresh = timed_refresh  # type: ignore[method-assign]
            await pilot.pause(0.5)
            for n in range(trials + 1):
                assert screen.manager is not None
                line = entry_line(screen.manager.index.leaf_id, 2000 + n)
                eid = json.loads(line)["id"]
                applied.clear()
                paints.clear()
                t0 = time.perf_counter()
                write_line(line)
                while screen.model is None or screen.model.leaf_id != eid or not applied:
                    await asyncio.sleep(0.001)
                    if time.perf_counter() - t0 > 5:
                        break
                if time.perf_counter() - t0 > 5:
                    missed.append(n)
                    await pilot.pause(0.1)
                    continue
                t1 = applied[-1]
                while not any(p0 >= t1 for p0, _p1 in paints) and time.perf_counter() - t0 < 5:
                    await asyncio.sleep(0.001)
                p0, t2 = next(((p0, p1) for p0, p1 in paints if p0 >= t1), (t1, float("nan")))
                await pilot.pause()
                t3 = time.perf_counter()
                for key, value in (("model", t1 - t0), ("painted", t2 - t0), ("paused", t3 - t0), ("paint", t2 - p0)):
                    out[key].append(value)
                await pilot.pause(0.1)
        BrowserScreen.apply_appended = original  # type: ignore[method-assign]
        if missed:
            print(f"app: {len(missed)} append(s) not shown within 5 s (trials {missed})")
        return out

    r = asyncio.run(run())
    print(
        f"app: first append after opening: model {r['model'][0] * 1000:.0f} ms, painted "
        f"{r['painted'][0] * 1000:.0f} ms, apply_appended CPU {r['cpu'][0] * 1000:.0f} ms"
    )
    print(summary("app: apply_appended() CPU", r["cpu"][1:], 20))
    print(summary("app: compositor render of the update", r["paint"][1:]))
    print(summary("app: write → model has the new leaf", r["model"][1:]))
    print(summary("app: write → pilot.pause() returned", r["paused"][1:]))
    print(summary("app: write → screen painted", r["painted"][1:], 100))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--app", action="store_true", help="also measure the real app (headless)")
    a = ap.parse_args()
    ensure_file()
    size = os.path.getsize(WORK)
    try:
        bench_update(a.trials)
        if a.app:
            bench_app(a.trials)
    finally:
        with open(WORK, "r+b") as f:
            f.truncate(size)


if __name__ == "__main__":
    main()
