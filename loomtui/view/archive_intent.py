"""Archiving a branch (Alt+A), as the session controller offers it: where a source keeps the
records (a pi file's appended record, a loom's in memory, or not offered), what cannot be
archived said before any question, the question in the source's words, the write. A mixin of
``SessionController`` (``view/controller.py``); the records themselves are ``view/archive.py``'s."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from loomtui.session.entries import Entry
from loomtui.session.errors import WriteRefused
from loomtui.session.manager import SessionManager
from loomtui.session.source import MEMORY, Source
from loomtui.view.archive import protected_path, set_archived
from loomtui.view.model import TreeModel
from loomtui.view.outcomes import Outcome, Question
from loomtui.view.words import counted

T = TypeVar("T")


class ArchiveIntents:
    """Mixed into ``SessionController``."""

    manager: SessionManager
    model: TreeModel
    key_names: dict[str, str]
    _own_writes: set[str]

    if TYPE_CHECKING:  # the controller's own

        @property
        def source(self) -> Source: ...
        @property
        def agent(self) -> str: ...
        def entry(self, entry_id: str | None) -> Entry | None: ...
        def preview(self, e: Entry) -> str: ...
        def _sync(self, *, detail: bool = False) -> Outcome: ...
        def _guard(self, what: str, fn: Callable[[], T]) -> T | Outcome: ...

    @property
    def archive_keeps(self) -> str | None:
        """Where archiving goes: ``"file"`` (a record appended to a pi file), ``"memory"`` (a
        loom's records stay in loomtui, as its labels do), None: not offered (a session loomtui
        never writes, a pi file of an old version, rows without a conversation leaf: an OCP run)."""
        src = self.source
        if src.can_append:
            return "file"
        in_memory = src.labels == MEMORY and src.leaf_moves and self.manager.append_refusal() is None
        return "memory" if in_memory else None

    @property
    def archive_refusal(self) -> str:
        """Why archiving is not offered (where ``archive_keeps`` is None), in the source's words."""
        src = self.source
        if src.is_pi_file and src.read_only_reason:
            return src.read_only_reason
        if src.leaf_moves:
            return f"loomtui never writes {src.a_name}"
        # rows without a conversation leaf (an OCP run): no branches, as a branch export says
        return f"{src.a_name} is not a conversation, so it has no branch to archive"

    def toggle_archived(self) -> Outcome:
        """Alt+R: show or hide the archived branches; where nothing is archived and archiving is
        not offered, there is nothing to toggle, and the notice says why."""
        model = self.model
        n = len(model.archive.ids())
        if n == 0 and self.archive_keeps is None:
            return Outcome().note(
                f"No branch is archived, and archiving is not offered: {self.archive_refusal}.", timeout=5
            )
        model.set_show_archived(not model.show_archived)
        state = "shown" if model.show_archived else "hidden"
        return Outcome(rows=True).note(f"Archived branches {state} ({n} archived).", timeout=3)

    def archive_intent(self, entry_id: str) -> Outcome:
        """Alt+A: what cannot be archived is said before any question (a source that is never
        written, the active path, inside an archived branch); else the question, in the
        source's words, whose yes writes the record (``set_archived``)."""
        e, model, src = self.entry(entry_id), self.model, self.source
        keeps, not_done = self.archive_keeps, "Archive: not done"
        if e is None:
            return Outcome()
        if keeps is None:
            return Outcome().note(f"Archiving is not offered: {self.archive_refusal}.", not_done, "warning", 6)
        restore = model.archive.is_archived(e.id)
        if not restore and model.archive.archived_above(e.id) is not None:
            return Outcome().note("This entry is inside an archived branch: restore the branch at its top.", timeout=6)
        if not restore and e.id in protected_path(self.manager, model.leaf_id):
            who = f"the conversation {self.agent} continues" if keeps == "file" else "the branch the leaf ends"
            return Outcome().note(
                f"{e.id} is on the active path ({who}): move the leaf to another branch first.", not_done, "warning", 6
            )
        at = model.flat.position(e.id) or 0
        n = counted(model.flat.end(at) - at, "entry", "entries")
        row = "  " + self.preview(e)
        keys = self.key_names
        again = f"{keys['archive']} on the entry (shown with {keys['show-archived']}) restores it."
        if keeps == "file":
            body = (
                f"Append one record restoring the branch at {e.id}\n{row}\nto the default views."
                if restore
                else f"Append one record hiding the branch at {e.id} ({n}) from the default views\n{row}\n"
                f"The file is not rewritten: {self.agent} ignores the record; {again}"
            )
        else:
            body = (
                f"Show the branch at {e.id} in the default views again\n{row}"
                if restore
                else f"Hide the branch at {e.id} ({n}) from the default views\n{row}\nIn memory only: loomtui "
                f"never writes archive records into {src.a_name}, so it shows again when next opened; {again}"
            )
        title, button = ("Restore this branch?", "Restore") if restore else ("Archive this branch?", "Archive")
        return Outcome(ask=Question(title, body, button, lambda: self.set_archived(e.id, not restore)))

    def set_archived(self, entry_id: str, archived: bool) -> Outcome:
        """Archive (hide) or restore the branch at ``entry_id``: one record after the file's last
        entry (view/archive.py), refused on the active path; the view's leaf does not move."""

        def run() -> Outcome:
            refusal = self.manager.append_refusal()
            if refusal:
                raise WriteRefused(refusal)
            new_id = set_archived(self.manager, entry_id, archived, view_leaf=self.model.leaf_id)
            self._own_writes.add(new_id)
            out = self._sync(detail=True)  # the archived entry leaves the detail pane too
            self.model.archives_changed()
            what = "archived: hidden from the default views" if archived else "restored"
            kept = f"record {new_id}" if self.archive_keeps == "file" else "in memory only"
            return out.note(f"Branch at {entry_id} {what} ({kept}).")

        return self._guard("Archive", run)
