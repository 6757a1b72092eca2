"""The picker follows the session directories: a new or grown session file updates the list.

``watchfiles.awatch`` on every sessions root that exists (recursively: pi keeps one directory
per project), filtered to ``*.jsonl`` and new directories; each burst of changes calls
``on_change`` once. Reading the files again is the picker's ``load`` (the summary cache makes
unchanged files free).

A new project directory is watched only once the watcher has seen it, so the first session
file written into it right away may raise no event of its own: the directory's event reads the
list again, and once more a moment later (``SETTLE_S``) for a file written after that read.
"""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

#: group the writes of one burst (a running agent appends several lines per turn)
DEBOUNCE_MS = 300
STEP_MS = 50
#: after a new directory: read the list once more this much later
SETTLE_S = 1.0


def _session_file(change: Any, path: str) -> bool:
    """Session files, and directories that appear (a new project's first session)."""
    from watchfiles import Change

    return path.endswith(".jsonl") or (change == Change.added and os.path.isdir(path))


def _new_directory(changes: set[tuple[Any, str]]) -> bool:
    return any(not path.endswith(".jsonl") for _change, path in changes)


async def watch_dirs(
    dirs: Iterable[str],
    on_change: Callable[[], Awaitable[Any] | Any],
    *,
    stop_event: asyncio.Event | None = None,
    debounce_ms: int = DEBOUNCE_MS,
    step_ms: int = STEP_MS,
) -> None:
    """Call ``on_change()`` after each burst of changes to session files under ``dirs``."""
    from watchfiles import awatch

    roots = sorted({os.path.abspath(d) for d in dirs if os.path.isdir(d)})
    if not roots:
        return
    async for changes in awatch(
        *roots, watch_filter=_session_file, debounce=debounce_ms, step=step_ms, stop_event=stop_event, recursive=True
    ):
        result = on_change()
        if inspect.isawaitable(result):
            await result
        if _new_directory(changes):
            await asyncio.sleep(SETTLE_S)
            result = on_change()
            if inspect.isawaitable(result):
                await result
