"""Shared material for the loom format tests (imported as ``loomkit``): fixture paths, hand-made OpenLoom v2 documents,
and a checker for the spec's structural invariants (OpenLoom v2 §4.1)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from tests.shared_material import SHARED

LOOM = SHARED / "fixtures" / "loom"
SOCKETTEER_DEMO = LOOM / "socketteer-loom_demo.json"
OPENLOOM_V1 = LOOM / "openloom-v1-existence-of-claude.openloom.json"
PI_SESSION = SHARED / "fixtures" / "pi" / "dnouri-browse-session.jsonl"

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(8))


def png_uri(data: bytes = PNG) -> str:
    return "data:image/png;base64," + base64.b64encode(data).decode()


def sample_v2() -> dict[str, Any]:
    """A v2 container exercising the mapping: roles, media, unknown blocks and edge types,
    a hyperedge, an annotation, pruning, several roots, bookmarks, unknown fields.

    Topology (edge order = sibling order): r → b (e1) → b1 (e4); r → a (e2) → c (e3);
    {c primary, b context} → s (e6); s → m (e7); annotation a → n (e5); x-link c → u (e8).
    Roots: r, n, u. Current node: m.
    """
    return {
        "format": "open-loom",
        "version": "2.0",
        "exportedAt": "2025-01-02T03:04:05.000Z",
        "generator": {"name": "aspen-grove", "version": "0.9"},
        "x-doc-field": {"kept": True},
        "agents": {
            "claude": {
                "name": "Claude",
                "type": "model",
                "modelRef": "openrouter:anthropic/claude-sonnet-4.5",
                "configuration": {"systemPrompt": "You are helpful.", "temperature": 0.7},
            },
        },
        "trees": [
            {
                "id": "tree-1",
                "title": "Demo",
                "description": "a hand-made tree",
                "mode": "dialogue",
                "systemContext": "Speak plainly.",
                "rootNodeIds": ["r", "n", "u"],
                "currentNodeId": "m",
                "createdAt": "2025-01-01T00:00:00.000Z",
                "updatedAt": "2025-01-01T01:00:00.000Z",
                "x-tree-field": [1, 2, 3],
                "nodes": {
                    "r": {
                        "id": "r",
                        "content": [{"type": "text", "text": "Once upon a time"}],
                        "author": {"role": "human", "name": "Ann"},
                        "createdAt": "2025-01-01T00:00:01.000Z",
                        "meta": {"bookmarked": True, "bookmarkLabel": "start"},
                    },
                    "a": {
                        "id": "a",
                        "content": [{"type": "text", "text": "there was a loom"}],
                        "author": {"role": "model", "agentId": "claude"},
                        "createdAt": "2025-01-01T00:00:02.000Z",
                        "generation": {
                            "provider": "openrouter",
                            "model": "anthropic/claude-sonnet-4.5",
                            "usage": {"promptTokens": 10, "completionTokens": 5, "totalTokens": 15},
                            "contentHash": "sha256:00ff",
                            "hashAlgorithm": "sha256",
                            "rawResponse": {"bodyHash": "sha256:abcd", "encoding": "identity"},
                            "x-gen": "kept",
                        },
                    },
                    "b": {
                        "id": "b",
                        "content": [{"type": "text", "text": "there was a dragon"}],
                        "author": {"role": "model", "agentId": "claude"},
                        "meta": {"pruned": True},
                    },
                    "b1": {"id": "b1", "content": [{"type": "text", "text": "who slept"}], "author": {"role": "human"}},
                    "c": {
                        "id": "c",
                        "content": [{"type": "text", "text": "woven by hand"}],
                        "author": {"role": "mixed", "agentId": "claude"},
                        "editedFrom": "a",
                        "meta": {"excluded": True, "tags": ["keeper"], "rating": 2, "note": "good turn"},
                        "extensions": {"com.example": {"color": "blue"}},
                        "x-node-field": "kept",
                    },
                    "n": {
                        "id": "n",
                        "content": [
                            {"type": "text", "text": "a note"},
                            {
                                "type": "image",
                                "ref": png_uri(),
                                "mimeType": "image/png",
                                "width": 2,
                                "height": 2,
                                "altText": "a cat",
                            },
                        ],
                        "author": {"role": "human"},
                    },
                    "s": {"id": "s", "content": [{"type": "text", "text": "Be terse."}], "author": {"role": "system"}},
                    "m": {
                        "id": "m",
                        "content": [{"type": "text", "text": "The end."}],
                        "author": {"role": "model", "agentId": "claude"},
                    },
                    "u": {
                        "id": "u",
                        "content": [{"type": "diagram", "spec": "a -> b"}, {"type": "text", "text": "tool output"}],
                        "author": {"role": "tool"},
                    },
                },
                "edges": [
                    {
                        "id": "e1",
                        "type": "continuation",
                        "sources": [{"nodeId": "r", "role": "primary"}],
                        "targetNodeId": "b",
                    },
                    {
                        "id": "e2",
                        "type": "continuation",
                        "sources": [{"nodeId": "r", "role": "primary"}],
                        "targetNodeId": "a",
                    },
                    {
                        "id": "e3",
                        "type": "continuation",
                        "sources": [{"nodeId": "a", "role": "primary"}],
                        "targetNodeId": "c",
                        "createdAt": "2025-01-01T00:00:03.000Z",
                    },
                    {"id": "e4", "type": "continuation", "sources": [{"nodeId": "b"}], "targetNodeId": "b1"},
                    {
                        "id": "e5",
                        "type": "annotation",
                        "sources": [{"nodeId": "a", "role": "primary"}],
                        "targetNodeId": "n",
                    },
                    {
                        "id": "e6",
                        "type": "continuation",
                        "sources": [{"nodeId": "c", "role": "primary"}, {"nodeId": "b", "role": "context"}],
                        "targetNodeId": "s",
                        "extensions": {"com.example": {"weight": 1}},
                    },
                    {
                        "id": "e7",
                        "type": "continuation",
                        "sources": [{"nodeId": "s", "role": "primary"}],
                        "targetNodeId": "m",
                    },
                    {
                        "id": "e8",
                        "type": "x-link",
                        "sources": [{"nodeId": "c", "role": "primary"}],
                        "targetNodeId": "u",
                    },
                ],
                "tags": [{"name": "keeper", "color": "#7A9E7E"}],
                "extensions": {"com.example": {"hoisted": ["a"]}},
            },
            {
                "id": "tree-2",
                "title": "Second",
                "rootNodeIds": ["x"],
                "nodes": {
                    "x": {"id": "x", "content": [{"type": "text", "text": "alone"}], "author": {"role": "human"}}
                },
                "edges": [],
            },
        ],
        "extensions": {"com.example": {"doc": 1}},
    }


def write_json(path: Path, obj: Any) -> Path:
    path.write_text(json.dumps(obj, indent=2), encoding="utf-8")
    return path


def check_invariants(doc: dict[str, Any]) -> dict[str, dict[str, list[str]]]:
    """Assert OpenLoom v2 §4.1 on every tree; returns tree id → parent → children in edge order."""
    assert doc["format"] == "open-loom"
    assert isinstance(doc["version"], str) and doc["version"].startswith("2.")
    doc_agents = doc.get("agents") or {}
    out: dict[str, dict[str, list[str]]] = {}
    for tree in doc["trees"]:
        nodes = tree["nodes"]
        assert isinstance(nodes, dict) and nodes
        for key, node in nodes.items():
            assert node["id"] == key
            assert isinstance(node["content"], list)
            assert isinstance(node["author"], dict) and "role" in node["author"]
        edge_ids = [e["id"] for e in tree["edges"] if "id" in e]
        assert len(edge_ids) == len(set(edge_ids))
        assert not set(edge_ids) & set(nodes)
        parent: dict[str, str] = {}
        children: dict[str, list[str]] = {}
        for e in tree["edges"]:
            assert e["targetNodeId"] in nodes
            assert e["sources"]
            for s in e["sources"]:
                assert s["nodeId"] in nodes
            if e["type"] == "continuation":
                assert e["targetNodeId"] not in parent, "two continuation edges into one node"
                primary = next(s["nodeId"] for s in e["sources"] if s.get("role", "primary") == "primary")
                parent[e["targetNodeId"]] = primary
                children.setdefault(primary, []).append(e["targetNodeId"])
        roots = [n for n in nodes if n not in parent]
        assert sorted(tree["rootNodeIds"]) == sorted(roots)
        assert len(set(tree["rootNodeIds"])) == len(tree["rootNodeIds"])
        if "currentNodeId" in tree:
            assert tree["currentNodeId"] in nodes
        for n in nodes:  # no cycles: every node reaches a root
            seen = set()
            while n in parent:
                assert n not in seen
                seen.add(n)
                n = parent[n]
        defined = {t["name"] for t in tree.get("tags", [])}
        agents = {**doc_agents, **(tree.get("agents") or {})}
        for node in nodes.values():
            for t in (node.get("meta") or {}).get("tags", []):
                assert t in defined
            aid = node["author"].get("agentId")
            if aid is not None:
                assert aid in agents
            if "editedFrom" in node:
                assert node["editedFrom"] in nodes
        out[tree["id"]] = children
    return out
