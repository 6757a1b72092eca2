"""The browser's key actions on the session: the leaf, labels, bookmarks, exports, the parent
session, copying. Each maps the selection to an intent of the screen's ``SessionController``
(``view/controller.py``) and hands the outcome to ``BrowserScreen._apply``; dialogs ask for what
an intent needs (a label text, a destination). Kept apart from ``browser.py``, which holds the
screen's layout, loading, workers and how outcomes reach the widgets."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import work

if TYPE_CHECKING:
    from loomtui.app.screens.browser import BrowserScreen
    from loomtui.view.outcomes import Outcome

    _Base = BrowserScreen
else:
    _Base = object


class BrowserActions(_Base):
    """Mixed into ``BrowserScreen``."""

    #: an HTML export is reading the open session in a thread: appends wait for it
    exporting_html = False
    _appends_waiting = False
    #: the "writing the HTML page" notice, while it is written
    writing_notice: Any = None

    def _selected_id(self) -> str | None:
        return self.model.selected_id if self.model is not None else None

    def action_move_leaf(self) -> None:
        """Enter: open what the row names (``Source.opens``), or move the leaf here (a user
        message: to its parent), in memory."""
        entry_id = self._selected_id()
        if entry_id is not None:
            self.enter_row(entry_id)

    def enter_row(self, entry_id: str) -> None:
        """What Enter does on ``entry_id`` (the controller asks the source first)."""
        if self.controller is None:
            return
        if self.controller.source.leaf_moves:
            target = self._context_edit_target(entry_id)
            if target is not None:  # a context edit: Enter goes to the entry it omits or replaces
                self.jump_to_id(target)
                return
        row = self.tree.screen_row
        self._apply(self.controller.move_leaf(entry_id), keep_row=row)

    def _context_edit_target(self, entry_id: str) -> str | None:
        from loomtui.view import context_blocks

        manager = self.manager
        entry = manager.index.by_id.get(entry_id) if manager is not None else None
        return context_blocks.edit_target(manager, entry) if manager is not None and entry is not None else None

    def action_follow_file_leaf(self) -> None:
        """Undo Enter: the leaf follows the file's last entry again."""
        if self.controller is not None:
            self._apply(self.controller.follow_file_leaf())

    def offered(self, action: str) -> bool:
        """Whether the open source offers ``action``: the footer's hints and the palette list
        only those. Its key still answers where it is not offered, with one notice saying why
        (a key never does nothing)."""
        controller = self.controller
        if controller is None:
            return True
        from loomtui.session.source import EXPORT, LABEL, PERSIST

        # the actions a source may not offer (``Source.offers``)
        needs = {"persist_leaf": PERSIST, "export_branch": EXPORT, "edit_label": LABEL}.get(action)
        if needs is not None:
            return controller.source.offers(needs)
        if action == "archive":
            return controller.archive_keeps is not None
        if action in ("resume_here", "carry_branch"):
            from loomtui.formats.carry_on.resume import resumable

            return resumable(controller.manager)
        return True

    def action_persist_leaf(self) -> None:
        """Ctrl+S: persist the leaf for pi (one label entry, after a question); where there is no
        leaf to persist, the controller says why."""
        if self.controller is not None:
            self._apply(self.controller.persist_leaf())

    def action_edit_label(self) -> None:
        from loomtui.app.screens.dialogs import LabelDialog

        entry_id, controller = self._selected_id(), self.controller
        refusal = controller.label_refusal() if controller is not None else None
        if refusal is not None:
            self._apply(refusal)
            return
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
        from loomtui.app.screens.dialogs import ExportDialog
        from loomtui.view.outcomes import ExportPlan

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

        self.app.push_screen(
            ExportDialog(
                plan.row, plan.entries, plan.labels, plan.default_dir, export, plan.export_as, plan.note, plan.named
            ),
            done,
        )

    def action_export_html(self) -> None:
        """Write the session as an HTML page in the working directory, opened at the selection."""
        entry_id, controller = self._selected_id(), self.controller
        if controller is None or entry_id is None:
            return
        if controller.path is None:
            self.notify("This session has no file to export.", title="Export HTML: not done", severity="error")
            return
        # it stays until the page is written (a big session's takes seconds), then goes
        self.writing_notice = self.loom_app.hold_notice("Writing the HTML page…")
        # the page is made from the open session, not from the file read again: labels not
        # saved yet and the view it was built as are on the page (appends wait until it is done)
        self.exporting_html = True
        self._export_html(controller.manager, controller.path, controller.model.leaf_id, entry_id)

    @work(thread=True, exclusive=True, group="export-html", exit_on_error=False, description="Export HTML")
    def _export_html(self, manager: Any, source: str, leaf_id: str | None, target_id: str) -> str:
        from loomtui.formats.html.export import export_session_to_free_name, page_directory

        return export_session_to_free_name(manager, source, page_directory(), leaf_id=leaf_id, target_id=target_id)

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
            self.notify(controller.not_a_fork, title="Open parent session", timeout=5)
            return
        self.notify(f"Looking for the parent session {ref}…", timeout=2)
        self._find_parent(controller)

    def action_copy_message(self) -> None:
        """Ctrl+X, pi's copy in /tree: the selected message's text, as pi takes it."""
        entry_id, controller = self._selected_id(), self.controller
        if controller is None or entry_id is None:
            return
        text = controller.message_copy_text(entry_id)
        if text is None:
            self.notify("The selected entry has no text to copy.", severity="warning", timeout=4)
            return
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied the selected message ({len(text):,} characters).", timeout=3)

    def action_copy_text(self) -> None:
        entry_id, controller = self._selected_id(), self.controller
        if controller is None or entry_id is None:
            return
        text = controller.copy_text(entry_id)
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied {len(text):,} characters of {entry_id}.", timeout=3)

    # filters and search -------------------------------------------------------------------------
    def action_set_filter(self, mode: str) -> None:
        if self.controller is not None:
            self._filtered(self.controller.set_filter(mode))

    def action_toggle_filter(self, mode: str) -> None:
        if self.controller is not None:
            self._filtered(self.controller.toggle_filter(mode))

    def _filtered(self, outcome: Outcome) -> None:
        """A filter key's outcome: the rows again, or why the source has no such filter."""
        if outcome.rows:
            self._rows_changed()
        for notice in outcome.notices:
            self.notify(notice.text, title=notice.title, severity=notice.severity, timeout=notice.timeout)  # type: ignore[arg-type]

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
        elif self.controller is not None:  # opened directly: there is no session list to go back to
            self.notify(
                f"Nothing to clear: no search, fold or hoist. {self._keys('app.quit')} quits.",
                title="Esc",
                timeout=4,
            )

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

    def action_toggle_thinking(self) -> None:
        self.detail.action_toggle_folds()

    def action_show_diagnostics(self) -> None:
        from loomtui.app.screens.dialogs import DiagnosticsScreen

        if self.manager is not None:
            self.app.push_screen(DiagnosticsScreen(self.path, list(self.manager.diagnostics)))
