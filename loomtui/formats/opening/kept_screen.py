"""The app's first screen of a big pi session, kept beside its index: what a reopen paints before
the session is read.

The app's starting screen of a pi session is centred on the leaf, deep in the display order (on
the 100k-entry session: row 47,986 of 66,445, in compact indentation), so neither a prefix of
the rows nor a small part of the tree lays it out as the whole does. What is kept is the screen
itself, as the tree drew it once the whole session was installed: every line's segments (role
and text, after the pan) and whether it is the cursor's, the header bar's fields, the filter
modes and the position text. A reopen draws those lines while the index is read; the whole
session then replaces them, always (docs/performance.md, "A kept first screen").

Used only for the very same start and the very same bytes: the terminal's size, the compact
choice and HOME as they were (``start``), the file's device, inode, size and mtime as they were,
and its digests, hashed by the early proof (``cache_io.prove_early``, started before Textual),
equal to the ones its read proved. No early proof (one CPU, ``LOOMTUI_JOBS=1``): not used. It
imports nothing of the reader: a reopen reads this small file and the early proof's digests.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, NamedTuple

from loomtui.session import cache_io

if TYPE_CHECKING:
    from loomtui.session.manager import SessionManager


class KeptScreen(NamedTuple):
    """A session's first screen as the app drew it at an earlier open (``kept_screen.py``):
    painted while the session is read, then replaced by the whole."""

    size: tuple[int, int]  # the tree's width and height it was drawn at
    lines: list[tuple[tuple[tuple[str, str], ...], bool]]  # each line's (role, text) segments, and the cursor's
    title: tuple[str, ...]  # the header bar's fields
    modes: tuple[str, ...]  # the filter bar's modes
    footer: str  # the position


SUFFIX = ".lts"
MAGIC = b"LOOMTUI-SCREEN\x00"
FORMAT = 1


def _stat(path: str) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def load(path: str, start: tuple[Any, ...]) -> KeptScreen | None:
    """The screen kept for ``path`` opened from ``start``, when the file holds the very bytes it
    was drawn from (waiting for the early proof's digests); None otherwise."""
    payload = cache_io.read_side(path, SUFFIX, MAGIC)
    try:
        fmt, key, stat, kept_start, size, lines, title, modes, footer = payload
    except (TypeError, ValueError):
        return None
    if (
        fmt != FORMAT
        or kept_start != start
        or _stat(path) != stat
        or not _well_formed(size, lines, title, modes, footer)
    ):
        return None
    proved = cache_io.early_digests(path)
    if proved is None or key != cache_io.read_key(path, *proved):
        return None
    return KeptScreen(size, lines, title, modes, footer)


def _well_formed(size: Any, lines: Any, title: Any, modes: Any, footer: Any) -> bool:
    """The fields have the types the app draws (a damaged or foreign file is never drawn)."""
    if not (isinstance(size, tuple) and len(size) == 2 and all(type(n) is int and n > 0 for n in size)):
        return False
    if not (isinstance(lines, list) and len(lines) == size[1] and all(map(_line, lines))):
        return False
    return _strings(title) and _strings(modes) and isinstance(footer, str)


def _line(line: Any) -> bool:
    """One line: its (role, text) segments and whether it is the cursor's."""
    if not (isinstance(line, tuple) and len(line) == 2 and isinstance(line[0], tuple) and type(line[1]) is bool):
        return False
    return all(isinstance(seg, tuple) and len(seg) == 2 and _strings(seg) for seg in line[0])


def _strings(t: Any) -> bool:
    return isinstance(t, tuple) and all(isinstance(x, str) for x in t)


def save(manager: SessionManager, start: tuple[Any, ...], screen: KeptScreen) -> bool:
    """Keep ``screen`` (the app's first screen of ``manager``'s session, opened from ``start``)
    for the next open of the same bytes; written here (a few kilobytes)."""
    from loomtui.formats.opening.flat_cache import _key

    key = _key(manager)
    stat = _stat(key[0]) if key is not None else None
    if key is None or stat is None or stat[2] != key[1]:
        return False  # not a cached pi session, or grown since it was read
    payload = (FORMAT, key, stat, start, *screen)
    return cache_io.write_side(key[0], SUFFIX, MAGIC, payload)
