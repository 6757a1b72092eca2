"""The parent session (Ctrl+G), as the session controller offers it: the session a fork was
made from (its header's ``parentSession``, or a v1 file's ``branchedFrom``, found by
``session/lineage.py``), or the session the source says this one is part of without being a fork
(``Source.parent``: a Claude Code subagent run's session, at the run's row); or why there is none,
in the source's words. A mixin of ``SessionController`` (``view/controller.py``)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from loomtui.session.catalog import parent_reference
from loomtui.session.lineage import find_session_file, searched_folders
from loomtui.session.manager import SessionManager
from loomtui.session.source import PI, ParentSession, Source
from loomtui.view.outcomes import Outcome
from loomtui.view.words import not_a_fork

TITLE = "Open parent session"


class ParentIntents:
    """Mixed into ``SessionController``."""

    manager: SessionManager

    if TYPE_CHECKING:  # the controller's own

        @property
        def source(self) -> Source: ...
        @property
        def path(self) -> str | None: ...

    def parent_ref(self) -> str | None:
        """The header's ``parentSession`` (or a v1 file's ``branchedFrom``), else the session the
        source says this one is part of (``Source.parent``: a subagent run's); None: neither."""
        ref = parent_reference(self.manager.header)
        part_of = self.source.parent
        return part_of.ref if ref is None and part_of is not None else ref

    @property
    def not_a_fork(self) -> str:
        """Why Ctrl+G opens nothing on a session that is not a fork, in this source's words."""
        src = self.source
        return not_a_fork(None if src.kind == PI else src.display_name)

    def find_parent(self) -> Outcome:
        """Where the parent session is (``path``; ``select``: the entry to open it at, where the
        source names one), or why it cannot be opened. Reads directories: call it off the UI thread."""
        ref = parent_reference(self.manager.header)
        part_of = self.source.parent
        if ref is None and part_of is not None:
            return _find_whole(part_of)
        if ref is None:
            return Outcome().note(self.not_a_fork, TITLE)
        try:
            found = find_session_file(ref, near=self.path)
        except Exception as exc:  # a broken sessions directory must not take the app down
            return Outcome(error=exc).note(f"Cannot look for the parent session {ref}: {exc}", TITLE, "error", 8)
        if found is None:
            return Outcome().note(
                f"The parent session {ref} is not on this machine (looked next to this file and in "
                f"{searched_folders()}).",
                TITLE,
                "warning",
                8,
            )
        if self.path is not None and os.path.abspath(found) == os.path.abspath(self.path):
            return Outcome().note("The header names this file as its own parent.", TITLE, "warning", 6)
        return Outcome(path=found)


def _find_whole(part_of: ParentSession) -> Outcome:
    """The session this one is part of (a subagent run's), opened at the row it hangs under; its
    file may be this one (an inline run is a part of its session's file)."""
    try:
        found = part_of.find()
    except Exception as exc:  # a broken sessions directory must not take the app down
        return Outcome(error=exc).note(f"Cannot look for the session {part_of.ref}: {exc}", TITLE, "error", 8)
    if found is None:
        return Outcome().note(part_of.missing, TITLE, "warning", 8)
    return Outcome(path=found, select=part_of.at)
