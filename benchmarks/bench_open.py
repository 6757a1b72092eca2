#!/usr/bin/env python3
"""Open+index time and peak RSS of SessionManager.open on 1k / 10k / 100k-entry sessions.

    uv run python benchmarks/bench_open.py [--sizes 1000,10000,100000] [--repeat 3] [--no-pi]

Sessions come from ``../shared/bench/gen_session.py`` (deterministic, seed 1) and are kept in
``benchmarks/data/`` (gitignored) for the next run. Every measurement runs in a fresh Python
process: the figure is ``SessionManager.open`` (read + parse + index) inside it, and the peak
RSS is that process's ``ru_maxrss``. Goal at 100k entries (~150 MB): <= 0.8 s, <= 350 MB.

For comparison the same 100k file is given to the published pi (node, ``bench_ref.mjs
--first-screen-only``: open, getTree and the first /tree screen) and to ``loomtui tree`` (open,
flatten and print the whole tree), both timed as whole processes with ``/usr/bin/time``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import PI_CURRENT, PI_OLD, compile_bytecode, load_average  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DATA = ROOT / "benchmarks" / "data"
PEER = Path(os.environ.get("PI_PEER", "/tmp/peer"))

MEASURE = r"""
import json, resource, sys, time
t0 = time.perf_counter()
from loomtui.session.manager import SessionManager
from loomtui.session.split import SplitParse
t1 = time.perf_counter()
# "split": what `loomtui tree` and the app do (a child parses the tail of a big file)
split = SplitParse.start(sys.argv[1], 0.6) if sys.argv[2] == "split" else None
sm = SessionManager.open(sys.argv[1], split=split)
t2 = time.perf_counter()
print(json.dumps({"entries": len(sm.index.entries), "import_s": t1 - t0, "open_s": t2 - t1,
                  "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def session_file(entries: int) -> Path:
    path = DATA / f"session-{entries // 1000}k.jsonl"
    if not path.exists():
        DATA.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        print(f"generating {path.name} ...", file=sys.stderr, flush=True)
        subprocess.run(
            [
                sys.executable,
                str(SHARED / "bench" / "gen_session.py"),
                str(tmp),
                "--entries",
                str(entries),
                "--seed",
                "1",
            ],
            check=True,
        )
        tmp.replace(path)
    return path


def measure_open(path: Path, how: str = "one") -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, str(path), how], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def timed_process(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str] | None:
    """Whole-process wall seconds and peak RSS (MB) via /usr/bin/time, plus stdout."""
    if not Path("/usr/bin/time").exists():
        return None
    out = subprocess.run(["/usr/bin/time", "-f", "%e %M", *cmd], capture_output=True, text=True, env=env, cwd=ROOT)
    if out.returncode != 0:
        print(f"  ({' '.join(cmd[:2])} failed: {out.stderr.strip().splitlines()[-1:]})", file=sys.stderr)
        return None
    wall, kb = out.stderr.strip().splitlines()[-1].split()
    return float(wall), int(kb) / 1024, out.stdout


def main() -> int:
    os.environ["LOOMTUI_NO_CACHE"] = "1"  # plain reads (the persistent index: bench_reopen.py), no ~/.cache
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,10000,100000", help="entry counts, comma-separated")
    ap.add_argument("--repeat", type=int, default=3, help="fresh processes per size (best and median shown)")
    ap.add_argument("--no-pi", action="store_true", help="skip the pi (node) and `loomtui tree` comparison")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    compile_bytecode()

    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; each figure from a fresh process")
    print(f"{'entries':>8} {'file MB':>8} {'open+index s (best / median)':>30} {'peak RSS MB':>12} {'import s':>9}")
    largest: Path | None = None
    for n in sizes:
        path = session_file(n)
        largest = path
        runs = [measure_open(path) for _ in range(args.repeat)]
        opens = sorted(r["open_s"] for r in runs)
        rss = max(r["maxrss_mb"] for r in runs)
        print(
            f"{runs[0]['entries']:>8} {path.stat().st_size / 1e6:>8.1f} "
            f"{opens[0]:>14.3f} / {statistics.median(opens):<13.3f} {rss:>12.0f} "
            f"{statistics.median(r['import_s'] for r in runs):>9.3f}"
        )
        split_runs = [measure_open(path, "split") for _ in range(args.repeat)]
        split_opens = sorted(r["open_s"] for r in split_runs)
        print(
            f"{'':>8} {'on two CPUs':>8} {split_opens[0]:>14.3f} / {statistics.median(split_opens):<13.3f} "
            f"{max(r['maxrss_mb'] for r in split_runs):>12.0f}   (session/split.py; used from 16 MB on)"
        )
        if n == 100_000:
            best = min(opens[0], split_opens[0])
            ok_t = "meets" if best <= 0.8 else "MISSES"
            ok_m = "meets" if rss <= 350 else "MISSES"
            print(f"{'':>8} goal <= 0.8 s: {ok_t} (best {best:.3f} s); <= 350 MB: {ok_m} ({rss:.0f} MB)")

    if args.no_pi or largest is None:
        return 0
    print(f"\nwhole processes on {largest.name} (/usr/bin/time wall s, peak RSS MB):")
    print(f"  {load_average()}")
    pi = None
    for release in (PI_CURRENT, PI_OLD):
        got = timed_process(release.first_screen_cmd(largest), env=release.env()) if release.available() else None
        if got:
            detail = got[2].strip().splitlines()[-1] if got[2].strip() else ""
            print(f"  {release.name} (bench_ref.mjs --first-screen-only) {got[0]:6.2f} s {got[1]:7.0f} MB   {detail}")
            pi = pi or got
        else:
            print(f"  {release.name}: not measured (needs ../shared/oracle/ensure_peer.sh)")
    py_open = timed_process([sys.executable, "-c", MEASURE, str(largest), "one"])
    if py_open:
        print(f"  loomtui: python -c SessionManager.open      {py_open[0]:6.2f} s {py_open[1]:7.0f} MB")
    tree = timed_process(
        [sys.executable, "-m", "loomtui", "tree", str(largest), "--width", "200", "--color", "never"],
        env={**os.environ, "NO_COLOR": "1", "LOOMTUI_NO_CACHE": "1"},
    )  # a plain read
    if tree:
        print(f"  loomtui tree FILE (whole tree printed)      {tree[0]:6.2f} s {tree[1]:7.0f} MB")
    if pi and py_open:
        print(
            f"  ratio {PI_CURRENT.name} / loomtui open process: {pi[0] / py_open[0]:.1f}x time, {pi[1] / py_open[1]:.1f}x memory"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
