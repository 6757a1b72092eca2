"""Waiting on conditions instead of fixed pauses.

A fixed pause is too short on a loaded machine and too long everywhere else; these poll a
condition in short steps and fail, saying what was awaited, when it does not hold in time.
``until`` and ``settled`` are for Pilot tests; ``wait_until`` for plain ones (threads, processes).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

#: how long a condition may take before the test fails (generous: CI's machine is slow and shared)
TIMEOUT = 30.0
#: the polling step (seconds)
STEP = 0.01


def _describe(predicate: Callable[[], object], what: str | None) -> str:
    if what:
        return what
    code = getattr(predicate, "__code__", None)
    if code is None:
        return repr(predicate)
    return f"the condition at {code.co_filename.rsplit('/tests/', 1)[-1]}:{code.co_firstlineno}"


def wait_until(predicate: Callable[[], object], timeout: float = TIMEOUT, what: str | None = None) -> None:
    """Return once ``predicate()`` is true; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g}s waiting for {_describe(predicate, what)}")
        time.sleep(STEP)


async def until(pilot: Any, predicate: Callable[[], object], timeout: float = TIMEOUT, what: str | None = None) -> None:
    """Let the app run until ``predicate()`` is true (checked after each idle pass); fail after
    ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    await pilot.pause()
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g}s waiting for {_describe(predicate, what)}")
        await pilot.pause(STEP)
        await pilot.pause()


def _busy(app: Any) -> str | None:
    """What the app is still doing: a running worker (the file watchers run for good and do not
    count) or a pending one-shot timer of loomtui's own (a debounce: the detail pane, the picker's
    search, the collector's quiet time). None when it is quiet."""
    from textual.worker import WorkerState

    for worker in app.workers:
        if worker.state in (WorkerState.PENDING, WorkerState.RUNNING) and "watch" not in (worker.group or ""):
            return f"worker {worker.name or worker.group}"
    nodes = [app, *app.screen_stack]
    for screen in app.screen_stack:
        nodes.extend(screen.walk_children())
    for node in nodes:
        for timer in list(getattr(node, "_timers", ())):
            task = timer._task
            target = timer._target()
            if (
                timer._repeat == 0
                and task is not None
                and not task.done()
                and type(target).__module__.startswith("loomtui")
            ):
                return f"timer {timer.name} of {target!r}"
    return None


def _drawn(app: Any) -> str:
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(seg.text for seg in strip) for strip in strips)


async def settled(pilot: Any, timeout: float = TIMEOUT) -> None:
    """Let the app run until it is quiet (no worker running, no debounce pending: ``_busy``) and
    two idle passes in a row draw the same screen."""
    app = pilot.app
    deadline = time.monotonic() + timeout
    before: str | None = None
    while True:
        await pilot.pause()
        busy = _busy(app)
        now = _drawn(app) if busy is None else None
        if busy is None and now == before:
            return
        before = now
        if time.monotonic() > deadline:
            raise AssertionError(f"the app did not settle in {timeout:g}s: {busy or 'the screen kept changing'}")
        await pilot.pause(STEP)
