"""Reader mode: the active branch as one scrolling transcript, full screen.

Opens at the entry selected in the tree (or where it hangs off the branch); as the transcript
scrolls, the entry at the top of the screen becomes the tree's selection, so closing the reader
(Esc, or the reader key again) leaves the tree cursor on what was being read.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.app import ComposeResult
from textual.geometry import Region, Size
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer
from textual.widgets import Static

from loomtui.app import keymap
from loomtui.app.widgets.roles import ROLE_CLASSES, RoleStyles, role_css
from loomtui.session.entries import Entry
from loomtui.view.compare_text import safe
from loomtui.view.reader import READING_WIDTH, Transcript, head_text
from loomtui.view.width import fit_hints

#: seconds of block measuring per frame while the reader is open
MEASURE_SLICE = 0.012
#: measuring that takes longer than this shows its progress in the header
PROGRESS_AFTER = 0.5


class ReaderView(RoleStyles, ScrollView, can_focus=True, inherit_bindings=False):
    BINDINGS = keymap.bindings("reader")
    COMPONENT_CLASSES = ROLE_CLASSES

    DEFAULT_CSS = (
        role_css("ReaderView")
        + """
    ReaderView { overflow-x: hidden; overflow-y: scroll; scrollbar-size-vertical: 1; background: $background;
                 padding: 0 1; }
    """
    )

    def __init__(
        self, transcript: Transcript, start: Entry | None, on_entry: Callable[[str], None], *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.transcript = transcript
        self.start = start
        self.on_entry = on_entry
        self.on_progress: Callable[[int, int], None] = lambda done, total: None
        #: the block at the top of the screen changed (its index)
        self.on_current: Callable[[int], None] = lambda k: None
        self.current = -1
        self._measuring_started = False
        self._measure_started_at = 0.0
        self._measure_timer: Timer | None = None

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.forget_role_styles()

    def on_resize(self, event: events.Resize) -> None:
        width = self.scrollable_content_region.width
        height = max(1, self.scrollable_content_region.height)
        first = self.current < 0
        k, off = self._top() if not first else (self.transcript.item_of_entry(self.start) or 0, 0)
        self.transcript.layout(min(width, READING_WIDTH))
        if first:
            self.current = k
            self.on_current(k)
        self.transcript.measure(k, k + height)
        self._resized(k, off)
        if self._measuring_started and self._measure_timer is None and not self.transcript.done:
            self._start_measuring()  # a new width: the heights are measured again
        self.refresh()

    def _top(self) -> tuple[int, int]:
        """The block at the top of the screen and how many of its lines are above it."""
        t = self.transcript
        if not t.starts:
            return 0, 0
        top = int(self.scroll_offset.y)
        k = t.item_at_line(top)
        return k, top - t.starts[k]

    def _resized(self, k: int, off: int) -> None:
        """Block heights changed: a new virtual size, block ``k`` where it was on screen."""
        t = self.transcript
        self.virtual_size = Size(self.scrollable_content_region.width, t.line_count)
        if t.starts and k < len(t.starts):
            self.scroll_to(y=t.starts[k] + off, animate=False, immediate=True)

    def render_lines(self, crop: Region) -> list[Strip]:
        self._measure_screen()
        if not self._measuring_started:
            self._measuring_started = True
            self.call_after_refresh(self._start_measuring)
        return super().render_lines(crop)

    def _measure_screen(self) -> None:
        """Build the blocks on screen before they are drawn (their heights become exact)."""
        t = self.transcript
        if not t.starts:
            return
        top = int(self.scroll_offset.y)
        bottom = top + max(1, self.scrollable_content_region.height)
        k = t.item_at_line(top)
        while k < len(t) and t.starts[k] < bottom:
            t.lines_of(k)
            k += 1
        if t.line_count != self.virtual_size.height:
            self.virtual_size = Size(self.scrollable_content_region.width, t.line_count)

    def _start_measuring(self) -> None:
        self._measure_started_at = time.perf_counter()
        self._measure_timer = self.set_interval(1 / 60, self._measure_step)

    def _measure_step(self) -> None:
        """One slice of measuring the blocks not yet on screen (the top block stays put)."""
        t = self.transcript
        k, off = self._top()
        before = t.line_count
        starts_before = t.starts[k] if k < len(t.starts) else 0
        done = t.advance(MEASURE_SLICE)
        if t.line_count != before or (k < len(t.starts) and t.starts[k] != starts_before):
            self._resized(k, off)
        if time.perf_counter() - self._measure_started_at > PROGRESS_AFTER or done:
            self.on_progress(t.exact_count, len(t))
        if done and self._measure_timer is not None:
            self._measure_timer.stop()
            self._measure_timer = None

    def on_unmount(self) -> None:
        self.transcript.close()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        line = self.transcript.line(y + int(self.scroll_offset.y))
        base = self.rich_style  # the theme's background under every cell, not the terminal's
        if line is None:
            return Strip.blank(width, base)
        style = self.role_style(line.style)
        if line.text.startswith("── "):
            style = style + Style(bold=True)
        bg = self.role_style("selectedBg") if line.item == self.current and line.text.startswith("── ") else None
        text = safe(line.text)
        # the column the transcript is laid out in (at most ``READING_WIDTH``), centred
        measure = min(width, self.transcript.width)
        strip = Strip([Segment(text, style + bg if bg is not None else style)])
        strip = strip.crop(0, measure).adjust_cell_length(measure, bg)
        left = (width - measure) // 2
        if left > 0:
            strip = Strip.join([Strip.blank(left), strip])
        return strip.adjust_cell_length(width).apply_style(base)

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._follow()

    def _follow(self) -> None:
        """The entry at the top of the screen becomes the current one (and the tree's); with the
        end of the branch on screen, where the entries below the top cannot scroll up to it, the
        current one stays while it is still in view."""
        t = self.transcript
        if not t.starts:
            return
        top = int(self.scroll_offset.y)
        k = t.item_at_line(top)
        current = self.current
        at_end = top >= self.max_scroll_y
        if at_end and k <= current < len(t.starts) and t.starts[current] < top + self.scrollable_content_region.height:
            return
        self._set_current(k)

    def _set_current(self, k: int) -> None:
        if k != self.current:
            self.current = k
            eid = self.transcript.entry_id(k)
            if eid is not None:
                self.on_entry(eid)
            self.on_current(k)
            self.refresh()

    def action_scroll(self, step: int) -> None:
        self.scroll_to(y=max(0, int(self.scroll_offset.y) + step), animate=False, immediate=True)

    def action_page(self, step: int) -> None:
        self.action_scroll(step * max(1, self.scrollable_content_region.height - 1))

    def action_entry(self, step: int) -> None:
        """Next / previous entry to the top of the screen (near the end of the branch, where it
        cannot come to the top, it becomes the current one where it is)."""
        starts = self.transcript.starts
        if not starts:
            return
        k = max(0, min(len(starts) - 1, self.current + step))
        self.scroll_to(y=starts[k], animate=False, immediate=True)
        self._set_current(k)

    def action_home(self) -> None:
        self.scroll_to(y=0, animate=False, immediate=True)
        self._set_current(0)

    def action_end(self) -> None:
        """The end of the branch: the last screenful of blocks is built first (exact heights)."""
        t = self.transcript
        height = max(1, self.scrollable_content_region.height)
        k, seen = len(t) - 1, 0
        while k >= 0 and seen < height:
            seen += len(t.lines_of(k))
            k -= 1
        self.virtual_size = Size(self.scrollable_content_region.width, t.line_count)
        self.scroll_to(y=max(0, t.line_count - 1), animate=False, immediate=True)
        self._set_current(len(t) - 1)


class ReaderScreen(Screen[None]):
    BINDINGS = keymap.bindings("reader-screen")

    DEFAULT_CSS = """
    ReaderScreen { layout: vertical; }
    ReaderScreen > #reader-head { height: 1; background: $panel; padding: 0 1; }
    ReaderScreen > #reader-body { height: 1fr; }
    ReaderScreen > #reader-hints { height: 1; color: $text-muted; padding: 0 1; }
    ReaderScreen > Static { text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(
        self, transcript: Transcript, start: Entry | None, on_entry: Callable[[str], None], title: str
    ) -> None:
        super().__init__()
        self.transcript = transcript
        self.start = start
        self.on_entry = on_entry
        self.title_text = title
        self._at = 0
        self._measured: int | None = None

    def compose(self) -> ComposeResult:
        yield Static(self._head(), id="reader-head")
        view = ReaderView(self.transcript, self.start, self.on_entry, id="reader-body")
        view.on_progress = self._progress
        view.on_current = self._current
        yield view
        yield Static(self._hints(), id="reader-hints")

    def _head(self) -> str:
        t = self.transcript
        return head_text(self._at, len(t), safe(self.title_text), self._measured, under=t.under)

    def _hints(self) -> str:
        """The key hints that fit the screen, in the keys in effect (keymap.toml), as the
        browser's footer shows its own: shorter words first, then the least needed left out, so
        the way back to the tree always shows."""
        user: dict[str, str] = getattr(self.app, "user_keymap", {})

        def pair(first: str, second: str, both: str, alone: tuple[str, str]) -> str:
            return keymap.key_pair(user, first, second, (both, *alone))

        noun = "row" if self.transcript.under else "entry"
        entry = (f"next {noun}", f"previous {noun}")
        close = keymap.first_key(keymap.SPEC_BY_ID["reader.close"], user)
        items = [
            (8, pair("reader.up", "reader.down", "scroll", ("scroll up", "scroll down")), ""),
            (4, pair("reader.page-up", "reader.page-down", "page", ("page up", "page down")), ""),
            (
                6,
                pair("reader.next", "reader.prev", f"next/previous {noun}", entry),
                pair("reader.next", "reader.prev", noun, entry),
            ),
            (
                2,
                pair("reader.home", "reader.end", "start/end", ("start", "end")),
                pair("reader.home", "reader.end", "", ("", "")),
            ),
            (
                9,
                f"{close} back to the tree (at the {noun} read)" if close else "",
                f"{close} to the tree, at this {noun}" if close else "",
            ),
        ]
        shown = [(p, long, short or long) for p, long, short in items if long]
        return fit_hints(shown, max(10, self.app.size.width - 2))  # the padding: 2

    def on_resize(self) -> None:
        self.query_one("#reader-hints", Static).update(self._hints(), layout=False)

    def _show_head(self) -> None:
        # a step that runs while the screen is taken down finds no header, and draws nothing
        for head in self.query("#reader-head").results(Static):
            head.update(self._head(), layout=False)

    def _progress(self, measured: int, total: int) -> None:
        """Laying the whole branch out takes a while: the header says how far it got."""
        self._measured = measured
        self._show_head()

    def _current(self, k: int) -> None:
        """The block read changed: the header says which."""
        self._at = k
        self._show_head()

    @property
    def view(self) -> ReaderView:
        return self.query_one(ReaderView)

    def on_mount(self) -> None:
        self.view.focus()

    def action_close(self) -> None:
        self.dismiss(None)
