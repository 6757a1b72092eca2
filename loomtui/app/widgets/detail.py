"""The detail pane: the selected entry in full, drawn from its blocks (``view/blocks.py``).

User and assistant text render as Markdown; thinking blocks are collapsible; each tool call
shows its arguments next to its result; images show as ``[image mime, size]``. A header says
what the entry is and where it sits.

The pane is one Line-API widget (like the tree): each block becomes a piece
(``detail_lines.py``) rendered to strips once per width, and only the visible lines are drawn.
Selecting another entry re-renders the pane, not the screen's layout (a pane of Textual widgets
cost 70-150 ms per selection at 100k entries; this costs a few). Nothing may freeze the UI on a
big entry: text beyond a few thousand characters is cut with a "show all" line (click it, or
``x`` expands every cut block); a very long text expands into raw lines drawn only when visible.
``t`` opens or closes the thinking blocks.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

from rich.console import RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.color import Color
from textual.geometry import Size
from textual.strip import Strip

from loomtui.app import keymap, ui_state
from loomtui.app.messages import SearchTyped
from loomtui.app.widgets.detail_lines import (
    Concat,
    Fold,
    Indent,
    Lines,
    LongText,
    MarkdownPiece,
    Piece,
    RenderPiece,
    clean,
    walk,
)
from loomtui.app.widgets.roles import ROLE_CLASS, ROLE_CLASSES, RoleStyles, role_css
from loomtui.app.widgets.search_keys import TypesIntoSearch
from loomtui.app.widgets.tree_view import LineScrollView, set_virtual_size
from loomtui.view.printable import printable
from loomtui.view.words import ending

if TYPE_CHECKING:  # imported with the first entry shown: the first screen shows none
    from loomtui.session.entries import Entry
    from loomtui.session.manager import SessionManager
    from loomtui.view import blocks as B
    from loomtui.view.model import TreeModel

#: longest text rendered as Markdown (beyond: plain text with "show all")
MARKDOWN_LIMIT = 12_000


#: the narrowest the detail pane (and the tree beside it) may be made
MIN_PANE = 30
#: the most of the screen a width remembered in columns (before fractions) may take
OLD_WIDTH_MOST = 0.5


def stored_fraction(state: dict[str, Any], screen_width: int) -> float | None:
    """The remembered width as a fraction of the screen. An older state held columns (measured
    on a screen of unknown width): read against this screen, at most ``OLD_WIDTH_MOST`` of it."""
    fraction = state.get("detail_fraction")
    if isinstance(fraction, (int, float)) and not isinstance(fraction, bool) and 0 < fraction < 1:
        return float(fraction)
    columns = state.get("detail_width")
    if isinstance(columns, int) and not isinstance(columns, bool) and columns > 0 and screen_width > 0:
        return min(columns / screen_width, OLD_WIDTH_MOST)
    return None


class DetailPane(TypesIntoSearch, RoleStyles, LineScrollView, can_focus=True):
    """The selected entry in full, drawn with the Line API: one widget, no re-layout of the
    screen when the selection changes; only the visible lines become strips.

    Pieces take pi's role colours (component classes, ``widgets/roles.py``) when they are drawn:
    a theme change draws them again, keeping open folds and expanded texts."""

    BINDINGS = keymap.bindings("detail")
    COMPONENT_CLASSES = ROLE_CLASSES

    SearchTyped = SearchTyped

    DEFAULT_CSS = (
        role_css("DetailPane")
        + """
    DetailPane {
        padding: 0 1;
        background: $surface;
        scrollbar-size-vertical: 1;
        overflow-x: hidden;
        overflow-y: scroll;
    }
    DetailPane:focus { background-tint: $foreground 3%; }
    """
    )

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entry_id: str | None = None
        self._shown: tuple[SessionManager | None, Entry | None] = (None, None)
        #: the model of the last ``show`` (a theme change draws the entry again)
        self._shown_model: TreeModel | None = None
        self.blocks: list[Piece] = []
        self._toggles: list[Piece] = []
        self._source: Lines = Concat([])
        self._width = 0
        #: the role styles and code palette the pieces were last drawn in
        self._drawn_in: tuple[object, ...] = ()
        #: the fraction of the screen's width the user chose (None: the layout's proportions)
        self._wanted_fraction: float | None = None
        self._dragging = False

    # public --------------------------------------------------------------------------------
    def show(
        self, manager: SessionManager | None, model: TreeModel | None, entry: Entry | None, *, force: bool = False
    ) -> None:
        """Show ``entry`` (None: an empty pane). Cheap when the entry did not change."""
        new_id = entry.id if entry is not None else None
        # the same entry of the same session: nothing to do. A reloaded file (a rewrite keeps
        # the ids, not the texts) brings a new manager and new entries: shown again
        shown = (manager, entry)
        if new_id == self.entry_id and not force and shown[0] is self._shown[0] and shown[1] is self._shown[1]:
            return
        self.entry_id = new_id
        self._shown = shown
        self._shown_model = model
        if manager is None or entry is None:
            pieces: list[Piece] = [self._note("No entry selected.")]
        else:
            from loomtui.view import blocks as B

            try:
                tool_calls = model.flat.tool_calls if model is not None else None
                pieces = self.pieces(B.entry_blocks(manager, entry, tool_calls))
            except Exception as exc:  # a malformed entry: say so, never crash
                pieces = [self._note(f"Cannot show entry {entry.id}: {exc}", "error")]
        self.blocks = pieces
        self._toggles = []
        for b in walk(pieces):
            if isinstance(b, (LongText, Fold)):
                b.toggle_id = len(self._toggles)
                self._toggles.append(b)
        self._relayout()
        self.scroll_to(0, 0, animate=False, immediate=True)

    @property
    def long_texts(self) -> list[LongText]:
        return [b for b in walk(self.blocks) if isinstance(b, LongText)]

    @property
    def folds(self) -> list[Fold]:
        return [b for b in walk(self.blocks) if isinstance(b, Fold)]

    @property
    def text(self) -> str:
        """Everything the pane shows, as plain text (tests)."""
        return "\n".join("".join(seg.text for seg in self._source[i]).rstrip() for i in range(len(self._source)))

    def action_expand_all(self) -> None:
        """Every cut text in full; with none, a notice says so (a key never does nothing)."""
        cut = [block for block in self.long_texts if block.cut and not block.expanded]
        if not cut:
            self.notify("Nothing is cut in this entry: everything is shown in full.", timeout=3)
            return
        for block in cut:
            block.expand()
        self._relayout(invalidate=True)

    def action_toggle_folds(self) -> None:
        folds = self.folds
        if not folds:
            self.notify("This entry has no thinking blocks to open or close.", timeout=3)
            return
        want = not any(f.open for f in folds)
        for f in folds:
            if f.open != want:
                f.toggle()
        self._relayout(invalidate=True)

    # drawing ---------------------------------------------------------------------------------
    def code_theme(self) -> str:
        """The Pygments palette of code blocks: the theme's light or dark one."""
        return "monokai" if self.app.current_theme.dark else "friendly"

    def inline_code_style(self) -> Style | None:
        """Markdown's inline code in a light theme: bold, in the theme's accent role, on its
        panel grey (rich's own ``markdown.code`` is bold cyan on black, a black bar in a light
        pane). None: rich's style, which a dark theme draws readably."""
        theme = self.app.current_theme
        if theme.dark:
            return None
        colour = self.role_style("accent").color
        panel = theme.panel or theme.surface
        return Style(bold=True, color=colour, bgcolor=Color.parse(panel).rich_color if panel else None)

    def _palette(self) -> tuple[object, ...]:
        return (*(self.role_style(role) for role in ROLE_CLASS), self.code_theme(), self.inline_code_style())

    def notify_style_update(self) -> None:
        """Textual restyled the pane (a theme change, focus): once the new styles are in place,
        the pieces are drawn again if their colours changed."""
        super().notify_style_update()
        self.forget_role_styles()
        if self.is_mounted:
            self.call_next(self._restyle)

    def _restyle(self) -> None:
        if self._palette() != self._drawn_in:
            self._relayout(invalidate=True)

    def render_renderable(self, renderable: RenderableType, width: int) -> list[Strip]:
        console = self.app.console
        options = console.options.update(width=max(1, width), height=None, highlight=False)
        lines = console.render_lines(renderable, options, pad=False)
        # whatever a renderable made of the entry (Markdown, JSON, titles), no control character
        # from the file reaches the terminal
        return [Strip([_safe(seg) for seg in line]) for line in lines]

    def _relayout(self, *, invalidate: bool = False) -> None:
        width = self.scrollable_content_region.width
        if width <= 0:
            width = max(1, self.size.width - 2) if self.size.width else 40
        if invalidate:
            for b in walk(self.blocks):
                b.invalidate()
        self._width = width
        self._drawn_in = self._palette()
        self._source = Concat([b.lines(self, width) for b in self.blocks])
        set_virtual_size(self, Size(width, len(self._source)))
        self.refresh()

    def on_resize(self) -> None:
        if self.scrollable_content_region.width != self._width:
            self._relayout()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        i = y + int(self.scroll_offset.y)
        base = self.rich_style  # the theme's background under every cell
        if i >= len(self._source):
            return Strip.blank(width, base)
        try:
            strip = self._source[i]
        except Exception as exc:  # never a traceback on screen
            strip = Strip([Segment(f"(cannot draw: {exc})")])
        return strip.crop(0, width).extend_cell_length(width).apply_style(base)

    def take_typed(self, text: str) -> None:
        """Typing here searches the tree, as it does with the tree focused."""
        self.post_message(self.SearchTyped(text))

    def on_click(self, event: events.Click) -> None:
        toggle = event.style.meta.get("loom_toggle") if event.style else None
        if isinstance(toggle, int) and 0 <= toggle < len(self._toggles):
            event.stop()
            self._toggles[toggle].toggle()
            self._relayout(invalidate=False)

    def on_mount(self) -> None:
        state = ui_state.load()
        fraction = stored_fraction(state, self._screen_width())
        if fraction is not None:
            self._wanted_fraction = fraction
            self._apply_fraction()
            if "detail_fraction" not in state:
                self._save_fraction()  # an older state's columns, read once

    # width: keys and a drag on the left border; remembered between runs as a fraction of the
    # screen's width, so a width chosen on a wide terminal leaves a narrow one its tree ------
    def _screen_width(self) -> int:
        return self.screen.size.width or self.app.size.width

    def set_width(self, width: int, *, save: bool = True) -> None:
        """Make the pane ``width`` columns wide (the tree keeps at least ``MIN_PANE``)."""
        screen_width = self._screen_width()
        width = max(MIN_PANE, min(width, screen_width - MIN_PANE))
        self._wanted_fraction = width / screen_width if screen_width > 0 else None
        self.styles.width = width
        if save:
            self._save_fraction()

    def _save_fraction(self) -> None:
        if self._wanted_fraction is not None:
            ui_state.save(detail_fraction=round(self._wanted_fraction, 4))

    def _apply_fraction(self) -> None:
        """The chosen fraction of the screen's width, the tree keeping at least ``MIN_PANE``."""
        screen_width = self._screen_width()
        if self._wanted_fraction is None or screen_width <= 0:
            return
        width = round(self._wanted_fraction * screen_width)
        self.styles.width = max(MIN_PANE, min(width, screen_width - MIN_PANE))

    def resize_by(self, step: int) -> None:
        self.set_width(self.outer_size.width + step)

    def fit_width(self) -> None:
        """The screen changed size: the chosen fraction of the new width."""
        self._apply_fraction()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        if event.x == 0:  # the border between the tree and the pane
            self._dragging = True
            self.capture_mouse()
            event.stop()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if self._dragging:
            self.set_width((self.screen.size.width or self.app.size.width) - event.screen_x, save=False)
            event.stop()

    def on_mouse_up(self, event: events.MouseUp) -> None:
        if self._dragging:
            self._dragging = False
            self.release_mouse()
            self._save_fraction()
            event.stop()

    # blocks -> pieces ------------------------------------------------------------------------
    def pieces(self, blocks: list[B.Block] | tuple[B.Block, ...]) -> list[Piece]:
        out: list[Piece] = []
        renderers = _renderers()
        for block in blocks:
            out.extend(renderers[type(block)](self, block))
        return out

    def _styled(self, role: str, *, bold: bool = False, italic: bool = False) -> Style:
        return self.role_style(role) + Style(bold=bold or None, italic=italic or None)

    def _note(self, text: str, role: str = "muted", *, bold: bool = False) -> Piece:
        shown = clean(text)
        return RenderPiece(lambda pane: Text(shown, style=pane._styled(role, bold=bold)))

    def _header(self, h: B.Header) -> list[Piece]:
        return [RenderPiece(lambda pane: pane._header_text(h))]

    def _header_text(self, h: B.Header) -> Text:
        t = Text(style=self.role_style("muted"))
        t.append(clean(f"id {h.entry_id}"), style=Style(bold=True))
        t.append(clean(f"  parent {h.parent_id or '—'}"))
        t.append(clean(f"  {h.timestamp}" if h.timestamp is not None else "  no time"))
        facts = []
        if h.model:
            facts.append(f"model {h.model}")
        if h.usage is not None and h.usage.text:
            facts.append(h.usage.text)
        if h.stop_reason:
            facts.append(ending(h.stop_reason))
        if facts:
            t.append(clean("\n" + "  ".join(facts)))
        t.append(
            f"\ndepth {h.depth} from the root  sibling {h.sibling}/{h.siblings}  children {h.children}  line {h.line}"
        )
        if h.label is not None:
            t.append("\n")
            t.append(clean(f"[{h.label}]"), style=self._styled("warning", bold=True))
            if h.label_time:
                t.append(clean(f" labelled {h.label_time}"))
        return t

    def _title(self, b: B.Title) -> list[Piece]:
        text, role = clean(b.text), b.role
        return [RenderPiece(lambda pane: Text(text, style=pane._styled(role, bold=True)), top=1)]

    def _markdown(self, b: B.Markdown) -> list[Piece]:
        text = clean(b.text)
        if len(text) > MARKDOWN_LIMIT:
            return [LongText(b.text)]
        return [MarkdownPiece(text)]

    def _plain(self, b: B.Plain) -> list[Piece]:
        if b.kind == "error":
            return [LongText(b.text, role="error")]
        return [LongText(b.text, style=Style(bold=True) if b.kind == "command" else None)]

    def _thinking(self, b: B.Thinking) -> list[Piece]:
        if b.redacted:
            return [Fold("thinking (redacted)", [self._note("(redacted thinking)")])]
        return [Fold(f"thinking ({len(b.text):,} characters)", [LongText(b.text, style=Style(italic=True))])]

    def _tool_call(self, b: B.ToolCall) -> list[Piece]:
        body: list[Piece] = []
        for th in b.thinking:
            body.extend(self._thinking(th))
        if b.found:
            summary, call = clean(b.summary), clean(f"  call {b.call_id}")
            body.append(
                RenderPiece(lambda pane: Text.assemble((summary, Style(bold=True)), (call, pane.role_style("muted"))))
            )
            body.extend(self.pieces(b.args))
        else:
            body.append(self._note(f"call {b.call_id} not found in this session"))
        if b.result is None:
            body.append(self._note("no result in this session (yet)"))
        else:
            body.extend(self._tool_result(b.result))
        failed = b.result is not None and b.result.is_error
        return [Indent(body, "error" if failed else "borderAccent")]

    def _tool_result(self, r: B.ToolResult) -> list[Piece]:
        if r.malformed:
            return [self._note("result entry is malformed", "error")]
        return [RenderPiece(lambda pane: pane._result_head(r)), *self.pieces(r.body)]

    def _result_head(self, r: B.ToolResult) -> Text:
        head = Text(style=self.role_style("muted"))
        head.append("result", style=self._styled("text", bold=True))
        head.append(clean(f"  (entry {r.entry_id})"))
        if r.is_error:
            head.append("  error", style=self._styled("error", bold=True))
        return head

    def _diff(self, b: B.Diff) -> list[Piece]:
        if b.kind == "edit":  # an edit call's arguments: the call's title says what it is
            return [LongText(b.text)]
        return [self._note("diff", "text", bold=True), LongText(b.text)]

    def _files(self, b: B.Files) -> list[Piece]:
        text = clean(f"{b.title}:\n" + "\n".join(f"  {f}" for f in b.paths))
        return [RenderPiece(lambda pane: Text(text, style=pane.role_style("muted")), top=1)]

    def _compaction(self, b: B.Compaction) -> list[Piece]:
        head = "compaction"
        if b.tokens_before is not None:
            head += f": {b.tokens_before:,} tokens before"
        facts = [f"first kept entry {b.first_kept_id}"]
        if b.first_kept_text is not None:
            facts.append(b.first_kept_text)
        if b.by_extension:
            facts.append("made by an extension")
        facts.extend(f"{k} {v}" for k, v in b.facts)
        from loomtui.view import blocks as B

        return [
            *self._title(B.Title(head, "borderAccent")),
            self._note("  ".join(facts)),
            *self._summary_text(b.summary),
            *self.pieces(b.files),
        ]

    def _summary(self, b: B.Summary) -> list[Piece]:
        from loomtui.view import blocks as B

        out = self._title(B.Title(f"branch summary (from {b.from_id if b.from_id is not None else '—'})", "warning"))
        if b.by_extension:
            out.append(self._note("made by an extension"))
        return [*out, *self._summary_text(b.summary), *self.pieces(b.files)]

    def _summary_text(self, text: str) -> list[Piece]:
        from loomtui.view import blocks as B

        return self._markdown(B.Markdown(text)) if text.strip() else [self._note("(empty)")]

    def _custom(self, b: B.Custom) -> list[Piece]:
        from loomtui.view import blocks as B

        title = B.Title(f"custom entry: {b.custom_type} (extension state, not in context)", "dim")
        return [*self._title(title), LongText(B.pretty_json(b.data) if b.has_data else "(no data)")]


@cache
def _renderers() -> dict[type, Callable[[DetailPane, Any], list[Piece]]]:
    """Each block type's pieces (built once, with the first entry shown)."""
    from loomtui.view import blocks as B

    return {
        B.Header: DetailPane._header,
        B.Title: DetailPane._title,
        B.Note: lambda pane, b: [pane._note(b.text, b.role, bold=b.bold)],
        B.Markdown: DetailPane._markdown,
        B.Plain: DetailPane._plain,
        B.Thinking: DetailPane._thinking,
        B.Image: lambda pane, b: [pane._note(b.label)],
        B.Diff: DetailPane._diff,
        B.Files: DetailPane._files,
        B.ToolCall: DetailPane._tool_call,
        B.ToolResult: DetailPane._tool_result,
        B.Compaction: DetailPane._compaction,
        B.Summary: DetailPane._summary,
        B.Custom: DetailPane._custom,
        B.Usage: lambda pane, b: [pane._note(b.text)],
    }


__all__ = ["DetailPane", "Fold", "LongText"]


def _safe(seg: Segment) -> Segment:
    text = seg.text
    if seg.control or text.isprintable():
        return seg
    return Segment(printable(text, keep_lines=True), seg.style)
