"""When the cyclic garbage collector runs in the app: between keystrokes, not inside them.

With Python's default thresholds a young collection runs every 700 new container objects. One
search keystroke on a 100k-entry session builds a dozen row-long lists and Textual renders a
few thousand strips and segments, so the collector ran about ten times per key and walked
those lists each time: measured, 12 ms of every keystroke. The app raises the young threshold
(automatic collections become rare) and collects young objects itself once input has been
quiet for a moment. The loaded session is frozen (``session.memory``), so none of this walks it.
"""

from __future__ import annotations

import gc
import time

from textual.app import App

#: new container objects between automatic young collections (Python's default: 700)
YOUNG_THRESHOLD = 50_000
#: input must have been quiet this long before the collector runs (seconds)
QUIET = 0.15
#: fewer new objects than this are not worth a collection
MIN_YOUNG = 5_000


class IdleCollector:
    """Raises the young threshold while the app runs and collects when input pauses."""

    def __init__(self, young_threshold: int = YOUNG_THRESHOLD, quiet: float = QUIET) -> None:
        self.young_threshold = young_threshold
        self.quiet = quiet
        self._saved: tuple[int, int, int] | None = None
        self._last_input = 0.0
        self._armed = False
        self._app: App[object] | None = None
        self.collections = 0

    def start(self, app: App[object]) -> None:
        if self._saved is None:
            self._saved = gc.get_threshold()
            gc.set_threshold(self.young_threshold, self._saved[1], self._saved[2])
        self._app = app

    def stop(self) -> None:
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None
        self._app = None

    def input_seen(self) -> None:
        """A key or mouse event arrived: collect once things are quiet again."""
        self._last_input = time.monotonic()
        if not self._armed and self._app is not None:
            self._armed = True
            self._app.set_timer(self.quiet, self._when_quiet)

    def _when_quiet(self) -> None:
        waited = time.monotonic() - self._last_input
        if waited < self.quiet and self._app is not None:
            self._app.set_timer(self.quiet - waited, self._when_quiet)  # more input came meanwhile
            return
        self._armed = False
        young, _middle, old = gc.get_count()
        if young < MIN_YOUNG or self._saved is None:
            return
        # a full collection only when Python's own schedule would be due for one
        gc.collect(2 if old >= self._saved[2] - 1 else 1)
        self.collections += 1
