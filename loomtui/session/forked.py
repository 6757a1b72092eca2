"""Work in a forked child whose result comes back as bytes over a pipe.

Used where a second CPU pays and the child needs nothing but what this process already has in
memory (copy-on-write): reading the tail of a big session (``split``) and formatting half of a
big tree (``commands._output``). The child never runs cleanup code (``os._exit``); any failure
in it shows as ``None`` here and the caller does the work itself.
"""

from __future__ import annotations

import os
import select
import threading
from collections.abc import Callable


#: how often ``child_output`` calls its ``poll`` while it waits
POLL_SECONDS = 0.1


def can_fork() -> bool:
    """A second process may help: ``fork`` exists, two CPUs, no other thread running (a fork
    copies only the calling thread), and the user did not ask for one (``LOOMTUI_JOBS=1``)."""
    return (
        hasattr(os, "fork")
        and (os.cpu_count() or 1) >= 2
        and threading.active_count() == 1
        and os.environ.get("LOOMTUI_JOBS", "") != "1"
    )


def start_child(produce: Callable[[], bytes]) -> tuple[int, int]:
    """Run ``produce`` in a forked child; returns (its pid, the pipe end its bytes arrive on)."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(read_fd)
            view = memoryview(produce())
            while view:
                view = view[os.write(write_fd, view) :]
            code = 0
        except BaseException:
            pass
        finally:
            os._exit(code)
    os.close(write_fd)
    return pid, read_fd


def child_output(pid: int, read_fd: int, poll: Callable[[], None] | None = None) -> bytes | None:
    """Everything the child wrote, once it has exited (and been reaped); None if it failed.
    ``poll`` is called about every 0.1 s while the child has nothing to say yet; whatever it
    raises ends the child and comes out of here."""
    chunks = []
    done = False
    try:
        while True:
            if poll is not None and not select.select([read_fd], [], [], POLL_SECONDS)[0]:
                poll()
                continue
            chunk = os.read(read_fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        done = True
    finally:
        os.close(read_fd)
        if not done:  # not wanted any more: do not wait for it to finish
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
        _, status = os.waitpid(pid, 0)
    return b"".join(chunks) if os.waitstatus_to_exitcode(status) == 0 else None


def stop_child(pid: int, read_fd: int) -> None:
    """The result is not wanted: close the pipe, end the child, reap it."""
    os.close(read_fd)
    try:
        os.kill(pid, 9)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)
