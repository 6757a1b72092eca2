"""The compare screen: two branches from their common ancestor, side by side (stacked when
narrow), changed words highlighted, identical stretches folded, totals under each column.

The layout is ``view.compare_layout.CompareLayout``; this screen draws the rows on screen only
(a Line-API ScrollView) and moves a block cursor: Enter opens a fold or shows a long entry
whole, n/p jump between changes, Esc returns to the tree.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.geometry import Region, Size
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Static

from loomtui.app import keymap
from loomtui.app.themes import tree_colors
from loomtui.session.entries import Entry
from loomtui.view.compare import Comparison
from loomtui.view.compare_layout import CompareLayout, Row, Run, totals_rows
from loomtui.view.compare_text import safe
from loomtui.view.text import display_text


class CompareView(ScrollView, can_focus=True, inherit_bindings=False):
    """The aligned blocks of one comparison."""

    BINDINGS = keymap.bindings("compare")

    DEFAULT_CSS = """
    CompareView { overflow-x: hidden; overflow-y: scroll; scrollbar-size-vertical: 1; background: $background; }
    """

    def __init__(self, cmp: Comparison, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.cmp = cmp
        self.cursor = 0
        self.unfolded: set[int] = set()
        self.expanded: set[int] = set()
        self.layout_: CompareLayout | None = None
        self._styles: dict[str, Style] = {}
        self._cursor_bg = Style()

    def on_mount(self) -> None:
        self._update_styles()
        self.app.theme_changed_signal.subscribe(self, lambda _t: (self._update_styles(), self.refresh()))

    def _update_styles(self) -> None:
        c = tree_colors(self.app.current_theme)
        st = {role: Style(color=v) for role, v in c.items() if role != "selectedBg"}
        st["head"] = Style(color=c["text"], bold=True)
        st["added"] = Style(color=c["success"])
        st["removed"] = Style(color=c["error"])
        st["added_word"] = Style(color=c["success"], bold=True, reverse=True)
        st["removed_word"] = Style(color=c["error"], bold=True, reverse=True)
        st["mark_same"] = Style(color=c["dim"])
        st["mark_changed"] = Style(color=c["warning"], bold=True)
        st["mark_only_a"] = Style(color=c["error"], bold=True)
        st["mark_only_b"] = Style(color=c["success"], bold=True)
        st["side"] = Style(color=c["accent"], bold=True)
        st["sep"] = Style(color=c["dim"])
        self._styles = st
        self._cursor_bg = Style(bgcolor=c["selectedBg"])

    def relayout(self) -> None:
        width = self.scrollable_content_region.width
        if width <= 0:
            return
        self.layout_ = CompareLayout(self.cmp, width, unfolded=self.unfolded, expanded=self.expanded)
        self.cursor = min(self.cursor, max(0, len(self.layout_.blocks) - 1))
        self.virtual_size = Size(width, self.layout_.height)
        self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        self.relayout()
        self._scroll_to_cursor()

    # drawing -------------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        lay = self.layout_
        width = self.scrollable_content_region.width
        if lay is None:
            return Strip.blank(width)
        row = lay.row(y + int(self.scroll_offset.y))
        if row is None:
            return Strip.blank(width)
        bg = self._cursor_bg if row.block == self.cursor else None
        return self._strip(row, lay, width, bg)

    def _runs(self, runs: list[Run], width: int, bg: Style | None) -> Strip:
        segs = []
        for role, text in runs:
            if text:
                style = self._styles.get(role, self._styles.get("text", Style()))
                segs.append(Segment(safe(text).replace("\n", " "), style + bg if bg is not None else style))
        strip = Strip(segs)
        if strip.cell_length > width:
            strip = strip.crop(0, width)
        return strip.adjust_cell_length(width, bg)

    def _strip(self, row: Row, lay: CompareLayout, width: int, bg: Style | None) -> Strip:
        if row.right is None:
            return self._runs(row.left, width, bg)
        col = lay.col
        left = self._runs(row.left, col, bg)
        sep = Strip([Segment(" │ ", self._styles["sep"] + bg if bg is not None else self._styles["sep"])])
        right = self._runs(row.right, width - col - 3, bg)
        return Strip.join([left, sep, right])

    # moving --------------------------------------------------------------------------------
    def _scroll_to_cursor(self) -> None:
        lay = self.layout_
        if lay is None or not lay.blocks:
            return
        top = lay.offsets[self.cursor]
        height = self.scrollable_content_region.height
        bottom = top + len(lay.block_rows(self.cursor))
        y = int(self.scroll_offset.y)
        if top < y:
            self.scroll_to(y=top, animate=False, immediate=True)
        elif bottom > y + height:
            self.scroll_to(y=max(top - max(0, height - (bottom - top)), 0) if bottom - top < height else top,
                           animate=False, immediate=True)

    def _moved(self, old: int) -> None:
        self._scroll_to_cursor()
        self.refresh()
        screen = self.screen
        if isinstance(screen, CompareScreen):
            screen.cursor_moved()

    def action_cursor(self, step: int) -> None:
        lay = self.layout_
        if lay is None or not lay.blocks:
            return
        old = self.cursor
        self.cursor = max(0, min(len(lay.blocks) - 1, self.cursor + step))
        self._moved(old)

    def action_page(self, step: int) -> None:
        lay = self.layout_
        if lay is None or not lay.blocks:
            return
        old = self.cursor
        target_y = lay.offsets[self.cursor] + step * max(1, self.scrollable_content_region.height - 2)
        self.cursor = lay.block_at(max(0, min(lay.height - 1, target_y)))
        self._moved(old)

    def action_home(self) -> None:
        self.action_cursor(-(10**9))

    def action_end(self) -> None:
        self.action_cursor(10**9)

    def action_next_change(self, step: int) -> None:
        lay = self.layout_
        if lay is None:
            return
        k = lay.next_change(self.cursor, step)
        if k is None:
            self.app.notify("No more changes that way.", timeout=2)
            return
        old = self.cursor
        self.cursor = k
        self._moved(old)

    def action_activate(self) -> None:
        """Enter: open a fold, or show a long pair whole (Enter again shortens it)."""
        lay = self.layout_
        if lay is None or not lay.blocks:
            return
        b = lay.blocks[self.cursor]
        if isinstance(b, int):
            self.expanded.symmetric_difference_update({b})
        else:
            self.unfolded.add(b.start)
        self.relayout()
        self._scroll_to_cursor()

    def selected_pair(self) -> int | None:
        lay = self.layout_
        if lay is None or not lay.blocks:
            return None
        b = lay.blocks[self.cursor]
        return b if isinstance(b, int) else None


class CompareScreen(Screen[str | None]):
    """Two branches compared; dismisses with the entry id to select in the tree (or None)."""

    BINDINGS = keymap.bindings("compare-screen")

    DEFAULT_CSS = """
    CompareScreen { layout: vertical; }
    CompareScreen > #cmp-head { height: auto; max-height: 3; background: $panel; padding: 0 1; }
    CompareScreen > #cmp-body { height: 1fr; }
    CompareScreen > #cmp-totals { height: auto; max-height: 4; background: $panel; padding: 0 1; }
    CompareScreen > #cmp-hints { height: 1; color: $text-muted; padding: 0 1; }
    """

    def __init__(self, cmp: Comparison, a_text: str, b_text: str) -> None:
        super().__init__()
        self.cmp = cmp
        self.a_text = a_text
        self.b_text = b_text

    def compose(self) -> ComposeResult:
        yield Static("", id="cmp-head")
        yield CompareView(self.cmp, id="cmp-body")
        yield Static("", id="cmp-totals")
        yield Static("", id="cmp-hints")

    @property
    def view(self) -> CompareView:
        return self.query_one(CompareView)

    def on_mount(self) -> None:
        self._update_head()
        self.view.focus()
        self.call_after_refresh(self._first_layout)

    def _first_layout(self) -> None:
        self.view.relayout()
        self._update_totals()

    def on_resize(self, event: events.Resize) -> None:
        self._update_head()
        self._update_totals()

    def _update_head(self) -> None:
        cmp = self.cmp
        anc = cmp.ancestor
        changes = cmp.changed_count()
        same = len(cmp.pairs) - changes
        head = Text(no_wrap=True, overflow="ellipsis")
        head.append("A ", style="bold")
        head.append(f"{cmp.a_id} ", style="dim")
        head.append(safe(self.a_text)[:60])
        head.append("   B ", style="bold")
        head.append(f"{cmp.b_id} ", style="dim")
        head.append(safe(self.b_text)[:60])
        head.append("\n")
        where = f"from {anc.id}" if anc is not None else "no common ancestor (different roots)"
        head.append(f"{where} · {changes} changed · {same} identical", style="dim")
        self.query_one("#cmp-head", Static).update(head)
        self.query_one("#cmp-hints", Static).update(Text(
            "↑↓ move  PgUp/PgDn page  n/p next/previous change  Enter open fold / whole entry  "
            "g go to the entry in the tree  Esc back", no_wrap=True, overflow="ellipsis"))

    def _update_totals(self) -> None:
        width = self.size.width - 2
        rows = totals_rows(self.cmp, width)
        text = Text(no_wrap=True, overflow="ellipsis")
        col = (width - 3) // 2
        for k, (left, right) in enumerate(rows):
            if k:
                text.append("\n")
            if right:
                text.append(left[:col].ljust(col))
                text.append(" │ ", style="dim")
                text.append(right[:col])
            else:
                text.append(left)
        self.query_one("#cmp-totals", Static).update(text)

    def cursor_moved(self) -> None:
        pass

    def action_close(self) -> None:
        self.dismiss(None)

    def action_goto_entry(self) -> None:
        """Back to the tree at the entry under the cursor (B's side when it has one)."""
        pair = self.view.selected_pair()
        if pair is None:
            self.dismiss(None)
            return
        p = self.cmp.pairs[pair]
        item = p.b if p.b is not None else p.a
        self.dismiss(item.entry.id if item is not None else None)


def entry_text(e: Entry | None) -> str:
    return display_text(e, {}, "") if e is not None else ""
