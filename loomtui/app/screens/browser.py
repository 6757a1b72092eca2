"""The loom browser: filter/search bar, the tree, the detail pane, key hints and ``(i/n) [mode]``.

The screen owns one ``SessionManager`` (the file) and one ``TreeModel`` (what the tree shows).
Leaf moves are in memory, as in pi's /tree (pi-session-spec §9.7): Enter moves the view's
leaf and the manager's leaf; nothing is written. Writes are explicit — Shift+L (a label entry),
Ctrl+S (persist the leaf: one no-op label entry parented on it, spec §12 option 2), Ctrl+E (a new
session file) — and a failed write is a notice; the in-memory state stays as it was.

An OpenLoom or socketteer loom has no pi file to append to: its labels live in memory, and after
a label edit (or with Ctrl+S while labels differ from the file) the user may save them into the
file as bookmarks (``formats.bookmarks``: an atomic rewrite that keeps ``FILE.bak``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Static

from loomtui.view.printable import printable
from loomtui.app import keymap
from loomtui.app.ocp import bar_modes, open_attempt_session
from loomtui.app.screens.dialogs import ConfirmDialog, DiagnosticsScreen, ExportDialog, LabelDialog
from loomtui.app.widgets.detail import DetailPane
from loomtui.app.widgets.filter_bar import FilterBar
from loomtui.app.widgets.tree_view import TreeView
from loomtui.formats import bookmarks
from loomtui.formats.common import loom_source
from loomtui.formats.ocp import ocp_run
from loomtui.session.entries import Entry
from loomtui.session.errors import LoomError, SessionFormatError, WriteConflict, WriteRefused
from loomtui.session.manager import SessionManager
from loomtui.session.split import SplitParse
from loomtui.view.blocks import copy_text
from loomtui.view.model import TreeModel
from loomtui.view.text import display_text

#: files above this size open in a worker thread (the screen paints "loading" first)
ASYNC_OPEN_BYTES = 4 * 1024 * 1024
#: the detail pane follows keyboard moves after this pause (holding ↓ stays smooth)
DETAIL_DEBOUNCE = 0.06


class BrowserScreen(Screen[None]):
    """One open session."""

    BINDINGS = keymap.bindings("browser")

    DEFAULT_CSS = """
    BrowserScreen { layout: vertical; }
    BrowserScreen > #main { height: 1fr; }
    BrowserScreen #tree { width: 3fr; min-width: 30; }
    BrowserScreen #detail { width: 2fr; min-width: 30; border-left: vkey $panel; }
    BrowserScreen #detail.-hidden { display: none; }
    BrowserScreen > #status { height: 1; background: $panel; }
    BrowserScreen #hints { width: 1fr; color: $text-muted; padding: 0 1; }
    BrowserScreen #position { width: 30; padding: 0 1 0 0; text-style: bold; text-align: right; }
    """

    class Opened(Message):
        """The session is loaded and shown (the app starts following the file)."""

        def __init__(self, screen: "BrowserScreen") -> None:
            super().__init__()
            self.browser = screen

    def __init__(self, path: str, manager: SessionManager | None = None, *, filter_mode: str = "default",
                 select_id: str | None = None, split: SplitParse | None = None) -> None:
        super().__init__()
        self.path = os.path.abspath(path)
        #: a child process already parsing the file's tail (started before Textual was)
        self._split = split
        self.manager: SessionManager | None = manager
        self.model: TreeModel | None = None
        self.initial_filter = filter_mode  # the model falls back to default for a mode it lacks
        #: select this entry (or its nearest visible ancestor) once the session is loaded
        self.select_id = select_id
        #: Enter moved the leaf: live appends no longer move it (pi keeps its in-memory leaf)
        self.user_moved_leaf = False
        #: ids of entries this screen wrote (label, persist): they do not move the view's leaf
        self._own_writes: set[str] = set()
        self._known_entries = 0
        self._detail_timer: Timer | None = None
        self.last_export: str | None = None
        self._position_text = ""

    # layout ---------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield FilterBar(id="filter-bar")
        with Horizontal(id="main"):
            yield TreeView(id="tree")
            yield DetailPane(id="detail")
        with Horizontal(id="status"):
            yield Static("", id="hints")
            yield Static("", id="position")

    @property
    def tree(self) -> TreeView:
        return self.query_one("#tree", TreeView)

    @property
    def detail(self) -> DetailPane:
        return self.query_one("#detail", DetailPane)

    @property
    def has_screen_below(self) -> bool:
        """Opened from the picker (or from another browser): Esc goes back to it."""
        stack = self.app.screen_stack
        return self in stack and stack.index(self) >= 2

    def on_mount(self) -> None:
        self._update_hints()
        if self.manager is not None:
            self._install(self.manager)
            return
        try:
            size = os.path.getsize(self.path)
        except OSError:
            size = 0
        if size <= ASYNC_OPEN_BYTES:
            try:
                manager = self._open(self.path, self._take_split())
            except Exception as exc:  # reported on an error screen, never as a traceback
                self._load_failed(exc)
                return
            self._install(manager)
        else:
            self.tree.loading = True
            self.query_one(FilterBar).show(f"Opening {self.path} ({size / 1e6:.0f} MB)…", self.initial_filter, "",
                                          False)
            self._load_in_thread()

    @staticmethod
    def _open(path: str, split: SplitParse | None = None) -> SessionManager:
        from loomtui.commands._open import open_session

        return open_session(path, split)

    def _take_split(self) -> SplitParse | None:
        """The tail parser, for the one open that uses it (it reads the file as it was)."""
        split, self._split = self._split, None
        return split

    def on_unmount(self) -> None:
        split = self._take_split()
        if split is not None:  # closed before the session was read: stop the child
            split.cancel()

    @work(thread=True, exclusive=True, group="open")
    def _load_in_thread(self) -> None:
        split = self._take_split()
        try:
            manager = self._open(self.path, split)
            model = TreeModel(manager, filter_mode=self.initial_filter)
        except Exception as exc:
            self.app.call_from_thread(self._load_failed, exc)
            return
        self.app.call_from_thread(self._install, manager, model)

    def _load_failed(self, exc: BaseException) -> None:
        from loomtui.app.screens.dialogs import ErrorScreen

        name = os.path.basename(self.path)
        if isinstance(exc, SessionFormatError):
            hint = ("loomtui opens pi / oh-my-pi session files (JSONL whose first line is a "
                    '{"type":"session"} header, versions 1-3), Claude Code and Codex sessions, '
                    "and OpenLoom / socketteer looms.")
            screen = ErrorScreen(f"Cannot open {name}", str(exc), hint)
        elif isinstance(exc, (LoomError, OSError)):
            screen = ErrorScreen(f"Cannot open {name}", str(exc))
        else:
            self.app.log_error(exc)
            screen = ErrorScreen(f"Cannot open {name}", f"loomtui failed while reading it: {type(exc).__name__}: {exc}")
        if self.is_current:
            self.app.switch_screen(screen)
        else:
            self.app.push_screen(screen)

    def _install(self, manager: SessionManager, model: TreeModel | None = None) -> None:
        self.manager = manager
        tree = self.tree
        tree.loading = False
        height = max(1, tree.scrollable_content_region.height - 1)
        if model is None:
            model = TreeModel(manager, filter_mode=self.initial_filter, page_size=height)
        else:
            model.page_size = height
        self.model = model
        self.user_moved_leaf = False
        self._known_entries = len(manager.index.entries)
        if self.select_id is not None:
            # a search hit (the picker) or a caller asked for this entry: it, or the nearest
            # ancestor the filter shows
            if self.select_id in manager.index.by_id:
                model.select_id(self.select_id)
            else:
                self.notify(f"Entry {self.select_id} is not in this session; showing the leaf.",
                            severity="warning", timeout=6)
            self.select_id = None
        tree.set_model(model)
        tree.focus()
        self._refresh_bars()
        # the tree paints first; the detail pane (a deep entry's depth walk, Markdown's first
        # import) follows right after; forced: after a reload the same id may hold new content
        self.call_after_refresh(self._update_detail, immediate=True, force=True)
        self._opening_notices()
        self.call_after_refresh(self._warm_search)
        self.post_message(self.Opened(self))

    def _opening_notices(self) -> None:
        manager = self.manager
        assert manager is not None
        diags = manager.diagnostics
        if diags:
            first = str(diags[0])
            more = f" (and {len(diags) - 1} more)" if len(diags) > 1 else ""
            keys = keymap.display_keys(keymap.SPEC_BY_ID["browser.diagnostics"], self._user_keymap())
            self.notify(
                f"{len(diags)} line{'s' if len(diags) != 1 else ''} repaired or skipped: {first}{more}. "
                f"{keys} lists them.",
                title="Session opened with diagnostics",
                severity="warning",
                timeout=12,
            )
        if manager.read_only_reason:
            self.notify(manager.read_only_reason, title="Read-only", severity="information", timeout=8)
        elif manager.path is not None and manager.version < 3:
            self.notify(
                f"A version {manager.version} session: browsing works, writes (labels, persisting the leaf) "
                f"need `loomtui migrate {manager.path}` first.",
                title="Old session format",
                severity="information",
                timeout=8,
            )

    @work(thread=True, exclusive=True, group="warm-search")
    def _warm_search(self) -> None:
        if self.model is not None:
            self.model.warm_search()

    def _user_keymap(self) -> dict[str, str]:
        return getattr(self.app, "user_keymap", {})

    # bars -----------------------------------------------------------------------------------
    def _title(self) -> str:
        manager = self.manager
        if manager is None:
            return self.path
        name = manager.get_session_name()
        title = manager.title.get("title") if isinstance(manager.title, dict) else None
        label = name or title or os.path.basename(self.path)
        parts = [label, self.path if label != os.path.basename(self.path) else os.path.dirname(self.path)]
        parts.append(f"{len(manager.index.entries):,} entries")
        if manager.path is not None and manager.version < 3:
            parts.append(f"v{manager.version}, read-only")
        elif manager.read_only_reason:
            parts.append(f"{manager.source_format}, read-only")
        if manager.diagnostics:
            parts.append(f"{len(manager.diagnostics)} diagnostics")
        if self.model is not None:
            parts.append(f"leaf {self.model.leaf_id or '(none)'}{' (moved)' if self.user_moved_leaf else ''}")
        return printable("  ·  ".join(parts))

    def _refresh_bars(self) -> None:
        model = self.model
        if model is None:
            return
        self.query_one(FilterBar).show(self._title(), model.mode, model.query, model.show_label_times,
                                       modes=bar_modes(model))
        text = model.footer().strip() or "(0/0)"
        if text != self._position_text:  # no layout: the widget's width is fixed
            self._position_text = text
            self.query_one("#position", Static).update(Text(text, no_wrap=True, overflow="ellipsis"), layout=False)

    def _update_hints(self) -> None:
        km = self._user_keymap()
        parts = ["↑↓ move", "←→ page"]
        for binding_id, what in (
            ("browser.select", "leaf"),
            ("browser.label", "label"),
            ("browser.export", "export"),
            ("browser.persist-leaf", "persist"),
            ("app.palette", "commands"),
            ("app.help", "help"),
        ):
            keys = keymap.display_keys(keymap.SPEC_BY_ID[binding_id], km)
            parts.append(f"{keys} {what}")
        self.query_one("#hints", Static).update(Text("  ".join(parts), no_wrap=True, overflow="ellipsis"))

    # tree events ------------------------------------------------------------------------------
    @on(TreeView.Moved)
    def _tree_moved(self, event: TreeView.Moved) -> None:
        self._refresh_bars()
        self._update_detail()

    @on(TreeView.HelpRequested)
    def _help_requested(self, event: TreeView.HelpRequested) -> None:
        self.app.action_help()  # type: ignore[attr-defined]

    def _update_detail(self, *, immediate: bool = False, force: bool = False) -> None:
        if self._detail_timer is not None:
            self._detail_timer.stop()
            self._detail_timer = None
        if immediate:
            self._show_detail(force)
        else:
            self._detail_timer = self.set_timer(DETAIL_DEBOUNCE, lambda: self._show_detail(force))

    def _show_detail(self, force: bool = False) -> None:
        self._detail_timer = None
        model = self.model
        self.detail.show(self.manager, model, model.selected_entry if model is not None else None, force=force)

    def _rows_changed(self) -> None:
        self.tree.rows_changed()

    # guarded actions --------------------------------------------------------------------------
    def _guard(self, what: str, fn: Callable[[], Any]) -> Any:
        """Run ``fn``; a failure becomes a notice (nothing in memory is lost)."""
        try:
            return fn()
        except WriteConflict as exc:
            # the file was rewritten or replaced underneath: nothing was written; show what is
            # on disk now (filter, search, selection and a moved leaf are kept)
            self.notify(f"{exc}. Nothing was written; the file was reloaded, try again.",
                        title=f"{what}: not done", severity="error", timeout=10)
            if os.path.exists(self.path):
                self.reload()
        except (LoomError, OSError) as exc:
            self.notify(str(exc), title=f"{what}: not done", severity="error", timeout=10)
        except Exception as exc:  # never a traceback on screen
            self.app.log_error(exc)  # type: ignore[attr-defined]
            self.notify(f"{type(exc).__name__}: {exc}", title=f"{what}: internal error", severity="error",
                        timeout=10)
        return None

    # filters and search -------------------------------------------------------------------------
    def action_set_filter(self, mode: str) -> None:
        if self.model is not None and mode in self.model.modes:
            self.model.set_filter(mode)
            self._rows_changed()

    def action_toggle_filter(self, mode: str) -> None:
        if self.model is not None and mode in self.model.modes:
            self.model.toggle_filter(mode)
            self._rows_changed()

    def action_cycle_filter(self, step: int) -> None:
        if self.model is not None:
            self.model.cycle_filter(step)
            self._rows_changed()

    def action_toggle_label_times(self) -> None:
        if self.model is not None:
            self.model.toggle_label_times()
            self.tree.model_changed()
            self._refresh_bars()

    def action_escape(self) -> None:
        """pi's Esc: clear the search (and folds); with nothing to clear, go back."""
        model = self.model
        if model is None:
            if self.has_screen_below:
                self.app.pop_screen()
            return
        if model.clear_query():
            self._rows_changed()
        elif model.folded:
            model.set_filter(model.mode)  # every filter change resets folds (pi)
            self._rows_changed()
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

    # the leaf ---------------------------------------------------------------------------------
    def action_move_leaf(self) -> None:
        """Enter: pi's navigateTree without a summary (spec §9.7): a user message or a
        custom_message moves the leaf to its parent (a root one resets it), anything else to
        itself. In memory only."""
        picked = self._selection()
        if picked is None:
            return
        model, manager, e = picked
        if ocp_run(manager) is not None:
            open_attempt_session(self, e.id)  # a run has no leaf to move: Enter opens agent sessions
            return
        open_subagent = getattr(manager, "open_subagent", None)
        if open_subagent is not None and manager.subagent_of(e.id) is not None:  # type: ignore[attr-defined]
            self._guard("Open the subagent", lambda: self._open_subagent(open_subagent, e.id))
            return
        if e.id == model.leaf_id:
            self.notify("Already at this point.", timeout=3)
            return

        def move() -> None:
            if (e.type == "message" and e.role == "user") or e.type == "custom_message":
                parent = manager.index.parent_of(e)
                new_leaf = parent.id if parent is not None else None
            else:
                new_leaf = e.id
            screen_row = self.tree.screen_row
            if new_leaf is None:
                manager.reset_leaf()
            else:
                manager.branch(new_leaf)
            self.user_moved_leaf = True
            model.set_leaf(new_leaf)
            model.select_id(e.id)
            self.tree.model_changed(keep_screen_row=screen_row)
            self._refresh_bars()
            self._update_detail(immediate=True)
            if new_leaf is None:
                self.notify("Leaf reset: before the first entry (pi: re-editing the first message).", timeout=5)
            elif new_leaf != e.id:
                self.notify(f"Leaf moved to {new_leaf}, the parent of this message (pi: re-edit it).", timeout=5)
            else:
                self.notify(f"Leaf moved to {new_leaf}. Ctrl+S persists it for pi.", timeout=5)

        self._guard("Move the leaf", move)

    def _open_subagent(self, open_subagent: Callable[[str], SessionManager | None], entry_id: str) -> None:
        """A subagent row of a Claude Code session: its run in a browser on top (Esc returns)."""
        sub = open_subagent(entry_id)
        if sub is not None:
            path = sub.source_path or self.path
            self.app.push_screen(BrowserScreen(path, sub, filter_mode=self.model.mode if self.model else "default"))

    def action_follow_file_leaf(self) -> None:
        """Undo Enter: the leaf follows the file's last entry again."""
        model, manager = self.model, self.manager
        if model is None or manager is None:
            return
        leaf = manager.index.leaf_id
        if leaf is not None:
            manager.branch(leaf)
        self.user_moved_leaf = False
        model.set_leaf(leaf)
        self.tree.model_changed()
        self._refresh_bars()

    def _after_own_write(self, new_id: str) -> None:
        """A label entry was appended: the view keeps its leaf (pi's selector patches the row in
        place and keeps its tree), the model takes the new entries."""
        self._own_writes.add(new_id)
        assert self.model is not None
        self._sync_model(self.model.leaf_id)
        self._update_detail(immediate=True, force=True)

    def _sync_model(self, leaf: str | None) -> None:
        """Give the model every entry indexed since the last sync; keep the screen row."""
        manager, model = self.manager, self.model
        assert manager is not None and model is not None
        entries = manager.index.entries
        fresh = entries[self._known_entries :]
        self._known_entries = len(entries)
        screen_row = self.tree.screen_row
        model.entries_changed(fresh, leaf_id=leaf)
        if leaf is None and model.leaf_id is not None:
            model.set_leaf(None)
        self.tree.model_changed(keep_screen_row=screen_row)
        self._refresh_bars()

    def _selection(self) -> tuple[TreeModel, SessionManager, Entry] | None:
        """The model, the manager and the selected entry, when all three exist."""
        model, manager = self.model, self.manager
        if model is None or manager is None:
            return None
        e = model.selected_entry
        return None if e is None else (model, manager, e)

    # labels -----------------------------------------------------------------------------------
    def action_edit_label(self) -> None:
        picked = self._selection()
        if picked is None:
            return
        model, manager, e = picked
        current = manager.index.label_of(e.id)
        current_text = current if isinstance(current, str) else (None if current is None else str(current))
        row = display_text(e, model.flat.tool_calls)

        def done(value: str | None) -> None:
            if value is None:
                return
            label = value.strip() or None
            if label == current_text:
                self.notify("Label unchanged; nothing written.", timeout=3)
                return
            if label is None and current is None:
                return
            self._guard("Label", lambda: self._write_label(e, label))

        self.app.push_screen(LabelDialog(row, current_text, self._label_note(), manager.append_refusal()), done)

    def _label_note(self) -> str:
        """Where a label goes, for the label dialog."""
        manager = self.manager
        assert manager is not None
        store_file = getattr(manager, "label_store_file", None)
        if store_file is not None:
            return f"Kept in loomtui's label store ({store_file}); the session file is never written."
        if manager.path is None:
            return "Kept in memory; the loom file takes it as a bookmark only if you save."
        keys = keymap.display_keys(keymap.SPEC_BY_ID["browser.persist-leaf"], self._user_keymap())
        moved = f" The moved leaf is not saved ({keys} persists it)." if self.user_moved_leaf else ""
        return (f"Saved now: one label entry after the file's last entry ({manager.index.leaf_id}); "
                f"pi still resumes where it did.{moved}")

    def _write_label(self, e: Entry, label: str | None) -> None:
        manager = self.manager
        assert manager is not None
        new_id = manager.append_label_keeping_resume(e.id, label)
        what = f"Label {'set: ' + label if label else 'cleared'} on {e.id}"
        store_file = getattr(manager, "label_store_file", None)
        if store_file is not None:
            # a read-only source (Claude Code, Codex): the label is in loomtui's store, no entry
            assert self.model is not None
            self.model.set_leaf(self.model.leaf_id)
            self.tree.model_changed(keep_screen_row=self.tree.screen_row)
            self._update_detail(immediate=True, force=True)
            self.notify(f"{what} (kept in {store_file}; the session file is not touched).", timeout=5)
            return
        self._after_own_write(new_id)
        if self._loom_file() is not None:
            # a loom: the label is in memory; its file takes it as a bookmark if the user says so
            self._offer_bookmark_save(what)
            return
        where = f"label entry {new_id}"
        if manager.path is None:
            where = f"in memory only: a {manager.source_format} loom has no pi file to append to"
        self.notify(f"{what} ({where}).", timeout=5)

    # loom bookmarks ------------------------------------------------------------------------------
    def _loom_file(self) -> str | None:
        """The OpenLoom / socketteer file this session was read from (None for pi sessions)."""
        src = loom_source(self.manager) if self.manager is not None else None
        return src.path if src is not None else None

    def bookmark_changes(self) -> int | None:
        """How many nodes' labels differ from the loom file (None: not a loom read from a file)."""
        if self.manager is None or self._loom_file() is None:
            return None
        return len(bookmarks.pending_changes(self.manager))

    def action_save_bookmarks(self) -> None:
        """A loom's labels into its file as bookmarks (after confirmation)."""
        changes = self.bookmark_changes()
        if changes is None:
            self.notify("Only OpenLoom and socketteer files keep bookmarks; a pi session keeps label entries.",
                        timeout=5)
        elif not changes:
            self.notify("No label changes to save: the file has every bookmark.", timeout=5)
        else:
            self._offer_bookmark_save()

    def _offer_bookmark_save(self, what: str = "") -> None:
        """Ask, then write the labels that differ from the file into it as bookmarks."""
        manager, path = self.manager, self._loom_file()
        if manager is None or path is None:
            return
        changes = bookmarks.pending_changes(manager)
        if not changes:
            if what:
                self.notify(f"{what}; the file already has this bookmark, nothing to save.", timeout=5)
            return
        backup = bookmarks.backup_name(path)
        n = len(changes)
        body = (
            (f"{what}.\n\n" if what else "")
            + f"Save bookmarks to {path}? (the original is kept as {backup})\n\n"
            + f"{n} node{'s' if n != 1 else ''} change{'s' if n == 1 else ''}; the rest of the document is "
            "rewritten as it was."
        )

        def done(yes: bool | None) -> None:
            if yes:
                self._save_bookmarks()
            else:
                keys = keymap.display_keys(keymap.SPEC_BY_ID["browser.persist-leaf"], self._user_keymap())
                self.notify(f"Not saved: the label stays in memory only ({keys} saves the bookmarks to "
                            f"{os.path.basename(path)} later).", timeout=6)

        self.app.push_screen(ConfirmDialog("Save bookmarks?", body, "Save"), done)

    def _save_bookmarks(self) -> None:
        manager = self.manager
        assert manager is not None
        try:
            result = bookmarks.save_bookmarks(manager)
        except (WriteConflict, WriteRefused, OSError) as exc:
            # nothing was written and nothing is lost: the labels stay in memory (no reload)
            self.notify(f"{exc}. The labels stay in memory; export the loom (Ctrl+E) to keep them elsewhere.",
                        title="Save bookmarks: not done", severity="error", timeout=10)
            return
        except Exception as exc:  # never a traceback on screen
            self.app.log_error(exc)  # type: ignore[attr-defined]
            self.notify(f"{type(exc).__name__}: {exc}", title="Save bookmarks: internal error", severity="error",
                        timeout=10)
            return
        self._refresh_bars()
        if result.backup is None:
            self.notify("The file already has these bookmarks; nothing written.", timeout=5)
            return
        n = result.changed
        self.notify(f"Saved {n} bookmark change{'s' if n != 1 else ''} to {self._loom_file()}; "
                    f"the original is kept as {result.backup}.", title="Bookmarks saved", timeout=10)

    # persisting the leaf -----------------------------------------------------------------------
    def action_persist_leaf(self) -> None:
        """Ctrl+S: append one no-op label entry parented on the leaf (spec §12 option 2) so pi,
        which resumes at the file's last entry, resumes here. Never a ``parentId: null`` entry."""
        model, manager = self.model, self.manager
        if model is None or manager is None:
            return
        leaf = model.leaf_id
        if manager.path is None:
            if self.bookmark_changes():
                self._offer_bookmark_save()  # a loom's Ctrl+S: save the label edits as bookmarks
                return
            if getattr(manager, "label_store_file", None) is not None:
                self.notify("loomtui never writes Claude Code or Codex files. Export the branch (Ctrl+E) to get "
                            "a file of that tool that ends here.", title="Persist the leaf: not done", timeout=8)
                return
            self.notify(
                f"This is a {manager.source_format} loom, not a pi session file: there is no file for pi to "
                "resume. Export the branch (Ctrl+E) to get a pi session that ends here.",
                title="Persist the leaf: not done",
                severity="warning",
                timeout=8,
            )
            return
        if leaf is None:
            self.notify(
                "The leaf is before the first entry. pi could only resume there from an entry with "
                "parentId null, which loomtui never writes. Move the leaf to an entry first.",
                title="Persist the leaf: not done",
                severity="warning",
                timeout=8,
            )
            return
        last = manager.index.by_id.get(manager.index.leaf_id) if manager.index.leaf_id else None
        if last is not None and (last.id == leaf or (last.parent_id == leaf and last.type == "label")):
            self.notify(f"pi already resumes at {leaf}: the file ends there. Nothing written.", timeout=5)
            return
        e = manager.index.by_id.get(leaf)
        if e is None:
            return
        label = manager.index.label_of(leaf)
        row = display_text(e, model.flat.tool_calls)
        what = f"re-stating its label [{label}]" if label is not None else "without a label"
        body = (
            f"Append one label entry parented on {leaf}\n  {row[:100]}\n{what}, so that pi resumes the session "
            "there. pi leaves label entries out of the model's context and /tree hides them, so nothing "
            "else changes."
        )

        def done(yes: bool | None) -> None:
            if not yes:
                return

            def write() -> None:
                manager.branch(leaf)
                new_id = manager.append_label_change(leaf, label)
                self.user_moved_leaf = False
                self._after_own_write(new_id)
                self.notify(f"Leaf persisted: pi resumes at {leaf} (label entry {new_id}).", timeout=5)

            self._guard("Persist the leaf", write)

        self.app.push_screen(ConfirmDialog("Persist the leaf?", body, "Append"), done)

    # export ------------------------------------------------------------------------------------
    def action_export_branch(self) -> None:
        picked = self._selection()
        if picked is None:
            return
        model, manager, e = picked

        def prepare() -> None:
            kept, labels = manager.branch_entries(e.id)
            source = manager.path or getattr(manager, "source_path", None)
            default_dir = os.path.dirname(source) if source else os.getcwd()

            def export(dest: str) -> str:
                if dest.endswith(".jsonl"):
                    parent = os.path.dirname(os.path.abspath(dest))
                    if not os.path.isdir(parent):
                        raise LoomError(f"{parent} is not a directory")
                    path = manager.create_branched_session(e.id, out=dest)
                else:
                    if not os.path.isdir(dest):
                        raise LoomError(f"{dest} is not a directory (end the path in .jsonl to name a file)")
                    path = manager.create_branched_session(e.id, dir=dest)
                self.last_export = path
                self.notify(f"Exported {len(kept) + len(labels)} entries to {path}", title="Branch exported",
                            timeout=10)
                return path

            def done(to_open: str | None) -> None:
                if to_open:
                    self.app.open_session_file(to_open)  # type: ignore[attr-defined]

            self.app.push_screen(
                ExportDialog(display_text(e, model.flat.tool_calls), len(kept), len(labels), default_dir, export),
                done,
            )

        self._guard("Export", prepare)

    def action_export_html(self) -> None:
        """Write the session as an HTML page in the working directory, opened at the selection."""
        picked = self._selection()
        if picked is None:
            return
        model, manager, e = picked
        source = manager.source_path or manager.path
        if not source:
            self.notify("This session has no file to export.", title="Export HTML: not done", severity="error")
            return
        self.notify("Writing the HTML page…", timeout=3)
        self._export_html(source, model.leaf_id, e.id)

    @work(thread=True, exclusive=True, group="export-html")
    def _export_html(self, source: str, leaf_id: str | None, target_id: str) -> None:
        from loomtui.commands.export_html import export_to_free_name

        try:
            path = export_to_free_name(source, os.getcwd(), leaf_id=leaf_id, target_id=target_id)
        except (LoomError, OSError) as exc:
            self.app.call_from_thread(self.notify, str(exc), title="Export HTML: not done", severity="error",
                                      timeout=10)
            return
        self.app.call_from_thread(self.notify, f"Wrote {path}", title="HTML page exported", timeout=15)

    # the parent session ------------------------------------------------------------------------
    def parent_ref(self) -> str | None:
        """The header's ``parentSession`` (a path in pi, maybe an id in omp) or a v1 file's
        ``branchedFrom``; None when this session is not a fork."""
        header = self.manager.header if self.manager is not None else None
        if not isinstance(header, dict):
            return None
        for key in ("parentSession", "branchedFrom"):
            ref = header.get(key)
            if isinstance(ref, str) and ref.strip():
                return ref.strip()
        return None

    def action_open_parent(self) -> None:
        """Open the session this one was forked from in a browser on top (Esc returns)."""
        if self.manager is None:
            return
        ref = self.parent_ref()
        if ref is None:
            self.notify("This session is not a fork: its header names no parent session.",
                        title="Open parent session", timeout=5)
            return
        self.notify(f"Looking for the parent session {ref}…", timeout=2)
        self._find_parent(ref)

    @work(thread=True, exclusive=True, group="open-parent")
    def _find_parent(self, ref: str) -> None:
        from loomtui.session.catalog import find_session_file

        try:
            found = find_session_file(ref, near=self.path)
        except Exception as exc:  # a broken sessions directory must not take the app down
            self.app.call_from_thread(self.app.log_error, exc)  # type: ignore[attr-defined]
            found = None
        self.app.call_from_thread(self._parent_found, ref, found)

    def _parent_found(self, ref: str, path: str | None) -> None:
        if not self.is_attached:
            return
        if path is None:
            self.notify(f"The parent session {ref} is not on this machine (looked next to this file and in "
                        "the pi and omp session directories).", title="Open parent session",
                        severity="warning", timeout=8)
            return
        if os.path.abspath(path) == self.path:
            self.notify("The header names this file as its own parent.", title="Open parent session",
                        severity="warning", timeout=6)
            return
        self.app.open_session_file(path)  # type: ignore[attr-defined]

    # copy ----------------------------------------------------------------------------------------
    def action_copy_text(self) -> None:
        picked = self._selection()
        if picked is None:
            return
        model, manager, e = picked

        def copy() -> None:
            text = copy_text(manager.load(e))
            self.app.copy_to_clipboard(text)
            self.notify(f"Copied {len(text):,} characters of {e.id}.", timeout=3)

        self._guard("Copy", copy)

    # live follow ---------------------------------------------------------------------------------
    def apply_appended(self) -> None:
        """Index what another writer appended and update the view in place (the watcher calls
        this). Selection, filter, search and folds are kept; the leaf follows the file's last
        entry unless the user moved it. A rewritten or truncated file is reloaded."""
        manager, model = self.manager, self.model
        if manager is None or model is None:
            return
        try:
            manager.refresh()
        except (WriteConflict, FileNotFoundError, SessionFormatError) as exc:
            if os.path.exists(self.path):
                self.reload(f"{os.path.basename(self.path)} changed on disk ({exc}); reloaded.")
            else:
                self.notify(f"{self.path} is gone; showing what was loaded.", severity="warning", timeout=8)
            return
        except Exception as exc:
            self.app.log_error(exc)  # type: ignore[attr-defined]
            self.notify(f"Could not read the new lines: {exc}", severity="error", timeout=8)
            return
        fresh = manager.index.entries[self._known_entries :]
        if not fresh:
            return
        external = [e for e in fresh if e.id not in self._own_writes]
        leaf = manager.get_leaf_id() if external and not self.user_moved_leaf else model.leaf_id
        selected_before = model.selected_id
        self._sync_model(leaf)
        sel = model.selected_entry
        if sel is not None and (sel.id != selected_before or (sel.type == "message" and sel.role == "assistant")):
            # the tree, bars and footer reach the screen first; the detail pane (Markdown) next
            self.call_after_refresh(self._update_detail, immediate=True, force=True)

    def reload(self, message: str | None = None) -> None:
        """Re-read the file (it was rewritten): keep the filter, search and selection."""
        model = self.model
        mode = model.mode if model else self.initial_filter
        query = model.query if model else ""
        selected = model.selected_id if model else None
        label_times = model.show_label_times if model else False
        user_leaf = model.leaf_id if (model is not None and self.user_moved_leaf) else None
        moved = self.user_moved_leaf
        try:
            manager = self._open(self.path)
        except Exception as exc:
            self.notify(f"Could not reload {self.path}: {exc}", severity="error", timeout=10)
            return
        if moved and user_leaf is not None and user_leaf in manager.index.by_id:
            manager.branch(user_leaf)
            new_model = TreeModel(manager, leaf_id=user_leaf, use_manager_leaf=False, filter_mode=mode)
        else:
            moved = False
            new_model = TreeModel(manager, filter_mode=mode)
        if query:
            new_model.set_query(query)
        if label_times:
            new_model.toggle_label_times()
        if selected is not None:
            new_model.select_id(selected)
        self._own_writes.clear()
        self._install(manager, new_model)
        self.user_moved_leaf = moved
        self._refresh_bars()
        if message:
            self.notify(message, severity="warning", timeout=6)
