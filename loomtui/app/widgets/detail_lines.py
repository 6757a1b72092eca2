"""Line sources of the detail pane: pieces of an entry drawn as strips, only when visible.

A piece renders to a ``Lines`` (anything with ``len`` and ``[i] -> Strip``) once per width;
long texts show their head and a "show all" line, very long ones become raw lines drawn only
when on screen, folds (thinking) and indents (a tool call with its result) nest pieces.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from rich.console import RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from loomtui.view.printable import printable

if TYPE_CHECKING:
    from loomtui.app.widgets.detail import DetailPane

#: a cut block shows this many lines / characters
HEAD_LINES = 40
HEAD_CHARS = 4_000
#: expanded text up to this size is wrapped; beyond it, raw lines drawn only when visible
STATIC_LIMIT = 60_000


def clean(text: str) -> str:
    """Text safe to draw: ANSI escapes removed, other control characters made visible."""
    return printable(text, keep_lines=True, strip_ansi=True)


class Lines(Protocol):
    def __len__(self) -> int: ...
    def __getitem__(self, i: int) -> Strip: ...


class RawLines:
    """A long text's lines, drawn without wrapping (a 1 MB output costs one ``str.split``)."""

    def __init__(self, lines: list[str], style: Style, width: int) -> None:
        self.lines, self.style, self.width = lines, style, width

    def __len__(self) -> int:
        return len(self.lines)

    def __getitem__(self, i: int) -> Strip:
        text = self.lines[i][: self.width * 2]
        return Strip([Segment(text, self.style)]).crop(0, self.width)


class Concat:
    """Several line sources one after another (bisect on their offsets)."""

    def __init__(self, parts: list[Lines]) -> None:
        self.parts = [p for p in parts if len(p)]
        self.starts: list[int] = []
        n = 0
        for p in self.parts:
            self.starts.append(n)
            n += len(p)
        self.total = n

    def __len__(self) -> int:
        return self.total

    def __getitem__(self, i: int) -> Strip:
        k = bisect_right(self.starts, i) - 1
        return self.parts[k][i - self.starts[k]]


class Prefixed:
    """A line source drawn behind a left bar (tool calls)."""

    def __init__(self, inner: Lines, bar: Segment) -> None:
        self.inner, self.bar = inner, bar

    def __len__(self) -> int:
        return len(self.inner)

    def __getitem__(self, i: int) -> Strip:
        return Strip([self.bar, *self.inner[i]])


class Piece:
    """One piece of the detail pane; ``lines(width)`` is cached per width."""

    toggle_id = -1

    def __init__(self) -> None:
        self._cache: tuple[int, Lines] | None = None

    def lines(self, pane: DetailPane, width: int) -> Lines:
        if self._cache is None or self._cache[0] != width:
            self._cache = (width, self.render(pane, width))
        return self._cache[1]

    def render(self, pane: DetailPane, width: int) -> Lines:
        raise NotImplementedError

    def invalidate(self) -> None:
        self._cache = None

    def toggle(self) -> None:
        """Clicked (foldable and cut pieces)."""

    def children(self) -> list[Piece]:
        return []


#: a renderable made when the piece is drawn, in the pane's current theme (role styles)
Make = Callable[["DetailPane"], RenderableType]


class RenderPiece(Piece):
    """A Rich renderable (Text, Markdown), wrapped to the pane; given as a function of the pane
    when it is styled in pi's roles, so a theme change only draws it again."""

    def __init__(self, renderable: RenderableType | Make, *, top: int = 0) -> None:
        super().__init__()
        self.renderable = renderable
        self.top = top

    def render(self, pane: DetailPane, width: int) -> Lines:
        strips = [Strip.blank(0)] * self.top
        made = self.renderable(pane) if callable(self.renderable) else self.renderable
        return strips + pane.render_renderable(made, width)


def plain_markdown_styles() -> dict[str, Style]:
    """rich's Markdown styles without their colours, headings bold: what Markdown is drawn in
    without colours (``NO_COLOR``). Textual's monochrome filter turns rich's magenta headings
    and quotes into a grey close to the pane's background; without a colour of their own they
    take the pane's text colour."""
    from rich.default_styles import DEFAULT_STYLES

    styles = {name: style.without_color for name, style in DEFAULT_STYLES.items() if name.startswith("markdown.")}
    for level in range(1, 5):
        styles[f"markdown.h{level}"] += Style(bold=True)
    return styles


class MarkdownPiece(Piece):
    """Markdown, parsed once; its code blocks take the theme's light or dark palette when drawn;
    without colours, its own styles are attributes only (``plain_markdown_styles``)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        from rich.markdown import Markdown  # markdown-it loads on the first detail, after first paint

        self.markdown = Markdown(text, hyperlinks=False)

    def render(self, pane: DetailPane, width: int) -> Lines:
        self.markdown.code_theme = self.markdown.inline_code_theme = pane.code_theme()
        from rich.theme import Theme

        if not pane.app.monochrome:
            code = pane.inline_code_style()  # a light theme's own, not rich's black bar
            if code is None:
                return pane.render_renderable(self.markdown, width)
            with pane.app.console.use_theme(Theme({"markdown.code": code}, inherit=True)):
                return pane.render_renderable(self.markdown, width)
        with pane.app.console.use_theme(Theme(plain_markdown_styles(), inherit=True)):
            return pane.render_renderable(self.markdown, width)


class LongText(Piece):
    """Text that shows its head and a line to show all of it (cheap at any size); made
    printable when drawn."""

    def __init__(self, text: str, *, style: Style | None = None, role: str | None = None) -> None:
        super().__init__()
        self.full = text
        self.base_style = style or Style()
        #: the role of pi's theme the text is drawn in (None: the pane's text colour)
        self.role = role
        self.expanded = False
        self.lines_count = text.count("\n") + 1
        head = text if len(text) <= HEAD_CHARS else text[:HEAD_CHARS]
        if head.count("\n") >= HEAD_LINES:
            head = "\n".join(head.split("\n", HEAD_LINES)[:HEAD_LINES])
        self.head = head
        self.cut = len(head) < len(text)

    def toggle(self) -> None:
        self.expand()

    def expand(self) -> None:
        if self.cut and not self.expanded:
            self.expanded = True
            self.invalidate()

    def style(self, pane: DetailPane) -> Style:
        return pane.role_style(self.role) + self.base_style if self.role else self.base_style

    def render(self, pane: DetailPane, width: int) -> Lines:
        style = self.style(pane)
        if not self.expanded:
            strips = pane.render_renderable(Text(clean(self.head), style=style), width)
            if self.cut:
                hidden = len(self.full) - len(self.head)
                from loomtui.view.block_types import human_size

                size = human_size(len(self.full.encode("utf-8", "replace")))
                label = Text(
                    f"▼ show all ({self.lines_count:,} lines, {size}; {hidden:,} more characters)  [x]",
                    style=pane.role_style("accent") + Style(bold=True),
                )
                meta = Style.from_meta({"loom_toggle": self.toggle_id})
                strips += [s.apply_style(meta) for s in pane.render_renderable(label, width)]
            return strips
        if len(self.full) <= STATIC_LIMIT:
            return pane.render_renderable(Text(clean(self.full), style=style), width)
        return RawLines(clean(self.full).split("\n"), style, width)


class Fold(Piece):
    """A collapsible section (thinking): a clickable title, the body when open."""

    def __init__(self, title: str, body: list[Piece]) -> None:
        super().__init__()
        self.title = title
        self.body = body
        self.open = False

    def toggle(self) -> None:
        self.open = not self.open
        self.invalidate()

    def children(self) -> list[Piece]:
        return self.body

    def render(self, pane: DetailPane, width: int) -> Lines:
        marker = "▼" if self.open else "▶"
        title = Text(f"{marker} {self.title}", style=pane.role_style("muted") + Style(italic=True))
        meta = Style.from_meta({"loom_toggle": self.toggle_id})
        head = [Strip.blank(0)] + [s.apply_style(meta) for s in pane.render_renderable(title, width)]
        if not self.open:
            return head
        inner = Concat([b.lines(pane, max(1, width - 2)) for b in self.body])
        return Concat([head, Prefixed(inner, Segment("  "))])


class Indent(Piece):
    """Pieces behind a coloured bar (a tool call with its result)."""

    def __init__(self, body: list[Piece], role: str = "borderAccent") -> None:
        super().__init__()
        self.body = body
        self.role = role

    def children(self) -> list[Piece]:
        return self.body

    def render(self, pane: DetailPane, width: int) -> Lines:
        inner = Concat([b.lines(pane, max(1, width - 2)) for b in self.body])
        bar = Segment("▌ ", pane.role_style(self.role))
        return Concat([[Strip.blank(0)], Prefixed(inner, bar)])


def walk(pieces: list[Piece]) -> list[Piece]:
    out: list[Piece] = []
    stack = list(reversed(pieces))
    while stack:
        b = stack.pop()
        out.append(b)
        stack.extend(reversed(b.children()))
    return out
