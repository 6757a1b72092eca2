"""A loom's entries in its own words (``Source.entry_words``): nodes, by who wrote them — an
OpenLoom node's author role, a socketteer node's ``meta.source`` — not pi's ``message`` and
``custom_message`` entries they are inside loomtui."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from loomtui.formats.looms.socketteer import SOURCE_TO_ROLE
from loomtui.session.entries import Entry
from loomtui.session.source import EntryKind, EntryWords

#: the author role an entry's pi role stands for, where the entry keeps no node (``ROLE_TO_PI``
#: read back; a mixed node is an assistant message that says so in its node)
_PI_TO_ROLE = {"user": "human", "assistant": "model"}
#: a socketteer ``meta.source`` by the author role it was read as
_ROLE_TO_SOURCE = {role: source for source, role in SOURCE_TO_ROLE.items()}
#: the role a node without one is given (``custom_message`` with customType "node")
_NO_ROLE = "node"


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def author_role(e: Entry) -> str | None:
    """The node's author role (``human``, ``model``, ``mixed``, ``system``, …); None: none."""
    if e.data is not None:
        role = _dict(_dict(e.data.get("openloom")).get("author")).get("role")
        if isinstance(role, str) and role:
            return role
    if e.type == "custom_message":
        return e.aux if isinstance(e.aux, str) and e.aux and e.aux != _NO_ROLE else None
    return _PI_TO_ROLE.get(e.role or "")


def openloom_kind(e: Entry) -> EntryKind:
    return EntryKind("node", "nodes", author_role(e) or "no author")


def socketteer_kind(e: Entry) -> EntryKind:
    """A socketteer node by its ``meta.source`` ("AI", "prompt"), read from the node the
    skeleton keeps (``socketteer_read.LoomNodeEntry``), else from its author role."""
    node = getattr(e, "node", None)
    if isinstance(node, dict):
        source = _dict(node.get("meta")).get("source")
        return EntryKind("node", "nodes", source if isinstance(source, str) and source else "no source")
    role = author_role(e)
    return EntryKind("node", "nodes", _ROLE_TO_SOURCE.get(role or "", role) or "no source")


def _heading(none: str) -> Callable[[dict[str, Any]], str | None]:
    def heading(m: dict[str, Any]) -> str | None:
        """A node pi sends as a custom message, by its role ("system"), or a node of none."""
        if m.get("role") != "custom":
            return None
        role = m.get("customType")
        return f"node ({none})" if role in (None, "", _NO_ROLE) else str(role)

    return heading


OPENLOOM_WORDS = EntryWords(openloom_kind, _heading("no author"))
SOCKETTEER_WORDS = EntryWords(socketteer_kind, _heading("no source"))
