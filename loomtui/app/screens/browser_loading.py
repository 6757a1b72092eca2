"""How the browser reads its session: small files at once, big ones in a worker thread behind a
progress bar (Esc leaves while it reads), the tail parser started before Textual handed over,
the index written after the first paint, and a file that cannot be opened shown as one line
or an error page. Mixed into ``BrowserScreen`` (``browser.py``)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import fields
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.widgets import Static
from textual.worker import get_current_worker

from loomtui.app.screens.source_actions import bar_modes
from loomtui.app.widgets.filter_bar import FilterBar
from loomtui.app.widgets.load_progress import LoadCancelled, LoadProgress
from loomtui.formats.opening import FirstRows, KeptScreen
from loomtui.session.errors import LoomError, SessionFormatError
from loomtui.view.session_header import Header

if TYPE_CHECKING:
    from loomtui.app.screens.browser import BrowserScreen
    from loomtui.session.manager import SessionManager
    from loomtui.view.controller import SessionController
    from loomtui.view.model import TreeModel

    _Base = BrowserScreen
else:
    _Base = object

#: files above this size open in a worker thread (the screen paints "loading" first)
ASYNC_OPEN_BYTES = 4 * 1024 * 1024
#: the most the read waits for a kept first screen to be drawn (seconds)
KEPT_PAINT_WAIT = 1.0
#: how often and how long (seconds) the first screen waits to be kept until the tree shows the
#: selected row (a cold open's tree is scrolled to it once it has its size)
KEEP_RETRY = 0.05
KEEP_TRIES = 60


class BrowserLoading(_Base):
    """Mixed into ``BrowserScreen``."""

    #: opened in the starting state (``_from_start``), and the row then selected: its first
    #: screen, drawn, is kept for the next open (``_keep_first_screen``) unless the user moved
    _opened_from_start = False
    _start_row = -1

    def _start_open(self) -> None:
        self._opened_from_start = self._from_start
        try:
            size = os.path.getsize(self.path)
        except OSError:
            size = 0
        if size <= ASYNC_OPEN_BYTES:
            try:
                manager = self.opening.session()
            except Exception as exc:  # reported on an error screen, never as a traceback
                self._load_failed(exc)
                return
            self._install(self._controller(manager, self._page_size()))
        else:
            self.add_class("-loading")
            progress = self.query_one(LoadProgress)
            progress.start(self.path, size)
            self.query_one(FilterBar).show(
                f"Opening {self.path} ({size / 1e6:.0f} MB)…", self.initial_filter, "", False
            )
            self._load_in_thread(progress)

    def on_unmount(self) -> None:
        self._abandoned = True  # a read still running stops at its next progress report
        self.opening.cancel()  # closed before the session was read: a helper started early stops

    @work(thread=True, exclusive=True, group="open", exit_on_error=False, description="read the session file")
    def _load_in_thread(self, progress: LoadProgress) -> SessionController:
        worker = get_current_worker()

        def report(done: int, total: int, entries: int) -> None:
            if self._abandoned or worker.is_cancelled:
                raise LoadCancelled()
            progress.post_message(LoadProgress.Update(done, total, entries))

        opening = self.opening
        if self._abandoned:
            opening.cancel()
            raise LoadCancelled()
        if not opening.started_early and self._from_start:
            # a big OCP run's first screen, or a pi session's kept from an earlier open, comes first
            first = opening.first_rows(self._screen_start())
            if isinstance(first, KeptScreen) and not (self._abandoned or worker.is_cancelled):
                painted = threading.Event()
                self.app.call_from_thread(self._paint_kept, first, painted.set)
                # drawn before the read, which holds the interpreter for long stretches
                painted.wait(KEPT_PAINT_WAIT)
            elif isinstance(first, FirstRows) and not (self._abandoned or worker.is_cancelled):
                from loomtui.view.model import TreeModel

                model = TreeModel(first.manager, page_size=self._page_size())
                self.app.call_from_thread(self._paint_first_rows, model, first)
        manager = opening.session(progress=report)
        if self._abandoned or worker.is_cancelled:
            raise LoadCancelled()
        progress.post_message(LoadProgress.Update(0, 0, 0, stage=f"Laying out {len(manager.index.entries):,} entries…"))
        return self._controller(manager)

    def _controller(self, manager: SessionManager, page_size: int = 20) -> SessionController:
        from loomtui.formats.opening import open_session
        from loomtui.view.controller import SessionController

        return SessionController(
            manager,
            opener=open_session,
            flattener=self.opening.flattener,
            filter_mode=self.initial_filter,
            page_size=page_size,
            key_names={
                name: self._keys(binding_id)
                for name, binding_id in (
                    ("persist", "browser.persist-leaf"),
                    ("export", "browser.export"),
                    ("archive", "browser.archive"),
                    ("show-archived", "browser.show-archived"),
                    ("filters", "browser.filter-next"),
                    ("label", "browser.label"),
                )
            },
        )

    @property
    def _from_start(self) -> bool:
        """Opened in the app's starting state (the default filter, the leaf selected)."""
        return self.initial_filter == "default" and self.select_id is None

    def _screen_start(self) -> tuple[object, ...]:
        """What the first screen depends on beside the file: the terminal's size and the
        compact choice (a kept screen is used only for the same)."""
        return (*self.app.size, self.tree.compact_choice)

    def _paint_kept(self, kept: KeptScreen, done: Callable[[], None]) -> None:
        """The first screen kept from an earlier open, drawn while the session is read (the
        whole replaces it; keys typed meanwhile are held for it: ``TreeView.held``)."""
        if self.controller is not None or self._abandoned:
            done()
            return
        self.add_class("-first-rows")
        self.query_one(LoadProgress).stop()
        self.query_one(FilterBar).show(Header(*kept.title), self.initial_filter, "", False, modes=kept.modes)
        self.query_one("#position", Static).update(Text(kept.footer, no_wrap=True, overflow="ellipsis"))
        self.tree.show_kept(kept)
        self.tree.focus()
        self.call_after_refresh(done)

    def _keep_first_screen(self, tries: int = 0) -> None:
        """The first screen as drawn, when it is still the starting state's: handed to the
        opener (in a thread), kept for the next open."""
        model = self.model
        controller = self.controller
        if model is None or controller is None or not self._opened_from_start or self.tree.held is not None:
            return
        if model.query or model.mode != "default" or model.folded or model.hoist_id or model.show_archived:
            return
        if model.selected != self._start_row:
            return
        if not self.tree.shows_row(model.selected):  # not scrolled to it yet: once it is
            if tries < KEEP_TRIES:
                self.set_timer(KEEP_RETRY, lambda: self._keep_first_screen(tries + 1))
            return
        drawn = self.tree.screen_lines()
        if drawn is not None:
            header = controller.header(self.path)
            title = tuple(getattr(header, f.name) for f in fields(header))
            kept = KeptScreen(drawn[0], drawn[1], title, bar_modes(model), model.footer().strip() or "(0/0)")
            self._save_kept(controller.manager, self._screen_start(), kept)

    @work(thread=True, group="keep-screen", exit_on_error=False, description="keep the first screen")
    def _save_kept(self, manager: SessionManager, start: tuple[object, ...], kept: KeptScreen) -> None:
        self.opening.keep_screen(manager, start, kept)

    def _paint_first_rows(self, model: TreeModel, first: FirstRows) -> None:
        """The session's first rows, drawn while the whole is still being made (they are laid
        out as they will be; nothing responds to keys until the whole is installed)."""
        if self.controller is not None or self._abandoned:
            return
        self.add_class("-first-rows")
        self.query_one(LoadProgress).stop()
        self.query_one(FilterBar).show(
            f"Opening {self.path}: {first.total:,} rows…", self.initial_filter, "", False, modes=(self.initial_filter,)
        )  # the others once the whole is there
        self.tree.show_first_rows(model, first.shown)

    @work(thread=True, exclusive=True, group="warm-search", exit_on_error=False, description="index for search")
    def _warm_search(self) -> None:
        model = self.model
        if model is not None:
            self.opening.after_paint(model)  # what is kept for the next open, written now
            model.warm_search()

    @work(thread=True, exclusive=True, group="usage", exit_on_error=False, description="count tokens")
    def _count_usage(self) -> None:
        """Token totals for the header (every reply and usage entry): read off the UI thread."""
        from loomtui.view.usage_totals import session_usage

        manager = self.manager
        if manager is not None:
            session_usage(manager)
            self.app.call_from_thread(self._refresh_bars)

    def _load_failed(self, exc: BaseException) -> None:
        from loomtui.app.screens.dialogs import ErrorScreen

        name = os.path.basename(self.path)
        if self.has_screen_below and isinstance(exc, (LoomError, OSError)):
            # opened from the picker or another browser: one line, and the user stays there
            self.app.pop_screen()
            self.app.notify(f"{exc}", title=f"Cannot open {name}", severity="error", timeout=10)
            return
        if isinstance(exc, SessionFormatError):
            hint = (
                "loomtui opens pi / oh-my-pi session files (JSONL whose first line is a "
                '{"type":"session"} header, versions 1-3), Claude Code and Codex sessions, '
                "and OpenLoom / socketteer looms."
            )
            screen = ErrorScreen(f"Cannot open {name}", str(exc), hint)
        elif isinstance(exc, (LoomError, OSError)):
            screen = ErrorScreen(f"Cannot open {name}", str(exc))
        else:
            self.loom_app.log_error(exc)
            screen = ErrorScreen(f"Cannot open {name}", f"loomtui failed while reading it: {type(exc).__name__}: {exc}")
        if self.is_current:
            self.app.switch_screen(screen)
        else:
            self.app.push_screen(screen)
