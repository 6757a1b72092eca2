"""The one opener: everything a caller needs to open a file fast, behind ``Opening``.

The app, the commands and the view ask an ``Opening`` for the session, its first rows, the
model's flatten and what to do after the first paint or after the output; none of them imports
the machinery behind it (the tail parser started before Textual, ``session/split.py`` and
``session/forked.py``; the persistent index, ``session/indexcache.py``; the flattened tree and row
texts kept beside it, ``flat_cache.py``; ``tree``'s printed rows, ``tree_memo.py``), and none of them decides when a cache is written.
docs/performance.md says what each mechanism buys. A pi file (the usual case) opens without
importing the loom adapters; anything else goes through ``formats.detect.open_any``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from loomtui.formats.opening.kept_screen import KeptScreen
from loomtui.session import cache_io

if TYPE_CHECKING:  # imported where used: the memo's hit path imports this package alone
    from loomtui.session.manager import SessionManager
    from loomtui.session.split import SplitParse
    from loomtui.view.flat import Flattener
    from loomtui.view.model import TreeModel

Progress = Callable[[int, int, int], None]


def open_session(
    path: str,
    split: SplitParse | None = None,
    tree_id: str | None = None,
    progress: Progress | None = None,
) -> SessionManager:
    """``split``: a child started by ``SplitParse.start`` reading the tail of a big pi file;
    ``tree_id``: one tree of a multi-tree loom (an OpenLoom tree id, an OCP run's view);
    ``progress``: as ``SessionManager.open`` takes it (pi files only)."""
    from loomtui.formats.ocp import split as ocp_split
    from loomtui.session.manager import SessionManager
    from loomtui.session.reader import is_pi_session_file

    if tree_id is None and (split is not None or (not ocp_split.parsed_before(path) and is_pi_session_file(path))):
        return SessionManager.open(path, split=split, progress=progress)  # the usual case, without the loom adapters
    from loomtui.formats.detect import open_any

    return open_any(path, tree_id=tree_id)


class FirstRows(NamedTuple):
    """A session's first rows, made before the whole of it: what can be painted meanwhile."""

    manager: SessionManager  # the first rows, then rows that only shape their layout
    shown: int  # how many of its rows are the session's own first rows (the rest are not drawn)
    total: int  # the rows of the whole session


#: where the app's child starts reading: the app spends its first ~0.6 s starting Textual, so
#: the child takes the larger part and both halves are ready at about the same time
APP_SPLIT = 0.35


class Opening:
    """One file on its way to the screen: started early or not, read once, then kept.

    ``before_app`` starts, before Textual (and its threads) start, whatever reads a big file in
    a second process: a pi file's tail parser (handed to the read), a big OCP run's placer, a
    big Claude Code file's tail parser (each source's own early start, tried in turn). An
    ``Opening`` made without it reads in this process only (a file opened from the picker).
    """

    def __init__(self, path: str, split: SplitParse | None = None) -> None:
        self.path = path
        self._split = split  # started early, not yet taken by the read
        self._reading: SplitParse | None = None  # taken by the read in progress

    @classmethod
    def before_app(cls, path: str) -> Opening:
        """The app's opening of ``path``: its early start made now (call it before Textual)."""
        from loomtui.formats.opening.switches import enabled

        reopen = cache_io.present(path)  # read from the index: no tail parser, nor the reader imported
        split = None
        if enabled("split") and not reopen:
            from loomtui.session.split import SplitParse

            split = SplitParse.start(path, fraction=APP_SPLIT)
        if split is None and enabled("early-proof") and reopen:
            cache_io.prove_early(path)  # a reopen: the index's proof runs on the other CPU meanwhile
        elif split is None:  # not a big pi file: another source's own early start
            from loomtui.formats.sources import early_start

            early_start(path, APP_SPLIT, lambda source: enabled(f"early-{source}"))
        return cls(path, split)

    @property
    def started_early(self) -> bool:
        """A child reads part of the file already (the whole is then read with it)."""
        return self._split is not None

    def first_rows(self, start: tuple[Any, ...] | None = None) -> FirstRows | KeptScreen | None:
        """The first rows, when a helper started before the app makes them ahead of the whole
        (a big OCP run), waiting for them, or the first screen kept at an earlier open of the
        same bytes from the same ``start`` (the app's terminal size and compact choice); None
        otherwise (``session`` reads the whole)."""
        if self._split is not None:
            return None
        from loomtui.formats.opening.switches import enabled

        if start is not None and enabled("kept-screen") and cache_io.present(self.path):
            from loomtui.formats.opening import kept_screen

            kept = kept_screen.load(self.path, self.screen_start(start))
            if kept is not None:
                return kept
        from loomtui.formats.ocp import split as ocp_split

        first = ocp_split.first_screen(self.path)
        if first is None:
            return None
        from loomtui.formats.ocp.source import first_screen_session

        return FirstRows(first_screen_session(self.path, first.rows, first.timestamp), first.shown, first.total)

    def session(self, progress: Progress | None = None, tree_id: str | None = None) -> SessionManager:
        """The whole session (with the child started early, on its first read only)."""
        split, self._split = self._split, None
        self._reading = split
        try:
            return open_session(self.path, split, tree_id=tree_id, progress=progress)
        finally:
            self._reading = None

    def cancel(self) -> None:
        """The caller left before the read ended: a child started early stops, a read waiting
        for one stops waiting."""
        split, self._split = self._split, None
        if split is not None:
            split.cancel()
        reading = self._reading
        if reading is not None:
            reading.abort()

    @property
    def flattener(self) -> Flattener:
        """The model's loading flatten: a big pi session reopened as it was takes the tree
        flattened last time (``flat_cache.py``)."""
        from loomtui.formats.opening import flat_cache
        from loomtui.formats.opening.switches import enabled
        from loomtui.view.flat import loading_flatten

        return flat_cache.flatten if enabled("flat-cache") else loading_flatten

    @staticmethod
    def screen_start(start: tuple[Any, ...]) -> tuple[Any, ...]:
        """What a kept first screen is made for: the app's ``start`` and HOME (row texts)."""
        from loomtui.session.locations import home_dir

        return (*start, home_dir())

    def after_paint(self, model: TreeModel) -> None:
        """Once the tree is on screen (off the UI thread): the index of a cold open, put off
        until now, and a tree flattened while loading are kept for the next open."""
        from loomtui.formats.opening import flat_cache
        from loomtui.formats.opening.switches import enabled

        cache_io.flush_deferred()
        flat, model.unsaved_flat = model.unsaved_flat, None
        if flat is not None and enabled("flat-cache"):
            flat_cache.save(model.manager, flat, model.base_classes)

    def keep_screen(self, manager: SessionManager, start: tuple[Any, ...], screen: KeptScreen) -> None:
        """The app's first ``screen`` of ``manager``'s session, drawn from ``start`` (its
        starting state), kept for the next open of the same bytes (off the UI thread)."""
        from loomtui.formats.opening.switches import enabled

        if enabled("kept-screen"):
            from loomtui.formats.opening import kept_screen

            kept_screen.save(manager, self.screen_start(start), screen)


def reap_helpers() -> None:
    """Collect the helper processes that have exited (a zombie each until then); called as the
    process ends (one still exiting is left to init)."""
    from loomtui.session.forked import reap_finished

    reap_finished()
