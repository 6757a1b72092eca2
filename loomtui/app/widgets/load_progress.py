"""What the browser shows while a big session is read: a progress bar with the bytes and the
entries read so far, then what is left to do (indexing, laying out the tree).

The reading runs in a worker thread; it reports through ``LoadProgress.Update`` messages
(``post_message`` is safe from any thread and never waits for the screen), so a slow paint
never slows the read and the keys (Esc, Ctrl+Q) are handled while it runs.
"""

from __future__ import annotations

import os

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import ProgressBar, Static

from loomtui.app.messages import LoadProgressUpdate
from loomtui.view.printable import printable


class LoadCancelled(Exception):
    """Raised inside the loading thread once the screen no longer wants the session."""


class LoadProgress(Vertical):
    """Hidden until ``start``; the browser hides it again once the tree is installed."""

    DEFAULT_CSS = """
    LoadProgress {
        display: none;
        width: 1fr;
        height: auto;
        padding: 1 2;
    }
    LoadProgress.-active { display: block; }
    LoadProgress > #load-label { height: auto; color: $foreground; }
    LoadProgress > #load-bar { margin: 1 0 0 0; }
    LoadProgress > #load-hint { color: $text-muted; margin: 1 0 0 0; }
    """

    Update = LoadProgressUpdate

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 - Textual's name
        super().__init__(id=id)
        self.name_shown = ""
        #: the last reading shown: (bytes, file size, entries)
        self.reading: tuple[int, int, int] = (0, 0, 0)

    def compose(self) -> ComposeResult:
        yield Static("", id="load-label")
        yield ProgressBar(total=100, show_eta=False, id="load-bar")
        yield Static("Esc or Ctrl+Q leaves", id="load-hint")

    def start(self, path: str, size: int) -> None:
        self.name_shown = printable(os.path.basename(path))
        self.reading = (0, size, 0)
        self.add_class("-active")
        self.query_one("#load-label", Static).update(f"Opening {self.name_shown} ({size / 1e6:.0f} MB)…")
        self.query_one("#load-bar", ProgressBar).update(total=max(size, 1), progress=0)

    def stop(self) -> None:
        self.remove_class("-active")

    def show(self, done: int, total: int, entries: int) -> None:
        """One reading: the bar and ``Reading NAME: 45/148 MB (30%) · 30,000 entries``."""
        self.reading = (done, total, entries)
        pct = 100 * done // total if total else 100
        self.query_one("#load-label", Static).update(
            f"Reading {self.name_shown}: {done / 1e6:.0f}/{total / 1e6:.0f} MB ({pct}%) · {entries:,} entries"
        )
        self.query_one("#load-bar", ProgressBar).update(total=max(total, 1), progress=done)

    def stage(self, text: str) -> None:
        self.query_one("#load-label", Static).update(text)
        bar = self.query_one("#load-bar", ProgressBar)
        bar.update(progress=bar.total or 0)

    def on_load_progress_update(self, message: LoadProgressUpdate) -> None:
        message.stop()
        if message.stage:
            self.stage(message.stage)
        else:
            self.show(message.done, message.total, message.entries)
