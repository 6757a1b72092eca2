"""Small screens: label edit, export, confirmations, diagnostics, errors, plain messages."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Input, Label, Static

from loomtui.session.errors import Diagnostic
from loomtui.view.outcomes import Outcome
from loomtui.view.printable import printable
from loomtui.view.words import branch_copy, counted

T = TypeVar("T")


class Dialog(ModalScreen[T]):
    """The base of the small dialogs: one centred box; the styles reach every subclass (a CSS
    type selector matches subclasses too).

    A dialog whose text can be taller than a small terminal makes its box a ``VerticalScroll``:
    its buttons (``Horizontal.buttons``) are docked to the box's bottom, so they stay on the
    screen under the text, which scrolls."""

    DEFAULT_CSS = """
    Dialog {
        align: center middle;
        background: $background 60%;
    }
    Dialog > Vertical, Dialog > VerticalScroll {
        width: 80%;
        max-width: 100;
        height: auto;
        max-height: 90%;
        border: round $primary;
        background: $surface;
        padding: 1 2;
    }
    Dialog .title { text-style: bold; margin-bottom: 1; }
    Dialog Label { width: 100%; }  /* a long title or prompt wraps in the box */
    Dialog .muted { color: $text-muted; }
    Dialog .error { color: $error; }
    Dialog #unavailable { margin-bottom: 1; }
    Dialog Horizontal.buttons { height: auto; margin-top: 1; align-horizontal: right; }
    Dialog Horizontal.buttons Button { margin-left: 2; }
    Dialog > VerticalScroll > Horizontal.buttons { dock: bottom; }
    """


class LabelDialog(Dialog[str | None]):
    """pi's Shift+L: "Label (empty to remove):", prefilled. Enter returns the text; Esc None."""

    BINDINGS = [Binding("escape", "cancel", "cancel", show=False)]

    def __init__(self, entry_text: str, current: str | None, note: str = "", refusal: str | None = None) -> None:
        super().__init__()
        self.entry_text = printable(entry_text)
        self.current = current or ""
        #: where the label goes (shown under the input)
        self.note = note
        #: why the label cannot be saved (a read-only session): shown as the dialog opens
        self.refusal = refusal
        # the field shows the label made printable; submitted unchanged, it stays what it was
        self.shown = printable(self.current)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Label (empty to remove):", classes="title")
            yield Static(Text(self.entry_text, no_wrap=True, overflow="ellipsis"), classes="muted")
            if self.refusal:
                yield Static(
                    Text(f"Read-only: {printable(self.refusal)}. The label cannot be saved."),
                    classes="error",
                    id="label-refusal",
                )
            yield Input(value=self.shown, id="label-input", placeholder="no label")
            if self.note and not self.refusal:
                yield Static(Text(printable(self.note)), classes="muted", id="label-note")
            yield Static("Esc: close" if self.refusal else "Enter: save   Esc: cancel", classes="muted")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.refusal:
            self.dismiss(None)
        else:
            self.dismiss(self.current if event.value == self.shown else event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmDialog(Dialog[bool]):
    """A yes/no question (Enter/y confirms, Esc/n cancels). With ``unavailable`` (why it cannot
    be done, known as the dialog opens: the agent's program is not installed) the reason is
    shown and there is nothing to confirm: no confirm button, only Close."""

    BINDINGS = [
        Binding("escape,n", "answer(False)", "cancel", show=False),
        Binding("y", "answer(True)", "confirm", show=False),
    ]

    def __init__(self, title: str, body: str, confirm: str = "Confirm", unavailable: str | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.body = body
        self.confirm = confirm
        self.unavailable = unavailable

    def compose(self) -> ComposeResult:
        with VerticalScroll():  # a resume plan can be taller than the screen
            yield Label(self.title_text, classes="title")
            if self.unavailable:  # why first: it is read as the dialog opens, however long the plan
                yield Static(Text(printable(self.unavailable, keep_lines=True)), classes="error", id="unavailable")
            yield Static(Text(printable(self.body, keep_lines=True)), id="body")
            with Horizontal(classes="buttons"):
                if self.unavailable:
                    yield Button("Close", id="no", variant="primary")
                else:
                    yield Button("Cancel", id="no")
                    yield Button(self.confirm, id="yes", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#no" if self.unavailable else "#yes", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        if yes and self.unavailable:
            return  # the reason is on screen; there is nothing to confirm
        self.dismiss(yes)


class _Result(Static):
    """What the export did, the last line of the dialog's text: on a small screen it can fall
    below the fold, so it is brought into view whenever it is laid out anew (a longer message,
    the scrollbar appearing)."""

    def on_resize(self) -> None:
        self.scroll_visible(animate=False)


class ExportDialog(Dialog[str | None]):
    """Ctrl+E: where the branch goes and how many entries it holds; then the result.

    ``export(dest)`` writes the file (``dest`` is a directory, or a path ending in .jsonl): its
    outcome names the file, or says why not. After a successful export the dialog offers to
    open the file; it dismisses with the path to open, or None.
    """

    BINDINGS = [Binding("escape", "close", "close", show=False)]

    def __init__(
        self,
        entry_text: str,
        count: int,
        labels: int,
        default_dir: str,
        export: Callable[[str], Outcome],
        export_as: str = "a pi session",
        note: str = "the header's parentSession names this file",
        named: bool = False,
    ) -> None:
        super().__init__()
        #: what the new file is and holds, in the source's own words
        self.export_as = export_as
        self.note = note
        #: the file also gets the session's name (one session_info entry)
        self.named = named
        self.entry_text = entry_text
        self.count = count
        self.labels = labels
        self.default_dir = default_dir
        self.export = export
        self.written: str | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll():  # a refusal naming a long path can be taller than the screen
            what = "to a new session file" if self.export_as == "a pi session" else f"as {self.export_as} (a new file)"
            yield Label(f"Export the branch ending here {what}", classes="title")
            yield Static(Text(self.entry_text, no_wrap=True, overflow="ellipsis"), classes="muted")
            yield Static(Text(f"{branch_copy(self.count, self.labels, self.named)}; {self.note}."), id="count")
            yield Label("Destination (a directory, or a file path ending in .jsonl):")
            yield Input(value=self.default_dir, id="dest")
            yield _Result("", id="result")
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Export", id="export", variant="primary")
                yield Button("Open it", id="open", variant="success")

    def on_mount(self) -> None:
        self.query_one("#open", Button).display = False
        self.query_one("#dest", Input).focus()

    @on(Input.Submitted, "#dest")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.written is None:
            self.do_export()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "export":
            self.do_export()
        elif event.button.id == "open":
            self.dismiss(self.written)
        else:
            self.dismiss(None)

    def do_export(self) -> None:
        dest = os.path.expanduser(self.query_one("#dest", Input).value.strip()) or self.default_dir
        result = self.query_one("#result", Static)
        outcome = self.export(dest)
        path = outcome.path
        if path is None:
            why = "; ".join(n.text for n in outcome.notices) or "nothing was written"
            result.update(Text(f"Not written: {why}", style="bold red"))
            result.scroll_visible(animate=False)
            return
        self.written = path
        result.update(Text(f"Written: {path}", style="bold"))
        result.scroll_visible(animate=False)
        self.query_one("#export", Button).display = False
        self.query_one("#dest", Input).disabled = True
        self.query_one("#cancel", Button).label = "Close"
        open_button = self.query_one("#open", Button)
        open_button.display = True
        open_button.focus()

    def action_close(self) -> None:
        self.dismiss(None)


class DiagnosticsScreen(Dialog[None]):
    """Every line the reader repaired or skipped, with its line number."""

    DEFAULT_CSS = """
    DiagnosticsScreen VerticalScroll { height: auto; max-height: 50vh; }
    """
    BINDINGS = [Binding("escape,q,enter", "close", "close", show=False)]

    def __init__(self, path: str, diagnostics: list[Diagnostic]) -> None:
        super().__init__()
        self.path = path
        self.diagnostics = diagnostics

    def compose(self) -> ComposeResult:
        with Vertical():
            n = len(self.diagnostics)
            yield Label(counted(n, "diagnostic"), classes="title")
            yield Static(Text(printable(self.path), overflow="fold"), classes="muted", id="diagnostics-path")
            with VerticalScroll():
                if not self.diagnostics:
                    yield Static("The reader found nothing to repair.", classes="muted")
                body = Text()
                for d in self.diagnostics:
                    body.append(f"line {d.line:>6}  " if d.line else " " * 14, style="bold")
                    body.append(d.reason + "\n")
                yield Static(body)
            yield Static("Esc: close", classes="muted")

    def action_close(self) -> None:
        self.dismiss(None)


class ErrorScreen(Screen[None]):
    """A file loomtui cannot show (v4 log, no header, not JSONL): what and what to do."""

    DEFAULT_CSS = """
    ErrorScreen { align: center middle; }
    ErrorScreen > Vertical {
        width: 90%; max-width: 110; height: auto;
        border: heavy $error; padding: 1 2; background: $surface;
    }
    ErrorScreen .title { text-style: bold; color: $error; margin-bottom: 1; }
    ErrorScreen .muted { color: $text-muted; margin-top: 1; }
    """
    BINDINGS = [Binding("escape,q,enter", "close", "close", show=False)]

    def __init__(self, title: str, message: str, hint: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.message = message
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.title_text), classes="title")
            yield Static(Text(self.message))
            if self.hint:
                yield Static(Text(self.hint))
            back = "go back" if self._has_screen_below() else "quit"
            yield Static(f"Esc, q or Enter: {back}", classes="muted")

    def _has_screen_below(self) -> bool:
        try:
            return len(self.app.screen_stack) > 2
        except Exception:
            return False

    def action_close(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            self.app.exit(return_code=2)
