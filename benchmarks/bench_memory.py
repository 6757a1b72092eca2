#!/usr/bin/env python3
"""Peak memory per MB of input, for each format loomtui reads (and for a bundle export).

    uv run python benchmarks/bench_memory.py [--mb 4] [--deep-mb 23] [--commands info,tree]
                                             [--only socketteer] [--keep]

Inputs are generated into a temporary directory at about ``--mb`` megabytes each (and at half
that, to show the growth is linear): a pi session, a pi session whose lines nest 2,000 levels
deep, an oh-my-pi session (title line, ``blob:`` image references), an OpenLoom v2 document, a
socketteer loom as socketteer writes one (wide: ids, sources, tags, generations, chapters;
``benchmarks/gen_socketteer.py wide``), a socketteer loom that is one chain nested as deep as
the file allows (with ids and texts), an OCP run, a Claude Code session, a Codex rollout, a list
of Maitento configurations, the hostile socketteer chain of 950,000 nodes without ids in 23 MB
(``--deep-mb``; ``gen_socketteer.py deep``), and an OpenLoom bundle of a few KB whose media
member expands to 64 MB (exported to a new bundle: streamed, so its memory does not follow the
media).

Each figure is a fresh process timed with ``/usr/bin/time`` — ``loomtui info FILE`` and
``loomtui tree --no-cache FILE`` (every row printed, to /dev/null), both cold: no persistent
index, ``LOOMTUI_CACHE_DIR`` and ``HOME`` temporary — giving wall seconds, peak RSS, and (peak
RSS − the RSS of the same command on a tiny file) ÷ input MB.
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
sys.path.insert(0, str(ROOT))

from benchmarks import gen_socketteer  # noqa: E402


def _pi_session(path: Path, size: int, deep: bool = False) -> None:
    rnd = random.Random(1)
    with open(path, "w") as f:
        f.write(
            json.dumps(
                {
                    "type": "session",
                    "version": 3,
                    "id": "bench",
                    "timestamp": "2026-01-01T00:00:00.000Z",
                    "cwd": "/bench",
                }
            )
            + "\n"
        )
        parent = None
        i = 0
        while f.tell() < size:
            eid = f"{i:08x}"
            role = "user" if i % 2 == 0 else "assistant"
            text = " ".join(rnd.choice(("loom", "tree", "branch", "label", "tool", "read")) for _ in range(60))
            block = {"type": "text", "text": text}
            if deep and i % 10 == 0:
                block["x"] = "@DEEP@"  # replaced by 2,000 nested arrays below
            line = json.dumps(
                {
                    "type": "message",
                    "id": eid,
                    "parentId": parent,
                    "timestamp": "t",
                    "message": {"role": role, "content": [block]},
                }
            )
            f.write(line.replace('"@DEEP@"', "[" * 2000 + "]" * 2000) + "\n")
            if rnd.random() < 0.9:
                parent = eid
            i += 1


def _omp_session(path: Path, size: int) -> None:
    """An oh-my-pi session: the title line, a header with a title, and every tenth message an
    image whose bytes are a ``blob:sha256:`` reference (docs/formats.md, oh-my-pi)."""
    rnd = random.Random(2)
    with open(path, "w") as f:
        f.write(json.dumps({"type": "title", "title": "bench".ljust(64)}) + "\n")
        f.write(
            json.dumps(
                {
                    "type": "session",
                    "version": 3,
                    "id": "bench-omp",
                    "title": "bench",
                    "timestamp": "2026-01-01T00:00:00.000Z",
                    "cwd": "/bench",
                }
            )
            + "\n"
        )
        parent = None
        i = 0
        while f.tell() < size:
            eid = f"{i:08x}"
            role = "user" if i % 2 == 0 else "assistant"
            text = " ".join(rnd.choice(("loom", "tree", "branch", "label", "tool", "read")) for _ in range(60))
            content: list[dict] = [{"type": "text", "text": text}]
            if i % 10 == 0 and role == "user":
                content.append({"type": "image", "mimeType": "image/png", "data": "blob:sha256:" + "ab" * 32})
            f.write(
                json.dumps(
                    {
                        "type": "message",
                        "id": eid,
                        "parentId": parent,
                        "timestamp": "t",
                        "message": {"role": role, "content": content},
                    }
                )
                + "\n"
            )
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
            edges.append(
                {
                    "id": f"e{i}",
                    "type": "continuation",
                    "sources": [{"nodeId": f"n{(i - 1) // 3}"}],
                    "targets": [{"nodeId": nid}],
                }
            )
        est += 480
        i += 1
    doc = {
        "format": "open-loom",
        "version": "2.0",
        "trees": [{"id": "t", "rootNodeIds": ["n0"], "nodes": nodes, "edges": edges}],
    }
    path.write_text(json.dumps(doc))


def _socketteer_wide(path: Path, size: int) -> None:
    gen_socketteer.wide(path, size)


def _socketteer_deep(path: Path, size: int) -> None:
    n = size // 80
    with open(path, "w") as f:
        f.write('{"root": ')
        for i in range(n):
            f.write(f'{{"id": "n{i}", "text": "segment {i} of one long chain", "children": [')
        f.write("]}" * n + "}")


def _ocp(path: Path, size: int) -> None:
    nodes, attempts, edges = [], [], []
    for i in range(size // 330):  # a node, its attempt and an edge: about 330 bytes
        nid = f"n{i}"
        nodes.append({"id": nid, "kind": "task", "title": f"step {i} of the run"})
        attempts.append(
            {
                "id": f"a{i}",
                "node": nid,
                "n": 1,
                "status": "succeeded",
                "started_at": "2026-01-01T00:00:00Z",
                "ended_at": "2026-01-01T00:01:00Z",
                "summary": "did the step " * 10,
            }
        )
        if i:
            edges.append({"from": f"n{i - 1}", "to": nid, "kind": "dep"})
    doc = {
        "ocp": "0.3",
        "producer": {"name": "bench", "version": "1"},
        "run": {"id": "r", "title": "bench"},
        "nodes": nodes,
        "attempts": attempts,
        "edges": edges,
    }
    path.write_text(json.dumps(doc))


def _claude(path: Path, size: int) -> None:
    with open(path, "w") as f:
        parent = None
        i = 0
        while f.tell() < size:
            uid = f"00000000-0000-4000-8000-{i:012d}"
            role = "user" if i % 2 == 0 else "assistant"
            msg = (
                {"role": "user", "content": "please look at the loom " * 8}
                if role == "user"
                else {"role": "assistant", "content": [{"type": "text", "text": "the loom has branches " * 8}]}
            )
            f.write(
                json.dumps(
                    {
                        "type": role,
                        "uuid": uid,
                        "parentUuid": parent,
                        "sessionId": "bench",
                        "timestamp": "2026-01-01T00:00:00.000Z",
                        "cwd": "/bench",
                        "message": msg,
                    }
                )
                + "\n"
            )
            parent = uid
            i += 1


def _codex(path: Path, size: int) -> None:
    with open(path, "w") as f:
        f.write(
            json.dumps(
                {
                    "timestamp": "2026-01-01T00:00:00.000Z",
                    "type": "session_meta",
                    "payload": {"id": "bench", "cwd": "/bench", "timestamp": "2026-01-01T00:00:00.000Z"},
                }
            )
            + "\n"
        )
        i = 0
        while f.tell() < size:
            if i % 2 == 0:
                item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "look " * 40}]}
            else:
                item = {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "ok " * 60}],
                }
            f.write(
                json.dumps({"timestamp": "2026-01-01T00:00:01.000Z", "type": "response_item", "payload": item}) + "\n"
            )
            i += 1


def _maitento(path: Path, size: int) -> None:
    items = []
    i = 0
    while 190 * len(items) < size:
        items.append(
            {
                "name": f"interaction-{i}",
                "loom": {
                    "enabled": True,
                    "scope": "Input",
                    "scopeInput": "user",
                    "seedFromLoomId": f"11111111-2222-4333-8444-{i % 1000:012d}",
                    "readFromLoomIds": [],
                },
            }
        )
        i += 1
    path.write_text(json.dumps(items))


def _bomb_bundle(path: Path, _size: int) -> None:
    doc = {
        "format": "open-loom",
        "version": "2.0",
        "trees": [
            {
                "id": "t",
                "rootNodeIds": ["a"],
                "nodes": {
                    "a": {
                        "id": "a",
                        "role": "human",
                        "content": [
                            {"type": "text", "text": "hi"},
                            {"type": "image", "ref": "media/big.png", "mimeType": "image/png"},
                        ],
                    }
                },
                "edges": [],
            }
        ],
    }
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("tree.openloom", json.dumps(doc))
        with z.open("media/big.png", "w") as m:
            block = b"\0" * (1 << 20)
            for _ in range(64):
                m.write(block)


def _measure(argv: list[str], tmp: Path) -> tuple[float, int]:
    """(wall seconds, peak RSS in KB) of one process, cold: no persistent index, a temporary
    cache directory and HOME (nothing is read from or written to the user's)."""
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    env = {**os.environ, "LOOMTUI_NO_CACHE": "1", "LOOMTUI_CACHE_DIR": str(tmp / "cache"), "HOME": str(home)}
    with tempfile.TemporaryFile() as err:
        r = subprocess.run(
            ["/usr/bin/time", "-f", "%e %M", *argv], stdout=subprocess.DEVNULL, stderr=err, cwd=ROOT, env=env
        )
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {stderr.strip()[-400:]}")
    wall, kb = stderr.strip().splitlines()[-1].split()
    return float(wall), int(kb)


#: the commands measured: ``loomtui info FILE`` and ``loomtui tree --no-cache FILE``
COMMANDS = {"info": ["info"], "tree": ["tree", "--no-cache"]}


def _row(name: str, cmd: str, mb: float, wall: float, kb: int, base_kb: int, note: str = "") -> None:
    print(
        f"{name:<34}{cmd:>6}{mb:>9.1f}{wall:>9.2f}{kb / 1024:>9.0f}{(kb - base_kb) / 1024 / mb:>17.1f}{note}",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=4.0, help="size of the larger input of each format (MB)")
    ap.add_argument("--keep", action="store_true", help="keep the generated inputs (printed path)")
    ap.add_argument(
        "--deep-mb",
        type=float,
        default=23.0,
        help="size of the compact deep socketteer chain (23 MB: 950,000 nodes; 0 skips it)",
    )
    ap.add_argument("--commands", default="info,tree", help="which of info,tree to measure (comma-separated)")
    ap.add_argument("--only", default="", help="measure only the formats whose name contains this")
    args = ap.parse_args()
    if not shutil.which("/usr/bin/time"):
        raise SystemExit("needs /usr/bin/time")
    commands = [c for c in args.commands.split(",") if c]
    unknown = [c for c in commands if c not in COMMANDS]
    if unknown:
        raise SystemExit(f"unknown command(s): {', '.join(unknown)} (info, tree)")
    tmp = Path(tempfile.mkdtemp(prefix="loomtui-bench-mem-"))
    try:
        tiny = tmp / "tiny.jsonl"
        _pi_session(tiny, 2000)
        base: dict[str, int] = {}
        for cmd in commands:
            _, base[cmd] = _measure([*LOOMTUI, *COMMANDS[cmd], str(tiny)], tmp)
            print(f"baseline: loomtui {cmd} on a tiny session, peak RSS {base[cmd] / 1024:.0f} MB")
        print(f"{'format':<34}{'cmd':>6}{'input MB':>9}{'seconds':>9}{'peak MB':>9}{'MB per input MB':>17}")
        formats: list[tuple[str, str, Callable[[Path, int], None]]] = [
            ("pi session", "jsonl", _pi_session),
            ("pi session, lines 2000 deep", "jsonl", lambda p, s: _pi_session(p, s, deep=True)),
            ("oh-my-pi session", "jsonl", _omp_session),
            ("OpenLoom v2 document", "json", _openloom),
            ("socketteer loom, wide", "json", _socketteer_wide),
            ("socketteer loom, one deep chain", "json", _socketteer_deep),
            ("OCP run", "ocp.json", _ocp),
            ("Claude Code session", "jsonl", _claude),
            ("Codex rollout", "jsonl", _codex),
            ("Maitento configurations (a list)", "json", _maitento),
        ]
        for name, ext, make in formats:
            if args.only.lower() not in name.lower():
                continue
            for frac in (0.5, 1.0):
                path = tmp / f"{name.replace(' ', '_').replace(',', '')}-{frac}.{ext}"
                make(path, int(args.mb * frac * (1 << 20)))
                mb = path.stat().st_size / (1 << 20)
                for cmd in commands:
                    wall, kb = _measure([*LOOMTUI, *COMMANDS[cmd], str(path)], tmp)
                    _row(name, cmd, mb, wall, kb, base[cmd])
                path.unlink()
        name = f"socketteer, {int(args.deep_mb * (1 << 20)) // gen_socketteer.DEEP_NODE_BYTES:,} nodes deep"
        if args.deep_mb and args.only.lower() in name.lower():
            # the hostile case: one chain of 950,000 nodes without ids in 23 MB
            path = tmp / "socketteer-deep-compact.json"
            gen_socketteer.deep(path, int(args.deep_mb * (1 << 20)))
            mb = path.stat().st_size / (1 << 20)
            for cmd in commands:
                wall, kb = _measure([*LOOMTUI, *COMMANDS[cmd], str(path)], tmp)
                _row(name, cmd, mb, wall, kb, base[cmd])
        if args.only.lower() in "bundle export":
            bundle = tmp / "bomb.zip"
            _bomb_bundle(bundle, 0)
            mb = bundle.stat().st_size / (1 << 20)
            wall, kb = _measure([*LOOMTUI, "export-openloom", str(bundle), "-o", str(tmp / "out.zip")], tmp)
            base_kb = base.get("info", min(base.values()))
            print(
                f"{'bundle export (media: 64 MB)':<34}{'export':>6}{mb:>9.2f}{wall:>9.2f}{kb / 1024:>9.0f}"
                f"{(kb - base_kb) / 1024 / 64:>17.2f}  (per MB of media)"
            )
    finally:
        if args.keep:
            print(f"inputs kept in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
