"""F1 (and ``?`` while the search is empty): every binding, with the keys in effect."""

from __future__ import annotations

import io

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from loomtui.app.keymap import SPECS, display_keys, keymap_path

SCOPES = (
    ("tree", "In the tree"),
    ("browser", "In the browser (tree or detail pane)"),
    ("detail", "In the detail pane"),
    ("compare", "Comparing two branches"),
    ("compare-screen", ""),
    ("reader", "Reader mode"),
    ("reader-screen", ""),
    ("picker", "In the session list"),
    ("app", "Everywhere"),
)


def help_table(keymap: dict[str, str]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    table.add_column(style="dim", no_wrap=True)
    for n, (scope, title) in enumerate(SCOPES):
        if title:
            if n:
                table.add_row("", "", "")
            table.add_row(Text(title, style="bold underline"), "", "")
        for spec in SPECS:
            if spec.scope == scope and spec.id != "browser.switch-focus-back":
                table.add_row(display_keys(spec, keymap), spec.description, spec.id)
        if scope == "tree":
            table.add_row("printable keys", "type into the search (all words must match)", "")
            table.add_row("?", "this help, while the search is empty", "")
            table.add_row("m c h [ ] …", "loom tools (below), while the search is empty (with a query they "
                          "type; start a query with a space to search for them)", "")
            table.add_row("mouse", "click selects a row, the wheel scrolls", "")
    known = {scope for scope, _title in SCOPES}
    other = [spec for spec in SPECS if spec.scope not in known]
    if other:
        table.add_row("", "", "")
        table.add_row(Text("Other", style="bold underline"), "", "")
        for spec in other:
            table.add_row(display_keys(spec, keymap), spec.description, spec.id)
    return table


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; background: $background 60%; }
    HelpScreen > Vertical {
        width: 90%; max-width: 110; height: 90%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    HelpScreen .title { text-style: bold; height: 1; margin-bottom: 1; }
    HelpScreen .muted { color: $text-muted; height: auto; }
    """
    BINDINGS = [Binding("escape,q,f1,question_mark", "close", "close", show=False)]

    def __init__(self, keymap: dict[str, str] | None = None) -> None:
        super().__init__()
        self.keymap = keymap or {}

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("loomtui keys (pi's /tree keys plus what a browser needs)", classes="title")
            with VerticalScroll():
                yield Static(help_table(self.keymap))
                yield Static(
                    Text(
                        "Enter moves the in-memory leaf (as pi's /tree does); nothing is written until you "
                        "persist it with Ctrl+S, which appends one label entry parented on the leaf so pi "
                        "resumes there. Shift+L writes a label entry. Ctrl+E writes a new session file. "
                        "Ctrl+G opens the session a fork was made from.\n"
                        "On an OpenLoom or socketteer loom, labels are bookmarks: after Shift+L (or with "
                        "Ctrl+S) loomtui offers to save them into the file, keeping the original as FILE.bak.\n"
                        f"Remap any binding by id in {keymap_path()} ([keys] table, e.g. "
                        '"browser.export" = "ctrl+x").'
                    ),
                    classes="muted",
                )
            yield Static("Esc: close", classes="muted")

    @property
    def text(self) -> str:
        """The help as plain text (tests, copy)."""
        from rich.console import Console

        console = Console(width=200, record=True, file=io.StringIO())
        console.print(help_table(self.keymap))
        return console.export_text()

    def action_close(self) -> None:
        self.dismiss(None)
