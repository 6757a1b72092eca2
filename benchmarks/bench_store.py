#!/usr/bin/env python3
"""The picker over a 5 GB store of 2,000 sessions, most of the bytes in a few huge image sessions.

    uv run python benchmarks/bench_store.py [--sessions 2000] [--huge 10] [--huge-size 480M] [--keep DIR]

The store is generated into a temporary directory (deleted afterwards unless ``--keep``):
``--sessions`` minus ``--huge`` ordinary sessions as benchmarks/bench_picker.py makes them, and
``--huge`` image sessions of ``--huge-size`` each (benchmarks/gen_image_session.py ``--hole``:
a few real screenshots at both ends and one giant image whose data is a file hole, so the
store costs a few hundred MB of disk for 5 GB of apparent size; reading the hole costs no disk
I/O but all the CPU and memory of real bytes). Each huge session sits in its own project
directory.

Each listing is a fresh process (``catalog.list_sessions`` + ``group_sessions``, no summary
cache: the first listing a user sees): wall time, peak RSS, and the bytes it read (``rchar`` of
``/proc/self/io``). Three ways, interleaved:

* loomtui: huge files read in windows (session/catalog_window.py);
* loomtui reading every file whole (``WINDOW_LIMIT`` raised: what it did before; first run only);
* pi's ``SessionManager.listAll`` (what ``/resume`` lists), on the same store
  (``PI_CODING_AGENT_DIR``), with node's heap capped at ``--pi-heap`` MB so that a failure
  stays a failure and does not take the machine's memory.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_picker import make_session  # noqa: E402
from benchmarks.common import PEER, PI_CURRENT, pi_available  # noqa: E402
from benchmarks.gen_image_session import generate, parse_size  # noqa: E402

CHILD = r"""
import json, resource, sys, time
t = time.perf_counter()
from loomtui.session import catalog, catalog_window, lineage
if sys.argv[2] == "whole":
    catalog_window.WINDOW_LIMIT = 1 << 62
def rchar():
    with open("/proc/self/io") as f:
        return int(next(l for l in f if l.startswith("rchar")).split()[1])
r0 = rchar()
sessions = catalog.list_sessions([sys.argv[1]], cache=False)
groups = lineage.group_sessions(sessions)
print("RESULT " + json.dumps({"wall": time.perf_counter() - t, "read": rchar() - r0, "sessions": len(sessions),
      "partial": sum(1 for s in sessions if s.partial), "projects": len(groups),
      "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

PI_CHILD = r"""
import { join } from "node:path"; import { pathToFileURL } from "node:url";
const pkg = (process.env.PI_PEER || "/tmp/peer") + "/node_modules/" + (process.env.PI_PKG || "@earendil-works/pi-coding-agent") + "/dist";
const { SessionManager } = await import(pathToFileURL(join(pkg, "core/session-manager.js")).href);
const t = performance.now();
const sessions = await SessionManager.listAll();
console.log("RESULT " + JSON.stringify({wall: (performance.now() - t) / 1000, sessions: sessions.length}));
"""


def make_store(root: Path, sessions: int, huge: int, huge_size: int) -> None:
    sessions_dir = root / "agent" / "sessions"
    sessions_dir.mkdir(parents=True)
    rng = random.Random(2000)
    made: list[tuple[str, str, str]] = []
    for n in range(sessions - huge):
        made.append(make_session(rng, str(sessions_dir), n, made))
    for k in range(huge):
        project = sessions_dir / f"--home-dev-screens{k:02d}--"
        project.mkdir()
        generate(
            str(project / f"2026-02-0{1 + k % 9}T10-00-00-000Z_huge{k:02d}.jsonl"),
            huge_size,
            seed=k + 1,
            hole=True,
            cwd=f"/home/dev/screens{k:02d}",
        )


def store_size(root: Path) -> tuple[int, int, int]:
    files = [p for p in root.rglob("*.jsonl")]
    return len(files), sum(p.stat().st_size for p in files), sum(p.stat().st_blocks * 512 for p in files)


def ours(store: Path, mode: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(store), mode],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "LOOMTUI_NO_CACHE": "1"},
    )
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])  # type: ignore[no-any-return]
    raise SystemExit(f"listing failed: {out.stderr[-2000:]}")


def pi(root: Path, heap_mb: int) -> dict[str, object]:
    probe = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, p.returncode)\n"
        "print(p.stdout[-300:]); print(p.stderr[:300]); print(p.stderr[-300:])\n"
    )
    env = {**os.environ, "PI_CODING_AGENT_DIR": str(root / "agent"), "PI_PEER": str(PEER), "PI_PKG": PI_CURRENT.package}
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            probe,
            str(PI_CURRENT.node),
            f"--max-old-space-size={heap_mb}",
            "--input-type=module",
            "-e",
            PI_CHILD,
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    first, *rest = out.stdout.splitlines()
    wall, kb, rc = first.split()
    result: dict[str, object] = {"wall": float(wall), "rss": int(kb) / 1024, "ok": rc == "0"}
    for line in rest:
        if line.startswith("RESULT "):
            result.update(json.loads(line[7:]))
    if rc != "0":
        why = [ln for ln in rest if "heap" in ln.lower() or "Error" in ln or "error" in ln]
        result["why"] = (why[0] if why else rest[-1] if rest else "")[:160]
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", type=int, default=2000)
    ap.add_argument("--huge", type=int, default=10)
    ap.add_argument("--huge-size", default="480M")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--pi-heap", type=int, default=4096, help="node --max-old-space-size for pi (MB)")
    ap.add_argument("--no-pi", action="store_true")
    ap.add_argument("--keep", help="generate into (and keep) this directory")
    a = ap.parse_args()
    root = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="loomtui-bench-store-"))
    try:
        if not (root / "agent").exists():
            t = time.perf_counter()
            make_store(root, a.sessions, a.huge, parse_size(a.huge_size))
            print(f"generated in {time.perf_counter() - t:.0f} s")
        n, apparent, disk = store_size(root)
        print(
            f"store: {n} sessions, {apparent / 1e9:.2f} GB ({disk / 1e6:.0f} MB on disk), {a.huge} huge image "
            f"sessions of {a.huge_size}"
        )
        store = root / "agent" / "sessions"
        with_pi = pi_available() and not a.no_pi
        rows: dict[str, list[dict[str, object]]] = {"windows": [], "whole": [], "pi": []}
        for run in range(a.runs):
            rows["windows"].append(ours(store, "windows"))
            if run == 0:  # the reference for what listing cost before: once is enough
                rows["whole"].append(ours(store, "whole"))
            if with_pi:
                rows["pi"].append(pi(root, a.pi_heap))
        for name, label in (("windows", "loomtui, huge files in windows"), ("whole", "loomtui, every file read whole")):
            r = rows[name]
            print(
                f"{label:<32} {min(x['wall'] for x in r):6.2f} s best, {statistics.median(x['wall'] for x in r):6.2f} s"
                f" median, peak {max(x['rss'] for x in r):5.0f} MB, read {r[0]['read'] / 1e6:7.0f} MB, "
                f"{r[0]['sessions']} sessions ({r[0]['partial']} from windows)"
            )
        if with_pi:
            r = rows["pi"]
            ok = [x for x in r if x["ok"]]
            if ok:
                print(
                    f"{'pi SessionManager.listAll':<32} {min(x['wall'] for x in ok):6.2f} s best, "
                    f"{statistics.median(x['wall'] for x in ok):6.2f} s median, peak {max(x['rss'] for x in ok):5.0f} MB,"
                    f" {ok[0].get('sessions')} sessions"
                )
                pairs = [w["wall"] / p["wall"] for w, p in zip(rows["windows"], r) if p["ok"]]
                print(
                    f"ratio (windows / pi): time {statistics.median(pairs):.3f}x median of pairs; peak RSS "
                    f"{max(x['rss'] for x in rows['windows']) / max(x['rss'] for x in ok):.3f}x"
                )
            if len(ok) < len(r):
                bad = [x for x in r if not x["ok"]]
                print(
                    f"{'pi SessionManager.listAll':<32} FAILED {len(bad)}/{len(r)} runs after "
                    f"{statistics.median(x['wall'] for x in bad):.1f} s, peak {max(x['rss'] for x in bad):.0f} MB: "
                    f"{bad[0].get('why')}"
                )
    finally:
        if not a.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
