#!/usr/bin/env python3
"""Generated socketteer looms (docs/formats.md, socketteer): a deep one and a wide one.

* ``deep``: one chain nested as deep as the size allows, each node only ``{"text": "x",
  "children": [...]}`` (26 bytes a node, no ids): 23 MB is a chain of about 950,000 nodes, the
  hostile shape (every id is made by loomtui, the JSON nests two levels a node).
* ``wide``: a loom as socketteer writes one — uuid-like ids, text segments, ``meta.source``
  (prompt, AI, mixed), ``open``/``visited``, tags (bookmarks, an archived branch), generations
  pointing into ``model_responses``, chapters — each node with up to four children.

    uv run python benchmarks/gen_socketteer.py deep OUT.json [--mb 23]
    uv run python benchmarks/gen_socketteer.py wide OUT.json [--mb 4]

Deterministic for a seed; the file is written as it is made (the deep one never exists as
Python objects).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

#: bytes of one node of the deep chain: ``{"text":"x","children":[`` and ``]}``
DEEP_NODE_BYTES = 26
WORDS = ("the", "loom", "branch", "model", "wrote", "a", "segment", "of", "story", "and", "then", "again")


def deep(path: Path, size: int) -> int:
    """A single chain of about ``size`` bytes; returns the number of nodes."""
    n = max(1, size // DEEP_NODE_BYTES)
    with open(path, "w") as f:
        f.write('{"root": ')
        f.write('{"text":"x","children":[' * n)
        f.write("]}" * n + "}")
    return n


def wide(path: Path, size: int, seed: int = 5) -> int:
    """A loom of about ``size`` bytes, each node with up to four children; returns the node count."""
    rnd = random.Random(seed)
    nodes: list[dict] = []
    root = {"id": "root-0", "text": "", "children": [], "open": True, "mutable": False}
    nodes.append(root)
    est = 0
    responses: dict[str, dict] = {}
    i = 1
    while est < size:
        parent = nodes[(i - 1) // 4]
        source = ("prompt", "AI", "AI", "mixed")[i % 4]
        text = " " + " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(4, 30)))
        node: dict = {
            "id": f"{i:08x}-165f-11ec-b847-acde48001122",
            "text": text,
            "children": [],
            "parent_id": parent["id"],
            "open": i % 3 == 0,
            "visited": i % 2 == 0,
            "meta": {"source": source, "creation_timestamp": "2021-09-15-12.00.00", "modified": False},
        }
        if source == "AI":
            gid = f"gen-{i // 8}"
            responses.setdefault(gid, {"model": "davinci", "id": gid})
            node["generation"] = {"id": gid, "index": i % 8}
        if i % 37 == 0:
            node["tags"] = ["bookmark"]
        elif i % 101 == 0:
            node["tags"] = ["archived"]
        if i % 500 == 0:
            node["chapter_id"] = f"ch{i // 500}"
        parent["children"].append(node)
        nodes.append(node)
        est += len(text) + 230
        i += 1
    chapters = {
        f"ch{k}": {"id": f"ch{k}", "root_id": nodes[min(len(nodes) - 1, k * 500)]["id"], "title": f"part {k}"}
        for k in range(1, len(nodes) // 500 + 1)
    }
    doc = {
        "root": root,
        "chapters": chapters,
        "model_responses": responses,
        "selected_node_id": nodes[-1]["id"],
        "tags": {"bookmark": {"name": "bookmark", "hide": False}, "archived": {"name": "archived", "hide": True}},
    }
    path.write_text(json.dumps(doc))
    return len(nodes)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("shape", choices=("deep", "wide"))
    ap.add_argument("out", type=Path)
    ap.add_argument("--mb", type=float, default=None, help="size in MB (deep: 23, wide: 4)")
    args = ap.parse_args()
    mb = args.mb if args.mb is not None else (23.0 if args.shape == "deep" else 4.0)
    n = (deep if args.shape == "deep" else wide)(args.out, int(mb * (1 << 20)))
    print(f"{args.out}: {n:,} nodes, {args.out.stat().st_size / (1 << 20):.1f} MB")


if __name__ == "__main__":
    main()
