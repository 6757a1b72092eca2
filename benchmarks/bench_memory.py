#!/usr/bin/env python3
"""Peak memory per MB of input, for each format loomtui reads (and for a bundle export).

    uv run python benchmarks/bench_memory.py [--mb 4] [--keep]

Inputs are generated into a temporary directory at about ``--mb`` megabytes each (and at half
that, to show the growth is linear): a pi session, a pi session whose lines nest 2,000 levels
deep, an OpenLoom v2 document, a socketteer loom (wide), a socketteer loom that is one chain
nested as deep as the file allows, and an OpenLoom bundle of a few KB whose media member
expands to 64 MB (exported to a new bundle: streamed, so its memory does not follow the media).

Each figure is a fresh ``loomtui info FILE`` (or ``export-openloom``) process timed with
``/usr/bin/time``: wall seconds, peak RSS, and (peak RSS − the RSS of ``loomtui info`` on a
tiny file) ÷ input MB.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOOMTUI = [sys.executable, "-m", "loomtui"]


def _pi_session(path: Path, size: int, deep: bool = False) -> None:
    rnd = random.Random(1)
    with open(path, "w") as f:
        f.write(json.dumps({"type": "session", "version": 3, "id": "bench", "timestamp": "2026-01-01T00:00:00.000Z",
                            "cwd": "/bench"}) + "\n")
        parent = None
        i = 0
        while f.tell() < size:
            eid = f"{i:08x}"
            role = "user" if i % 2 == 0 else "assistant"
            text = " ".join(rnd.choice(("loom", "tree", "branch", "label", "tool", "read")) for _ in range(60))
            block = {"type": "text", "text": text}
            if deep and i % 10 == 0:
                block["x"] = "@DEEP@"  # replaced by 2,000 nested arrays below
            line = json.dumps({"type": "message", "id": eid, "parentId": parent, "timestamp": "t",
                               "message": {"role": role, "content": [block]}})
            f.write(line.replace('"@DEEP@"', "[" * 2000 + "]" * 2000) + "\n")
            if rnd.random() < 0.9:
                parent = eid
            i += 1


def _openloom(path: Path, size: int) -> None:
    nodes: dict[str, dict] = {}
    edges: list[dict] = []
    i = 0
    est = 0
    while est < size:
        nid = f"n{i}"
        nodes[nid] = {"id": nid, "content": [{"type": "text", "text": "segment of text " * 20}], "role": "model"}
        if i:
            edges.append({"id": f"e{i}", "type": "continuation", "sources": [{"nodeId": f"n{(i - 1) // 3}"}],
                          "targets": [{"nodeId": nid}]})
        est += 480
        i += 1
    doc = {"format": "open-loom", "version": "2.0", "trees": [{"id": "t", "rootNodeIds": ["n0"], "nodes": nodes,
                                                                 "edges": edges}]}
    path.write_text(json.dumps(doc))


def _socketteer_wide(path: Path, size: int) -> None:
    root = {"text": "", "children": []}
    frontier = [root]
    est = 0
    i = 0
    while est < size:
        node = {"id": f"n{i}", "text": "segment %d of a loom " % i * 3, "children": []}
        frontier[i // 4]["children"].append(node) if i // 4 < len(frontier) else root["children"].append(node)
        frontier.append(node)
        est += 90
        i += 1
    path.write_text(json.dumps({"root": root}))


def _socketteer_deep(path: Path, size: int) -> None:
    n = size // 80
    with open(path, "w") as f:
        f.write('{"root": ')
        for i in range(n):
            f.write('{"id": "n%d", "text": "segment %d of one long chain", "children": [' % (i, i))
        f.write("]}" * n + "}")


def _bomb_bundle(path: Path, _size: int) -> None:
    doc = {"format": "open-loom", "version": "2.0", "trees": [{"id": "t", "rootNodeIds": ["a"], "nodes": {
        "a": {"id": "a", "role": "human", "content": [{"type": "text", "text": "hi"},
                                                        {"type": "image", "ref": "media/big.png",
                                                         "mimeType": "image/png"}]}}, "edges": []}]}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("tree.openloom", json.dumps(doc))
        with z.open("media/big.png", "w") as m:
            block = b"\0" * (1 << 20)
            for _ in range(64):
                m.write(block)


def _measure(argv: list[str]) -> tuple[float, int]:
    """(wall seconds, peak RSS in KB) of one process."""
    r = subprocess.run(["/usr/bin/time", "-f", "%e %M", *argv], capture_output=True, text=True, cwd=ROOT,
                       env={**os.environ, "LOOMTUI_NO_CACHE": "1"})  # a plain read, never the user's cache
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {r.stderr.strip()[-400:]}")
    wall, kb = r.stderr.strip().splitlines()[-1].split()
    return float(wall), int(kb)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=4.0, help="size of the larger input of each format (MB)")
    ap.add_argument("--keep", action="store_true", help="keep the generated inputs (printed path)")
    args = ap.parse_args()
    if not shutil.which("/usr/bin/time"):
        raise SystemExit("needs /usr/bin/time")
    tmp = Path(tempfile.mkdtemp(prefix="loomtui-bench-mem-"))
    try:
        tiny = tmp / "tiny.jsonl"
        _pi_session(tiny, 2000)
        _, base_kb = _measure([*LOOMTUI, "info", str(tiny)])
        print(f"baseline: loomtui info on a tiny session, peak RSS {base_kb / 1024:.0f} MB")
        print(f"{'format':<34}{'input MB':>9}{'seconds':>9}{'peak MB':>9}{'MB per input MB':>17}")
        formats: list[tuple[str, str, Callable[[Path, int], None], str]] = [
            ("pi session", "jsonl", _pi_session, "info"),
            ("pi session, lines 2000 deep", "jsonl", lambda p, s: _pi_session(p, s, deep=True), "info"),
            ("OpenLoom v2 document", "json", _openloom, "info"),
            ("socketteer loom, wide", "json", _socketteer_wide, "info"),
            ("socketteer loom, one deep chain", "json", _socketteer_deep, "info"),
        ]
        for name, ext, make, cmd in formats:
            for frac in (0.5, 1.0):
                path = tmp / f"{name.replace(' ', '_').replace(',', '')}-{frac}.{ext}"
                make(path, int(args.mb * frac * (1 << 20)))
                mb = path.stat().st_size / (1 << 20)
                wall, kb = _measure([*LOOMTUI, cmd, str(path)])
                print(f"{name:<34}{mb:>9.1f}{wall:>9.2f}{kb / 1024:>9.0f}{(kb - base_kb) / 1024 / mb:>17.1f}")
        bundle = tmp / "bomb.zip"
        _bomb_bundle(bundle, 0)
        mb = bundle.stat().st_size / (1 << 20)
        wall, kb = _measure([*LOOMTUI, "export-openloom", str(bundle), "-o", str(tmp / "out.zip")])
        print(f"{'bundle export (media: 64 MB)':<34}{mb:>9.2f}{wall:>9.2f}{kb / 1024:>9.0f}"
              f"{(kb - base_kb) / 1024 / 64:>17.2f}  (per MB of media)")
    finally:
        if args.keep:
            print(f"inputs kept in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
