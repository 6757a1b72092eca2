"""The loom browser: filter/search bar, the tree, the detail pane, key hints and ``(i/n) [mode]``.

The screen maps keys to intents of its ``SessionController`` (``view/controller.py``: pi's
rules, writes, the leaf, live appends) and the outcomes to widgets: rows redrawn, the detail
pane, notices, confirm dialogs. Nothing here decides what a key means for the session.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from loomtui.app import keymap
from loomtui.app.messages import SessionFileChanged, SessionOpened
from loomtui.app.screens.agent_tools import AgentTools
from loomtui.app.screens.browser_actions import BrowserActions
from loomtui.app.screens.browser_loading import BrowserLoading
from loomtui.app.screens.loom_tools import LoomTools
from loomtui.app.screens.source_actions import bar_modes, footer_hints, lacking_filter, look_up
from loomtui.app.widgets.detail import DetailPane
from loomtui.app.widgets.filter_bar import FilterBar
from loomtui.app.widgets.load_progress import LoadCancelled, LoadProgress
from loomtui.app.widgets.tree_view import TreeView
from loomtui.formats.opening import Opening
from loomtui.session.errors import LoomError
from loomtui.view.width import fit_items, text_width

if TYPE_CHECKING:
    from loomtui.app.app import LoomApp
    from loomtui.session.manager import SessionManager
    from loomtui.view.controller import SessionController
    from loomtui.view.model import TreeModel
    from loomtui.view.outcomes import Outcome

#: the detail pane follows keyboard moves after this pause (holding ↓ stays smooth)
DETAIL_DEBOUNCE = 0.06
#: the most columns the position (``(i/n) [mode]``) takes from the key hints beside it
POSITION_WIDTH = 30


class BrowserScreen(BrowserActions, AgentTools, BrowserLoading, LoomTools, Screen[None]):
    """One open session."""

    BINDINGS = keymap.bindings("browser")
    CSS_PATH = "browser.tcss"

    #: the session is loaded and shown (the app starts following the file)
    Opened = SessionOpened

    def __init__(
        self,
        path: str,
        manager: SessionManager | None = None,
        *,
        filter_mode: str = "default",
        select_id: str | list[str] | None = None,
        opening: Opening | None = None,
    ) -> None:
        super().__init__()
        self.path = os.path.abspath(path)
        #: how the file is read (``formats/opening``): started before Textual for the app's
        #: first file, else read in this process when the screen mounts
        self.opening = opening if opening is not None else Opening(self.path)
        #: the screen went away while the session was still being read: the read stops
        self._abandoned = False
        self._given = manager
        self.controller: SessionController | None = None
        self.initial_filter = filter_mode  # the model falls back to default for a mode it lacks
        #: select this entry (or its nearest visible ancestor) once the session is loaded
        self.select_id = select_id
        self._detail_timer: Timer | None = None
        self.last_export: str | None = None
        self._position_text = ""

    @property
    def loom_app(self) -> LoomApp:
        return cast("LoomApp", self.app)

    @property
    def manager(self) -> SessionManager | None:
        return self.controller.manager if self.controller is not None else None

    @property
    def model(self) -> TreeModel | None:
        return self.controller.model if self.controller is not None else None

    @property
    def user_moved_leaf(self) -> bool:
        return self.controller is not None and self.controller.leaf_moved

    # layout ---------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield FilterBar(id="filter-bar")
        with Horizontal(id="main"):
            yield LoadProgress(id="load-progress")
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

    def _keys(self, binding_id: str) -> str:
        return keymap.said_keys(keymap.SPEC_BY_ID[binding_id], self.loom_app.user_keymap)

    def on_mount(self) -> None:
        self._update_hints()
        if self._given is not None:
            manager, self._given = self._given, None
            self._install(self._controller(manager))
            return
        self._start_open()

    def _page_size(self) -> int:
        return max(1, self.tree.scrollable_content_region.height - 1)

    @work(thread=True, exclusive=True, group="open-parent", exit_on_error=False, description="find the parent")
    def _find_parent(self, controller: SessionController) -> Outcome:
        return controller.find_parent()

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        """Every worker of this screen ends here: results go to the screen, failures to a notice
        (or the error page for the file itself), never a traceback."""
        worker = event.worker
        if worker.group == "export-html":
            self._export_ended(event.state)
        if event.state == WorkerState.ERROR:
            exc = worker.error
            if isinstance(exc, LoadCancelled):
                return  # the user left while it was read
            if worker.group == "open":
                self._load_failed(exc if exc is not None else RuntimeError("the open failed"))
            elif isinstance(exc, (LoomError, OSError)):
                self.notify(str(exc), title=f"{worker.description}: not done", severity="error", timeout=10)
            elif exc is not None and worker.group != "warm-search":
                self.loom_app.log_error(exc)
                self.notify(
                    f"{type(exc).__name__}: {exc}",
                    title=f"{worker.description}: internal error",
                    severity="error",
                    timeout=8,
                )
            return
        if event.state != WorkerState.SUCCESS:
            return
        from loomtui.view.controller import SessionController
        from loomtui.view.outcomes import Outcome

        if worker.group == "open" and isinstance(worker.result, SessionController):
            self._install(worker.result)
        elif worker.group == "export-html" and isinstance(worker.result, str):
            self.notify(f"Wrote {worker.result}", title="HTML page exported", timeout=15)
        elif worker.group == "open-parent" and isinstance(worker.result, Outcome) and self.is_attached:
            self._open_parent(worker.result)

    def _open_parent(self, outcome: Outcome) -> None:
        """The parent found: at the entry the source names (a subagent run's row), else the fork point."""
        self._apply(outcome)
        if outcome.path is not None:  # the fork point: the deepest entry the fork copied
            fork = self.manager.fork_point_candidates() if self.manager is not None else []
            self.loom_app.open_session_file(outcome.path, select_id=outcome.select or fork or None)

    def _export_ended(self, state: WorkerState) -> None:
        """An HTML export stopped reading the session: the appends that waited are taken."""
        if state not in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            return
        self.exporting_html = False
        if self.writing_notice is not None:
            self.loom_app.withdraw_notice(self.writing_notice)
            self.writing_notice = None
        if self._appends_waiting:
            self._appends_waiting = False
            self.call_later(self.apply_appended)

    def _install(self, controller: SessionController) -> None:
        self.controller = controller
        model = controller.model
        tree = self.tree
        tree.loading = False
        self.remove_class("-loading", "-first-rows")
        self.query_one(LoadProgress).stop()
        model.page_size = self._page_size()
        if self.select_id is not None:
            # a search hit (the picker) or a caller asked for this entry: it, or the nearest
            # ancestor the filter shows; a list: the first of them in this session (a fork point)
            wanted = [self.select_id] if isinstance(self.select_id, str) else list(self.select_id)
            hit = next((i for i in wanted if controller.entry(i) is not None), None)
            if hit is not None:
                model.select_id(hit)
                if not isinstance(self.select_id, str):
                    self.notify(f"At the fork point {hit}.", timeout=5)
            elif isinstance(self.select_id, str):
                self.notify(
                    f"Entry {self.select_id} is not in this session; showing the leaf.", severity="warning", timeout=6
                )
            else:
                self.notify("No entry of the fork is in this session; showing the leaf.", severity="warning", timeout=6)
            self.select_id = None
        tree.set_model(model)
        self._start_row = model.selected
        tree.focus()
        self._refresh_bars()
        self._update_hints()  # what this source offers
        # the tree paints first; the detail pane (a deep entry's depth walk, Markdown's first
        # import, a Claude Code file's tokens) follows right after; forced: after a reload the
        # same id may hold new content. The screen is marked for a layout here: the tree's own
        # request reaches the screen only after its next idle, and a screen that is not yet
        # marked runs the callbacks below before it paints
        self.refresh(layout=True)
        self.call_after_refresh(self._first_detail)
        if model.mode != self.initial_filter and not self.has_screen_below and self.manager is not None:
            # `loomtui --filter MODE FILE` named a mode FILE does not have (a run's on a pi session)
            self.notify(
                lacking_filter(model, self.initial_filter),
                title="--filter",
                severity="warning",
                timeout=8,
            )
        for notice in controller.opening_notices(self._keys("browser.diagnostics")):
            self.notify(notice.text, title=notice.title, severity=notice.severity, timeout=notice.timeout)  # type: ignore[arg-type]
        self.post_message(SessionOpened(self))

    def _first_detail(self) -> None:
        """The detail pane of a session just opened; then, once that is painted too, search
        warmed in a thread (it shares the interpreter with the paint and would slow it)."""
        self._update_detail(immediate=True, force=True)
        self._keep_first_screen()
        self.call_after_refresh(self._warm_search)
        self.call_after_refresh(self._count_usage)

    # outcomes -> widgets ------------------------------------------------------------------------
    def _apply(self, outcome: Outcome | None, *, keep_row: int | None = None) -> None:
        """Show what an intent did: rows, bars, the detail pane, notices, a question."""
        if outcome is None:
            return
        if outcome.error is not None:
            self.loom_app.log_error(outcome.error)
        if outcome.session is not None:  # a subagent row: its session on top (Esc returns)
            sub = outcome.session
            mode = self.model.mode if self.model is not None else "default"
            self.app.push_screen(BrowserScreen(sub.source.path or self.path, sub, filter_mode=mode))
        if outcome.lookup is not None:  # a file the row names: found, then opened on top
            look_up(self, outcome.lookup)
        if outcome.replaced and self.controller is not None:
            self.tree.set_model(self.controller.model)
        elif outcome.rows:
            self.tree.model_changed(keep_screen_row=keep_row)
        if outcome.rows or outcome.replaced or outcome.bars:
            self._refresh_bars()
        if outcome.detail:
            self._update_detail(immediate=True, force=True)
        for notice in outcome.notices:
            self.notify(notice.text, title=notice.title, severity=notice.severity, timeout=notice.timeout)  # type: ignore[arg-type]
        ask = outcome.ask
        if ask is not None:

            def answered(yes: bool | None) -> None:
                then = ask.on_yes if yes else ask.on_no
                if then is not None:
                    row = self.tree.screen_row
                    self._apply(then(), keep_row=row)

            from loomtui.app.screens.dialogs import ConfirmDialog

            self.app.push_screen(ConfirmDialog(ask.title, ask.body, ask.button), answered)

    # bars -----------------------------------------------------------------------------------
    def _refresh_bars(self) -> None:
        controller = self.controller
        if controller is None:
            return
        model = controller.model
        # fitted to the bar's width: the name and the leaf stay, the path goes first
        title = controller.header(self.path)
        self.query_one(FilterBar).show(title, model.mode, model.query, model.show_label_times, modes=bar_modes(model))
        text = model.footer().strip() or "(0/0)"
        if text != self._position_text:  # no layout unless the text's width changes
            self._position_text = text
            position = self.query_one("#position", Static)
            position.update(Text(text, no_wrap=True, overflow="ellipsis"), layout=False)
            width = self._position_width()
            if position.styles.width is None or position.styles.width.value != width:
                position.styles.width = width  # as wide as its text: the hints take the rest
                self._update_hints()

    def _position_width(self) -> int:
        """The position's columns: its text and the padding after it, at most ``POSITION_WIDTH``."""
        return min(POSITION_WIDTH, text_width(self._position_text or "(0/0)") + 1)

    def _update_hints(self) -> None:
        """The key hints that fit beside the position (the least needed are left out first)."""
        parts = footer_hints(self)
        room = max(10, self.app.size.width - self._position_width() - 2)  # the hints' padding: 2
        self.query_one("#hints", Static).update(Text(fit_items(parts, room), no_wrap=True, overflow="ellipsis"))

    def on_resize(self) -> None:
        # narrow terminals: the tree gets two thirds (deep rows keep their text)
        self.set_class(self.app.size.width < 100, "-narrow")
        self._update_hints()
        self.detail.fit_width()

    def action_resize_detail(self, step: int) -> None:
        self.detail.resize_by(step)

    # tree events ------------------------------------------------------------------------------
    @on(TreeView.Moved)
    def _tree_moved(self, event: TreeView.Moved) -> None:
        self._refresh_bars()
        self._update_detail()

    @on(SessionFileChanged)
    def _file_changed(self, event: SessionFileChanged) -> None:
        """The watcher saw the file change (``app/watch.py``): take what was appended."""
        if event.path == self.path:
            self.apply_appended()

    @on(DetailPane.SearchTyped)
    def _search_typed(self, event: DetailPane.SearchTyped) -> None:
        self.tree.type_text(event.text)

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

    # live follow ---------------------------------------------------------------------------------
    def apply_appended(self) -> None:
        """Take what another writer appended (the watcher calls this); the tree, bars and footer
        reach the screen first, the detail pane (Markdown) next."""
        if self.controller is None:
            return
        if self.exporting_html:  # the export thread reads the session: take them once it is done
            self._appends_waiting = True
            return
        row = self.tree.screen_row  # before the rows change under it
        outcome = self.controller.apply_appended()
        detail, outcome.detail = outcome.detail, False
        self._apply(outcome, keep_row=row)
        if detail:
            self.call_after_refresh(self._update_detail, immediate=True, force=True)

    def reload(self, message: str | None = None) -> None:
        """Re-read the file (it was rewritten): keep the filter, search and selection."""
        if self.controller is not None:
            self._apply(self.controller.reload(message))
