"""Work in a forked child whose result comes back as bytes over a pipe.

Used where a second CPU pays and the child needs nothing but what this process already has in
memory (copy-on-write): reading the tail of a big session (``split``) and formatting half of a
big tree (``commands._output``). The child never runs cleanup code (``os._exit``); any failure
in it shows as ``None`` here and the caller does the work itself. Each message the child sends
starts with its length, so a whole answer is known by its last byte, without waiting for the
child to exit (an exiting process first lets go of its memory, which takes milliseconds); a
child that answered is reaped later (``reap_finished``). The child writes its messages from a
thread of its own, so a message bigger than the pipe holds does not stop it while the reader
is busy elsewhere.
"""

from __future__ import annotations

import os
import select
import threading
import time
from collections.abc import Callable, Iterator, Sequence

#: how often ``child_output`` calls its ``poll`` while it waits
POLL_SECONDS = 0.1
_DONE = object()


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity: ``taskset``, a container's cpuset),
    not the machine's count: a child on the same single CPU only competes with its parent."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # macOS, Windows
        return os.cpu_count() or 1


def can_fork() -> bool:
    """A second process may help: ``fork`` exists, two usable CPUs, no other thread running (a
    fork copies only the calling thread), and the user did not ask for one (``LOOMTUI_JOBS=1``)."""
    return (
        hasattr(os, "fork")
        and usable_cpus() >= 2
        and threading.active_count() == 1
        and os.environ.get("LOOMTUI_JOBS", "") != "1"
    )


#: the bytes before each of a child's messages that give its length (a whole answer is known
#: by that, not by the child's exit: a process that ends lets go of its memory first, which
#: takes a while)
LENGTH_BYTES = 8
#: children that answered in full and may still be exiting (``reap_finished`` collects them)
_exiting: list[int] = []


def start_child(
    produce: Callable[[], bytes], then: Callable[[], bytes] | None = None, first: Sequence[Callable[[], bytes]] = ()
) -> tuple[int, int]:
    """Run ``produce`` in a forked child; returns (its pid, the pipe end its bytes arrive on).
    The child sends the answer as one message (its length, then its bytes); ``then``, when
    given, is made after that and sent as a second message (``ForkedChild.output`` with
    ``keep=True``, then ``ForkedChild.then``): work the caller wants soon, but not before the
    answer. ``first``: messages made and sent before the answer, in order (``ForkedChild.early``):
    parts of it wanted sooner than the whole. The child closes the pipe before it exits."""
    reap_finished()
    read_fd, write_fd = os.pipe()
    _widen(write_fd)
    pid = os.fork()
    if pid == 0:
        code = 1
        writer = None
        try:
            os.close(read_fd)
            writer = _Writer(write_fd)
            for part in first:
                writer.send(part())
            writer.send(produce())
            if then is not None:
                writer.send(then())
            code = 0
        except BaseException:
            pass
        finally:
            try:  # what was made is sent (a part that failed is missing: the reader sees the end)
                if writer is not None:
                    writer.close()  # the reader has it all now, before this process's memory is let go
            except BaseException:
                code = 1
            os._exit(code)
    os.close(write_fd)
    return pid, read_fd


class _Writer:
    """In the child: its messages written to the pipe, in order, by a thread of their own, so
    the child goes on with the next while the reader is busy (a message bigger than the pipe
    holds would otherwise stop it until the reader takes it)."""

    def __init__(self, fd: int) -> None:
        import queue

        self.fd = fd
        self.queue: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self.failed = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            while (data := self.queue.get()) is not None:
                _send(self.fd, data)
        except OSError:  # the reader went away
            self.failed = True

    def send(self, data: bytes) -> None:
        self.queue.put(data)

    def close(self) -> None:
        """Wait until every message is written, then close the pipe (raises if one was not)."""
        self.queue.put(None)
        self.thread.join()
        os.close(self.fd)
        if self.failed:
            raise OSError("the reader went away")


def _send(fd: int, data: bytes) -> None:
    view = memoryview(data)
    os.write(fd, len(view).to_bytes(LENGTH_BYTES, "little"))  # atomic: under PIPE_BUF
    while view:
        view = view[os.write(fd, view) :]


def reap_finished() -> None:
    """Collect the children that answered and have exited since (a zombie each until then)."""
    for pid in list(_exiting):
        try:
            done, _status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _exiting.remove(pid)


#: the pipe's capacity asked for (Linux lets anyone ask for up to /proc/sys/fs/pipe-max-size,
#: 1 MB by default): a result of tens of MB then crosses in fewer, larger steps
PIPE_BYTES = 1 << 20


def _widen(fd: int) -> None:
    try:
        import fcntl

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_BYTES)
    except (OSError, ImportError):
        pass  # not Linux, or a lower limit: the default capacity works too


def child_output(
    pid: int,
    read_fd: int,
    poll: Callable[[], None] | None = None,
    idle: Iterator[None] | None = None,
    keep: bool = False,
) -> bytes | None:
    """The child's answer (``start_child``), or None if it failed. A whole answer is taken as
    soon as its last byte arrives; the pipe is then closed and the child, exiting, is reaped
    later (``reap_finished``), unless ``keep`` (a second message follows: ``next_message``,
    then ``finish``); one that failed is ended and reaped here. ``poll`` is called about every
    0.1 s while the child has nothing to say yet; whatever it raises ends the child and comes
    out of here. ``idle``: work done a step at a time while the child has nothing to say (each
    ``next`` a few milliseconds); left unfinished once the child's answer starts to arrive."""
    data = None
    try:
        data = _message(read_fd, poll, idle)
    finally:
        if data is None or not keep:
            finish(pid, read_fd, whole=data is not None)
    return data


def next_message(read_fd: int) -> bytes | None:
    """The child's next message (waiting for it), or None when the pipe ends first."""
    return _message(read_fd)


def finish(pid: int, read_fd: int, whole: bool) -> None:
    """Done with a child: close its pipe; one that sent all it had to is left to exit and
    reaped later, any other is ended and reaped now."""
    os.close(read_fd)
    if whole:
        _exiting.append(pid)
        reap_finished()
        return
    try:
        os.kill(pid, 9)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)


def _message(read_fd: int, poll: Callable[[], None] | None = None, idle: Iterator[None] | None = None) -> bytes | None:
    """One length-prefixed message from ``read_fd`` (``child_output`` says what ``poll`` and
    ``idle`` do meanwhile); None when the pipe ends before it is whole."""
    chunks = []
    length = got = -1  # the message's length and the bytes of it read, once its first bytes came
    next_poll = time.monotonic() + POLL_SECONDS
    while length < 0 or got < length:
        if idle is not None and not select.select([read_fd], [], [], 0)[0]:
            if next(idle, _DONE) is _DONE:
                idle = None
            if poll is not None and time.monotonic() >= next_poll:
                next_poll = time.monotonic() + POLL_SECONDS
                poll()
            continue
        if poll is not None and not select.select([read_fd], [], [], POLL_SECONDS)[0]:
            poll()
            continue
        if length < 0:
            head = os.read(read_fd, LENGTH_BYTES)  # written at once: all 8 bytes, or the end
            if len(head) < LENGTH_BYTES:
                return None
            length, got = int.from_bytes(head, "little"), 0
            idle = None  # the answer is arriving: take it whole, without pauses
            continue
        chunk = os.read(read_fd, min(1 << 20, length - got))
        if not chunk:
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


class ForkedChild:
    """A child started by ``start_child``: its answer is taken once (``output``), then its
    second message if it sends one (``then``), or it is stopped (``cancel``); the readers of a
    big file's second part build on it."""

    def __init__(self, pid: int, read_fd: int, early: int = 0) -> None:
        self._pid = pid
        self._read_fd: int | None = read_fd
        self._early = early  # messages that come before the answer (``start_child(first=…)``)
        self._second: int | None = None  # the pipe, kept for the second message
        self._taking = threading.Lock()  # ``then`` and ``cancel`` may come from two threads
        self._answering = False  # ``output`` is waiting for the answer (``abort`` ends the child)

    def output(
        self, poll: Callable[[], None] | None = None, idle: Iterator[None] | None = None, keep: bool = False
    ) -> bytes | None:
        """Wait for the child and take its answer (``child_output``); None when it failed or
        was taken or stopped already. ``keep``: the child sends a second message (``then``)."""
        while self._early:  # not asked for: skipped
            if self.early() is None:
                return None
        fd = self._read_fd
        if fd is None:
            return None
        self._read_fd = None
        self._answering = True
        try:
            data = child_output(self._pid, fd, poll, idle, keep)
        finally:
            self._answering = False
        if keep and data is not None:
            self._second = fd
        return data

    @property
    def early_left(self) -> int:
        """How many of the messages before the answer are still to be taken (``early``)."""
        return self._early if self._read_fd is not None else 0

    def early(self, idle: Iterator[None] | None = None) -> bytes | None:
        """The child's next message before its answer (``start_child(first=…)``), waiting for it
        (doing ``idle``'s steps meanwhile, as ``child_output`` does); each once, in order, before
        ``output``. None when there is none left or the child failed (it is then ended)."""
        fd = self._read_fd
        if not self._early or fd is None:
            return None
        self._early -= 1
        self._answering = True
        data = None
        try:
            data = _message(fd, None, idle)
        finally:
            self._answering = False
            if data is None:
                self._read_fd = None
                finish(self._pid, fd, whole=False)
        return data

    def then(self) -> bytes | None:
        """The child's second message (waiting for it), once, after ``output(keep=True)``;
        None when there is none or it failed."""
        with self._taking:
            fd, self._second = self._second, None
        if fd is None:
            return None
        data = None
        try:
            data = next_message(fd)
        finally:
            finish(self._pid, fd, whole=data is not None)
        return data

    def abort(self) -> None:
        """From another thread, while ``output`` may be waiting: end the child, so the wait
        returns at once. Safe to call at any time, also after the output was taken."""
        if self._read_fd is None and not self._answering:
            return
        try:
            os.kill(self._pid, 9)
        except (ProcessLookupError, PermissionError):
            pass

    def cancel(self) -> None:
        """The result (or the second message) is not wanted: stop the child; a no-op once all
        of it was taken."""
        with self._taking:
            fd = self._read_fd if self._read_fd is not None else self._second
            self._read_fd = self._second = None
        if fd is not None:
            finish(self._pid, fd, whole=False)
