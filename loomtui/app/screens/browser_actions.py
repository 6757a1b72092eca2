"""The browser's key actions on the session: the leaf, labels, bookmarks, exports, the parent
session, copying. Each maps the selection to an intent of the screen's ``SessionController``
(``view/controller.py``) and hands the outcome to ``BrowserScreen._apply``; dialogs ask for what
an intent needs (a label text, a destination). Kept apart from ``browser.py``, which holds the
screen's layout, loading, workers and how outcomes reach the widgets."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from textual import work

from loomtui.app.ocp import open_attempt_session
from loomtui.app.screens.dialogs import DiagnosticsScreen, ExportDialog, LabelDialog
from loomtui.view.outcomes import ExportPlan, Outcome

if TYPE_CHECKING:
    from loomtui.app.screens.browser import BrowserScreen

    _Base = BrowserScreen
else:
    _Base = object


class BrowserActions(_Base):
    """Mixed into ``BrowserScreen``."""

    def _selected_id(self) -> str | None:
        return self.model.selected_id if self.model is not None else None

    def action_move_leaf(self) -> None:
        """Enter: move the leaf here (a user message: to its parent), in memory."""
        entry_id = self._selected_id()
        if self.controller is not None and entry_id is not None:
            if not self.controller.source.leaf_moves:
                open_attempt_session(self, entry_id)  # an OCP run: Enter opens an attempt's session
                return
            row = self.tree.screen_row
            self._apply(self.controller.move_leaf(entry_id), keep_row=row)

    def action_follow_file_leaf(self) -> None:
        """Undo Enter: the leaf follows the file's last entry again."""
        if self.controller is not None:
            self._apply(self.controller.follow_file_leaf())

    def action_persist_leaf(self) -> None:
        """Ctrl+S: persist the leaf for pi (one label entry, after a question)."""
        if self.controller is not None:
            self._apply(self.controller.persist_leaf())

    def action_edit_label(self) -> None:
        entry_id, controller = self._selected_id(), self.controller
        prompt = controller.label_prompt(entry_id) if controller is not None and entry_id is not None else None
        if controller is None or prompt is None:
            return

        def done(value: str | None) -> None:
            if value is not None:
                row = self.tree.screen_row
                self._apply(controller.set_label(prompt.entry_id, value), keep_row=row)

        self.app.push_screen(LabelDialog(prompt.row, prompt.current, prompt.note, prompt.refusal), done)

    def bookmark_changes(self) -> int | None:
        """How many labels differ from the loom file (None: not a source that saves labels)."""
        return self.controller.pending_labels() if self.controller is not None else None

    def action_save_bookmarks(self) -> None:
        """A loom's labels into its file as bookmarks (after confirmation)."""
        if self.controller is not None:
            self._apply(self.controller.save_labels_intent())

    def action_export_branch(self) -> None:
        entry_id, controller = self._selected_id(), self.controller
        if controller is None or entry_id is None:
            return
        plan = controller.export_plan(entry_id)
        if not isinstance(plan, ExportPlan):
            self._apply(plan)
            return

        def export(dest: str) -> Outcome:
            outcome = controller.export_branch(plan.entry_id, dest)
            if outcome.path is not None:
                self.last_export = outcome.path
                self._apply(outcome)
            return outcome

        def done(to_open: str | None) -> None:
            if to_open:
                self.loom_app.open_session_file(to_open)

        self.app.push_screen(ExportDialog(plan.row, plan.entries, plan.labels, plan.default_dir, export), done)

    def action_export_html(self) -> None:
        """Write the session as an HTML page in the working directory, opened at the selection."""
        if self._typed("E"):
            return
        entry_id, controller = self._selected_id(), self.controller
        if controller is None or entry_id is None:
            return
        if controller.path is None:
            self.notify("This session has no file to export.", title="Export HTML: not done", severity="error")
            return
        self.notify("Writing the HTML page…", timeout=3)
        self._export_html(controller.path, controller.model.leaf_id, entry_id)

    @work(thread=True, exclusive=True, group="export-html", exit_on_error=False, description="Export HTML")
    def _export_html(self, source: str, leaf_id: str | None, target_id: str) -> str:
        from loomtui.formats.export_html import export_to_free_name

        return export_to_free_name(source, os.getcwd(), leaf_id=leaf_id, target_id=target_id)

    def parent_ref(self) -> str | None:
        """The session this one was forked from, as its header names it (None: not a fork)."""
        return self.controller.parent_ref() if self.controller is not None else None

    def action_open_parent(self) -> None:
        """Open the session this one was forked from in a browser on top (Esc returns)."""
        controller = self.controller
        if controller is None:
            return
        ref = controller.parent_ref()
        if ref is None:
            self.notify("This session is not a fork: its header names no parent session.",
                        title="Open parent session", timeout=5)
            return
        self.notify(f"Looking for the parent session {ref}…", timeout=2)
        self._find_parent(controller)

    def action_copy_text(self) -> None:
        entry_id, controller = self._selected_id(), self.controller
        if controller is None or entry_id is None:
            return
        text = controller.copy_text(entry_id)
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied {len(text):,} characters of {entry_id}.", timeout=3)

    # filters and search -------------------------------------------------------------------------
    def action_set_filter(self, mode: str) -> None:
        if self.controller is not None and self.controller.set_filter(mode).rows:
            self._rows_changed()

    def action_toggle_filter(self, mode: str) -> None:
        if self.controller is not None and self.controller.toggle_filter(mode).rows:
            self._rows_changed()

    def action_cycle_filter(self, step: int) -> None:
        if self.controller is not None:
            self.controller.cycle_filter(step)
            self._rows_changed()

    def action_toggle_label_times(self) -> None:
        if self.model is not None:
            self.model.toggle_label_times()
            self.tree.model_changed()
            self._refresh_bars()

    def action_escape(self) -> None:
        """pi's Esc: clear the search (and folds); with nothing to clear, go back. While the
        session is still being read: leave (back to the screen below, else quit)."""
        if self.controller is None and self.has_class("-loading"):
            if self.has_screen_below:
                self.app.pop_screen()
            else:
                self.app.exit()
        elif self.controller is not None and self.controller.escape() is not None:
            self._rows_changed()
        elif self.unhoist():
            pass
        elif self.has_screen_below:
            self.action_back()

    def action_back(self) -> None:
        if self.has_screen_below:
            self.app.pop_screen()

    def action_switch_focus(self) -> None:
        if self.tree.has_focus:
            self.detail.focus()
        else:
            self.tree.focus()

    def action_expand_detail(self) -> None:
        self.detail.action_expand_all()

    def action_show_diagnostics(self) -> None:
        if self.manager is not None:
            self.app.push_screen(DiagnosticsScreen(self.path, list(self.manager.diagnostics)))
