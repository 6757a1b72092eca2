"""Open any file loomtui understands: pi/omp sessions and other looms (detected by content).

The one opener the browser and the commands share. A pi file (the usual case) opens without
importing the loom adapters; anything else goes through ``formats.detect.open_any``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from loomtui.formats import ocp_split
from loomtui.session.manager import SessionManager
from loomtui.session.reader import is_pi_session_file
from loomtui.session.split import SplitParse


def open_session(path: str, split: SplitParse | None = None, tree_id: str | None = None,
                 progress: Callable[[int, int, int], None] | None = None) -> SessionManager:
    """``split``: a child started by ``SplitParse.start`` reading the tail of a big pi file;
    ``tree_id``: one tree of a multi-tree loom (an OpenLoom tree id, an OCP run's view);
    ``progress``: as ``SessionManager.open`` takes it (pi files only)."""
    if tree_id is None and (split is not None or (not ocp_split.parsed_before(path) and is_pi_session_file(path))):
        return SessionManager.open(path, split=split, progress=progress)  # the usual case, without the loom adapters
    from loomtui.formats.detect import open_any

    return open_any(path, tree_id=tree_id)


class FirstRows(NamedTuple):
    """A session's first rows, made before the whole of it: what can be painted meanwhile."""

    manager: SessionManager  # the first rows, then rows that only shape their layout
    shown: int  # how many of its rows are the session's own first rows (the rest are not drawn)
    total: int  # the rows of the whole session


def first_rows(path: str) -> FirstRows | None:
    """The first rows of the session at ``path`` when a helper started before the app makes
    them ahead of the whole (a big OCP run: ``ocp_split.first_screen``), waiting for them;
    None when there is no such helper. ``open_session`` then reads the whole as usual."""
    first = ocp_split.first_screen(path)
    if first is None:
        return None
    from loomtui.formats.ocp import first_screen_session

    return FirstRows(first_screen_session(path, first.rows, first.timestamp), first.shown, first.total)
