"""pi's buildSessionContext with every message decoded: the reference that loomtui's streaming
``SessionManager.session_context_plan`` (what ``loomtui context`` prints) is checked against."""

from __future__ import annotations

from loomtui.session.context import SessionContext, build_session_context
from loomtui.session.manager import SessionManager


def built_context(sm: SessionManager, leaf_id: str | None = None) -> SessionContext:
    """The context at ``leaf_id`` (default: the session's leaf); an unknown leaf gives none."""
    leaf = leaf_id if leaf_id is not None else sm.get_leaf_id()
    return build_session_context(sm.index.path_to(leaf) if leaf is not None else [], sm.load)
