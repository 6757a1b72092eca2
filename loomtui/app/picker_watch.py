"""The picker follows the session directories: a new or grown session file updates the list.

``watchfiles.awatch`` on every sessions root that exists (recursively: pi keeps one directory
per project), filtered to ``*.jsonl``; each burst of changes calls ``on_change`` once. Reading
the files again is the picker's ``load`` (the summary cache makes unchanged files free).
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


def _session_file(_change: Any, path: str) -> bool:
    return path.endswith(".jsonl")


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
    async for _changes in awatch(*roots, watch_filter=_session_file, debounce=debounce_ms, step=step_ms,
                                 stop_event=stop_event, recursive=True):
        result = on_change()
        if inspect.isawaitable(result):
            await result
