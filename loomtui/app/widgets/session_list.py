"""The picker's list: project headers, sessions (forks threaded) and search hits, one line each.

A Line-API ScrollView like the tree (docs/architecture.md, "Line-API widgets"): a DataTable took 1–1.6 s to fill or
refill with 2,000 rows (measured), which a filter keystroke cannot afford; here a refilter is a
new list of rows and a repaint of the visible lines.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from loomtui.app.messages import SessionActivated, SessionListWidth
from loomtui.formats.sources import listers, picker_tags
from loomtui.session.catalog import SessionSummary
from loomtui.session.fulltext import SearchHit
from loomtui.view.printable import printable
from loomtui.view.search_words import hit_words
from loomtui.view.words import counted

PROJECT = "project"
SESSION = "session"
HIT = "hit"
#: a search stopped short: Enter loads more hits (of its session, or of every session)
MORE = "more"
#: a line that says why the list is empty (not selectable)
NOTE = "note"


def clean(text: str) -> str:
    return printable(text, blank_breaks=True)


@dataclass(frozen=True, slots=True)
class PickerRow:
    """One line: a project header, a session (``depth`` > 0 under its parent), a search hit, a
    "more hits" row or a note."""

    kind: str
    session: SessionSummary | None = None
    depth: int = 0
    text: str = ""
    hit: SearchHit | None = None
    count: int = 0
    noun: str = "session"  # what a project's items are called ("3 runs" of OCP)

    @property
    def selectable(self) -> bool:
        return self.kind not in (PROJECT, NOTE)


def format_when(ts: float, now: float | None = None) -> str:
    """Local time: ``HH:MM`` today, ``Mon DD HH:MM`` this year, else ``YYYY-MM-DD``."""
    if ts != ts or ts <= 0:  # NaN
        return "?"
    when = datetime.fromtimestamp(ts)
    today = datetime.fromtimestamp(time.time() if now is None else now)
    if when.date() == today.date():
        return when.strftime("%H:%M")
    if when.year == today.year:
        return when.strftime("%b %d %H:%M")
    return when.strftime("%Y-%m-%d")


def short_path(path: str) -> str:
    home = os.path.expanduser("~")
    if home and home != "/" and (path == home or path.startswith(home + os.sep)):
        return "~" + path[len(home) :]
    return path


#: cells of the right-hand columns (right-aligned, so each includes its gap): created,
#: modified, messages, branch points
COLUMNS = ((14, "created"), (14, "modified"), (7, "msgs"), (10, "branches"))


def tool_tag(tool: str) -> str:
    """The word a session's row starts with: the tool that wrote it, in the word its lister gives
    (``formats/sources.py``), else the tool itself (pi, omp, an OCP run)."""
    return picker_tags().get(tool, tool)


def listed_tools() -> str:
    """The tools whose sessions the picker lists, as "pi, omp, A or B" (the others' listers)."""
    names = ["pi", "omp", *(lister.name for lister in listers())]
    return ", ".join(names[:-1]) + " or " + names[-1]


def column_header(width: int) -> str:
    """The header line matching ``SessionList`` rows at ``width`` cells."""
    right = _right_columns(width)
    cells = "".join(f"{name:>{w}}" for w, name in right)
    title_w = max(1, width - 2 - len(cells))
    return f"  {'session':<{title_w}}{cells}"


def _right_columns(width: int) -> tuple[tuple[int, str], ...]:
    if width >= 80:
        return COLUMNS
    if width >= 60:
        return COLUMNS[1:]
    return ()


#: the count columns, which a summary's ``figures`` replace (an OCP run: status counts, cost)
COUNT_COLUMNS = frozenset(("msgs", "branches"))


def _cells(right: tuple[tuple[int, str], ...], values: dict[str, str], figures: str | None) -> str:
    """The right-hand cells of a row: each column's value, or ``figures`` across the count
    columns (right-aligned, taking room from the title when it is wider than they are)."""
    if figures is None or not any(name in COUNT_COLUMNS for _w, name in right):
        return "".join(f"{values[name]:>{w}}" for w, name in right)
    dates = "".join(f"{values[name]:>{w}}" for w, name in right if name not in COUNT_COLUMNS)
    room = sum(w for w, name in right if name in COUNT_COLUMNS)
    return dates + " " * max(2, room - cell_len(figures)) + figures


class SessionList(ScrollView, can_focus=False):
    """Rows of the picker; the screen moves the cursor (the filter input keeps the focus)."""

    COMPONENT_CLASSES = {
        "session-list--project",
        "session-list--muted",
        "session-list--cursor",
        "session-list--hit",
        "session-list--fork",
    }

    DEFAULT_CSS = """
    SessionList {
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-size-vertical: 1;
        background: $background;
    }
    SessionList > .session-list--project { color: $accent; text-style: bold; }
    SessionList > .session-list--muted { color: $text-muted; }
    SessionList > .session-list--cursor { background: $primary 35%; text-style: bold; }
    SessionList > .session-list--hit { color: $text; }
    SessionList > .session-list--fork { color: $secondary; }
    """

    Activated = SessionActivated

    WidthChanged = SessionListWidth

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[PickerRow] = []
        self.selected = -1
        self._drawn_width = 0

    # content ---------------------------------------------------------------------------------
    def set_rows(self, rows: list[PickerRow], keep: object = None) -> None:
        """Show ``rows``; the cursor goes to the row for which ``keep(row)`` is true, else the
        first selectable row."""
        self.rows = rows
        target = -1
        if callable(keep):
            target = next((i for i, r in enumerate(rows) if r.selectable and keep(r)), -1)
        if target < 0:
            target = next((i for i, r in enumerate(rows) if r.selectable), -1)
        self.selected = target
        self.virtual_size = Size(self.scrollable_content_region.width, len(rows))
        self.scroll_to(y=0, animate=False, immediate=True)
        self._scroll_to_selected()
        self.refresh()

    @property
    def selected_row(self) -> PickerRow | None:
        return self.rows[self.selected] if 0 <= self.selected < len(self.rows) else None

    def keeper(self) -> Callable[[PickerRow], bool] | None:
        """What finds the selected row again in new rows (the same session, the same hit)."""
        row = self.selected_row
        if row is None or row.session is None:
            return None
        path = row.session.path
        entry = row.hit.entry_id if row.hit is not None else None
        return lambda r: (
            r.session is not None
            and r.session.path == path
            and (entry is None or (r.hit is not None and r.hit.entry_id == entry))
        )

    # moving ----------------------------------------------------------------------------------
    def move(self, step: int) -> None:
        """Up/down to the next selectable row (project headers are skipped); no wrap."""
        if self.selected < 0:
            return
        i = self.selected
        direction = 1 if step > 0 else -1
        for _ in range(abs(step)):
            j = i + direction
            while 0 <= j < len(self.rows) and not self.rows[j].selectable:
                j += direction
            if not 0 <= j < len(self.rows):
                break
            i = j
        self._select(i)

    def page(self, step: int) -> None:
        self.move(step * max(1, self.scrollable_content_region.height - 1))

    def home(self) -> None:
        first = next((i for i, r in enumerate(self.rows) if r.selectable), -1)
        if first >= 0:
            self._select(first)

    def end(self) -> None:
        last = next((i for i in range(len(self.rows) - 1, -1, -1) if self.rows[i].selectable), -1)
        if last >= 0:
            self._select(last)

    def select_where(self, pred: object) -> bool:
        for i, r in enumerate(self.rows):
            if r.selectable and callable(pred) and pred(r):
                self._select(i)
                return True
        return False

    def _select(self, i: int) -> None:
        if i != self.selected:
            self.selected = i
            self._scroll_to_selected()
            self.refresh()

    def _scroll_to_selected(self) -> None:
        height = self.scrollable_content_region.height
        if self.selected < 0 or height <= 0:
            return
        top = int(self.scroll_offset.y)
        row = self.selected
        # keep the project header above the first session of a project in view
        upper = row - 1 if row > 0 and self.rows[row - 1].kind == PROJECT else row
        if upper < top:
            self.scroll_to(y=upper, animate=False, immediate=True)
        elif row >= top + height:
            self.scroll_to(y=row - height + 1, animate=False, immediate=True)

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.rows))
        self._scroll_to_selected()

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        row = offset.y + int(self.scroll_offset.y)
        if 0 <= row < len(self.rows) and self.rows[row].selectable:
            self._select(row)
            if event.chain >= 2:
                self.post_message(self.Activated(self.rows[row]))

    # drawing ---------------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if width != self._drawn_width:
            self._drawn_width = width
            self.post_message(self.WidthChanged())
        row_i = y + int(self.scroll_offset.y)
        if row_i >= len(self.rows) or width <= 0:
            return Strip.blank(max(0, width), self.rich_style)
        row = self.rows[row_i]
        selected = row_i == self.selected
        base = self.rich_style
        cursor = self.get_component_rich_style("session-list--cursor") if selected else Style()
        muted = self.get_component_rich_style("session-list--muted")
        if row.kind == PROJECT:
            style = self.get_component_rich_style("session-list--project")
            n = f"  {counted(row.count, row.noun)}"
            segs = [
                Segment(clean(short_path(row.text) or "(no working directory)"), base + style),
                Segment(n, base + muted),
            ]
        elif row.kind == HIT:
            hit = row.hit
            assert hit is not None
            head, tail = hit_words(hit.role, hit.name)
            segs = [
                Segment("      ", base + cursor),
                Segment(clean(head), base + muted + cursor),
                Segment(clean(hit.snippet), base + self.get_component_rich_style("session-list--hit") + cursor),
                Segment(tail, base + muted + cursor),
            ]
        elif row.kind in (MORE, NOTE):
            segs = [
                Segment("      " if row.kind == MORE else "", base + cursor),
                Segment(clean(row.text), base + muted + cursor),
            ]
        else:
            segs = self._session_segments(row, width, base, cursor, muted)
        marker = [Segment("› " if selected else "  ", base + cursor)] if row.kind != PROJECT else []
        strip = Strip(marker + segs)
        if strip.cell_length > width:
            strip = strip.crop(0, max(0, width - 1))
            strip = Strip(list(strip) + [Segment("…", base + cursor)])
        return strip.adjust_cell_length(width, base + cursor if selected else base)

    def _session_segments(self, row: PickerRow, width: int, base: Style, cursor: Style, muted: Style) -> list[Segment]:
        s = row.session
        assert s is not None
        right = _right_columns(width)
        values = {
            "created": format_when(s.created),
            "modified": format_when(s.modified),
            # a huge file listed from two windows (session/catalog_window.py): estimates
            "msgs": f"≈{s.message_count}" if s.partial else str(s.message_count),
            "branches": (f"≥{s.branch_count}" if s.branch_count else "?")
            if s.partial
            else str(s.branch_count)
            if s.branch_count
            else "·",
        }
        cells = _cells(right, values, s.figures)
        title_w = max(1, width - 2 - len(cells))
        indent = ""
        fork_style = self.get_component_rich_style("session-list--fork")
        if row.depth:
            indent = "   " * (row.depth - 1) + "└─ "
        elif s.parent_session:
            indent = "⑂ "
        tag = tool_tag(s.tool)[:6].ljust(7)
        indent = tag + indent
        title = clean(s.title)
        room = max(1, title_w - cell_len(indent) - 1)
        if cell_len(title) > room:
            title = set_cell_size(title, room - 1).rstrip() + "…"
        title_style = base + cursor + (muted if not s.name and s.first_message.startswith("(") else Style())
        segs = [
            Segment(tag, base + muted + cursor),
            Segment(indent[len(tag) :], base + fork_style + cursor),
            Segment(title, title_style),
            Segment(" " * max(1, title_w - cell_len(indent) - cell_len(title)), base + cursor),
        ]
        if cells:
            segs.append(Segment(cells, base + muted + cursor))
        return segs
