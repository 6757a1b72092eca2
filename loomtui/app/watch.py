"""Live follow: notice when another program (a running pi) changes the open session file.

``watchfiles.awatch`` on the file's *directory*, filtered to the file's name,
because an atomic save (omp rewrites through a temporary file and a rename) replaces the inode
and silently ends a watch on the file itself. The watcher only says *that* the file changed and
how (``modified``, ``replaced``, ``deleted``); reading the appended bytes is
``SessionManager.refresh`` (a half-written last line waits for its newline there) and updating
the view is ``BrowserScreen.apply_appended``, called on ``SessionFileChanged`` (which reloads a
rewritten file or says it is gone).
"""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from textual.worker import Worker

from loomtui.app.messages import SessionFileChanged

if TYPE_CHECKING:
    from loomtui.app.screens.browser import BrowserScreen

#: group the events of one burst for at most this long (pi writes a turn as several lines)
DEBOUNCE_MS = 80
#: report once the file has been quiet this long: the latency of an update. watchfiles checks
#: for changes every ``step`` and reports after one quiet step, so a write is seen 1-2 steps
#: later: 10 ms gives ~12 ms median (20 ms gave ~31 ms) for ~1 % CPU while idle (0.6 % at 20).
STEP_MS = 10

MODIFIED = "modified"
REPLACED = "replaced"
DELETED = "deleted"


def _identity(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


async def follow_file(
    path: str,
    on_change: Callable[[str], Awaitable[Any] | Any],
    *,
    debounce_ms: int = DEBOUNCE_MS,
    step_ms: int = STEP_MS,
    stop_event: asyncio.Event | None = None,
    force_polling: bool | None = None,
) -> None:
    """Call ``on_change(change)`` after each burst of changes to ``path`` until cancelled.

    ``change`` is ``"deleted"`` when the file is gone after the burst, ``"replaced"`` when it
    is another file now (new inode: a rename over it, or deleted and written again), else
    ``"modified"``. The OS watch is in place once the task has first run. Set ``WATCHFILES_FORCE_POLLING=1`` on filesystems without change events.
    """
    from watchfiles import awatch

    path = os.path.abspath(path)
    directory, name = os.path.split(path)
    known = _identity(path)

    def only_this_file(_change: Any, changed: str) -> bool:
        return os.path.basename(changed) == name

    watcher = awatch(
        directory,
        watch_filter=only_this_file,
        debounce=debounce_ms,
        step=step_ms,
        stop_event=stop_event,
        recursive=False,
        force_polling=force_polling,
    )
    async for _changes in watcher:
        now = _identity(path)
        if now is None:
            change = DELETED
        elif now != known:
            # another inode, or back after a deletion (a filesystem may reuse the inode number)
            change = REPLACED
        else:
            change = MODIFIED
        known = now
        result = on_change(change)
        if inspect.isawaitable(result):
            await result


def start(browser: BrowserScreen) -> Worker[None]:
    """Follow ``browser``'s file: LoomApp calls this when a browser has opened its session.

    Each change posts ``SessionFileChanged`` to the browser, whose handler calls
    ``apply_appended()`` (which indexes the appended bytes, or reloads a rewritten file, or says
    the file is gone).
    The worker belongs to the browser screen, so it stops when the screen is closed; calling
    ``start`` again for the same screen replaces it.
    """
    path = browser.path

    def changed(change: str) -> None:
        if browser.is_attached:
            browser.post_message(SessionFileChanged(path, change))

    return browser.run_worker(
        follow_file(path, changed),
        name=f"follow {os.path.basename(path)}",
        group="session-watch",
        exclusive=True,
        exit_on_error=False,
        description="Follow the session file",
    )
