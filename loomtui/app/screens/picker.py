"""The session picker: what ``loomtui`` shows without a FILE.

Every pi and omp session on the machine (``catalog.list_sessions``), grouped by project (the
header's cwd), newest first, forks threaded under their parent session. Typing filters by name,
first message and project; Ctrl+F searches the full text of every session in a background
worker; Enter opens the session (a search hit: at the matching entry) in a browser pushed on
top, and Esc there comes back here. With no sessions at all it shows the bundled samples and
says so.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, Static
from textual.worker import Worker, WorkerState, get_current_worker

from loomtui.app import keymap
from loomtui.app.widgets.session_list import HIT, PROJECT, SESSION, PickerRow, SessionList, column_header, short_path
from loomtui.session.catalog import SessionSummary, list_sessions
from loomtui.session.errors import LoomError
from loomtui.session.fulltext import SEARCH_LIMIT, SearchHit, SearchProgress, search_sessions
from loomtui.session.lineage import ProjectGroup, group_sessions, matches_filter, parent_path
from loomtui.session.locations import default_session_dirs, sample_dir

if TYPE_CHECKING:
    from loomtui.app.app import LoomApp

#: the full-text search starts this long after the last keystroke
SEARCH_DEBOUNCE = 0.3
#: the search worker hands results to the screen at most this often
SEARCH_FLUSH = 0.1

LIST, SEARCH = "list", "search"


class PickerScreen(Screen[None]):
    """All sessions; ``dirs`` are extra directories (``--sessions-dir``) besides pi's and omp's."""

    BINDINGS = keymap.bindings("picker")

    DEFAULT_CSS = """
    PickerScreen { layout: vertical; }
    PickerScreen > #picker-title { height: 1; background: $panel; text-style: bold; padding: 0 1; }
    PickerScreen > #picker-note { height: auto; color: $warning; padding: 0 1; display: none; }
    PickerScreen > #picker-note.-shown { display: block; }
    PickerScreen > #picker-input { border: none; height: 1; padding: 0 1; }
    PickerScreen > #picker-columns { height: 1; color: $text-muted; }
    PickerScreen > #picker-list { height: 1fr; }
    PickerScreen > #picker-status { height: 1; background: $panel; color: $text-muted; padding: 0 1; }
    """

    def __init__(self, dirs: list[str] | None = None, *, only: bool = False) -> None:
        super().__init__()
        self.dirs = [os.path.abspath(os.path.expanduser(d)) for d in (dirs or [])]
        #: list ``dirs`` alone (``loomtui DIR``), not pi's, omp's and the agents' roots besides
        self.only = only and bool(self.dirs)
        self.sessions: list[SessionSummary] = []
        self.groups: list[ProjectGroup] = []
        self.samples = False
        self.mode = LIST
        self.filter_text = ""
        self.query_text = ""
        self.hits: list[SearchHit] = []
        self.search_state = ""
        self._search_timer: Timer | None = None
        self._loaded_once = False

    # layout -------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static("Sessions", id="picker-title")
        yield Static("", id="picker-note")
        yield Input(placeholder="type to filter by name, first message or project", id="picker-input")
        yield Static("", id="picker-columns")
        yield SessionList(id="picker-list")
        yield Static("", id="picker-status")

    @property
    def session_list(self) -> SessionList:
        return self.query_one("#picker-list", SessionList)

    @property
    def input(self) -> Input:
        return self.query_one("#picker-input", Input)

    def on_mount(self) -> None:
        self.input.focus()
        self._status("Reading sessions…")
        self.load()
        if getattr(self.app, "follow_files", False):
            self.run_worker(self._watch(), group="picker-watch", exclusive=True, exit_on_error=False,
                            description="watch the session directories")

    async def _watch(self) -> None:
        """New and grown session files update the list in place (the selection stays)."""
        from loomtui.app.picker_watch import watch_dirs

        def changed() -> None:
            if self.is_attached and self.mode == LIST:
                self.load()

        await watch_dirs(self.roots, changed)

    def on_screen_resume(self) -> None:
        # back from a browser: the session may have grown (the cache makes this cheap)
        if self._loaded_once:
            self.load()

    def on_resize(self) -> None:
        self._columns()

    def _columns(self) -> None:
        width = self.session_list.scrollable_content_region.width or self.size.width
        text = column_header(width) if self.mode == LIST else "  sessions and entries containing every word"
        self.query_one("#picker-columns", Static).update(Text(text, no_wrap=True, overflow="ellipsis"))

    # listing ------------------------------------------------------------------------------------
    @property
    def roots(self) -> list[str]:
        return list(self.dirs) if self.only else default_session_dirs() + self.dirs

    @work(thread=True, exclusive=True, group="picker-list", exit_on_error=False, description="List the sessions")
    def load(self) -> None:
        def progress(done: int, total: int) -> None:
            self.app.call_from_thread(self._status, f"Reading sessions… {done:,}/{total:,} (counted once, then cached)")

        if self.only:
            sessions = list_sessions(self.dirs, progress=progress)
        else:
            sessions = list_sessions(extra=self.dirs, progress=progress)
        if self.dirs:  # OCP run documents live only where the user points
            from loomtui.formats.ocp_catalog import list_runs

            sessions = sorted(sessions + list_runs(self.dirs), key=lambda s: (-s.modified, s.path))
        samples = False
        if not sessions and not self.only:
            sessions = list_sessions([sample_dir()])
            samples = bool(sessions)
        self.app.call_from_thread(self._loaded, sessions, samples)

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        """A listing or search that fails is a notice (and, when it is loomtui's own fault, a
        line in the error log); the picker stays usable with what it had."""
        if event.state != WorkerState.ERROR or event.worker.error is None:
            return
        exc, what = event.worker.error, event.worker.description
        if isinstance(exc, (LoomError, OSError)):
            self.notify(str(exc), title=f"{what}: not done", severity="error", timeout=10)
        else:
            cast("LoomApp", self.app).log_error(exc)
            self.notify(f"{type(exc).__name__}: {exc}", title=f"{what}: internal error", severity="error", timeout=10)
        self._status(f"{what} failed  ·  " + self._hints())

    def _loaded(self, sessions: list[SessionSummary], samples: bool) -> None:
        first = not self._loaded_once
        self._loaded_once = True
        self.sessions = sessions
        self.groups = group_sessions(sessions)
        self.samples = samples
        note = self.query_one("#picker-note", Static)
        if samples:
            where = ", ".join(short_path(d) for d in self.roots)
            note.update(Text(f"No pi or omp sessions found in {where}. These are loomtui's bundled sample "
                             f"sessions ({short_path(sample_dir())}).", overflow="fold"))
            note.add_class("-shown")
        else:
            note.remove_class("-shown")
        self._title()
        if self.mode == LIST:
            self._show_list(keep_selection=not first)
        if first and samples:
            self.notify("Showing the bundled sample sessions: none were found on this machine.", timeout=8)

    def _title(self) -> None:
        projects = len({s.cwd for s in self.sessions})
        n = len(self.sessions)
        what = "Sample sessions" if self.samples else "Sessions"
        if self.only:
            what += " in " + ", ".join(short_path(d) for d in self.dirs)
        text = f"{what}  ·  {n:,} in {projects:,} project{'s' if projects != 1 else ''}"
        if self.mode == SEARCH:
            text = f"Full-text search  ·  {n:,} sessions"
        self.query_one("#picker-title", Static).update(Text(text, no_wrap=True, overflow="ellipsis"))

    def _status(self, text: str) -> None:
        self.query_one("#picker-status", Static).update(Text(text, no_wrap=True, overflow="ellipsis"))

    def _hints(self) -> str:
        if self.mode == SEARCH:
            return "Enter open at entry  ·  Esc back to the list  ·  ^Q quit"
        hints = "Enter open  ·  ^F search all text  ·  ^O open parent  ·  Esc clear  ·  ^Q quit"
        if any(s.parent_session for s in self.sessions):
            hints += "  ·  ⑂ fork (└─ under its parent)"
        return hints

    def _show_list(self, keep_selection: bool = True) -> None:
        tokens = self.filter_text.lower().split()
        rows: list[PickerRow] = []
        shown = 0
        for group in self.groups:
            if tokens:
                items = [(s, 0) for s, _d in group.items if matches_filter(s, tokens)]
            else:
                items = list(group.items)
            if not items:
                continue
            rows.append(PickerRow(PROJECT, text=group.cwd, count=len(items)))
            rows.extend(PickerRow(SESSION, session=s, depth=d) for s, d in items)
            shown += len(items)
        keep = self._keeper() if keep_selection else None
        self.session_list.set_rows(rows, keep)
        self._columns()
        if not self.sessions:
            where = ", ".join(short_path(d) for d in self.roots)
            self._status(f"No sessions in {where}.  ^Q quit")
        elif tokens:
            self._status(f"{shown:,} of {len(self.sessions):,} sessions match  ·  " + self._hints())
        else:
            self._status(self._hints())

    def _keeper(self) -> Any:
        row = self.session_list.selected_row
        if row is None or row.session is None:
            return None
        path = row.session.path
        entry = row.hit.entry_id if row.hit is not None else None
        return lambda r: r.session is not None and r.session.path == path and (
            entry is None or (r.hit is not None and r.hit.entry_id == entry))

    # typing -------------------------------------------------------------------------------------
    @on(Input.Changed, "#picker-input")
    def _typed(self, event: Input.Changed) -> None:
        if self.mode == LIST:
            self.filter_text = event.value
            self._show_list(keep_selection=False)
        else:
            self.query_text = event.value
            if self._search_timer is not None:
                self._search_timer.stop()
            self._search_timer = self.set_timer(SEARCH_DEBOUNCE, self._start_search)

    @on(Input.Submitted, "#picker-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.mode == SEARCH and (self._search_timer is not None or self.search_state != self.query_text):
            self._start_search()  # Enter right after typing: search now instead of waiting
            return
        self.action_open()

    @on(SessionList.Activated)
    def _activated(self, event: SessionList.Activated) -> None:
        self._open_row(event.row)

    # actions ------------------------------------------------------------------------------------
    def action_cursor(self, step: int) -> None:
        self.session_list.move(step)

    def action_page(self, step: int) -> None:
        self.session_list.page(step)

    def action_home(self) -> None:
        self.session_list.home()

    def action_end(self) -> None:
        self.session_list.end()

    def action_rescan(self) -> None:
        self._status("Reading sessions…")
        self.load()

    def action_open(self) -> None:
        row = self.session_list.selected_row
        if row is not None:
            self._open_row(row)

    def _open_row(self, row: PickerRow) -> None:
        if row.session is None:
            return
        if not os.path.exists(row.session.path):
            self.notify(f"{row.session.path} no longer exists.", severity="warning", timeout=6)
            self.load()
            return
        select = row.hit.entry_id if row.kind == HIT and row.hit is not None else None
        self.open_session(row.session.path, select)

    def open_session(self, path: str, select_id: str | None = None) -> None:
        """Open ``path`` in a browser on top of the picker, at ``select_id`` when given."""
        cast("LoomApp", self.app).open_session_file(path, select_id=select_id)

    def action_open_parent(self) -> None:
        row = self.session_list.selected_row
        s = row.session if row is not None else None
        if s is None:
            return
        if not s.parent_session:
            self.notify("This session is not a fork: it has no parent session.", timeout=4)
            return
        parent = parent_path(s, self.sessions)
        if parent is None:
            self.notify(f"The parent session is not on this machine: {s.parent_session}", severity="warning",
                        timeout=8)
            return
        if self.mode == LIST and not self.filter_text:
            self.session_list.select_where(lambda r: r.kind == SESSION and r.session is not None and r.session.path == parent)
        self.open_session(parent)

    def action_toggle_search(self) -> None:
        if self.mode == LIST:
            self.mode = SEARCH
            self.input.placeholder = "search the text of every session (all words, any case)"
            self.input.value = self.query_text or self.filter_text
            self.query_text = self.input.value
            self._title()
            self._show_hits()
            if self.query_text.strip():
                self._start_search()
            else:
                self._status("Type words to search for  ·  " + self._hints())
        else:
            self._leave_search()
        self.input.focus()

    def _leave_search(self) -> None:
        self._cancel_search()
        self.mode = LIST
        self.input.placeholder = "type to filter by name, first message or project"
        with self.prevent(Input.Changed):
            self.input.value = self.filter_text
        self._title()
        self._show_list(keep_selection=False)

    def action_escape(self) -> None:
        """Leave the search, else clear the filter, else go back to a screen below (if any)."""
        if self.mode == SEARCH:
            self._leave_search()
        elif self.filter_text:
            self.input.value = ""
        elif self.app.screen_stack.index(self) >= 2:
            self.app.pop_screen()

    # full-text search ---------------------------------------------------------------------------
    def _cancel_search(self) -> None:
        if self._search_timer is not None:
            self._search_timer.stop()
            self._search_timer = None
        self.workers.cancel_group(self, "picker-search")

    def _start_search(self) -> None:
        if self._search_timer is not None:
            self._search_timer.stop()
            self._search_timer = None
        query = self.query_text
        self.search_state = query
        self.hits = []
        self._show_hits()
        if not query.strip():
            self.workers.cancel_group(self, "picker-search")
            self._status("Type words to search for  ·  " + self._hints())
            return
        self._status(f"Searching {len(self.sessions):,} sessions…")
        self._search([s.path for s in self.sessions], query)

    @work(thread=True, exclusive=True, group="picker-search", exit_on_error=False,
          description="Search the sessions")
    def _search(self, paths: list[str], query: str) -> None:
        worker = get_current_worker()
        batch: list[SearchHit] = []
        last = time.monotonic()
        progress = SearchProgress(0, len(paths), 0)
        for item in search_sessions(paths, query):
            if worker.is_cancelled:
                return
            if isinstance(item, SearchHit):
                batch.append(item)
                continue
            progress = item
            now = time.monotonic()
            if now - last >= SEARCH_FLUSH:
                last = now
                self.app.call_from_thread(self._search_results, query, batch, progress, False)
                batch = []
        if not worker.is_cancelled:
            self.app.call_from_thread(self._search_results, query, batch, progress, True)

    def _search_results(self, query: str, hits: list[SearchHit], progress: SearchProgress, done: bool) -> None:
        if self.mode != SEARCH or query != self.search_state:
            return
        if hits:
            self.hits.extend(hits)
            self._show_hits()
        sessions = len({h.path for h in self.hits})
        found = f"{len(self.hits):,} hit{'s' if len(self.hits) != 1 else ''} in {sessions:,} session{'s' if sessions != 1 else ''}"
        if done:
            if len(self.hits) >= SEARCH_LIMIT:
                found = f"The first {found} (add words to narrow the search)"
            self._status((found if self.hits else "No matches") + "  ·  " + self._hints())
        else:
            self._status(f"Searching {progress.done:,}/{progress.total:,} sessions…  {found}")

    def _show_hits(self) -> None:
        by_path = {s.path: s for s in self.sessions}
        rows: list[PickerRow] = []
        current = None
        for h in self.hits:
            if h.path != current:
                current = h.path
                s = by_path.get(h.path)
                if s is None:
                    continue
                rows.append(PickerRow(SESSION, session=s))
            rows.append(PickerRow(HIT, session=by_path.get(h.path), hit=h))
        keep = self._keeper()
        self.session_list.set_rows(rows, keep if keep is not None else (lambda r: r.kind == HIT))
        self._columns()
