"""The bar above the tree: session title, filter modes (the active one highlighted, each
clickable) and the search query as typed (pi: ``Type to search: <query>``)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.style import Style
from textual.widgets import Static

from loomtui.app.widgets.tree_view import printable
from loomtui.view.filter_modes import FILTER_MODES
from loomtui.view.session_header import Header

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
        self._state: tuple[str | Header, str, str, bool, str, tuple[str, ...]] | None = None

    def _draw_title(self) -> None:
        if self._state is None:
            return
        title = self._state[0]
        if isinstance(title, Header):  # laid out in the bar's width: the useful parts stay whole
            title = title.fit(max(1, self.content_region.width or self.app.size.width - 2))
        self.query_one("#title", Static).update(Text(title, no_wrap=True, overflow="ellipsis"), layout=False)

    def on_resize(self) -> None:
        self._draw_title()

    def compose(self) -> ComposeResult:
        yield Static("", id="title", markup=False)
        yield Static("", id="modes")

    def show(
        self,
        title: str | Header,
        mode: str,
        query: str,
        label_times: bool,
        extra: str = "",
        modes: tuple[str, ...] = FILTER_MODES,
    ) -> None:
        """``title``: a text, or a session's ``Header`` (``view/session_header.py``), fitted to
        the bar's width whenever it changes."""
        state = (title, mode, query, label_times, extra, modes)
        before = self._state
        if state == before:
            return
        self._state = state
        if before is None or before[0] != title:
            self._draw_title()
        if before is not None and before[1:] == state[1:]:
            return  # only the title changed (a live append): the modes line stays as drawn
        # every part is plain text with a style: a mode named by the file (a model's) and the
        # query typed ("\\[restored]") show exactly as they are, never read as markup
        line = [Content.styled("Filter:", "dim"), Content(" ")]
        for m in modes:
            click = Style.from_meta({"@click": f"screen.set_filter({m!r})"})
            style = Style(bold=True, reverse=True) + click if m == mode else click
            line += [Content.styled(f" {MODE_NAMES.get(m, m)} ", style), Content(" ")]
        if label_times:
            line += [Content.styled("[+label time]", "dim"), Content(" ")]
        line += [Content(" "), Content.styled("Search:", "dim"), Content(" ")]
        if query:
            line += [Content.styled(printable(query), "bold"), Content("▏")]
        else:
            line.append(Content.styled("type to search", "dim italic"))
        if extra:
            line += [Content("  "), Content.styled(extra, "dim")]
        self.query_one("#modes", Static).update(Content.assemble(*line), layout=False)
