"""Opening a big OCP run on two CPUs: a forked child places it while the app starts.

The app spends its first few tenths of a second importing and starting Textual on one CPU.
For a big OCP document, ``prestart`` (called by ``loomtui FILE`` before Textual is imported,
so before any thread runs) reads and parses the file here, exactly as
``formats.detect.open_any`` would, indexes it (``ocp.read_run``, the attempts' facts left for
later), then forks a child that shares all that (the fork copies nothing up front) and checks
and places the run (``ocp.place``): findings, the placement of every node and retry, "also
after", the notes this adds, and the rows in order (ids, parents, kinds, makers by number),
sent back with marshal over a pipe.

When the app opens the file, ``open_any`` takes the document parsed here (``parsed_before``:
only while the file is the same, by device, inode, size and modification time) instead of
reading it again, and ``placed_run`` completes the run read here with what the child sent,
after making every attempt's facts while the child works. It does so only for that very
document and the same view; anything unexpected (no child, a failed child, another file,
another view) means the run is read and placed in the app, as without a child. Either way
the rows, details, notes and findings are the same (tests compare the whole run and session
on every fixture, on bad documents and on a generated run, in both views).
"""

from __future__ import annotations

import marshal
import os
from array import array
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple

from loomtui.session.errors import LoomError
from loomtui.session.fileio import open_regular
from loomtui.session.forked import can_fork, child_output, start_child, stop_child

if TYPE_CHECKING:
    from loomtui.formats.ocp import OcpRun
    from loomtui.formats.ocp_tree import Row

#: smaller runs open fast enough in one process
MIN_BYTES = 4 << 20
#: how much of the file's start ``prestart`` looks at to guess that it is an OCP document
#: before parsing it (what decides is the content: a parsed object with an ``ocp`` key)
SNIFF_BYTES = 64 << 10
_PAYLOAD_VERSION = 1
#: children started before the app's threads, by absolute path (``prestart``; ``parsed_before``
#: and ``placed_run`` take what they hold)
_started: dict[str, OcpSplit] = {}

FileId = tuple[int, int, int, int]


def file_id(st: os.stat_result) -> FileId:
    """What says two reads saw the same file: device, inode, size, modification time (ns)."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class Parsed(NamedTuple):
    """A file read and parsed as ``formats.detect.open_any`` parses it, before the app started."""

    data: bytes
    doc: Any
    #: parsed as one line (``reader.line_value``), else as a whole document (``common.load_json``)
    one_line: bool
    fid: FileId


class OcpSplit:
    """A child process placing the OCP run at ``path`` in ``view``, read before it was forked."""

    def __init__(self, path: str, view: str, pid: int, read_fd: int, parsed: Parsed, run: OcpRun) -> None:
        self.path = path
        self.view = view
        self.parsed: Parsed | None = parsed
        #: the run as ``ocp.read_run`` read it here (its facts made when asked for); the child
        #: checks and places the same run
        self.run: OcpRun | None = run
        self._pid = pid
        self._read_fd: int | None = read_fd

    @classmethod
    def start(cls, path: str, view: str = "dag", min_bytes: int = MIN_BYTES) -> OcpSplit | None:
        """Read, parse and index ``path`` here, then fork the child that checks and places it,
        when it is a regular file of at least ``min_bytes`` that is an OCP document (None
        otherwise, or when no fork is possible). The child shares what was read (the fork
        copies nothing up front): one parse and one index for both processes."""
        if not can_fork():
            return None
        parsed = _read(path, min_bytes)
        if parsed is None:
            return None
        from loomtui.formats import ocp, ocp_check, ocp_tree  # noqa: F401 - what the child runs

        if not ocp.looks_like_ocp(parsed.doc):
            return None
        run = _indexed(parsed.doc, path, view)
        if run is None:
            return None
        try:
            pid, read_fd = start_child(lambda: _place_in_child(run))
        except OSError:
            return None
        return cls(os.path.abspath(path), view, pid, read_fd, parsed, run)

    def collect(self) -> Any | None:
        """Wait for the child; its payload (unpacked by marshal), or None when it failed."""
        fd = self._read_fd
        if fd is None:
            return None
        self._read_fd = None
        data = child_output(self._pid, fd)
        if data is None:
            return None
        try:
            payload = marshal.loads(data)
        except (EOFError, ValueError, TypeError):
            return None
        return payload if isinstance(payload, tuple) and payload and payload[0] == _PAYLOAD_VERSION else None

    def cancel(self) -> None:
        """The result is not wanted: stop the child."""
        fd = self._read_fd
        if fd is None:
            return
        self._read_fd = None
        stop_child(self._pid, fd)


def looks_like_ocp_start(head: bytes) -> bool:
    """The first bytes of a JSON object that names an ``ocp`` key (a cheap guess only)."""
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{") and b'"ocp"' in head


def prestart(path: str, view: str = "dag", min_bytes: int = MIN_BYTES) -> bool:
    """Start the child for ``path`` now (before threads start) if it looks like a big OCP run;
    ``parsed_before`` gives what it read, ``placed_run`` the child's result. True when a child
    was started."""
    split = OcpSplit.start(path, view, min_bytes)
    if split is None:
        return False
    old = _started.pop(split.path, None)
    if old is not None:
        old.cancel()
    _started[split.path] = split
    return True


def _read(path: str, min_bytes: int) -> Parsed | None:
    """The file parsed (``_document``), when it is big enough and starts like an OCP object."""
    try:
        fd = open_regular(path)
    except (OSError, LoomError):
        return None
    try:
        st = os.fstat(fd)
        if st.st_size < max(min_bytes, 1) or not looks_like_ocp_start(os.pread(fd, SNIFF_BYTES, 0)):
            return None
        data = os.pread(fd, st.st_size + 1, 0)
        fid = file_id(os.fstat(fd))
        if fid != file_id(st) or len(data) != st.st_size:
            return None  # changed while read: the app reads it as usual
        with _frozen():
            one_line, doc = _document(data, str(path))
    except Exception:  # anything here only means the app reads the file itself, as usual
        return None
    finally:
        os.close(fd)
    return Parsed(data, doc, one_line, fid)


def _indexed(doc: dict[str, Any], path: str, view: str) -> OcpRun | None:
    """``ocp.read_run`` of the document, its facts left to be made when asked for (this
    process makes them all while the child places the run)."""
    from loomtui.formats.ocp import read_run

    try:
        with _frozen():
            return read_run(doc, path, view, lazy_facts=True)
    except Exception:  # as with the parse: the app does it all itself
        return None


@contextmanager
def _frozen() -> Iterator[None]:
    """The collector off while many objects are made and none freed, and those objects frozen
    after (the app's collections then never walk them)."""
    import gc

    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.freeze()


def parsed_before(path: str) -> Parsed | None:
    """What ``prestart`` read and parsed of ``path``, when the file is still the same."""
    split = _started.get(os.path.abspath(path)) if _started else None
    parsed = split.parsed if split is not None else None
    if parsed is None:
        return None
    try:
        same = file_id(os.stat(path)) == parsed.fid
    except OSError:
        same = False
    return parsed if same else None


def placed_run(doc: dict[str, Any], path: str, view: str,
               fid: FileId | None) -> tuple[OcpRun, Iterable[Row]] | None:
    """The run and its rows as the child started for ``path`` placed them, when ``doc`` is the
    very document it placed (``parsed_before``) and ``view`` its view; None otherwise, or
    when the child failed (the caller then reads and places the run itself)."""
    from loomtui.formats.ocp_text import facts_of

    split = _started.pop(os.path.abspath(path), None) if _started else None
    if split is None:
        return None
    parsed, run = split.parsed, split.run
    split.parsed = split.run = None
    if parsed is None or run is None or doc is not parsed.doc or fid != parsed.fid or split.view != view:
        split.cancel()  # not the document the child places
        return None
    # every attempt's facts, as an eager read_run makes them, while the child places the run
    facts = {aid: facts_of(a) for aid, a in run.attempts.items()}
    read_problems = len(run.problems)
    payload = split.collect()
    if payload is None or payload[1] != view or payload[2] != read_problems:
        return None
    try:
        _, _, _, problems, findings, checked, placed_under, also_after, retries, rows = payload
        order = _rows(rows)
    except (TypeError, ValueError, IndexError):
        return None
    run.path = path
    run.facts = facts
    run.problems += problems
    run.findings, run.checked = findings, checked
    run.placed_under, run.also_after, run.retries = placed_under, also_after, retries
    return run, order


# the child ------------------------------------------------------------------------------------
def _place_in_child(run: OcpRun) -> bytes:
    """In the child: check and place the run read before the fork (``ocp.place``), and pack
    what that added to it and the rows."""
    import gc

    from loomtui.formats.ocp import place

    gc.disable()  # a short-lived process that frees nothing
    read_problems = len(run.problems)
    order = place(run)
    return marshal.dumps((_PAYLOAD_VERSION, run.view, read_problems, run.problems[read_problems:], run.findings,
                          run.checked, run.placed_under, run.also_after, run.retries, _packed_rows(order)), 2)


def _document(data: bytes, path: str) -> tuple[bool, Any]:
    """The document as ``formats.detect.open_any`` parses the same bytes: a file that is one
    line with ``line_value``, anything else (or a line it cannot read) with ``load_json``;
    and whether it was the first. Raises for what is neither."""
    from loomtui.formats.common import MAX_DOCUMENT_BYTES, load_json
    from loomtui.session.reader import line_value

    if len(data) > MAX_DOCUMENT_BYTES:
        raise ValueError("too big to be read as one document")
    nl = data.find(b"\n")
    value = line_value(data) if data.strip() and nl in (-1, len(data) - 1) else None
    return (True, value) if value is not None else (False, load_json(data, path))


def _coded(values: Any) -> tuple[list[Any], bytes]:
    """Values that repeat (kinds) as a table and each one's number in it."""
    table = list(dict.fromkeys(values))
    number = {v: i for i, v in enumerate(table)}
    return table, array("I", map(number.__getitem__, values)).tobytes()


def _packed_rows(order: list[Row]) -> tuple[Any, ...]:
    """The rows as columns: ids, parents by row number (-1: none), kinds coded, makers by
    number (``ocp_tree._children`` makes every row's id as a two-character prefix and its
    record id, the run row's as "run" with an empty record id: ``_rows`` takes them apart)."""
    makers = {make: i for i, make in enumerate(_makers())}
    eids, parents, kinds, makes, _rids = zip(*order)
    row_no: dict[Any, int] = dict(zip(eids, range(len(eids))))
    row_no[None] = -1
    parent_no = array("i", map(row_no.__getitem__, parents)).tobytes()
    return eids, parent_no, _coded(kinds), bytes(map(makers.__getitem__, makes))


def _makers() -> list[Any]:
    """The row makers ``ocp_tree.row_order`` names, by number."""
    from loomtui.formats import ocp_text as T
    from loomtui.formats.ocp_tree import run_row

    return [run_row, T.group_entry, T.missing_node_entry, T.node_entry, T.attempt_entry]


# the parent -----------------------------------------------------------------------------------
def _uncoded(coded: tuple[list[Any], bytes]) -> list[Any]:
    table, codes = coded
    numbers = array("I")
    numbers.frombytes(codes)
    return list(map(table.__getitem__, numbers))


def _rows(packed: tuple[Any, ...]) -> Iterable[Row]:
    """The rows in order, made as they are read (``ocp_tree.make_rows`` reads them once);
    ValueError (or IndexError) when the columns do not fit together."""
    eids, parents, kinds, maker_no = packed
    numbers = array("i")
    numbers.frombytes(parents)
    parent_ids = list(map([*eids, None].__getitem__, numbers))
    kind_list = _uncoded(kinds)
    makers = _makers()
    maker_list = list(map(makers.__getitem__, maker_no))
    if not len(eids) == len(parent_ids) == len(kind_list) == len(maker_list):
        raise ValueError("the child's row columns differ in length")
    rids = [eid[2:] if m else "" for eid, m in zip(eids, maker_no)]
    return zip(eids, parent_ids, kind_list, maker_list, rids)
