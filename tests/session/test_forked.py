"""A forked child's bytes (session/forked.py): taken once, or stopped; work done while waiting."""

from __future__ import annotations

import os
import time

import pytest

from loomtui.session.forked import ForkedChild, start_child
from tests.waits import wait_until

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")


@needs_fork
def test_the_output_is_taken_once_and_cancel_after_it_does_nothing() -> None:
    child = ForkedChild(*start_child(lambda: b"x" * 3_000_000))  # more than a pipe holds
    assert child.output() == b"x" * 3_000_000
    assert child.output() is None
    child.cancel()
    child.abort()


@needs_fork
def test_a_cancelled_or_failed_child_gives_nothing() -> None:
    def slow() -> bytes:
        time.sleep(30)
        return b"late"

    child = ForkedChild(*start_child(slow))
    started = time.monotonic()
    child.cancel()  # killed and reaped at once
    assert time.monotonic() - started < 10
    assert child.output() is None

    def fails() -> bytes:
        raise ValueError("in the child")

    assert ForkedChild(*start_child(fails)).output() is None


@needs_fork
def test_idle_work_runs_while_the_child_is_busy_and_stops_when_it_answers() -> None:
    def slow() -> bytes:
        time.sleep(0.3)
        return b"done"

    steps: list[int] = []

    def work() -> object:
        for k in range(10_000_000):
            steps.append(k)
            time.sleep(0.001)
            yield

    child = ForkedChild(*start_child(slow))
    assert child.output(idle=iter(work())) == b"done"  # type: ignore[arg-type]
    assert 10 < len(steps) < 10_000_000  # it ran meanwhile, and was left unfinished


@needs_fork
def test_a_whole_answer_is_taken_without_waiting_for_the_exit_and_reaped_later() -> None:
    """The child says how long its answer is: a whole one is taken at its last byte and the
    exiting child is collected later; nothing is left behind once it has gone."""
    from loomtui.session import forked

    pid, fd = start_child(lambda: b"answer")
    assert forked.child_output(pid, fd) == b"answer"

    def reaped() -> bool:
        forked.reap_finished()
        return pid not in forked._exiting

    wait_until(reaped, 10, "the exited child to be reaped")
    assert pid not in forked._exiting
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped


@needs_fork
def test_an_answer_shorter_than_it_says_is_no_answer() -> None:
    """A child that ends before its whole answer is written (killed, out of memory) gives
    None, even when it exits with 0, and is reaped at once."""
    from loomtui.session import forked

    for head, body in ((100, b"x" * 10), (3, b""), (None, b"")):
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            if head is not None:
                os.write(write_fd, head.to_bytes(forked.LENGTH_BYTES, "little") + body)
            os._exit(0)
        os.close(write_fd)
        assert forked.child_output(pid, read_fd) is None
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


@needs_fork
def test_a_second_message_is_taken_after_the_answer_once() -> None:
    """``then``: made after the answer is sent, taken after it; a second ask gives None."""
    child = ForkedChild(*start_child(lambda: b"answer", then=lambda: b"y" * 2_000_000))
    assert child.output(keep=True) == b"answer"
    assert child.then() == b"y" * 2_000_000
    assert child.then() is None and child.output() is None
    child.cancel()

    def fails() -> bytes:
        raise ValueError("in the child")

    failing = ForkedChild(*start_child(lambda: b"answer", then=fails))
    pid = failing._pid
    assert failing.output(keep=True) == b"answer" and failing.then() is None
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # ended and reaped


@needs_fork
def test_a_second_message_not_wanted_is_dropped() -> None:
    """Without ``keep`` the second message is not waited for; ``cancel`` after ``keep`` ends
    the child that would send it."""
    child = ForkedChild(*start_child(lambda: b"answer", then=lambda: b"late"))
    assert child.output() == b"answer" and child.then() is None

    def slow() -> bytes:
        time.sleep(30)
        return b"late"

    kept = ForkedChild(*start_child(lambda: b"answer", then=slow))
    pid = kept._pid
    assert kept.output(keep=True) == b"answer"
    started = time.monotonic()
    kept.cancel()
    assert time.monotonic() - started < 10 and kept.then() is None
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


@needs_fork
def test_abort_from_another_thread_ends_a_wait_at_once() -> None:
    """The loading thread waits in ``output``; the screen going away calls ``abort`` from the
    app's thread: the child is ended and the wait returns None."""
    import threading

    def slow() -> bytes:
        time.sleep(30)
        return b"late"

    child = ForkedChild(*start_child(slow))
    pid = child._pid
    threading.Timer(0.3, child.abort).start()
    started = time.monotonic()
    assert child.output() is None
    assert time.monotonic() - started < 10
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # ended and reaped
    child.abort()  # later calls are no-ops


@needs_fork
def test_first_messages_come_before_the_answer_and_are_skipped_when_not_asked_for() -> None:
    """``first``: sent before the answer, in order, each taken with ``early`` (once); ``output``
    then takes the answer, skipping those nobody asked for."""
    done: list[int] = []
    child = ForkedChild(
        *start_child(lambda: b"answer", then=lambda: b"then", first=[lambda: b"f" * 3_000_000, lambda: b""]), early=2
    )
    assert child.early(idle=iter(lambda: done.append(1), 0)) == b"f" * 3_000_000
    assert child.early() == b""
    assert child.early() is None
    assert child.output(keep=True) == b"answer" and child.then() == b"then"
    skipped = ForkedChild(*start_child(lambda: b"answer", first=[lambda: b"one", lambda: b"two"]), early=2)
    assert skipped.early() == b"one"
    assert skipped.output() == b"answer" and skipped.early() is None

    def fails() -> bytes:
        raise ValueError("in the child")

    failing = ForkedChild(*start_child(lambda: b"answer", first=[fails]), early=1)
    pid = failing._pid
    assert failing.early() is None and failing.output() is None
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # ended and reaped


@needs_fork
def test_a_message_bigger_than_the_pipe_does_not_stop_the_child_while_nobody_reads() -> None:
    """The child writes from a thread: it makes its answer while its first message (more than
    the pipe holds) waits for a reader busy elsewhere."""
    child = ForkedChild(*start_child(lambda: repr(time.time()).encode(), first=[lambda: b"x" * 5_000_000]), early=1)
    time.sleep(0.5)  # the reader is busy
    reading = time.time()
    assert child.early() == b"x" * 5_000_000
    assert float(child.output() or b"inf") < reading


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs CPU affinity (Linux)")
def test_a_process_held_to_one_cpu_forks_no_helper() -> None:
    """``taskset -c 0`` (or a one-CPU cpuset) on a machine of many CPUs: a helper process
    would only share the one CPU with its parent."""
    from loomtui.session.forked import can_fork, usable_cpus

    before = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, {min(before)})
        assert usable_cpus() == 1
        assert not can_fork()
    finally:
        os.sched_setaffinity(0, before)
    assert usable_cpus() == len(before)
