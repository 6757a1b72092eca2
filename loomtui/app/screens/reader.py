"""Reader mode: the active branch as one scrolling transcript, full screen.

Opens at the entry selected in the tree (or where it hangs off the branch); as the transcript
scrolls, the entry at the top of the screen becomes the tree's selection, so closing the reader
(Esc, or the reader key again) leaves the tree cursor on what was being read.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.geometry import Size
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Static

from loomtui.app import keymap
from loomtui.app.widgets.roles import ROLE_CLASSES, RoleStyles, role_css
from loomtui.session.entries import Entry
from loomtui.view.compare_text import safe
from loomtui.view.reader import Transcript


class ReaderView(RoleStyles, ScrollView, can_focus=True, inherit_bindings=False):
    BINDINGS = keymap.bindings("reader")
    COMPONENT_CLASSES = ROLE_CLASSES

    DEFAULT_CSS = role_css("ReaderView") + """
    ReaderView { overflow-x: hidden; overflow-y: scroll; scrollbar-size-vertical: 1; background: $background;
                 padding: 0 1; }
    """

    def __init__(self, transcript: Transcript, start: Entry | None, on_entry: Callable[[str], None],
                 *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.transcript = transcript
        self.start = start
        self.on_entry = on_entry
        self.current = -1

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.forget_role_styles()

    def on_resize(self, event: events.Resize) -> None:
        keep = self.current
        self.transcript.layout(self.scrollable_content_region.width)
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.transcript.lines))
        if keep < 0:
            line = self.transcript.line_of_entry(self.start)
            k = self.transcript.item_of_entry(self.start)
            self.current = k if k is not None else 0
            if line is not None:
                self.scroll_to(y=line, animate=False, immediate=True)
        elif keep < len(self.transcript.starts):
            self.scroll_to(y=self.transcript.starts[keep], animate=False, immediate=True)
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        lines = self.transcript.lines
        i = y + int(self.scroll_offset.y)
        if i >= len(lines):
            return Strip.blank(width)
        line = lines[i]
        style = self.role_style(line.style)
        if line.text.startswith("── "):
            style = style + Style(bold=True)
        bg = self.role_style("selectedBg") if line.item == self.current and line.text.startswith("── ") else None
        text = safe(line.text)
        strip = Strip([Segment(text, style + bg if bg is not None else style)])
        return strip.crop(0, width).adjust_cell_length(width, bg)

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._follow()

    def _follow(self) -> None:
        """The entry at the top of the screen becomes the current one (and the tree's)."""
        if not self.transcript.lines:
            return
        k = self.transcript.item_at_line(int(self.scroll_offset.y))
        if k != self.current:
            self.current = k
            eid = self.transcript.entry_id(k)
            if eid is not None:
                self.on_entry(eid)
            self.refresh()

    def action_scroll(self, step: int) -> None:
        self.scroll_to(y=max(0, int(self.scroll_offset.y) + step), animate=False, immediate=True)

    def action_page(self, step: int) -> None:
        self.action_scroll(step * max(1, self.scrollable_content_region.height - 1))

    def action_entry(self, step: int) -> None:
        """Next / previous entry to the top of the screen."""
        starts = self.transcript.starts
        if not starts:
            return
        k = max(0, min(len(starts) - 1, self.transcript.item_at_line(int(self.scroll_offset.y)) + step))
        self.scroll_to(y=starts[k], animate=False, immediate=True)

    def action_home(self) -> None:
        self.scroll_to(y=0, animate=False, immediate=True)

    def action_end(self) -> None:
        self.scroll_to(y=max(0, len(self.transcript.lines) - 1), animate=False, immediate=True)


class ReaderScreen(Screen[None]):
    BINDINGS = keymap.bindings("reader-screen")

    DEFAULT_CSS = """
    ReaderScreen { layout: vertical; }
    ReaderScreen > #reader-head { height: 1; background: $panel; padding: 0 1; }
    ReaderScreen > #reader-body { height: 1fr; }
    ReaderScreen > #reader-hints { height: 1; color: $text-muted; padding: 0 1; }
    """

    def __init__(self, transcript: Transcript, start: Entry | None, on_entry: Callable[[str], None],
                 title: str) -> None:
        super().__init__()
        self.transcript = transcript
        self.start = start
        self.on_entry = on_entry
        self.title_text = title

    def compose(self) -> ComposeResult:
        n = len(self.transcript.items)
        yield Static(Text(f"Reader · {safe(self.title_text)} · the active branch, {n} entries",
                          no_wrap=True, overflow="ellipsis"), id="reader-head")
        yield ReaderView(self.transcript, self.start, self.on_entry, id="reader-body")
        yield Static(Text("↑↓ scroll  PgUp/PgDn page  n/p next/previous entry  Home/End  Esc back to the tree "
                          "(at the entry read)", no_wrap=True, overflow="ellipsis"), id="reader-hints")

    @property
    def view(self) -> ReaderView:
        return self.query_one(ReaderView)

    def on_mount(self) -> None:
        self.view.focus()

    def action_close(self) -> None:
        self.dismiss(None)
