#!/usr/bin/env python3
"""Reading and exporting big looms in-process: OpenLoom v2 and socketteer documents.

    uv run python benchmarks/bench_loom_open.py [--nodes 100000] [--runs 5]

Two documents are generated in memory (parsed JSON, so the JSON parser is not timed):

* an OpenLoom v2 container of ``--nodes`` nodes: every third node a model node with an agent,
  generation and usage, bookmarks, tags, a pruned branch, hyperedges (a context source beside the
  primary one) and annotation edges;
* a socketteer loom of ``--nodes`` nodes nested under ``root``, four children per node, with
  ``meta.source``, tags, legacy flags, generations and chapters.

Printed per phase, best and median of ``--runs``: the v2 tree read (``open_document``: nodes,
edges, cycles, roots, one entry per node, the manager), the socketteer conversion alone
(``socketteer.to_tree``, the whole-tree conversion), the socketteer open (a skeleton per node,
``formats/looms/socketteer_read.py``, each full entry made when asked), and the OpenLoom
export of each (``build_document``, whole tree). ``BENCH_SRC=DIR`` imports loomtui from another
checkout, to time two versions of the code in the same run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get("BENCH_SRC") or os.path.dirname(HERE))

from loomtui.formats.detect import open_document  # noqa: E402
from loomtui.formats.looms import socketteer  # noqa: E402
from loomtui.formats.looms.export import build_document  # noqa: E402


def openloom_doc(n: int) -> dict[str, Any]:
    nodes: dict[str, dict[str, Any]] = {}
    edges: list[dict[str, Any]] = []
    for i in range(n):
        nid = f"n{i}"
        node: dict[str, Any] = {
            "id": nid,
            "content": [{"type": "text", "text": f"segment {i} of the loom " * 4}],
            "createdAt": "2025-01-01T00:00:01.000Z",
        }
        if i % 3 == 1:
            node["author"] = {"role": "model", "agentId": "claude"}
            node["generation"] = {"usage": {"promptTokens": 10, "completionTokens": 20, "totalTokens": 30}}
        else:
            node["author"] = {"role": "human", "name": "Ann"}
        meta: dict[str, Any] = {}
        if i % 50 == 0:
            meta["bookmarked"] = True
            meta["bookmarkLabel"] = f"mark {i}"
        if i % 7 == 0:
            meta["tags"] = ["keep"]
        if i == n // 2:
            meta["pruned"] = True
        if meta:
            node["meta"] = meta
        nodes[nid] = node
        if i:
            sources = [{"nodeId": f"n{(i - 1) // 4}", "role": "primary"}]
            if i % 11 == 0 and i > 2:
                sources.append({"nodeId": f"n{i - 2}", "role": "context"})
            edges.append({"id": f"e{i}", "type": "continuation", "sources": sources, "targetNodeId": nid})
        if i % 13 == 5:
            edges.append(
                {"id": f"a{i}", "type": "annotation", "sources": [{"nodeId": f"n{i - 1}"}], "targetNodeId": nid}
            )
    tree = {
        "id": "t",
        "title": "bench",
        "mode": "dialogue",
        "rootNodeIds": ["n0"],
        "currentNodeId": f"n{n - 1}",
        "createdAt": "2025-01-01T00:00:00.000Z",
        "tags": [{"name": "keep"}],
        "nodes": nodes,
        "edges": edges,
    }
    return {
        "format": "open-loom",
        "version": "2.0",
        "agents": {"claude": {"name": "Claude", "type": "model", "modelRef": "anthropic:claude"}},
        "trees": [tree],
    }


def socketteer_doc(n: int) -> dict[str, Any]:
    root: dict[str, Any] = {"id": "n0", "text": "Once", "children": []}
    flat = [root]
    for i in range(1, n):
        node: dict[str, Any] = {
            "id": f"n{i}",
            "text": f" segment {i}",
            "children": [],
            "meta": {"source": "AI" if i % 2 else "prompt"},
            "visited": True,
        }
        if i % 9 == 0:
            node["tags"] = ["bookmark"]
        if i % 17 == 0:
            node["archived"] = True
        if i % 2:
            node["generation"] = {"id": f"g{i % 100}", "index": i % 4}
        if i % 25 == 0:
            node["chapter_id"] = "c1"
        flat[(i - 1) // 4]["children"].append(node)
        flat.append(node)
    responses = {f"g{k}": {"model": "davinci"} for k in range(100)}
    return {
        "root": root,
        "tags": {"hidden": {"hide": True}},
        "model_responses": responses,
        "chapters": {"c1": {"title": "One", "root_id": "n25"}},
        "selected_node_id": f"n{n - 1}",
    }


def timed(fn: Callable[[], Any], runs: int) -> tuple[float, float, float, float, Any]:
    """Best and median wall seconds, best and median CPU seconds (the machine may be shared:
    CPU time is the steadier figure), and the last result."""
    walls: list[float] = []
    cpus: list[float] = []
    out: Any = None
    for _ in range(runs):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return min(walls), statistics.median(walls), min(cpus), statistics.median(cpus), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default="", help="time only the phases whose name contains this (e.g. 'v2 open')")
    args = ap.parse_args()
    v2 = openloom_doc(args.nodes)
    st = socketteer_doc(args.nodes)
    print(
        f"loomtui from {os.path.dirname(sys.modules['loomtui'].__file__ or '')}; {args.nodes:,} nodes, "
        f"{args.runs} runs: wall best / median, CPU best / median"
    )
    phases: list[tuple[str, Callable[[], Any]]] = [
        ("OpenLoom v2 open (read, entries, manager)", lambda: open_document(v2, None)),
        ("socketteer to_tree", lambda: socketteer.to_tree(st, "bench", [])),
        ("socketteer open (a skeleton per node)", lambda: open_document(st, None)),
    ]
    results: dict[str, Any] = {}
    for name, fn in phases:  # every open runs (the exports need them); only the chosen are repeated
        chosen = args.only in name
        *figures, results[name] = timed(fn, args.runs if chosen else 1)
        if chosen:
            _print(name, figures)
    exports = (
        ("OpenLoom v2 export (build_document)", phases[0][0]),
        ("socketteer export (build_document)", phases[2][0]),
    )
    for name, opened in exports:
        if args.only in name:
            sm = results[opened]
            *figures, _doc = timed(lambda: build_document(sm), args.runs)  # noqa: B023 (called right here)
            _print(name, figures)


def _print(name: str, figures: list[float]) -> None:
    wb, wm, cb, cm = (f * 1000 for f in figures)
    print(f"  {name:<44} {wb:8.1f} / {wm:8.1f} ms   CPU {cb:8.1f} / {cm:8.1f} ms", flush=True)


if __name__ == "__main__":
    main()
