"""A one-line question (“Go to entry”, “Compare…”): Enter returns the text, Esc None."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static


class PromptDialog(ModalScreen[str | None]):
    DEFAULT_CSS = """
    PromptDialog { align: center middle; background: $background 60%; }
    PromptDialog > Vertical {
        width: 80%; max-width: 80; height: auto; border: round $primary; background: $surface; padding: 1 2;
    }
    PromptDialog .title { text-style: bold; margin-bottom: 1; }
    PromptDialog .muted { color: $text-muted; }
    """
    BINDINGS = [Binding("escape", "cancel", "cancel", show=False)]

    def __init__(self, title: str, placeholder: str = "", value: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.placeholder = placeholder
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text, classes="title")
            yield Input(value=self.value, placeholder=self.placeholder, id="prompt-input")
            yield Static(Text("Enter: go   Esc: cancel"), classes="muted")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
