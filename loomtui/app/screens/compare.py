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
from textual.geometry import Size
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Static

from loomtui.app import keymap
from loomtui.app.widgets.roles import ROLE_CLASSES, RoleStyles, role_css
from loomtui.session.entries import Entry
from loomtui.view.compare import Comparison
from loomtui.view.compare_layout import CompareLayout, Row, Run, totals_rows
from loomtui.view.compare_text import safe
from loomtui.view.text import display_text
from loomtui.view.width import fit_items, text_width, truncate_to_width

#: the compare roles drawn in one of pi's roles: (role, bold, reverse)
_DERIVED: dict[str, tuple[str, bool, bool]] = {
    "head": ("text", True, False),
    "added": ("success", False, False),
    "removed": ("error", False, False),
    "added_word": ("success", True, True),
    "removed_word": ("error", True, True),
    "mark_same": ("dim", False, False),
    "mark_changed": ("warning", True, False),
    "mark_only_a": ("error", True, False),
    "mark_only_b": ("success", True, False),
    "side": ("accent", True, False),
    "sep": ("dim", False, False),
}


class CompareView(RoleStyles, ScrollView, can_focus=True, inherit_bindings=False):
    """The aligned blocks of one comparison."""

    BINDINGS = keymap.bindings("compare")
    COMPONENT_CLASSES = ROLE_CLASSES

    DEFAULT_CSS = (
        role_css("CompareView")
        + """
    CompareView { overflow-x: hidden; overflow-y: scroll; scrollbar-size-vertical: 1; background: $background; }
    """
    )

    def __init__(self, cmp: Comparison, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.cmp = cmp
        self.cursor = 0
        self.unfolded: set[int] = set()
        self.expanded: set[int] = set()
        self.layout_: CompareLayout | None = None

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.forget_role_styles()

    def compare_style(self, role: str) -> Style:
        """A compare role (``added``, ``mark_changed`` …) or one of pi's roles, in the current theme."""
        derived = _DERIVED.get(role)
        if derived is None:
            return self.role_style(role)
        base, bold, reverse = derived
        return self.role_style(base) + Style(bold=bold or None, reverse=reverse or None)

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
        base = self.rich_style  # the theme's background under every cell, not the terminal's
        if lay is None:
            return Strip.blank(width, base)
        row = lay.row(y + int(self.scroll_offset.y))
        if row is None:
            return Strip.blank(width, base)
        bg = self.role_style("selectedBg") if row.block == self.cursor else None
        return self._strip(row, lay, width, bg).apply_style(base)

    def _runs(self, runs: list[Run], width: int, bg: Style | None) -> Strip:
        segs = []
        for role, text in runs:
            if text:
                style = self.compare_style(role)
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
        sep_style = self.compare_style("sep")
        sep = Strip([Segment(" │ ", sep_style + bg if bg is not None else sep_style)])
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
            self.scroll_to(
                y=max(top - max(0, height - (bottom - top)), 0) if bottom - top < height else top,
                animate=False,
                immediate=True,
            )

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
    CompareScreen > Static { text-wrap: nowrap; text-overflow: ellipsis; }
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
        # the browser's notices ("Marked … press c") are done with, and a toast would sit on
        # the totals at the bottom of this screen
        self.app.clear_notifications()
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
        width = max(20, self.size.width - 2)
        # each branch's title in its half of the line, cut with … (a long one wrapped the line)
        half = (width - 3) // 2
        head = Text(no_wrap=True, overflow="ellipsis")
        for side, eid, text, room in (
            ("A", cmp.a_id, self.a_text, half),
            ("B", cmp.b_id, self.b_text, width - half - 3),
        ):
            if side == "B":
                head.append("   ")
            line = truncate_to_width(f"{side} {eid} {safe(text)}".replace("\n", " "), room, "…")
            head.append(line[:2], style="bold")
            head.append(line[2 : 2 + len(eid) + 1], style="dim")
            head.append(line[3 + len(eid) :])
            if side == "A":
                head.append(" " * max(0, room - text_width(line)))
        head.append("\n")
        where = f"from {anc.id}" if anc is not None else "no common ancestor (different roots)"
        for side, eid in (("A", cmp.a_id), ("B", cmp.b_id)):
            if anc is not None and anc.id == eid:
                where += f" ({side} is the common ancestor: nothing after it)"
        head.append(f"{where} · {cmp.counts_text()}", style="dim")
        self.query_one("#cmp-head", Static).update(head)
        hints = [
            (5, "↑↓ move"),
            (2, "PgUp/PgDn page"),
            (4, "n/p next/previous change"),
            (1, "Enter open fold / whole entry"),
            (3, "g go to the entry in the tree"),
            (6, "Esc back"),
        ]
        self.query_one("#cmp-hints", Static).update(Text(fit_items(hints, width), no_wrap=True))

    def _update_totals(self) -> None:
        width = self.size.width - 2
        rows = totals_rows(self.cmp, width)
        text = Text(no_wrap=True, overflow="ellipsis")
        col = (width - 3) // 2
        for k, (left, right) in enumerate(rows):
            if k:
                text.append("\n")
            if right:
                left = truncate_to_width(left, col, "…")
                text.append(left + " " * max(0, col - text_width(left)))
                text.append(" │ ", style="dim")
                text.append(truncate_to_width(right, width - col - 3, "…"))
            else:
                text.append(truncate_to_width(left, width, "…"))
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
