"""The session picker: what ``loomtui`` shows without a FILE.

Every pi and omp session on the machine and the other agents' (``catalog.list_sessions``; their
folders and tags are their listers', ``formats/sources.py``), grouped by project (the header's
cwd), newest first, forks threaded under their parent session. Typing filters by name, first
message and project; Ctrl+F searches the full text of every session in a background worker;
Enter opens the session (a search hit: at the matching entry) in a browser pushed on top, and
Esc there comes back here. With no sessions at all it shows the bundled samples and says so.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, Static
from textual.worker import Worker, WorkerState, get_current_worker

from loomtui.app import keymap
from loomtui.app.samples import Samples, user_samples
from loomtui.app.samples import note as samples_note
from loomtui.app.widgets.search_keys import SearchInput
from loomtui.app.widgets.session_list import (
    HIT,
    MORE,
    NOTE,
    PROJECT,
    SESSION,
    PickerRow,
    SessionList,
    column_header,
    listed_tools,
    short_path,
)
from loomtui.formats.sources import listers, picker_rows
from loomtui.session.catalog import SessionSummary, list_sessions
from loomtui.session.errors import LoomError
from loomtui.session.fulltext import SEARCH_LIMIT, SearchCapped, SearchHit, SearchProgress, search_sessions
from loomtui.session.lineage import ProjectGroup, filtered_groups, group_sessions, parent_path
from loomtui.session.locations import default_session_dirs
from loomtui.session.picker_texts import message_text
from loomtui.session.resume_search import parse_query
from loomtui.view.search_words import fit, found, search_status
from loomtui.view.words import counted, not_a_fork

if TYPE_CHECKING:
    from loomtui.app.app import LoomApp

#: the full-text search starts this long after the last keystroke
SEARCH_DEBOUNCE = 0.3
#: the search worker hands results to the screen at most this often
SEARCH_FLUSH = 0.1
#: the filter keeps at most this many characters of message text in memory
TEXT_BUDGET = 256 * 1024 * 1024

LIST, SEARCH = "list", "search"
FILTER_PLACEHOLDER = "type to filter by name, id, message text or project"


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
        #: sessions whose hits stopped at the per-session cap: path -> hits shown
        self.capped: dict[str, int] = {}
        #: the whole search stopped at ``self.limit`` hits
        self.capped_all = False
        self.limit = SEARCH_LIMIT
        self.search_done = False
        #: every message's text by path, gathered after the listing (the filter matches it)
        self.message_texts: dict[str, str] = {}
        #: the file size each of those texts was read at (a grown session is read again)
        self._text_sizes: dict[str, int] = {}
        self.search_state = ""
        self._search_timer: Timer | None = None
        self._loaded_once = False
        self._said: list[str] = [""]  # the status line's wordings (``_status``)
        self._rescanned = False

    # layout -------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static("Sessions", id="picker-title")
        yield Static("", id="picker-note")
        yield SearchInput(placeholder=FILTER_PLACEHOLDER, id="picker-input")
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
            self.run_worker(
                self._watch(),
                group="picker-watch",
                exclusive=True,
                exit_on_error=False,
                description="watch the session directories",
            )

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

    @on(SessionList.WidthChanged)  # the list's scrollbar came or went: the columns follow its rows
    def on_resize(self) -> None:
        self._columns()
        self._status(self._said)

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
        if self.dirs:  # the other sources' files (OCP runs) are listed only where the user points
            sessions = sorted(sessions + picker_rows(self.dirs), key=lambda s: (-s.modified, s.path))
        samples = None
        if not sessions and not self.only:  # the user's copies, never the package's files
            samples = user_samples()
            sessions = list_sessions([samples.where])
        self.app.call_from_thread(self._loaded, sessions, samples if sessions else None)

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

    def _loaded(self, sessions: list[SessionSummary], samples: Samples | None) -> None:
        first = not self._loaded_once
        self._loaded_once = True
        self.sessions = sessions
        self.groups = group_sessions(sessions)
        self.samples = samples is not None
        note = self.query_one("#picker-note", Static)
        if samples is not None:
            shown = Samples(short_path(samples.where), samples.problem)
            note.update(Text(samples_note(listed_tools(), self._places(), shown), overflow="fold"))
            note.add_class("-shown")
        else:
            note.remove_class("-shown")
        self._title()
        if self.mode == LIST:
            self._show_list(keep_selection=not first)
        self._gather_texts(
            [(s.path, s.size) for s in sessions if s.tool in ("pi", "omp") and self._text_sizes.get(s.path) != s.size],
            sum(len(t) for t in self.message_texts.values()),
        )
        if self._rescanned:
            self._rescanned = False
            self.notify(f"Read the session directories again: {counted(len(sessions), 'session')}.", timeout=4)
        if first and samples:
            self.notify("No sessions on this machine: showing your copies of the sample sessions.", timeout=8)

    def _places(self) -> str:
        """Every folder the listing looked in: pi's, omp's, the other agents' (their listers) and ``dirs``."""
        roots = list(self.roots)
        if not self.only:
            roots[2:2] = [d for lister in listers() for d in lister.roots(os.environ)]
        return ", ".join(short_path(d) for d in roots)

    @work(
        thread=True,
        exclusive=True,
        group="picker-texts",
        exit_on_error=False,
        description="Read the sessions' messages",
    )
    def _gather_texts(self, paths: list[tuple[str, int]], held: int) -> None:
        """Every message's text of each session (path, size), newest first, for the filter (pi's
        /resume matches all of it); handed over a batch at a time, at most ``TEXT_BUDGET``
        characters in all (``held`` are kept already)."""
        worker = get_current_worker()
        batch: dict[str, tuple[int, str]] = {}
        last = time.monotonic()
        for path, size in paths:
            if worker.is_cancelled or held > TEXT_BUDGET:
                break
            text = message_text(path)
            if text is None:
                continue
            batch[path] = (size, text)
            held += len(text)
            if time.monotonic() - last >= SEARCH_FLUSH * 3:
                self.app.call_from_thread(self._texts_read, batch)
                batch, last = {}, time.monotonic()
        if batch and not worker.is_cancelled:
            self.app.call_from_thread(self._texts_read, batch)

    def _texts_read(self, texts: dict[str, tuple[int, str]]) -> None:
        for path, (size, text) in texts.items():
            self.message_texts[path] = text
            self._text_sizes[path] = size
        if self.mode == LIST and self.filter_text.strip():
            self._show_list()

    def _title(self) -> None:
        projects = len({s.cwd for s in self.sessions})
        n = len(self.sessions)
        what = "Sample sessions" if self.samples else "Sessions"
        if self.only:
            what += " in " + ", ".join(short_path(d) for d in self.dirs)
        text = f"{what}  ·  {n:,} in {counted(projects, 'project')}"
        if self.mode == SEARCH:
            text = f"Full-text search  ·  {counted(n, 'session')}"
        self.query_one("#picker-title", Static).update(Text(text, no_wrap=True, overflow="ellipsis"))

    def _status(self, text: str | list[str]) -> None:
        """The status line; a list: its longest wording that fits, again after a resize."""
        self._said = [text] if isinstance(text, str) else text
        bar = self.query_one("#picker-status", Static)
        said = fit(self._said, bar.content_region.width or self.app.size.width - 2)
        bar.update(Text(said, no_wrap=True, overflow="ellipsis"))

    def _hints(self) -> str:
        if self.mode == SEARCH:
            return "Enter open at entry  ·  Esc back to the list  ·  ^Q quit"
        hints = "Enter open  ·  ^F search all text  ·  ^O open parent  ·  Esc clear  ·  ^Q quit"
        if any(s.parent_session for s in self.sessions):
            hints += "  ·  ⑂ fork (└─ under its parent)"
        return hints

    def _show_list(self, keep_selection: bool = True) -> None:
        filtering = bool(self.filter_text.strip())
        rows: list[PickerRow] = []
        shown = 0
        for group in filtered_groups(self.groups, self.filter_text, self.message_texts):
            rows.append(PickerRow(PROJECT, text=group.cwd, count=len(group.items), noun=group.noun))
            rows.extend(PickerRow(SESSION, session=s, depth=d) for s, d in group.items)
            shown += len(group.items)
        if not rows and self.sessions and filtering:
            rows.append(PickerRow(NOTE, text=_no_match(self.filter_text.strip())))
        elif not self.sessions:
            rows.append(PickerRow(NOTE, text=f"  No sessions in {self._places()}."))
        keep = self.session_list.keeper() if keep_selection else None
        self.session_list.set_rows(rows, keep)
        self._columns()
        if not self.sessions:
            self._status(f"No sessions in {self._places()}.  ^Q quit")
        elif filtering:
            self._status(f"{shown:,} of {len(self.sessions):,} sessions match  ·  " + self._hints())
        else:
            self._status(self._hints())

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
        """Ctrl+R: the directories read again; a notice says so once the list is back."""
        self._status("Reading sessions…")
        self._rescanned = True
        self.load()

    def action_open(self) -> None:
        row = self.session_list.selected_row
        if row is not None:
            self._open_row(row)

    def _open_row(self, row: PickerRow) -> None:
        if row.kind == MORE:
            self._more(row)
            return
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
            name = next((f"{lister.name} session" for lister in listers() if lister.tool == s.tool), "session")
            self.notify(not_a_fork(None if s.tool in ("pi", "omp") else name), title="Open parent session", timeout=5)
            return
        parent = parent_path(s, self.sessions)
        if parent is None:
            self.notify(f"The parent session is not on this machine: {s.parent_session}", severity="warning", timeout=8)
            return
        if self.mode == LIST and not self.filter_text:
            self.session_list.select_where(
                lambda r: r.kind == SESSION and r.session is not None and r.session.path == parent
            )
        self.open_session(parent)

    def action_toggle_search(self) -> None:
        if self.mode == LIST:
            self.mode = SEARCH
            self.input.placeholder = "search the text of every session (all words, any case)"
            self.input.value = self.query_text or self.filter_text
            self.input.cursor_position = len(self.input.value)  # go on typing where the query ends
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
        self.input.placeholder = FILTER_PLACEHOLDER
        with self.prevent(Input.Changed):
            self.input.value = self.filter_text
            self.input.cursor_position = len(self.filter_text)
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
        else:
            quit_keys = keymap.said_keys(keymap.SPEC_BY_ID["app.quit"], cast("LoomApp", self.app).user_keymap)
            self.notify(f"Nothing to clear. {quit_keys} quits.", timeout=3)

    # full-text search ---------------------------------------------------------------------------
    def _cancel_search(self) -> None:
        if self._search_timer is not None:
            self._search_timer.stop()
            self._search_timer = None
        self.workers.cancel_group(self, "picker-search")
        self.workers.cancel_group(self, "picker-more")

    def _start_search(self, limit: int = SEARCH_LIMIT) -> None:
        if self._search_timer is not None:
            self._search_timer.stop()
            self._search_timer = None
        query = self.query_text
        self.search_state = query
        self.hits = []
        self.capped, self.capped_all, self.limit, self.search_done = {}, False, limit, False
        self._show_hits()
        if not query.strip():
            self.workers.cancel_group(self, "picker-search")
            self._status("Type words to search for  ·  " + self._hints())
            return
        self._status(f"Searching {counted(len(self.sessions), 'session')}…")
        self._search([s.path for s in self.sessions], query, limit)

    @work(thread=True, exclusive=True, group="picker-search", exit_on_error=False, description="Search the sessions")
    def _search(self, paths: list[str], query: str, limit: int = SEARCH_LIMIT, per_session: int | None = None) -> None:
        worker = get_current_worker()
        batch: list[SearchHit | SearchCapped] = []
        last = time.monotonic()
        progress = SearchProgress(0, len(paths), 0)
        more = {} if per_session is None else {"per_session": per_session}
        for item in search_sessions(paths, query, limit=limit, **more):
            if worker.is_cancelled:
                return
            if not isinstance(item, SearchProgress):
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

    def _search_results(
        self, query: str, items: list[SearchHit | SearchCapped], progress: SearchProgress, done: bool
    ) -> None:
        if self.mode != SEARCH or query != self.search_state:
            return
        for item in items:
            if isinstance(item, SearchHit):
                self.hits.append(item)
            elif item.path is None:
                self.capped_all = True
            else:
                self.capped[item.path] = item.shown
        self.search_done = done
        if items or done:
            self._show_hits()
        self._search_status(progress, done)

    def _search_status(self, progress: SearchProgress, done: bool) -> None:
        sessions, plus = len({h.path for h in self.hits}), bool(self.capped or self.capped_all)
        if not done:
            self._status(
                f"Searching {progress.done:,}/{progress.total:,} sessions…  {found(len(self.hits), sessions, plus)}"
            )
            return
        self._status(search_status(len(self.hits), sessions, len(self.capped), self.capped_all, plus))

    def _more(self, row: PickerRow) -> None:
        """Enter on a "more" row: the next hits of its session, or of the whole search."""
        if row.session is None:
            self._start_search(self.limit + SEARCH_LIMIT)
            return
        path = row.session.path
        shown = self.capped.get(path, 0)
        self._status(f"Searching {short_path(path)} for more hits…")
        self._search_one(path, self.search_state, shown)

    @work(thread=True, exclusive=True, group="picker-more", exit_on_error=False, description="Search one session")
    def _search_one(self, path: str, query: str, shown: int) -> None:
        per_session = shown + SEARCH_LIMIT
        worker = get_current_worker()
        items = [
            i
            for i in search_sessions([path], query, per_session=per_session, limit=per_session + 1)
            if not isinstance(i, SearchProgress)
        ]
        if not worker.is_cancelled:
            self.app.call_from_thread(self._more_results, query, path, items, shown)

    def _more_results(self, query: str, path: str, items: list[SearchHit | SearchCapped], shown: int) -> None:
        """A session's hits, searched again further, replace its first ones in place."""
        if self.mode != SEARCH or query != self.search_state:
            return
        hits = [i for i in items if isinstance(i, SearchHit)]
        at = next((n for n, h in enumerate(self.hits) if h.path == path), len(self.hits))
        self.hits = [h for h in self.hits if h.path != path]
        self.hits[at:at] = hits
        self.capped.pop(path, None)
        for i in items:
            if isinstance(i, SearchCapped) and i.path == path:
                self.capped[path] = i.shown
        self._show_hits(hits[shown] if len(hits) > shown else None)  # the first new hit
        self._search_status(SearchProgress(1, 1, len(self.hits)), True)

    def _show_hits(self, select: SearchHit | None = None) -> None:
        by_path = {s.path: s for s in self.sessions}
        rows: list[PickerRow] = []
        current = None
        for n, h in enumerate(self.hits):
            if h.path != current:
                current = h.path
                s = by_path.get(h.path)
                if s is None:
                    continue
                rows.append(PickerRow(SESSION, session=s))
            rows.append(PickerRow(HIT, session=by_path.get(h.path), hit=h))
            last_of_session = n + 1 == len(self.hits) or self.hits[n + 1].path != h.path
            if last_of_session and h.path in self.capped:
                rows.append(
                    PickerRow(
                        MORE,
                        session=by_path.get(h.path),
                        count=self.capped[h.path],
                        text=f"… more hits in this session (showing the first {self.capped[h.path]:,})"
                        f"  ·  Enter shows {SEARCH_LIMIT:,} more",
                    )
                )
        if self.capped_all:
            rows.append(
                PickerRow(
                    MORE,
                    text=f"… the search stopped at {len(self.hits):,} hits  ·  Enter searches "
                    f"on for {SEARCH_LIMIT:,} more",
                )
            )
        if not rows and self.search_done and self.search_state.strip():
            rows.append(
                PickerRow(
                    NOTE,
                    text=f"  No entry of any session holds every word of “{self.search_state.strip()}”."
                    "  Esc goes back to the list",
                )
            )
        keep = self.session_list.keeper() if select is None else (lambda r: r.hit is select)
        self.session_list.set_rows(rows, keep if keep is not None else (lambda r: r.kind == HIT))
        self._columns()


def _no_match(query: str) -> str:
    """The list's line when the filter matches nothing: why (a pattern that is not one too)."""
    bad = parse_query(query).error
    if bad is not None:
        return f"  “{query}” is not a valid regular expression ({bad}).  Esc clears it"
    return (
        f"  No session matches “{query}” (name, id, messages or project).  Esc clears it  ·  ^F searches every message"
    )
