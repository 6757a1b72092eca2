"""Opening a big OCP run on two CPUs: a forked child reads and places it while the app starts.

The app spends its first few tenths of a second importing and starting Textual on one CPU.
For a big OCP document, ``prestart`` (called by ``loomtui FILE`` before Textual is imported,
so before any thread runs) forks a child that reads the file, parses it and does the
per-record work of ``ocp.place_run``: the records kept, each attempt's facts, the attempts
of each node in order, the dependency graph, the placement of every node and retry, the
findings, the notes, and the rows in order (ids, parents, kinds, makers by number). It packs
that with marshal and hands it over a pipe.

The parent still parses the document itself (the rows write their texts and details from
its records, lazily); when it opens the run it asks ``placed_run`` for the child's result
and rebuilds the ``OcpRun`` around its own records from the child's ids and positions, which
costs a few dict and list builds instead of the per-record Python work. The result is used
only for the same file (device, inode, size, modification time, as read by both processes)
and the same view; anything unexpected (no child, a failed child, another file, a payload
that does not fit the parent's document) means the parent places the run itself, as it does
without a child. Either way the rows, details, notes and findings are the same (tests compare
them on every fixture and on a generated run, in both views).
"""

from __future__ import annotations

import marshal
import os
from array import array
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from loomtui.session.errors import LoomError
from loomtui.session.fileio import open_regular
from loomtui.session.forked import can_fork, child_output, start_child, stop_child

if TYPE_CHECKING:
    from loomtui.formats.ocp import OcpRun
    from loomtui.formats.ocp_tree import Row

#: smaller runs open fast enough in one process
MIN_BYTES = 4 << 20
#: how much of the file's start ``prestart`` looks at to guess that it is an OCP document (the
#: child decides by content: a parsed object with an ``ocp`` key)
SNIFF_BYTES = 64 << 10
_PAYLOAD_VERSION = 1
#: list-valued members of the document whose records the run keeps (by position)
_RECORD_LISTS = ("groups", "nodes", "attempts", "artifacts")
#: children started before the app's threads, by absolute path (``prestart`` / ``placed_run``)
_started: dict[str, OcpSplit] = {}

FileId = tuple[int, int, int, int]


def file_id(st: os.stat_result) -> FileId:
    """What says two reads saw the same file: device, inode, size, modification time (ns)."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class OcpSplit:
    """A child process reading and placing the OCP run at ``path`` in ``view``."""

    def __init__(self, path: str, view: str, pid: int, read_fd: int) -> None:
        self.path = path
        self.view = view
        self._pid = pid
        self._read_fd: int | None = read_fd

    @classmethod
    def start(cls, path: str, view: str = "dag", min_bytes: int = MIN_BYTES) -> OcpSplit | None:
        """Fork the child when ``path`` is a regular file of at least ``min_bytes`` whose start
        looks like an OCP document (None otherwise, or when no fork is possible)."""
        if not can_fork():
            return None
        try:
            fd = open_regular(path)
        except (OSError, LoomError):
            return None
        try:
            st = os.fstat(fd)
            if st.st_size < max(min_bytes, 1) or not looks_like_ocp_start(os.pread(fd, SNIFF_BYTES, 0)):
                return None
            # what the child runs, imported here once: this process needs it too when it opens
            # the run, and the child then starts working at once
            from loomtui.formats import ocp, ocp_check, ocp_tree  # noqa: F401

            pid, read_fd = start_child(lambda: _place_in_child(fd, path, view))
        except OSError:
            return None
        finally:
            os.close(fd)  # the child has its own copy
        return cls(os.path.abspath(path), view, pid, read_fd)

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
    ``placed_run`` takes its result. True when a child was started."""
    split = OcpSplit.start(path, view, min_bytes)
    if split is None:
        return False
    old = _started.pop(split.path, None)
    if old is not None:
        old.cancel()
    _started[split.path] = split
    return True


def placed_run(doc: dict[str, Any], path: str, view: str, fid: FileId | None) -> tuple[OcpRun, list[Row]] | None:
    """The run and its rows as the child started for ``path`` placed them, rebuilt around
    ``doc`` (this process's parse of the file ``fid`` names); None when there is no such
    child or its result does not certainly describe this document (the caller places it)."""
    split = _started.pop(os.path.abspath(path), None) if _started else None
    if split is None:
        return None
    if fid is None or split.view != view:
        split.cancel()
        return None
    facts = _facts(doc)  # while the child places the run
    payload = split.collect()
    if payload is None or tuple(payload[1]) != fid or payload[2] != view or payload[3] is None:
        return None
    try:
        return _rebuilt(doc, path, view, payload[3], facts)
    except (KeyError, IndexError, TypeError, ValueError):  # not this document's
        return None


# the child ------------------------------------------------------------------------------------
def _place_in_child(fd: int, path: str, view: str) -> bytes:
    """In the child: read and parse the file as ``formats.detect.open_any`` does, place the
    run, pack what the parent needs to rebuild it."""
    import gc

    from loomtui.formats import ocp

    gc.disable()  # a short-lived process that frees nothing
    before = os.fstat(fd)
    data = os.pread(fd, before.st_size + 1, 0)
    after = os.fstat(fd)
    fid = file_id(after)
    if file_id(before) != fid or len(data) != after.st_size:
        raise OSError("the file changed while it was read")
    doc = _document(data, path)
    if not ocp.looks_like_ocp(doc):
        return marshal.dumps((_PAYLOAD_VERSION, fid, view, None), 2)
    run, order = ocp.place_run(doc, path, view, lazy_facts=True)  # the parent makes the facts meanwhile
    return marshal.dumps((_PAYLOAD_VERSION, fid, view, _packed(doc, run, order)), 2)


def _document(data: bytes, path: str) -> Any:
    """The document as ``formats.detect.open_any`` parses the same bytes: a file that is one
    line with ``line_value``, anything else (or a line it cannot read) with ``load_json``."""
    from loomtui.formats.common import MAX_DOCUMENT_BYTES, load_json
    from loomtui.session.reader import line_value

    if len(data) > MAX_DOCUMENT_BYTES:
        return None
    nl = data.find(b"\n")
    value = line_value(data) if data.strip() and nl in (-1, len(data) - 1) else None
    return value if value is not None else load_json(data, path)


def _positions(items: Any, kept: list[Any]) -> list[int] | None:
    """Where the kept records sit in the document's list (None: all of them, in order)."""
    if len(kept) == len(items):
        return None
    where = {id(x): i for i, x in enumerate(items)}
    return [where[id(x)] for x in kept]


def _coded(values: list[Any]) -> tuple[list[Any], bytes]:
    """Values that repeat (kinds) as a table and each one's number in it."""
    table: dict[Any, int] = {}
    codes = array("I", [table.setdefault(v, len(table)) for v in values])
    return list(table), codes.tobytes()


def _packed(doc: dict[str, Any], run: OcpRun, order: list[Row]) -> tuple[Any, ...]:
    """What the parent needs to rebuild ``run`` and ``order`` around its own parse: records by
    position, the rest as made (the parent makes the attempts' facts itself)."""
    kept = []
    for key in _RECORD_LISTS:
        items = doc.get(key)
        n = len(items) if isinstance(items, list) else -1
        kept.append((n, _positions(items, list(getattr(run, key).values())) if n >= 0 else None))
    for key, kept_list in (("edges", run.edges), ("events", run.events)):
        items = doc.get(key)
        n = len(items) if isinstance(items, list) else -1
        kept.append((n, _positions(items, kept_list) if n >= 0 else None))
    graph = (dict(run.attempts_of), dict(run.group_members), dict(run.parents), dict(run.children), run.also_after,
             run.placed_under, run.retries)
    return (run.version, kept, run.missing_nodes, graph, run.findings, run.checked, run.problems, _packed_rows(order))


def _packed_rows(order: list[Row]) -> tuple[Any, ...]:
    """The rows as columns: ids, parents by row number (-1: none), kinds coded, makers by
    number (a row's record id is its id without the maker's prefix)."""
    makers = {make: i for i, make in enumerate(_makers())}
    maker_no = bytes(map(makers.__getitem__, [r[3] for r in order]))
    eids = [r[0] for r in order]
    if [_PREFIXES[m] + r[4] for m, r in zip(maker_no, order)] != eids:
        raise ValueError("a row's id is not its maker's prefix and record id")
    row_no = {eid: i for i, eid in enumerate(eids)}
    row_no[None] = -1  # type: ignore[index]
    parents = array("i", map(row_no.__getitem__, [r[1] for r in order])).tobytes()
    return eids, parents, _coded([r[2] for r in order]), maker_no


def _makers() -> list[Any]:
    """The row makers ``ocp_tree.row_order`` names, by number (``_PREFIXES``: their rows' ids)."""
    from loomtui.formats import ocp_text as T
    from loomtui.formats.ocp_tree import run_row

    return [run_row, T.group_entry, T.missing_node_entry, T.node_entry, T.attempt_entry]


_PREFIXES = ("run", "g:", "n:", "n:", "a:")


# the parent -----------------------------------------------------------------------------------
def _facts(doc: dict[str, Any]) -> list[Any]:
    """``ocp_text.facts_of`` each object of the document's attempts list, by position."""
    from loomtui.formats.ocp_text import facts_of

    items = doc.get("attempts")
    if not isinstance(items, list):
        return []
    return [facts_of(a) if isinstance(a, dict) else None for a in items]


def _kept(items: Any, n: int, positions: list[int] | None) -> list[Any]:
    if n < 0:
        if isinstance(items, list):
            raise ValueError("the document differs from the child's")
        return []
    if not isinstance(items, list) or len(items) != n:
        raise ValueError("the document differs from the child's")
    return list(items) if positions is None else [items[i] for i in positions]


def _uncoded(coded: tuple[list[Any], bytes]) -> list[Any]:
    table, codes = coded
    numbers = array("I")
    numbers.frombytes(codes)
    return list(map(table.__getitem__, numbers))


def _rebuilt(doc: dict[str, Any], path: str, view: str, packed: tuple[Any, ...],
             facts: list[Any]) -> tuple[OcpRun, list[Row]]:
    """The run around ``doc`` from the child's ``packed`` and ``facts`` (``_facts``)."""
    from loomtui.formats.ocp import OcpRun

    version, kept, missing, graph, findings, checked, problems, rows = packed
    run = OcpRun(doc=doc, path=path, version=version, view=view)
    r = doc.get("run")
    if isinstance(r, dict):
        run.run = r
    for key, (n, positions) in zip(_RECORD_LISTS, kept):
        records = _kept(doc.get(key), n, positions)
        by_id = dict(zip([x["id"] for x in records], records))
        if len(by_id) != len(records):
            raise ValueError("the document differs from the child's")
        setattr(run, key, by_id)
    run.edges = _kept(doc.get("edges"), *kept[4])
    run.events = _kept(doc.get("events"), *kept[5])
    run.node_order = list(run.nodes)
    n, positions = kept[2]
    if len(facts) != max(n, 0):
        raise ValueError("the document differs from the child's")
    run.facts = dict(zip(run.attempts, facts if positions is None else [facts[i] for i in positions], strict=True))
    run.missing_nodes = missing
    attempts_of, members, parents, children, run.also_after, run.placed_under, run.retries = graph
    run.attempts_of = defaultdict(list, attempts_of)
    run.group_members = defaultdict(list, members)
    run.parents = defaultdict(list, parents)
    run.children = defaultdict(list, children)
    run.findings = findings
    run.checked = checked
    run.problems = problems
    return run, _rows(rows)


def _rows(packed: tuple[Any, ...]) -> list[Row]:
    eids, parents, kinds, maker_no = packed
    numbers = array("i")
    numbers.frombytes(parents)
    parent_ids = list(map([*eids, None].__getitem__, numbers))
    rids = [eid[2:] if m else "" for eid, m in zip(eids, maker_no)]
    makers = _makers()
    return list(zip(eids, parent_ids, _uncoded(kinds), map(makers.__getitem__, maker_no), rids, strict=True))
