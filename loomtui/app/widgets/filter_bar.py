"""The bar above the tree: session title, filter modes (the active one highlighted, each
clickable) and the search query as typed (pi: ``Type to search: <query>``)."""

from __future__ import annotations

from rich.text import Text
from textual.content import Content
from textual.markup import escape
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from loomtui.app.widgets.tree_view import printable
from loomtui.view.flat import FILTER_MODES
from loomtui.view.width import fit_parts

#: how each mode is named in the bar (pi's HTML export buttons)
MODE_NAMES = {
    "default": "default",
    "no-tools": "no-tools",
    "user-only": "user",
    "labeled-only": "labeled",
    "all": "all",
}


class FilterBar(Vertical):
    DEFAULT_CSS = """
    FilterBar {
        height: 2;
        background: $panel;
        padding: 0 1;
    }
    FilterBar > #title {
        height: 1;
        width: 1fr;
        color: $foreground;
        text-style: bold;
    }
    FilterBar > #modes {
        height: 1;
        width: 1fr;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._state: tuple[str | tuple[str, ...], str, str, bool, str, tuple[str, ...]] | None = None
        self._shrink = 1

    def _draw_title(self) -> None:
        if self._state is None:
            return
        title = self._state[0]
        if isinstance(title, tuple):
            width = self.content_region.width or self.app.size.width - 2
            title = fit_parts(list(title), max(1, width), self._shrink)
        self.query_one("#title", Static).update(Text(title, no_wrap=True, overflow="ellipsis"), layout=False)

    def on_resize(self) -> None:
        self._draw_title()

    def compose(self) -> ComposeResult:
        yield Static("", id="title", markup=False)
        yield Static("", id="modes")

    def show(self, title: str | tuple[str, ...], mode: str, query: str, label_times: bool, extra: str = "",
             modes: tuple[str, ...] = FILTER_MODES, shrink: int = 1) -> None:
        """``title``: a text, or parts joined by `` · `` of which part ``shrink`` (a path) is
        shortened first when the bar is too narrow (the leaf at the end stays visible)."""
        state = (title, mode, query, label_times, extra, modes)
        before = self._state
        if state == before:
            return
        self._state = state
        self._shrink = shrink
        if before is None or before[0] != title:
            self._draw_title()
        if before is not None and before[1:] == state[1:]:
            return  # only the title changed (a live append): the modes line stays as drawn
        parts = ["[dim]Filter:[/] "]
        for m in modes:
            name = MODE_NAMES.get(m, m)
            if m == mode:
                parts.append(f"[bold reverse][@click=screen.set_filter('{m}')] {name} [/][/] ")
            else:
                parts.append(f"[@click=screen.set_filter('{m}')] {name} [/] ")
        if label_times:
            parts.append("[dim]\\[+label time][/] ")
        parts.append(" [dim]Search:[/] ")
        if query:
            parts.append(f"[bold]{escape(printable(query))}[/]▏")
        else:
            parts.append("[dim italic]type to search[/]")
        if extra:
            parts.append(f"  [dim]{escape(extra)}[/]")
        self.query_one("#modes", Static).update(Content.from_markup("".join(parts)), layout=False)
