"""The bar above the tree: session title, filter modes (the active one highlighted, each
clickable) and the search query as typed (pi: ``Type to search: <query>``)."""

from __future__ import annotations

from rich.cells import cell_len
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
        text-wrap: nowrap;
        text-overflow: ellipsis;
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
            title = title.fit(self._width())
        self.query_one("#title", Static).update(Text(title, no_wrap=True, overflow="ellipsis"), layout=False)

    def _width(self) -> int:
        return max(1, self.content_region.width or self.app.size.width - 2)

    def on_resize(self) -> None:
        self._draw_title()
        self._draw_modes()

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
        self._draw_modes()

    def _draw_modes(self) -> None:
        """The modes line, in one line of the bar's width: a query too long for the room left
        shows its end and the cursor, cut on the left behind ``…`` (as a text input scrolls)."""
        if self._state is None:
            return
        _title, mode, query, label_times, extra, modes = self._state
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
        tail = [Content("  "), Content.styled(extra, "dim")] if extra else []
        if query:
            shown = printable(query)
            used = sum(part.cell_length for part in line)
            room = self._width() - used - 1  # the cursor's cell
            if tail and cell_len(shown) > room - sum(part.cell_length for part in tail):
                tail = []  # the query comes before the note beside it
            room -= sum(part.cell_length for part in tail)
            if cell_len(shown) > room:
                shown = "…" + _last_cells(shown, max(0, room - 1))
            line += [Content.styled(shown, "bold"), Content("▏")]
        else:
            line.append(Content.styled("type to search", "dim italic"))
        line += tail
        self.query_one("#modes", Static).update(Content.assemble(*line), layout=False)


def _last_cells(text: str, cells: int) -> str:
    """The end of ``text`` that fits in ``cells`` terminal cells (a wide character that would
    not fit whole is left out)."""
    out: list[str] = []
    width = 0
    for ch in reversed(text):
        w = cell_len(ch)
        if width + w > cells:
            break
        out.append(ch)
        width += w
    return "".join(reversed(out))
