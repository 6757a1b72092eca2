"""The session tree: a Line-API ScrollView that draws only the visible rows of ``TreeModel``.

Never ``textual.widgets.Tree``: sessions are chains thousands of levels deep and ``Tree``
recurses per level and rebuilds every line on each change (docs/architecture.md, "Line-API widgets"). Here the model
holds the rows as flat arrays; ``render_line(y)`` turns one visible row into a ``Strip`` from an
LRU cache keyed by what the row shows (its segments, selected, width; a theme change clears it).
A cursor move repaints two lines; after the model changed (a live append, a label, a leaf move)
only the lines whose content differs from what was drawn are repainted, so an append below the
screen repaints nothing but the scrollbar.

Rows are pi's /tree rows (``TreeModel.row_segments``): the widget only pans very deep
indentation (with compact indentation off, the rows in view are shifted left together by whole
levels, as pi pans them, so the guides stay in their columns: ``_pan``), cuts long rows
with ``…`` and highlights the selected row (pi: content bold on ``selectedBg``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from rich.color import Color as RichColor
from rich.color import blend_rgb
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from loomtui.app import keymap, ui_state
from loomtui.app.messages import TreeMoved
from loomtui.app.widgets.roles import ROLE_CLASSES, RoleStyles, role_css
from loomtui.app.widgets.search_keys import TypesIntoSearch, pasted_text, run_binding, typed_character
from loomtui.view.compact import prefix_room, too_deep
from loomtui.view.printable import printable
from loomtui.view.width import columns

if TYPE_CHECKING:
    from loomtui.app.app import LoomApp
    from loomtui.formats.opening import KeptScreen
    from loomtui.view.model import TreeModel

#: the glyphs of a row's indentation (the help's Marks list them)
_PREFIX_CHARS = frozenset(" │├└─⊞⊟")
#: what ``columns`` keeps of a panned row: all of it after the shift (the row is cut at the width here)
_UNCUT = 1 << 30


class LineScrollView(ScrollView):
    """A Line-API ScrollView whose height can change without a screen layout.

    ``Widget.virtual_size`` is a reactive that lays out the whole screen when it changes (~20-50
    ms per key on a large terminal). Here it is declared without ``layout``: ``set_virtual_size``
    asks for a layout only when the width changes, and otherwise updates the vertical scrollbar
    itself (with ``overflow-y: scroll`` it is always there, so nothing else moves). Public API
    only: a reactive declared on the subclass, ``refresh``, ``vertical_scrollbar``."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)


def set_virtual_size(widget: LineScrollView, size: Size, *, repaint: bool = True) -> bool:
    """Give a ``LineScrollView`` a new virtual size; a screen layout only when the width changes.

    ``repaint=False``: the caller repaints the content itself (the scrollbar is still updated).
    Returns False when the size could not be changed in place (a layout follows)."""
    old = widget.virtual_size
    if old == size:
        return True
    in_place = old.width == size.width and widget.styles.overflow_y == "scroll" and widget.is_mounted
    widget.virtual_size = size
    if not in_place:
        widget.refresh(layout=True)
        return False
    bar = widget.vertical_scrollbar
    bar.window_virtual_size = size.height
    bar.window_size = widget.scrollable_content_region.height
    max_y = max(0, size.height - widget.scrollable_content_region.height)
    if widget.scroll_y > max_y:
        widget.scroll_to(y=max_y, animate=False, immediate=True)
    if repaint:
        widget.refresh()
    return True


class TreeView(TypesIntoSearch, RoleStyles, LineScrollView, can_focus=True, inherit_bindings=False):
    """pi's /tree rows for one ``TreeModel``; printable keys and pastes type into the model's search."""

    BINDINGS = keymap.bindings("tree")
    COMPONENT_CLASSES = ROLE_CLASSES

    DEFAULT_CSS = (
        role_css("TreeView")
        + """
    TreeView {
        overflow-x: hidden;
        overflow-y: scroll;
        scrollbar-size-vertical: 1;
        background: $background;
    }
    TreeView:focus {
        background-tint: $foreground 3%;
    }
    """
    )

    Moved = TreeMoved

    def __init__(self, model: TreeModel | None = None, *, id: str | None = None) -> None:
        #: (row segments, selected, width, pan) -> strip: rows that did not change keep their strip
        self._cache: LRUCache[tuple[Any, bool, int, int], Strip] = LRUCache(1024)
        #: the levels the rows in view are shifted left by (``_pan``), and the window it was made for
        self._pan_levels = 0
        self._pan_key: tuple[int, int, int, int, int] | None = None
        self._generation = 0
        #: viewport line -> the strip last handed to Textual for it
        self._drawn: dict[int, Strip] = {}
        super().__init__(id=id)
        self.model = model
        self._last_selected = -1
        #: a session's first rows shown before the whole (``show_first_rows``): rows from this
        #: one on are not drawn, and clicks do nothing; None once the whole is shown
        self.first_rows: int | None = None
        #: a first screen kept from an earlier open, drawn until ``set_model`` gives the whole
        self.kept: KeptScreen | None = None
        #: a model given while the tree had no size (it was hidden behind the progress bar): no
        #: row is drawn until the first resize has picked the indentation and scrolled to the
        #: selected row, so the first frame is never the top rows that the next one replaces
        self._unplaced = False
        #: while a first screen is shown: the keys held from the first one that types on, in
        #: order, for the whole session (``_replay_held``); None otherwise
        self.held: list[events.Key | events.Paste] | None = None
        #: compact indentation as the user last chose it (None: picked by the rows' depth)
        choice = ui_state.load().get("compact")
        self.compact_choice: bool | None = choice if isinstance(choice, bool) else None

    # setup ---------------------------------------------------------------------------------
    def on_mount(self) -> None:
        self.model_changed(center=True)

    def notify_style_update(self) -> None:
        """Textual restyled the widget (a theme change): rows are drawn again in the new roles."""
        super().notify_style_update()
        self.forget_role_styles()
        self._generation += 1
        self._cache.clear()
        self._drawn.clear()

    def _selected_style(self) -> Style:
        # without colours (NO_COLOR) a background would turn grey or vanish: reverse video
        # keeps the cursor row visible in any terminal
        focused = self.has_focus
        if cast("LoomApp", self.app).monochrome:
            return Style(reverse=True) if focused else Style(underline=True)
        style = self.role_style("selectedBg")
        if focused:
            return style
        # focus is in the detail pane: the cursor row stays visible, half as strong
        bg, base = style.bgcolor, self.rich_style.bgcolor
        if bg is None or base is None:
            return style
        faded = blend_rgb(base.get_truecolor(), bg.get_truecolor(), 0.5)
        return Style(bgcolor=RichColor.from_triplet(faded))

    def _focus_changed(self) -> None:
        """The cursor row is drawn in the focused or the unfocused style."""
        self._cache.clear()
        self._drawn.clear()
        self._generation += 1
        self.refresh()

    def on_focus(self, event: events.Focus) -> None:
        self._focus_changed()

    def on_blur(self, event: events.Blur) -> None:
        self._focus_changed()

    def set_model(self, model: TreeModel) -> None:
        self.first_rows = None
        self.kept = None
        self.model = model
        region = self.scrollable_content_region
        self._unplaced = region.width <= 0 or region.height <= 0
        self.model_changed(center=True)
        if self.held is not None:  # the whole after a first screen: what was typed meanwhile
            self.call_later(self._replay_held)

    def show_first_rows(self, model: TreeModel, shown: int) -> None:
        """Draw the first ``shown`` rows of ``model`` (a session's first screen, made before the
        whole of it: ``formats.opening.first_rows``) until ``set_model`` gives the whole."""
        self.set_model(model)
        self.first_rows = shown
        self.held = []

    def show_kept(self, kept: KeptScreen) -> None:
        """Draw a first screen kept from an earlier open until ``set_model`` gives the whole
        (drawn only at the size it was kept at: the lines are laid out for it)."""
        self.kept = kept
        self.held = []
        self._drawn.clear()
        self._generation += 1
        self.refresh()

    @property
    def showing_first_screen(self) -> bool:
        """Rows of a first screen are drawn (not yet the whole session's)."""
        return self.first_rows is not None or (self.kept is not None and self.model is None)

    def shows_row(self, row: int) -> bool:
        """Row ``row`` is in the viewport as laid out now."""
        top, height = int(self.scroll_offset.y), self.scrollable_content_region.height
        return height > 0 and top <= row < top + height

    def screen_lines(self) -> tuple[tuple[int, int], list[tuple[tuple[tuple[str, str], ...], bool]]] | None:
        """(width, height) and every viewport line as drawn now: its (role, text) segments
        after the pan, and whether it is the cursor's; what ``show_kept`` draws again."""
        model = self.model
        width, height = self.scrollable_content_region.width, self.scrollable_content_region.height
        if model is None or not len(model) or width <= 0 or height <= 0 or self.showing_first_screen:
            return None
        lines: list[tuple[tuple[tuple[str, str], ...], bool]] = []
        for y in range(height):
            row = y + int(self.scroll_offset.y)
            if row >= len(model):
                lines.append(((), False))
                continue
            segs = list(model.row_segments(row, cursor=True, max_cols=width if model.compact else None))
            shift = 3 * self._pan(model, row - y, width)
            if shift:
                segs = [segs[0], *columns(segs[1:], shift, _UNCUT)]
            lines.append((tuple((str(role), str(text)) for role, text in segs), row == model.selected))
        return (width, height), lines

    async def _replay_held(self) -> None:
        """The keys held while a first screen was shown, in the order they came, now that the
        whole session is here (keys that came after wait behind this in the queue)."""
        held, self.held = self.held or [], None
        for event in held:
            if isinstance(event, events.Paste):
                text = pasted_text(event.text)
                if text:
                    self.take_typed(text)
            elif (ch := typed_character(event)) is not None:
                self.take_typed(ch)
            else:
                await run_binding(self, event)

    async def on_key(self, event: events.Key) -> None:
        """While a first screen is shown: a key that types, and every key after it, is held for
        the whole session (a key before any typing acts as it does while the session loads)."""
        if self.held is None or (not self.held and typed_character(event) is None):
            return  # ``TypesIntoSearch.on_key`` takes it
        event.stop()
        event.prevent_default()
        self.held.append(event)

    def on_paste(self, event: events.Paste) -> None:
        if self.held is None:
            return
        event.stop()
        event.prevent_default()
        self.held.append(event)

    def on_resize(self, event: events.Resize) -> None:
        if self.model is not None:
            self.model.page_size = max(1, self.scrollable_content_region.height - 1)
        self._cache.clear()
        self._drawn.clear()
        self._generation += 1
        self._pick_compact()
        set_virtual_size(self, Size(self.scrollable_content_region.width, len(self.model) if self.model else 0))
        unplaced, self._unplaced = self._unplaced, False
        self.scroll_to_selected(center=unplaced)
        if unplaced:
            self.refresh()

    # what the screen calls after changing the model ------------------------------------------
    def model_changed(self, *, center: bool = False, keep_screen_row: int | None = None) -> None:
        """The rows, labels, leaf or folds changed: redraw what changed on screen (every
        visible line after a scroll or a resize, else only the lines that differ)."""
        self._generation += 1
        self._pick_compact()
        top = self.scroll_offset
        n = len(self.model) if self.model is not None else 0
        in_place = set_virtual_size(self, Size(self.scrollable_content_region.width, n), repaint=False)
        if self.model is not None:
            self.model.page_size = max(1, self.scrollable_content_region.height - 1)
        if keep_screen_row is not None and self.model is not None and n:
            self.scroll_to(y=max(0, self.model.selected - keep_screen_row), animate=False, immediate=True)
        self.scroll_to_selected(center=center)
        self._last_selected = self.model.selected if self.model is not None else -1
        if in_place and self.scroll_offset == top and self._drawn:
            self._refresh_changed_lines()
        else:
            self.refresh()

    def remember_compact(self, compact: bool) -> None:
        """The user chose (Ctrl+W): this mode from now on, in this run and the next ones."""
        self.compact_choice = compact
        ui_state.save(compact=compact)

    def _pick_compact(self) -> bool:
        """Compact indentation as the user chose it (Ctrl+W, remembered between runs), or, with
        no choice made, exactly when the rows are too deep for the pane. True when it changed."""
        model = self.model
        width = self.scrollable_content_region.width
        if model is None or width <= 0:
            return False
        choice = self.compact_choice
        compact = choice if choice is not None else too_deep(model.rows, width)
        changed = compact != model.compact
        model.compact = compact
        return changed

    def _refresh_changed_lines(self) -> None:
        """Repaint the viewport lines whose strip differs from the one drawn there."""
        width = self.size.width
        height = self.scrollable_content_region.height
        dirty: list[Region] = []
        start = -1
        for y in range(height + 1):
            changed = y < height and self._drawn.get(y) != self._line(y)
            if changed and start < 0:
                start = y
            elif not changed and start >= 0:
                dirty.append(Region(0, start, width, y - start))
                start = -1
        if dirty:
            self.refresh(*dirty)

    def selection_changed(self) -> None:
        """Only the selected row moved: repaint the old and the new row."""
        model = self.model
        if model is None:
            return
        old, new = self._last_selected, model.selected
        self._last_selected = new
        self.scroll_to_selected()
        top = int(self.scroll_offset.y)
        width = self.size.width
        pan = self._pan_levels
        if self._pan(model, top, self.scrollable_content_region.width) != pan:
            self.refresh()  # the rows in view span more levels than fit: panned for the new row
        for row in (old, new):
            if row >= 0:
                self.refresh(Region(0, row - top, width, 1))
        self.post_message(self.Moved(self))

    @property
    def screen_row(self) -> int:
        """Where the selected row sits in the viewport (kept across live appends)."""
        return (self.model.selected if self.model else 0) - int(self.scroll_offset.y)

    def scroll_to_selected(self, *, center: bool = False) -> None:
        model = self.model
        if model is None or not len(model):
            return
        height = self.scrollable_content_region.height
        if height <= 0:
            return
        row = model.selected
        top = int(self.scroll_offset.y)
        margin = min(2, max(0, (height - 1) // 4))
        if center or row < top - height or row > top + 2 * height:
            new_top = row - height // 2
        elif row < top + margin:
            new_top = row - margin
        elif row > top + height - 1 - margin:
            new_top = row - height + 1 + margin
        else:
            return
        new_top = max(0, min(new_top, len(model) - height))
        if new_top != top:
            self.scroll_to(y=max(0, new_top), animate=False, immediate=True)

    # actions (bound in keymap.SPECS, scope "tree") ----------------------------------------------
    def _moved(self) -> None:
        self.selection_changed()

    def action_cursor(self, step: int) -> None:
        if self.model is not None:
            self.model.move(step)
            self._moved()

    def action_page(self, step: int) -> None:
        if self.model is not None:
            self.model.page(step)
            self._moved()

    def action_home(self) -> None:
        if self.model is not None:
            self.model.home_key()
            self._moved()

    def action_end(self) -> None:
        if self.model is not None:
            self.model.end_key()
            self._moved()

    def action_fold_or_up(self) -> None:
        if self.model is not None:
            self._fold_or_jump(self.model.fold_or_up)

    def action_unfold_or_down(self) -> None:
        if self.model is not None:
            self._fold_or_jump(self.model.unfold_or_down)

    def _fold_or_jump(self, step: Callable[[], None]) -> None:
        """Ctrl+←/→: a fold changes the rows (redraw), a segment jump only moves the cursor."""
        assert self.model is not None
        before = (len(self.model), frozenset(self.model.folded))
        step()
        if (len(self.model), frozenset(self.model.folded)) != before:
            self.rows_changed()
        else:
            self._moved()

    def action_backspace(self) -> None:
        if self.model is not None and self.model.query:
            self.model.backspace()
            self.rows_changed()

    def rows_changed(self) -> None:
        """After a refilter: redraw and tell the screen (filter bar, footer, detail)."""
        self.model_changed()
        self.post_message(self.Moved(self))

    # typing into the search ----------------------------------------------------------------
    def accepts_typing(self) -> bool:
        """Every printable key types (as in pi's /tree: a query may start with any letter)."""
        return self.model is not None

    def take_typed(self, text: str) -> None:
        self.type_text(text)

    def type_text(self, text: str) -> None:
        """Append ``text`` to the search query (one refilter) and redraw."""
        if self.model is not None and text:
            self.model.set_query(self.model.query + text)
            self.rows_changed()

    # mouse ---------------------------------------------------------------------------------
    def on_click(self, event: events.Click) -> None:
        if self.model is None or not len(self.model) or self.first_rows is not None:
            return
        offset = event.get_content_offset(self)
        if offset is None:
            return
        row = offset.y + int(self.scroll_offset.y)
        if 0 <= row < len(self.model):
            self.model.select_row(row)
            self.selection_changed()

    # drawing -------------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        strip = self._line(y)
        self._drawn[y] = strip
        # the theme's background under every cell (rows carry colours only): never the
        # terminal's own default background
        return strip.apply_style(self.rich_style)

    def _line(self, y: int) -> Strip:
        """Viewport line ``y``; rows are cached by what they show."""
        model = self.model
        width = self.scrollable_content_region.width
        if model is None and self.kept is not None:
            return self._kept_line(y, width)
        if self._unplaced:
            return Strip.blank(max(0, width))
        row = y + int(self.scroll_offset.y)
        if model is not None and not len(model) and row == 0 and width > 0:
            empty = (
                "  No entries found" if (model.query or len(model.index.entries)) else "  No entries in this session"
            )
            return Strip([Segment(empty, self.role_style("muted"))]).adjust_cell_length(width)
        if model is None or row >= len(model) or width <= 0 or (self.first_rows is not None and row >= self.first_rows):
            return Strip.blank(max(0, width))
        selected = row == model.selected
        try:
            pan = self._pan(model, row - y, width)
            segs = tuple(model.row_segments(row, cursor=True, max_cols=width if model.compact else None))
            key = (segs, selected, width, pan)
            strip = self._cache.get(key)
            if strip is None:
                strip = self._render_segments(segs, width, selected, 3 * pan)
                self._cache[key] = strip
        except Exception as exc:  # a broken entry must not take the app down
            strip = Strip([Segment(printable(f"  (cannot draw this row: {exc})"), self.role_style("error"))])
            strip = strip.adjust_cell_length(width)
        return strip

    def _kept_line(self, y: int, width: int) -> Strip:
        """Line ``y`` of the kept first screen (blank at another size than it was kept at)."""
        kept = self.kept
        if kept is None or (width, self.scrollable_content_region.height) != kept.size or y >= len(kept.lines):
            return Strip.blank(max(0, width))
        segs, selected = kept.lines[y]
        return self._render_segments(segs, width, selected) if segs else Strip.blank(width)

    def _pan(self, model: TreeModel, top: int, width: int) -> int:
        """How many levels (3 columns each) the rows in view are shifted left, compact indentation
        off: one shift for all of them, so a guide keeps its column from row to row (pi pans its
        rows together too, ``view/pan.py``). Enough that the deepest row in view keeps its prefix
        within ``prefix_room``, never so much that the shallowest loses its connector; the shift
        drawn last while it is still in that range, so scrolling nearby does not move the rows
        sideways. Rows in view that span more levels than that: enough for the selected row
        (shallower rows then lose the start of their text, as in pi). Made once per window and
        selection, not per line."""
        height = self.scrollable_content_region.height
        selected = model.selected
        key = (self._generation, top, height, width, selected)
        if key == self._pan_key:
            return self._pan_levels
        stop = min(len(model), top + height)
        if self.first_rows is not None:
            stop = min(stop, self.first_rows)
        levels = 0
        if not model.compact and top < stop:
            depth = model.rows.display_indent
            depths = [depth(i) for i in range(top, stop)]
            room = prefix_room(width) // 3
            least = max(0, max(depths) - room)
            most = max(0, min(depths) - 1)
            if least > most:  # too many levels in view for the room: the selected row's text
                least = max(0, depth(selected) - room) if top <= selected < stop else most
                most = max(most, least)
            levels = min(max(self._pan_levels, least), most)
        self._pan_key, self._pan_levels = key, levels
        return levels

    def _render_row(self, row: int, width: int, selected: bool) -> Strip:
        assert self.model is not None
        return self._render_segments(self.model.row_segments(row, cursor=True), width, selected)

    def _render_segments(self, segs: Sequence[tuple[str, str]], width: int, selected: bool, shift: int = 0) -> Strip:
        # very deep indentation panned (``_pan``): the row after the cursor without its first
        # ``shift`` columns, as pi pans (no "…": a mark in the first column would stand where a
        # guide or the shallowest row's connector is)
        if shift:
            segs = [segs[0], *columns(list(segs[1:]), shift, _UNCUT)]
        role_style = self.role_style  # unknown roles are drawn as text
        bg = self._selected_style() if selected else None
        out: list[Segment] = []
        for role, text in segs:
            if not text:
                continue
            style = role_style(role)
            if bg is not None:
                style = style + bg
                if role == "text":
                    style = style + Style(bold=True)
            out.append(Segment(printable(text), style))
        strip = Strip(out)
        if strip.cell_length > width:
            strip = strip.crop(0, width - 1)
            last_style = out[-1].style if out else None
            strip = Strip(list(strip) + [Segment("…", last_style)])
        return strip.adjust_cell_length(width, bg if bg is not None else None)
