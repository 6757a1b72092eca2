#!/usr/bin/env python3
"""Comparing two 5k-entry branches in a 100k-entry session: the comparison model, the first
screen's layout, and the app from the ``c`` key to the compare screen's first painted line.

    uv run python benchmarks/bench_compare.py [--entries 100000] [--branch 5000] [--size 160x50]

Target (the compare issue): the first screen shows <= 300 ms after the key.

The session is the generated 100k-entry benchmark file (shared/bench/gen_session.py) with two
sibling branches of ``--branch`` entries each appended, forking from an entry in its middle:
retries of one task, user / assistant-with-tool-call / tool result / assistant cycles with usage,
about half of the entries identical between the two. No other tool compares branches, so there
is no reference figure to divide by; the figures are wall clock in one process.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.common import DATA, compile_bytecode, ms, session_file  # noqa: E402

WORDS = "the parser index test cache branch retry label tree token module fix slice split off by one".split()


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def with_branches(entries: int, branch: int) -> tuple[Path, str, str]:
    """The generated session plus two sibling branches of ``branch`` entries (made once)."""
    path = DATA / f"s{entries // 1000}k-compare-{branch}.jsonl"
    meta = path.with_suffix(".json")
    if path.exists() and meta.exists():
        m = json.loads(meta.read_text())
        return path, m["a"], m["b"]
    base = session_file(entries)
    tmp = path.with_suffix(".tmp")
    shutil.copyfile(base, tmp)
    ids = []
    with open(base, encoding="utf-8") as f:
        for line in f:
            obj = json.loads(line)
            if "id" in obj and obj.get("type") == "message":
                ids.append(obj["id"])
    fork = ids[len(ids) // 2]
    rng = random.Random(7)
    leaves = []
    with open(tmp, "a", encoding="utf-8") as out:
        for side in "ab":
            parent = fork
            clock = 0
            k = 0
            while k < branch:
                cycle = k // 4
                shared = random.Random(cycle)  # the same content on both sides...
                own = rng if (cycle % 2 and side == "b") else shared  # ...except every other cycle on B
                for kind in ("user", "assistant", "toolResult", "assistant"):
                    if k >= branch:
                        break
                    eid = f"{side}{k:07x}"
                    clock += 1500
                    ts = (
                        f"2026-02-01T{clock // 3_600_000 % 24:02d}:{clock // 60_000 % 60:02d}:"
                        f"{clock // 1000 % 60:02d}.{clock % 1000:03d}Z"
                    )
                    if kind == "user":
                        msg: dict[str, Any] = {"role": "user", "content": _text(own, 12)}
                    elif kind == "toolResult":
                        msg = {
                            "role": "toolResult",
                            "toolCallId": f"c{side}{k}",
                            "toolName": "read",
                            "content": [{"type": "text", "text": _text(own, 120)}],
                            "isError": False,
                        }
                    else:
                        content: list[Any] = [{"type": "text", "text": _text(own, 40)}]
                        if k % 4 == 1:
                            content.append(
                                {
                                    "type": "toolCall",
                                    "id": f"c{side}{k + 1}",
                                    "name": "read",
                                    "arguments": {"path": f"src/{own.choice(WORDS)}.py"},
                                }
                            )
                        msg = {
                            "role": "assistant",
                            "content": content,
                            "stopReason": "toolUse" if k % 4 == 1 else "stop",
                            "usage": {
                                "input": 1000,
                                "output": 200,
                                "cacheRead": 0,
                                "cacheWrite": 0,
                                "totalTokens": 1200,
                                "cost": {"total": 0.004},
                            },
                        }
                    out.write(
                        json.dumps({"type": "message", "id": eid, "parentId": parent, "timestamp": ts, "message": msg})
                        + "\n"
                    )
                    parent = eid
                    k += 1
            leaves.append(parent)
    tmp.rename(path)
    meta.write_text(json.dumps({"a": leaves[0], "b": leaves[1]}))
    return path, leaves[0], leaves[1]


async def app_first_screen(path: Path, a: str, b: str, size: tuple[int, int], runs: int) -> list[tuple[float, float]]:
    """(first compare line rendered, first paint after it) after the ``c`` key, per run."""
    from loomtui.app.app import LoomApp
    from loomtui.app.screens.browser import BrowserScreen
    from loomtui.app.screens.compare import CompareScreen, CompareView

    marks: dict[str, float] = {}
    orig_line = CompareView.render_line

    def render_line(self: CompareView, y: int) -> Any:
        if self.layout_ is not None and "line" not in marks:
            marks["line"] = time.perf_counter()
        return orig_line(self, y)

    CompareView.render_line = render_line  # type: ignore[method-assign]
    orig_display = LoomApp._display

    def display(self: LoomApp, screen: Any, renderable: Any) -> Any:
        if "line" in marks and "paint" not in marks and renderable is not None:
            marks["paint"] = time.perf_counter()
        return orig_display(self, screen, renderable)

    LoomApp._display = display  # type: ignore[method-assign]
    app = LoomApp(str(path), watch=False)
    out = []
    async with app.run_test(size=size) as pilot:
        while not (isinstance(app.screen, BrowserScreen) and app.screen.model is not None):
            await asyncio.sleep(0.01)
        screen = app.screen
        await app.workers.wait_for_complete()
        await pilot.pause(0.2)
        for _ in range(runs):
            screen.model.marked_id = a
            screen.model.select_id(b)
            screen.tree.selection_changed()
            await pilot.pause(0.1)
            marks.clear()
            t0 = time.perf_counter()
            await pilot.press("c")
            while "paint" not in marks and time.perf_counter() - t0 < 10:
                await pilot.pause(0)
            out.append((marks.get("line", float("nan")) - t0, marks.get("paint", float("nan")) - t0))
            assert isinstance(app.screen, CompareScreen)
            await pilot.press("escape")
            await pilot.pause(0.1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entries", type=int, default=100_000)
    ap.add_argument("--branch", type=int, default=5000)
    ap.add_argument("--size", default="160x50")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    compile_bytecode()
    path, a, b = with_branches(args.entries, args.branch)
    from loomtui.session.manager import SessionManager
    from loomtui.view.compare import compare
    from loomtui.view.compare_layout import CompareLayout

    t = time.perf_counter()
    sm = SessionManager.open(str(path))
    print(f"session: {path.name}, {len(sm.index.entries):,} entries (open {ms(time.perf_counter() - t)})")
    model_times, layout_times = [], []
    for _ in range(args.runs):
        t = time.perf_counter()
        cmp = compare(sm, a, b)
        model_times.append(time.perf_counter() - t)
        t = time.perf_counter()
        lay = CompareLayout(cmp, int(args.size.split("x")[0]))
        for y in range(int(args.size.split("x")[1])):
            lay.row(y)
        layout_times.append(time.perf_counter() - t)
    print(
        f"branches: {cmp.totals_a.entries:,} and {cmp.totals_b.entries:,} entries after the common ancestor, "
        f"{len(cmp.pairs):,} aligned pairs, {cmp.changed_count():,} not identical"
    )
    print(
        f"comparison model (load, align, totals): median {ms(statistics.median(model_times))}, "
        f"best {ms(min(model_times))}"
    )
    print(f"first screen layout ({args.size}): median {ms(statistics.median(layout_times))}")
    w, h = (int(x) for x in args.size.split("x"))
    runs = asyncio.run(app_first_screen(path, a, b, (w, h), args.runs))
    lines = [r[0] for r in runs]
    paints = [r[1] for r in runs]
    print(f"app, c key -> first compare line drawn: median {ms(statistics.median(lines))}, max {ms(max(lines))}")
    print(
        f"app, c key -> first screen painted: median {ms(statistics.median(paints))}, max {ms(max(paints))} "
        f"(target <= 300 ms)"
    )


if __name__ == "__main__":
    main()
