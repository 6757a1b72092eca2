"""The flattened tree of a big session (``flat.flatten`` for its leaf), kept beside its index.

Flattening is a pure function of the entries and the leaf, and the costliest step of building
the view model after a reopen from the persistent index (``session/indexcache.py``). So the
display order (entry indices in file order) and the subtree ends are kept in a side file of the
cache (``.ltf``) as two arrays, for the last leaf flattened, with every entry's visibility class
(``flat.base_classes``), the classes in display order and how long the leaf's path is; a reopen of
the unchanged file turns them back into a ``Flat`` with two list lookups per entry, without
classifying the entries again or walking up from the leaf (the path is the start of the order).

Used only when it is the very same data: the key of the bytes the session was read from (path,
size and the digests of every block, proved against the file by the read,
``SessionManager.read_digests``) equals the one stored, the entry count and the leaf match,
every index is in range, and the side file's checksum verifies. Anything
else flattens as usual (and stores the result for next time).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from typing import Any

from loomtui.session import cache_files, cache_io
from loomtui.session.entries import Entry
from loomtui.session.forked import can_fork
from loomtui.session.manager import SessionManager
from loomtui.session.source import PI
from loomtui.view import flat as F
from loomtui.view.flat import Flat, ToolCalls
from loomtui.view.text import display_text

SUFFIX = ".ltf"
MAGIC = b"LOOMTUI-FLAT\x00"
FORMAT = 3
#: the one-line text of every entry (``display_text``) for one leaf and HOME
TEXTS_SUFFIX = ".ltx"
TEXTS_MAGIC = b"LOOMTUI-TEXTS\x00"


def _key(manager: SessionManager) -> tuple[Any, ...] | None:
    """The key of the bytes the session was read from, when the cache applies: the digests
    its open proved (``SessionManager.read_digests``), for exactly the entries it holds."""
    path = manager.path
    if path is None or not cache_files.enabled() or manager.version < 3 or manager.source.kind != PI:
        return None
    size, digests = manager.read_digests
    if not digests or size != manager._indexed_to or size < max(cache_files.min_bytes(), 1):
        return None  # grown since it was read (or small, or not proved): nothing to trust or to gain
    return cache_io.read_key(path, size, digests)


def load(
    manager: SessionManager, leaf_id: str | None, tool_calls: Callable[[], ToolCalls | None]
) -> tuple[Flat, bytearray] | None:
    """(``flat.flatten(manager.index, leaf_id, …, tool_calls())``, every entry's
    ``base_classes``) from the side file, or None; ``tool_calls`` is called only when the
    flat's tool-call map is first asked for."""
    key = _key(manager)
    if key is None:
        return None
    n = len(manager.index.entries)
    stored = _stored(cache_io.read_side(key[0], SUFFIX, MAGIC), key, leaf_id, n)
    if stored is None:
        return None
    order, ends, base, classes, path_len = stored
    flat = _rebuilt(manager, leaf_id, order, ends, classes, path_len, tool_calls)
    return None if flat is None else (flat, base)


def _stored(
    payload: Any, key: tuple[Any, ...], leaf_id: str | None, n: int
) -> tuple[array[int], array[int], bytearray, bytearray, int] | None:
    """(display order, subtree ends, base classes, classes in display order, length of the
    leaf's path or -1) from a side file's payload made for exactly this data."""
    try:
        fmt, skey, leaf, count, order_bytes, end_bytes, base, classes, path_len = payload
        if fmt != FORMAT or skey != key or leaf != leaf_id or count != n:
            return None
        order = array("i")
        order.frombytes(order_bytes)
        ends = array("i")
        ends.frombytes(end_bytes)
    except (TypeError, ValueError):
        return None
    if len(order) != n or len(ends) != n or (n and (min(order) < 0 or max(order) >= n)):
        return None
    if not (isinstance(base, bytes) and isinstance(classes, bytes) and len(base) == n == len(classes)):
        return None
    if type(path_len) is not int or not -1 <= path_len <= n:
        return None
    return order, ends, bytearray(base), bytearray(classes), path_len


def _rebuilt(
    manager: SessionManager,
    leaf_id: str | None,
    order: array[int],
    ends: array[int],
    classes: bytearray,
    path_len: int,
    tool_calls: Callable[[], ToolCalls | None],
) -> Flat | None:
    """The ``Flat`` that ``flatten`` builds, from what it stored (None if it does not fit)."""
    index = manager.index
    n = len(order)
    out = list(map(index.entries.__getitem__, order))
    end = ends.tolist()
    leaf_at = -1
    active: set[Any] = set()
    if leaf_id is not None and leaf_id in index.by_id:
        leaf_entry = index.by_id[leaf_id]
        # as ``flatten``: the leaf's path comes first (``path_len``; -1 when it did not)
        active = set(out[:path_len]) if path_len > 0 else set(index.path_to(leaf_id))
        leaf_at = len(active) - 1
        if leaf_at < 0 or leaf_at >= n or out[leaf_at] is not leaf_entry:
            return None
    head = end[leaf_at] if leaf_at >= 0 else n
    return Flat(
        leaf_id, out, None, end, classes, lambda: _calls(tool_calls(), out), active, index.version, head, leaf_at
    )


def _calls(session_calls: ToolCalls | None, out: list[Entry]) -> ToolCalls:
    """The session's tool-call map, or, when call ids repeat (None), the one the flattened
    order gives, as ``flatten`` makes it."""
    return session_calls if session_calls is not None else F.calls_in_order(out)


def flatten(
    manager: SessionManager,
    leaf_id: str | None,
    classes_by_index: bytearray,
    tool_calls: Callable[[], ToolCalls | None],
    settings: frozenset[str] = F.SETTINGS_TYPES,
) -> tuple[Flat, Flat | None, bytearray]:
    """(the flattened tree, the same when it is still to be stored, every entry's base class):
    from the side file when it holds them (``classes_by_index`` empty: nothing classified yet),
    else classified and flattened now. A background child stores a new one right away where one
    may be started; else (the browser's threads) the caller ``save``s it once the screen is
    painted."""
    if not classes_by_index:
        stored = load(manager, leaf_id, tool_calls)
        if stored is not None:
            return stored[0], None, stored[1]
    classes_by_index = F.classified(manager.index.entries, classes_by_index, settings)
    flat = F.flatten(manager.index, leaf_id, classes_by_index, tool_calls())
    if can_fork() and not cache_io.writes_held():
        save(manager, flat, classes_by_index)
        return flat, None, classes_by_index
    return flat, flat, classes_by_index


def save(manager: SessionManager, flat: Flat, base_classes: bytearray) -> None:
    """Keep ``flat`` (just flattened for ``flat.leaf_id``) and the entries' ``base_classes``
    for the next open of the same file, written by a background child (or here, where none
    may start)."""
    job = store_job(manager, flat, base_classes)
    if job is not None:
        cache_io.in_background(job)


def store_job(manager: SessionManager, flat: Flat, base_classes: bytearray) -> Callable[[], None] | None:
    """What ``save`` runs (packing and writing, here): for ``cache_io.write_held``."""
    key = _key(manager)
    if key is None or len(flat) != len(manager.index.entries) or len(base_classes) != len(flat):
        return None

    def store() -> None:
        try:
            order = array("i", [e.index for e in flat.entries]).tobytes()
            end = array("i", [flat.end(p) for p in range(len(flat))]).tobytes()
        except OverflowError:
            return
        path = len(flat.active)
        if set(flat.entries[:path]) != flat.active:
            path = -1  # the leaf's path is not the start of the order (a cycle was broken)
        cache_io.write_side(
            key[0],
            SUFFIX,
            MAGIC,
            (FORMAT, key, flat.leaf_id, len(flat), order, end, bytes(base_classes), bytes(flat.classes), path),
        )

    return store


def load_texts(manager: SessionManager, flat: Flat, home: str) -> list[str] | None:
    """The row text of every entry (by file index) as ``display_text`` gives it for
    ``flat`` (its tool-call map) and ``home``, kept by ``texts_job`` for the unchanged file."""
    key = _key(manager)
    if key is None:
        return None
    n = len(manager.index.entries)
    payload = cache_io.read_side(key[0], TEXTS_SUFFIX, TEXTS_MAGIC)
    try:
        fmt, skey, leaf, count, shome, texts = payload
    except (TypeError, ValueError):
        return None
    if (
        fmt != FORMAT
        or skey != key
        or leaf != flat.leaf_id
        or count != n
        or shome != home
        or not isinstance(texts, list)
        or len(texts) != n
    ):
        return None
    return texts


def texts_job(manager: SessionManager, flat: Flat, home: str) -> Callable[[], None] | None:
    """Computing and storing what ``load_texts`` reads (for ``cache_io.write_held``)."""
    key = _key(manager)
    if key is None:
        return None
    entries = manager.index.entries

    def store() -> None:
        tool_calls = flat.tool_calls
        texts = [display_text(e, tool_calls, home) for e in entries]
        cache_io.write_side(key[0], TEXTS_SUFFIX, TEXTS_MAGIC, (FORMAT, key, flat.leaf_id, len(entries), home, texts))

    return store
