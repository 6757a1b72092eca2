"""A pi session as an OpenLoom v2 tree, for ``looms/export.py`` (docs/formats.md, "OpenLoom").

Its entries become nodes as ``looms/pi_nodes.py`` writes them; settings entries (model/thinking
changes, custom, labels, session_info) are not nodes. The header goes to ``extensions.pi``.
"""

from __future__ import annotations

from typing import Any

from loomtui.formats.base.common import iso_ms, new_ulid, parse_iso
from loomtui.formats.looms.pi_nodes import PI_NODE_TYPES, pi_node
from loomtui.session.ids import now_iso
from loomtui.session.manager import SessionManager

__all__ = ["PI_NODE_TYPES", "pi_node", "system_prompt", "tree_from_pi"]


def system_prompt(entries: list[dict[str, Any]]) -> str | None:
    for d in entries:
        if d.get("type") == "session_init":
            sp = d.get("systemPrompt")
            if isinstance(sp, list):
                sp = "\n".join(x for x in sp if isinstance(x, str))
            if isinstance(sp, str) and sp:
                return sp
    return None


def tree_from_pi(
    manager: SessionManager,
    branch: bool,
    nodes: dict[str, dict[str, Any]],
    edges: list[dict[str, Any]],
    roots: list[str],
    current: str | None,
    leaf_id: str | None,
    agents: dict[str, Any],
    entries: list[dict[str, Any]],
) -> dict[str, Any]:
    """The v2 Tree of a pi session: its header goes to ``extensions.pi``."""
    header = manager.get_header()
    sid = header.get("id") if isinstance(header.get("id"), str) and header.get("id") else None
    name = manager.get_session_name() or (header.get("title") if isinstance(header.get("title"), str) else "")
    tree: dict[str, Any] = {"id": new_ulid() if branch or sid is None else sid, "title": name or "", "mode": "dialogue"}
    sp = system_prompt(entries)
    if sp:
        tree["systemContext"] = sp
    tree["rootNodeIds"] = roots
    if current is not None:
        tree["currentNodeId"] = current
    created = parse_iso(header.get("timestamp"))
    if created is not None:
        tree["createdAt"] = iso_ms(created)
    tree["updatedAt"] = now_iso()
    tree["nodes"] = nodes
    tree["edges"] = edges
    if agents:
        tree["agents"] = agents
    ext: dict[str, Any] = {"pi": {"header": header}}
    if branch:
        ext["loomtui"] = {"source": {"sessionId": sid, "path": manager.path, "nodeId": leaf_id}}
    tree["extensions"] = ext
    return tree
