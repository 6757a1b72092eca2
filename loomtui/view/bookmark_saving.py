"""Labels a loom keeps in memory, written back into its file as bookmarks (OpenLoom,
socketteer): how many differ, the question before the write, the write. A mixin of the session
controller (``view/controller.py``), which holds the manager, the source and the key names."""

from __future__ import annotations

import os

from loomtui.session.errors import WriteConflict, WriteRefused
from loomtui.session.manager import SessionManager
from loomtui.session.source import Source
from loomtui.session.store import backup_name
from loomtui.view.outcomes import Outcome, Question


class BookmarkSaving:
    """Mixed into ``SessionController``."""

    manager: SessionManager
    key_names: dict[str, str]

    @property
    def source(self) -> Source:
        return self.manager.source

    def pending_labels(self) -> int | None:
        """How many labels differ from the file (None: this source cannot save labels)."""
        saver = self.source.saver
        if saver is None or not self.source.can_save_labels:
            return None
        return saver.pending(self.manager)

    def save_labels_intent(self) -> Outcome:
        """The "save bookmarks" command."""
        changes = self.pending_labels()
        if changes is None:
            return Outcome().note(
                "Only OpenLoom and socketteer files keep bookmarks; a pi session keeps label entries."
            )
        if not changes:
            return Outcome().note("No label changes to save: the file has every bookmark.")
        return self.offer_label_save()

    def offer_label_save(self, what: str = "") -> Outcome:
        """Ask before writing the labels that differ from the file into it as bookmarks."""
        path, saver = self.source.path, self.source.saver
        if path is None or saver is None:
            return Outcome()
        n = saver.pending(self.manager)
        if not n:
            return (
                Outcome().note(f"{what}; the file already has this bookmark, nothing to save.") if what else Outcome()
            )
        body = (
            (f"{what}.\n\n" if what else "")
            + f"Save bookmarks to {path}? (the original is kept as {backup_name(path)})\n\n"
            + f"{n} node{'s' if n != 1 else ''} change{'s' if n == 1 else ''}; the rest of the document is "
            "rewritten as it was."
        )

        def no() -> Outcome:
            return Outcome().note(
                f"Not saved: the label stays in memory only ({self.key_names['persist']} saves "
                f"the bookmarks to {os.path.basename(path)} later).",
                timeout=6,
            )

        return Outcome(ask=Question("Save bookmarks?", body, "Save", self.save_labels, no))

    def save_labels(self) -> Outcome:
        saver = self.source.saver
        if saver is None:
            return Outcome()
        try:
            result = saver.save(self.manager)
        except (WriteConflict, WriteRefused, OSError) as exc:
            # nothing was written and nothing is lost: the labels stay in memory (no reload)
            return Outcome().note(
                f"{exc}. The labels stay in memory; export the loom "
                f"({self.key_names['export']}) to keep them elsewhere.",
                "Save bookmarks: not done",
                "error",
                10,
            )
        except Exception as exc:  # never a traceback on screen
            return Outcome(error=exc).note(
                f"{type(exc).__name__}: {exc}", "Save bookmarks: internal error", "error", 10
            )
        if result.backup is None:
            return Outcome(rows=True).note("The file already has these bookmarks; nothing written.")
        n = result.changed
        return Outcome(rows=True).note(
            f"Saved {n} bookmark change{'s' if n != 1 else ''} to {self.source.path}; "
            f"the original is kept as {result.backup}.",
            "Bookmarks saved",
            timeout=10,
        )
