#!/usr/bin/env python3
"""Reader mode on a 100k-entry session: from the reader key to the first transcript line drawn,
and until the whole branch is laid out (the header's progress), in the app (Pilot, headless).

    uv run python benchmarks/bench_reader.py [--entries 100000] [--size 160x50] [--runs 3]

Target: the first screen of the transcript within a second of the key. The session is the
generated benchmark file (shared/bench/gen_session.py); the reader opens at the leaf, the end of
a branch of about 72k conversation entries. No other tool has a reader mode to divide by, so the
figures are wall clock in one process.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.common import compile_bytecode, ms, session_file  # noqa: E402


async def reader_times(path: Path, size: tuple[int, int], runs: int) -> list[tuple[float, float, int]]:
    """(first transcript line drawn, whole branch laid out, entries) after the reader key, per run."""
    from loomtui.app.app import LoomApp
    from loomtui.app.screens.browser import BrowserScreen
    from loomtui.app.screens.reader import ReaderScreen, ReaderView

    marks: dict[str, float] = {}
    orig_line = ReaderView.render_line

    def render_line(self: ReaderView, y: int) -> Any:
        strip = orig_line(self, y)
        if "line" not in marks and strip.text.strip():
            marks["line"] = time.perf_counter()
        return strip

    ReaderView.render_line = render_line  # type: ignore[method-assign]
    app = LoomApp(str(path), watch=False)
    out = []
    async with app.run_test(size=size) as pilot:
        while not (isinstance(app.screen, BrowserScreen) and app.screen.model is not None):
            await asyncio.sleep(0.01)
        await app.workers.wait_for_complete()
        await pilot.pause(0.2)
        for _ in range(runs):
            marks.clear()
            t0 = time.perf_counter()
            app.screen.action_reader()  # type: ignore[attr-defined]
            while "line" not in marks and time.perf_counter() - t0 < 60:
                await pilot.pause(0)
            screen = app.screen
            assert isinstance(screen, ReaderScreen)
            while not screen.transcript.done and time.perf_counter() - t0 < 120:
                await pilot.pause(0.01)
            out.append((marks.get("line", float("nan")) - t0, time.perf_counter() - t0, len(screen.transcript)))
            await pilot.press("escape")
            await pilot.pause(0.1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entries", type=int, default=100_000)
    ap.add_argument("--size", default="160x50")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--file", help="a session file instead of the generated one")
    args = ap.parse_args()
    compile_bytecode()
    path = Path(args.file) if args.file else session_file(args.entries)
    w, h = (int(x) for x in args.size.split("x"))
    runs = asyncio.run(reader_times(path, (w, h), args.runs))
    first = [r[0] for r in runs]
    whole = [r[1] for r in runs]
    print(f"session: {path.name}, reader on a branch of {runs[0][2]:,} entries, {args.size}")
    print(
        f"reader key -> first transcript line drawn: median {ms(statistics.median(first))}, "
        f"max {ms(max(first))} (target <= 1 s)"
    )
    print(f"reader key -> whole branch laid out (in the background): median {ms(statistics.median(whole))}")


if __name__ == "__main__":
    main()
