"""Reading a big Claude Code file on two CPUs: a forked child scans the tail while we scan the head.

The same idea as ``session.split`` for pi files. ``ClaudeSplit.start`` forks a child that scans
the file from a line boundary (``claude/read.scan`` from there, a fresh ``Scan``), packs what
it found with marshal and hands it over a pipe; the parent scans the head meanwhile and then
``merge`` appends the child's scan to its own as if one pass had read the whole file: indices,
line numbers, diagnostics, the file's own tree (children, forks, roots), tokens, subagent links
(tests check this against a plain read, cut at many places). What only the head knows is
settled here: tool names and Task calls for results in the tail, the lines before the tail's
first entry, a session id only the tail names. A uuid that the head already has, or anything
unexpected in the child, means the parent scans the tail itself.

Only the app uses it: its read runs in a worker thread, where no fork is allowed, so
``prestart`` starts the child (where a second CPU may help: ``session.forked.can_fork``, above
``MIN_BYTES``) before the app starts its threads and Textual, and ``take`` hands it to the read;
the child reads while Textual starts. Every other read (``loomtui tree``, ``info``, …) is one
process: with the typed scan (``claude/typed.py``) the child's fork, packing and the merge cost
more than the half of the scan they save (docs/performance.md).
"""

from __future__ import annotations

import marshal
import os
from typing import Any

from loomtui.formats.agent.tools import CLAUDE_TOOLS, shown_calls
from loomtui.formats.claude.lines import looks_like_claude
from loomtui.formats.claude.scan import Scan, scan
from loomtui.formats.claude.tree import tail_leads
from loomtui.session.errors import Diagnostic, LoomError
from loomtui.session.fileio import line_start_after, open_big, open_regular_file
from loomtui.session.forked import ForkedChild, can_fork, start_child
from loomtui.session.reader import line_value
from loomtui.session.split import FIELDS, MIN_BYTES, entries_from_columns

_PAYLOAD_VERSION = 5
#: where the child starts when the reader starts it: the child also packs its scan and the
#: parent unpacks it, so the parent's part is the larger one (0.6 measured best of 0.5-0.6)
READ_SPLIT = 0.6
#: children started before the app's threads, by path (``prestart`` / ``take``)
_started: dict[str, ClaudeSplit] = {}


class ClaudeSplit(ForkedChild):
    """A child process scanning ``path`` from byte ``at`` to its end."""

    def __init__(self, path: str, at: int, pid: int, read_fd: int, file_id: tuple[int, int]) -> None:
        self.path = path
        self.at = at
        #: (device, inode) of the file the child reads: the head must come from the same one
        self.file_id = file_id
        super().__init__(pid, read_fd)

    @classmethod
    def start(cls, path: str, fraction: float = READ_SPLIT, min_bytes: int = MIN_BYTES) -> ClaudeSplit | None:
        """Fork the child for the part of the file after ``fraction`` of it (None when a split
        does not apply: smaller than ``min_bytes``, no fork, threads running)."""
        if not can_fork():
            return None
        opened = open_big(path, min_bytes)
        if opened is None:
            return None
        fd, st = opened
        try:
            at = line_start_after(fd, int(st.st_size * fraction))
            if at is None or at >= st.st_size:
                return None
            pid, read_fd = start_child(lambda: _scan_tail(fd, at))
        except OSError:
            return None
        finally:
            os.close(fd)  # the child has its own copy
        return cls(os.path.abspath(path), at, pid, read_fd, (st.st_dev, st.st_ino))

    def same_file(self, fd: int) -> bool:
        st = os.fstat(fd)
        return (st.st_dev, st.st_ino) == self.file_id

    def collect(self, line_base: int = 0) -> Tail | None:
        """Wait for the child and return its scan (indices counted from the tail's start, line
        numbers moved by ``line_base``: the head's lines); None when it failed."""
        data = self.output()
        if data is None:
            return None
        try:
            payload = marshal.loads(data)
            if payload[0] != _PAYLOAD_VERSION:
                return None
            return _unpack(payload, line_base)
        except (EOFError, ValueError, TypeError, IndexError):
            return None


def scan_file(fd: int, path: str) -> Scan:
    """``claude/read.scan`` of the whole file open as ``fd``, its tail in a child when one was
    started for it (``prestart``)."""
    split = take(path)
    if split is None:
        return scan(fd)
    if not split.same_file(fd):  # the path now names another file
        split.cancel()
        return scan(fd)
    try:
        sc = scan(fd, 0, split.at)
    except BaseException:
        split.cancel()
        raise
    if sc.read_to != split.at:  # the file changed under us
        split.cancel()
        return scan(fd)
    tail = split.collect(sc.line_no)
    if tail is None or not merge(sc, tail):
        return scan(fd, split.at, None, sc)
    return sc


def prestart(path: str, fraction: float, min_bytes: int = MIN_BYTES) -> None:
    """Start the child for ``path`` now (before threads start) if it is a Claude Code file;
    ``take`` hands it over."""
    if not _claude_file(path):
        return
    split = ClaudeSplit.start(path, fraction, min_bytes)
    if split is not None:
        old = _started.pop(split.path, None)
        if old is not None:
            old.cancel()
        _started[split.path] = split


def early_start(path: str, fraction: float) -> bool:
    """The source's early start (``formats/sources.EARLY_STARTS``): a big Claude Code file's
    tail from ``fraction`` on is parsed by a child started now; True when one was."""
    prestart(path, fraction)
    return os.path.abspath(path) in _started


def _claude_file(path: str) -> bool:
    """The first JSON line of ``path`` is a Claude Code line."""
    try:
        with open_regular_file(path) as f:
            head = f.read(256 * 1024)
    except (OSError, LoomError):
        return False
    for raw in head.split(b"\n")[:40]:
        obj = line_value(raw)
        if isinstance(obj, dict) and obj:
            return looks_like_claude(obj)
    return False


def take(path: str) -> ClaudeSplit | None:
    """The child ``prestart`` started for ``path``, if any (each is handed over once)."""
    return _started.pop(os.path.abspath(path), None) if _started else None


_SCAN_FIELDS = (
    "parents",
    "unlinked",
    "kinds",
    "logical",
    "book_lines",
    "book_types",
    "progress",
    "tool_names",
    "agent_calls",
    "results",
    "agent_ids",
    "side_roots",
    "session_id",
    "cwd",
    "version",
    "forked_from",
    "lines",
    "line_no",
    "last_main_i",
    "roots",
    "foreign",
)


class Tail:
    """The child's scan as this process unpacked it, with what the merge reads besides it: the
    ids (a column), the results whose tool name only the head may know, and the usage lines
    still packed (read when tokens are first asked for, ``Scan.usage``)."""

    def __init__(self, sc: Scan, ids: list[str], unnamed: list[int], usage: bytes) -> None:
        self.sc = sc
        self.ids = ids
        self.unnamed = unnamed
        self.usage = usage


def _scan_tail(fd: int, at: int) -> bytes:
    """In the child: the scan of the lines from ``at`` on, marshal-packed."""
    import gc

    gc.disable()  # a short-lived process that frees nothing
    sc = Scan()
    sc.foreign = []
    sc.shown_calls = False  # marshal takes plain values only: the parent maps them (``merge``)
    scan(fd, at, None, sc)
    skels = sc.skels
    columns = [[getattr(e, f) for e in skels] for f in FIELDS]
    fields = [getattr(sc, f) for f in _SCAN_FIELDS]
    unnamed = [i for i, e in enumerate(skels) if e.role == "toolResult" and e.tool_name is None and type(e.aux) is str]
    leads, exits = tail_leads(sc)
    payload = (
        _PAYLOAD_VERSION,
        columns,
        sorted(sc.side),
        fields,
        [(d.line, d.reason) for d in sc.diags],
        unnamed,
        marshal.dumps(sc.usage_lines, 2),
        bytes(leads),
        exits,
    )
    return marshal.dumps(payload, 2)  # version 2: no back-references, the fastest to write


def _unpack(payload: Any, line_base: int) -> Tail:
    _version, columns, side, fields, diags, unnamed, usage, leads, exits = payload
    if len(columns) != len(FIELDS) or len(fields) != len(_SCAN_FIELDS):
        raise ValueError("not this version's payload")
    sc = Scan()
    sc.shown_calls = False  # the calls as the child wrote them: ``merge`` maps them
    sc.skels = entries_from_columns(columns, line_base)
    sc.side = set(side)
    for name, value in zip(_SCAN_FIELDS, fields):
        setattr(sc, name, value)
    sc.diags = [Diagnostic(line + line_base, reason) for line, reason in diags]
    if len(leads) != len(sc.skels):
        raise ValueError("not this version's payload")
    sc.tail_leads = (0, bytearray(leads), exits)
    return Tail(sc, columns[0], unnamed, usage)


def merge(head: Scan, part: Tail) -> bool:
    """Append ``part`` (the child's scan of the lines after ``head``'s) to ``head``, as if one
    pass had read both. False, with ``head`` unchanged, when a uuid of the tail is already in
    the head (the head's line wins: the caller scans the tail itself)."""
    by_id = head.by_id
    if not by_id.keys().isdisjoint(part.ids):
        return False
    tail = part.sc
    base = len(head.skels)
    line_base = head.line_no
    _merge_entries(head, part, base)
    _merge_calls(head, tail, base)
    head.usage_packed.append((part.usage, base))
    if tail.tail_leads is not None and head.tail_leads is None:
        _zero, marks, exits = tail.tail_leads
        head.tail_leads = (base, marks, [e + base for e in exits])
    last_main, last_any = head.last_main_i, base - 1
    head.book_lines += [
        (obj, line + line_base, last_main if m < 0 else m + base, last_any if a < 0 else a + base)
        for obj, line, m, a in tail.book_lines
    ]
    head.book_types += tail.book_types
    head.diags += tail.diags
    if head.session_id is None and tail.session_id is not None:
        head.session_id, head.cwd, head.version, head.forked_from = (
            tail.session_id,
            tail.cwd,
            tail.version,
            tail.forked_from,
        )
    head.lines += tail.lines
    head.line_no += tail.line_no
    if tail.last_main_i >= 0:
        head.last_main_i = tail.last_main_i + base
    return True


def _merge_entries(head: Scan, part: Tail, base: int) -> None:
    """The tail's entries after the head's: indices, parents as written (those in the head
    looked up once both are in, ``Scan.link``), the tool names of results whose call is in the
    head."""
    tail = part.sc
    head.by_id.update(zip(part.ids, range(base, base + len(part.ids))))
    head.parents += [p + base if p >= 0 else -1 for p in tail.parents]
    head.unlinked += [i + base for i in tail.unlinked]
    names = head.tool_names
    skels = tail.skels
    for j in part.unnamed:  # results whose call is not in the tail: in the head, or nowhere
        e = skels[j]
        e.tool_name = names.get(e.aux)
    if head.shown_calls and not tail.shown_calls:
        for e in skels:
            if e.tool_calls is not None:
                e.tool_calls = shown_calls(CLAUDE_TOOLS, e.tool_calls)
    head.skels += skels
    head.kinds += tail.kinds
    head.roots += tail.roots
    head.side.update(i + base for i in tail.side)
    head.progress += [i + base for i in tail.progress]
    head.logical.update({i + base: lp for i, lp in tail.logical.items()})
    head.side_roots.update({i + base: text for i, text in tail.side_roots.items()})
    head.link()


def _merge_calls(head: Scan, tail: Scan, base: int) -> None:
    """Tool names, Task calls and their results, subagent ids, the lines with tokens."""
    calls = head.agent_calls
    results = head.results
    for cid, i in tail.foreign or ():  # a result whose Task call is in the head
        if cid in calls and cid not in results:
            results[cid] = i + base
    for cid, i in tail.results.items():
        if cid not in results or results[cid] > i + base:
            results[cid] = i + base
    calls.update({cid: (i + base, inp) for cid, (i, inp) in tail.agent_calls.items()})
    head.tool_names.update(tail.tool_names)
    head.agent_ids += [(i + base, agent, call) for i, agent, call in tail.agent_ids]
