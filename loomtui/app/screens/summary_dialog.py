"""The branch summary to carry, editable before it is written (the browser's carry key,
``agent_tools.py``)."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label, Static, TextArea

from loomtui.app.screens.dialogs import Dialog
from loomtui.view.printable import printable


class SummaryDialog(Dialog[str | None]):
    """The branch summary to carry, editable (prefilled with the digest). Ctrl+S or the button
    carries it; Esc cancels."""

    BINDINGS = [
        Binding("escape", "cancel", "cancel", show=False),
        Binding("ctrl+s", "carry", "carry", show=False, priority=True),
    ]
    DEFAULT_CSS = "SummaryDialog TextArea { height: 16; }"

    def __init__(self, heading: str, summary: str) -> None:
        super().__init__()
        self.heading = heading
        self.summary = summary

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Carry a branch summary", classes="title")
            yield Static(Text(printable(self.heading, keep_lines=True)), classes="muted")
            yield TextArea(self.summary, id="summary-text")
            yield Static("Ctrl+S: carry   Esc: cancel", classes="muted")
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="no")
                yield Button("Carry", id="yes", variant="primary")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        """The summary gets at most 16 lines, fewer on a short screen, so that the line saying
        how to carry and the buttons stay on it (the box is at most 90% of the screen; the rest
        of it takes about 19 lines)."""
        self.query_one(TextArea).styles.height = max(3, min(16, self.app.size.height - 19))

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "yes":
            self.action_carry()
        else:
            self.dismiss(None)

    def action_carry(self) -> None:
        self.dismiss(self.query_one(TextArea).text)

    def action_cancel(self) -> None:
        self.dismiss(None)
