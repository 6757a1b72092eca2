"""Opening a big OCP run on two CPUs: a forked child places it while the app starts.

The app spends its first few tenths of a second importing and starting Textual on one CPU.
For a big OCP document, ``prestart`` (called by ``loomtui FILE`` before Textual is imported,
so before any thread runs) reads and parses the file here, exactly as
``formats.detect.open_any`` would, makes every attempt's facts and the run's total (both
processes use them; made after the fork they would cost each process more, as every object
touched is then copied), then forks a child that shares all of it (the fork copies nothing up
front) and does the per-record work of ``ocp.place_run``. The child sends, in order (see
docs/ocp.md, "Opening a big run"):

1. the run's first screen: its first rows with their texts, and the rows their layout
   depends on (``ocp/tree.first_screen``; ``first_screen`` here takes it, the app paints it);
2. the run placed: the records kept, each node's attempts in order, the dependency graph,
   the placement of every node and retry, the findings, the notes (``_packed_run``);
3. the rows in order (ids, parents, kinds, makers by number), the rest of the same walk;
4. the run's timing (every attempt's start and end read), taken when the run's detail is
   first made (``OcpRun.timing_later``).

When the app opens the file, ``open_any`` takes the document parsed here (``parsed_before``:
only while the file is the same, by device, inode, size and modification time) instead of
reading it again, and ``placed_run`` rebuilds the ``OcpRun`` around it from the child's
positions and placement, then its rows. The result is used only for that very document and
the same view; anything unexpected (no child, a failed child, another file, a payload that
does not fit) means the run is placed here, as without a child. Either way the rows, details,
notes and findings are the same (tests compare them on every fixture, on bad documents and on
a generated run, both views).
"""

from __future__ import annotations

import marshal
import os
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from itertools import repeat
from operator import getitem, itemgetter
from typing import TYPE_CHECKING, Any, NamedTuple

from loomtui.session.fileio import open_big
from loomtui.session.forked import ForkedChild, can_fork, start_child

if TYPE_CHECKING:
    from loomtui.formats.ocp.run import OcpRun
    from loomtui.formats.ocp.tree import Row, RowWalk

#: smaller runs open fast enough in one process
MIN_BYTES = 4 << 20
#: the rows of the first screen the child sends before the rest (or twice the terminal's height)
FIRST_ROWS = 200
#: how much of the file's start ``prestart`` looks at to guess it is an OCP document (a guess:
#: what decides is the parsed object's ``ocp`` key)
SNIFF_BYTES = 64 << 10
_PAYLOAD_VERSION = 4
#: a row's record id in its entry id ("n:" + node id, …)
_RECORD_ID = slice(2, None)
#: list-valued members of the document whose records the run keeps (by position)
_RECORD_LISTS = ("groups", "nodes", "attempts", "artifacts")
#: children started before the app's threads, by absolute path (``parsed_before``, ``placed_run`` take them)
_started: dict[str, OcpSplit] = {}
#: the child whose run has not yet asked for its timing: let go when another run is placed
#: (that run then makes its timing itself, if it is ever shown)
_timing_due: list[OcpSplit] = []

FileId = tuple[int, int, int, int]


def file_id(st: os.stat_result) -> FileId:
    """What says two reads saw the same file: device, inode, size, modification time (ns)."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class Parsed(NamedTuple):
    """A file read and parsed as ``formats.detect.open_any`` parses it, before the app started."""

    data: bytes
    doc: Any
    fid: FileId


class OcpSplit(ForkedChild):
    """A child process placing the OCP run at ``path`` in ``view``, parsed before it was forked."""

    def __init__(
        self, path: str, view: str, pid: int, read_fd: int, parsed: Parsed, facts: list[Any], total: Any
    ) -> None:
        self.path = path
        self.view = view
        self.parsed: Parsed | None = parsed
        #: made before the fork for both processes (``_facts``, ``_early_total``)
        self.facts = facts
        self.total = total
        #: the records by id, made while this process waits for the child (``_by_id``)
        self.ready: dict[str, Any] = {}
        self.by_id = _by_id(parsed.doc, self.ready)
        super().__init__(pid, read_fd, early=2)

    def run_part(self) -> Any | None:
        """The second message: the run placed (``_packed_run``, unpacked); the first screen is
        skipped when nobody took it."""
        while self.early_left > 1:
            if self.early() is None:
                return None
        return _unpacked(self.early(), self.view)

    @classmethod
    def start(
        cls, path: str, view: str = "dag", min_bytes: int = MIN_BYTES, first_rows: int = FIRST_ROWS
    ) -> OcpSplit | None:
        """Read and parse ``path`` here, then fork the child that places it, when it is a regular
        file of at least ``min_bytes`` that is an OCP document (None otherwise, or when no fork
        is possible). The child shares the parsed document (copy-on-write): one parse for both."""
        if not can_fork():
            return None
        parsed = _read(path, min_bytes)
        if parsed is None:
            return None
        from loomtui.formats.ocp import run as ocp  # noqa: F401 - what the child runs

        if not ocp.looks_like_ocp(parsed.doc):
            return None
        import gc

        gc.disable()
        try:  # for both processes: the child places the run with them, this one rebuilds it with them
            facts = _facts(parsed.doc)
            total = _early_total(facts)
        finally:
            gc.enable()
        try:
            first, rows, timing = _Child(parsed.doc, path, view, first_rows, facts, total).messages()
            pid, read_fd = start_child(rows, then=timing, first=first)
        except OSError:
            return None
        return cls(os.path.abspath(path), view, pid, read_fd, parsed, facts, total)

    def timing(self) -> Any | None:
        """The run's timing (``ocp/text.Timing``) the child made after its answer, or None."""
        from loomtui.formats.ocp.text import Timing

        try:
            data = self.then()
            if data is None:
                return None
            first_start, last_end, agent_seconds = marshal.loads(data)
            return Timing(float(first_start), float(last_end), float(agent_seconds))
        except (OSError, EOFError, ValueError, TypeError):
            return None

    def collect(self) -> Any | None:
        """Wait for the child's answer, the rows (unpacked), or None when it failed."""
        return _unpacked(self.output(keep=True), self.view)  # the run's timing follows


def _unpacked(data: bytes | None, view: str) -> Any | None:
    """What one of the child's messages holds (``_Child``), when it is whole and for ``view``."""
    if not data:
        return None
    try:
        version, got_view, body = marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return None
    return body if version == _PAYLOAD_VERSION and got_view == view else None


def looks_like_ocp_start(head: bytes) -> bool:
    """The first bytes of a JSON object that names an ``ocp`` key (a cheap guess only)."""
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{") and b'"ocp"' in head


def prestart(path: str, view: str = "dag", min_bytes: int = MIN_BYTES) -> bool:
    """Start the child for ``path`` now (before threads start) if it looks like a big OCP run;
    ``parsed_before`` gives what it read, ``placed_run`` the child's result. True when a child
    was started."""
    import shutil

    split = OcpSplit.start(path, view, min_bytes, max(FIRST_ROWS, 2 * shutil.get_terminal_size().lines))
    if split is None:
        return False
    old = _started.pop(split.path, None)
    if old is not None:
        old.cancel()
    _started[split.path] = split
    return True


def early_start(path: str, fraction: float) -> bool:
    """The early start (``formats/sources.EARLY_STARTS``): a big run, read and placed whole."""
    return prestart(path)


def _read(path: str, min_bytes: int) -> Parsed | None:
    """The file parsed (``_document``), when it is big enough and starts like an OCP object."""
    import gc

    opened = open_big(path, min_bytes)
    if opened is None:
        return None
    fd, st = opened
    try:
        if not looks_like_ocp_start(os.pread(fd, SNIFF_BYTES, 0)):
            return None
        data = os.pread(fd, st.st_size + 1, 0)
        fid = file_id(os.fstat(fd))
        if fid != file_id(st) or len(data) != st.st_size:
            return None  # changed while read: the app reads it as usual
        gc.disable()  # many objects, none freed; frozen after (the app's collections skip them)
        try:
            doc = _document(data, str(path))
        finally:
            gc.enable()
            gc.freeze()
    except Exception:  # anything here only means the app reads the file itself, as usual
        return None
    finally:
        os.close(fd)
    return Parsed(data, doc, fid)


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


class FirstScreen(NamedTuple):
    """The first rows of a run the child placed, with their texts (``ocp/tree.first_screen``:
    the shown rows, then rows that only shape the layout, with empty texts)."""

    rows: list[tuple[str, str | None, str, str]]
    shown: int
    total: int  # the rows of the whole run
    timestamp: str


def first_screen(path: str, view: str = "dag") -> FirstScreen | None:
    """The first screen of the run the child started for ``path`` is placing (waiting for it
    while this process makes the records by id, ``_by_id``), when the file is still the one it
    read; None otherwise or when the child could not make it. Taken once; the rest comes
    from ``placed_run`` as usual."""
    split = _started.get(os.path.abspath(path)) if _started else None
    if split is None or split.view != view or split.early_left < 2 or parsed_before(path) is None:
        return None
    body = _unpacked(split.early(idle=split.by_id), view)
    try:
        first = FirstScreen(*body) if body is not None else None
    except TypeError:
        return None
    if first is None:
        return None
    return first if 0 < first.shown <= len(first.rows) else None


def placed_run(
    doc: dict[str, Any], path: str, view: str, fid: FileId | None
) -> tuple[OcpRun, Iterable[Row], list[int]] | None:
    """The run, its rows and their subtree ends as the child started for ``path`` placed them,
    rebuilt around ``doc`` (this process's parse of the file ``fid`` names); None when there is
    no such child or its result does not certainly describe this document (the caller places
    it)."""
    split = _started.pop(os.path.abspath(path), None) if _started else None
    if split is None:
        return None
    parsed, split.parsed = split.parsed, None
    if parsed is None or doc is not parsed.doc or fid != parsed.fid or split.view != view:
        split.cancel()  # not the document the child places
        return None
    placed = None
    try:  # the run while the child lists the rows, then the rows
        packed = split.run_part()
        for _ in split.by_id:  # what the wait for the first screen left
            pass
        if packed is not None:
            run = _rebuilt(doc, path, view, packed, split.facts, split.total, split.ready)
            rows = split.collect()
            if rows is not None:
                placed = _rows(run, rows)
    except (KeyError, IndexError, TypeError, ValueError):  # not this document's
        placed = None
    if placed is None:
        split.cancel()
        return None
    for earlier in _timing_due:  # one child at most waits to be asked (the latest run's)
        earlier.cancel()
    _timing_due[:] = [split]
    placed[0].timing_later = split.timing  # the first to show the run's timing takes it (ocp_text.run_timing)
    return placed


# the child ------------------------------------------------------------------------------------
class _Child:
    """What the child sends, in order (``messages``): the run's first screen (``first``: the
    app paints it at once), the run placed (``run_part``: the app rebuilds it while the rest of
    the rows are listed), the rows (``rows``, the answer), then the run's timing (``timing``:
    the run's detail shows it right after the whole run is drawn, and reading 100k ISO times
    would delay that detail in the app). Each goes on from what the one before placed."""

    def __init__(
        self, doc: dict[str, Any], path: str | None, view: str, first_rows: int, facts: list[Any], total: Any
    ) -> None:
        self.doc, self.path, self.view, self.first_rows = doc, path, view, first_rows
        self.facts, self.total = facts, total
        self.run: OcpRun | None = None
        self.walk: RowWalk | None = None
        self.taken: list[Row] = []  # the rows taken from the walk so far

    def messages(self) -> tuple[list[Callable[[], bytes]], Callable[[], bytes], Callable[[], bytes]]:
        """``forked.start_child``'s ``first``, answer and ``then``."""
        return [self.first, self.run_part], self.rows, self.timing

    def place(self) -> tuple[OcpRun, RowWalk]:
        """The run read (with the attempts' facts and the run's total made before the fork, when
        they are its own), checked and placed, and the walk of its rows begun."""
        import gc

        from loomtui.formats.ocp import check as ocp_check
        from loomtui.formats.ocp import run as ocp
        from loomtui.formats.ocp.tree import RowWalk, place

        gc.disable()  # a short-lived process that frees nothing
        run = ocp.read_run(self.doc, self.path, self.view, lazy_facts=True)
        _take_early(self.doc, run, self.facts, self.total)  # else the facts are made as asked for
        ocp_check.attach_findings(run)
        self.run, self.walk, self.taken = run, RowWalk(run, place(run)), []
        return self.run, self.walk

    def first(self) -> bytes:
        """The first ``first_rows`` rows with their texts, then the rows their layout depends
        on (``ocp/tree.first_screen``); empty bytes when anything fails (``run_part`` then
        places the run anew)."""
        from loomtui.formats.ocp.tree import first_screen, rows_timestamp

        try:
            run, walk = self.place()
            shown, taken, pending = first_screen(walk, self.first_rows)
            rows = [(eid, parent, kind, make(run, rid)["content"]) for eid, parent, kind, make, rid in shown]
            rows += [(eid, parent, kind, "") for eid, parent, kind, _make, _rid in taken[len(shown) :] + pending]
            data = marshal.dumps((_PAYLOAD_VERSION, self.view, (rows, len(shown), walk.count, rows_timestamp(run))), 2)
        except Exception:
            self.run = self.walk = None
            return b""
        self.taken = taken
        return data

    def run_part(self) -> bytes:
        """The run placed, every retry included (``_packed_run``)."""
        run, walk = (self.run, self.walk) if self.run is not None and self.walk is not None else self.place()
        walk.finish()
        return marshal.dumps((_PAYLOAD_VERSION, self.view, _packed_run(self.doc, run)), 2)

    def rows(self) -> bytes:
        """Every row: those taken for the first screen, then the rest of the walk."""
        assert self.walk is not None
        return marshal.dumps((_PAYLOAD_VERSION, self.view, _packed_rows(self.walk.rows_after(self.taken))), 2)

    def timing(self) -> bytes:
        from loomtui.formats.ocp.text import run_timing

        assert self.run is not None
        t = run_timing(self.run)
        return marshal.dumps((t.first_start, t.last_end, t.agent_seconds), 2)


def _document(data: bytes, path: str) -> Any:
    """The document as ``formats.detect.open_any`` parses the same bytes: a file that is one
    line with ``line_value``, anything else (or a line it cannot read) with ``load_json``.
    Raises for what is neither."""
    from loomtui.formats.base.common import MAX_DOCUMENT_BYTES, load_json
    from loomtui.session.reader import line_value

    if len(data) > MAX_DOCUMENT_BYTES:
        raise ValueError("too big to be read as one document")
    nl = data.find(b"\n")
    value = line_value(data) if data.strip() and nl in (-1, len(data) - 1) else None
    return value if value is not None else load_json(data, path)


def _positions(items: Any, kept: list[Any]) -> list[int] | None:
    """Where the kept records sit in the document's list (None: all of them, in order)."""
    if len(kept) == len(items):
        return None
    where = {id(x): i for i, x in enumerate(items)}
    return [where[id(x)] for x in kept]


def _coded(values: Any) -> tuple[list[Any], bytes]:
    """Values that repeat (kinds) as a table and each one's number in it."""
    table = list(dict.fromkeys(values))
    number = {v: i for i, v in enumerate(table)}
    return table, array("I", map(number.__getitem__, values)).tobytes()


def _packed_run(doc: dict[str, Any], run: OcpRun) -> tuple[Any, ...]:
    """What the parent needs to rebuild ``run`` around its own parse: records by position, the
    rest as made (the attempts' facts were made before the fork)."""
    kept = []
    for key in _RECORD_LISTS:
        items = doc.get(key)
        n = len(items) if isinstance(items, list) else -1
        kept.append((n, _positions(items, list(getattr(run, key).values())) if n >= 0 else None))
    for key, kept_list in (("edges", run.edges), ("events", run.events)):
        items = doc.get(key)
        n = len(items) if isinstance(items, list) else -1
        kept.append((n, _positions(items, kept_list) if n >= 0 else None))
    graph = (
        dict(run.attempts_of),
        dict(run.group_members),
        dict(run.parents),
        dict(run.children),
        run.also_after,
        run.placed_under,
        run.retries,
    )
    return (run.version, kept, run.missing_nodes, graph, run.findings, run.checked, run.problems)


def _packed_rows(order: list[Row]) -> tuple[Any, ...]:
    """The rows as columns: ids, parents by row number (-1: none), kinds coded, makers by
    number, each row's subtree end (the rows are in pre-order: ``flat.subtree_ends``). No
    record ids: ``ocp/tree.RowWalk`` makes every row's id as a two-character prefix and its
    record id (the run row's as "run", no record id), and ``_rows`` takes them apart."""
    from loomtui.formats.ocp.tree import parent_numbers
    from loomtui.view.flat import subtree_ends

    makers = {make: i for i, make in enumerate(_makers())}
    # a column at a time (one C-level map each: faster than transposing with zip(*order))
    eids, parents, kinds, makes = (list(map(itemgetter(i), order)) for i in range(4))
    numbers = parent_numbers(eids, parents)
    parent_no = array("i", numbers).tobytes()
    ends = array("i", subtree_ends(numbers)).tobytes()
    return eids, parent_no, _coded(kinds), bytes(map(makers.__getitem__, makes)), ends


def _makers() -> list[Any]:
    """The row makers ``ocp/tree.row_order`` names, by number."""
    from loomtui.formats.ocp import text as T
    from loomtui.formats.ocp.tree import run_row

    return [run_row, T.group_entry, T.missing_node_entry, T.node_entry, T.attempt_entry]


# the parent -----------------------------------------------------------------------------------
def _facts(doc: dict[str, Any]) -> list[Any]:
    """Each attempt's facts by position (None for what is not an object), made before the fork:
    the child places the run with them, this process rebuilds it with them."""
    from loomtui.formats.ocp.text import facts_of

    items = doc.get("attempts")
    return [facts_of(a) if isinstance(a, dict) else None for a in items] if isinstance(items, list) else []


def _early_total(facts: list[Any]) -> Any:
    """The run's totals (on its first row) from every attempt's facts, made in document order
    (they do not depend on the order: ``ocp/text.totals_from``); None when an attempt is not
    an object. Only the run's when it keeps every attempt (``_keeps_all``), which its takers
    check."""
    from loomtui.formats.ocp.text import totals_from

    return None if None in facts else totals_from(facts)


#: records taken per step of ``_by_id`` (a few milliseconds each)
BY_ID_STEP = 5000


def _by_id(doc: dict[str, Any], ready: dict[str, Any]) -> Iterator[None]:
    """The node and attempt records by id into ``ready`` as they are when the run keeps all of
    them (the usual case; the rebuild checks them against the child's), a step at a time:
    made while this process waits for the child (``OcpSplit.by_id``)."""
    for key in ("nodes", "attempts"):
        items = doc.get(key)
        if not isinstance(items, list):
            continue
        ids: list[Any] = []
        try:
            for at in range(0, len(items), BY_ID_STEP):
                ids += [x["id"] for x in items[at : at + BY_ID_STEP]]
                yield
        except (TypeError, KeyError, IndexError):
            continue
        ready[key] = dict(zip(ids, items))


def _keeps_all(doc: dict[str, Any], run: OcpRun) -> bool:
    """The run keeps every node and attempt the document lists (what was made from the
    document's lists by position is then the run's)."""
    nodes, attempts = doc.get("nodes"), doc.get("attempts")
    return (
        isinstance(nodes, list)
        and isinstance(attempts, list)
        and len(run.nodes) == len(nodes)
        and len(run.attempts) == len(attempts)
    )


def _take_early(doc: dict[str, Any], run: OcpRun, facts: list[Any], total: Any) -> None:
    """Give ``run`` the facts and the total made before the fork, when they are its own."""
    if not _keeps_all(doc, run):
        return
    run.facts = dict(zip(run.attempts, facts))
    run.run_tot = total


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


def _rebuilt(
    doc: dict[str, Any],
    path: str,
    view: str,
    packed: tuple[Any, ...],
    facts: list[Any],
    total: Any,
    ready: dict[str, Any],
) -> OcpRun:
    """The run around ``doc`` from the child's ``packed``, the attempts' facts by position
    and the run's total made before the fork (taken when the run keeps every node and
    attempt), and the records by id (``_by_id``)."""
    from loomtui.formats.ocp.run import MadeOnRead, OcpRun
    from loomtui.formats.ocp.text import times_of

    version, kept, missing, graph, findings, checked, problems = packed
    run = OcpRun(doc=doc, path=path, version=version, view=view)
    r = doc.get("run")
    if isinstance(r, dict):
        run.run = r
    for key, (n, positions) in zip(_RECORD_LISTS, kept):
        records = _kept(doc.get(key), n, positions)
        by_id = ready.get(key) if positions is None and n >= 0 else None
        if by_id is None:
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
    run.times = MadeOnRead(run.attempts, times_of)
    run.missing_nodes = missing
    attempts_of, members, parents, children, run.also_after, run.placed_under, run.retries = graph
    run.attempts_of = defaultdict(list, attempts_of)
    run.group_members = defaultdict(list, members)
    run.parents = defaultdict(list, parents)
    run.children = defaultdict(list, children)
    run.findings = findings
    run.checked = checked
    run.problems = problems
    if _keeps_all(doc, run):
        run.run_tot = total
    return run


def _rows(run: OcpRun, packed: tuple[Any, ...]) -> tuple[OcpRun, Iterable[Row], list[int]]:
    """The run, its rows in order, made as they are read (``ocp/tree.make_rows`` reads them
    once), and their subtree ends."""
    eids, parents, kinds, maker_no, end_bytes = packed
    numbers = array("i")
    numbers.frombytes(parents)
    ends = array("i")
    ends.frombytes(end_bytes)
    if len(ends) != len(eids):
        raise ValueError("the document differs from the child's")
    parent_ids = list(map([*eids, None].__getitem__, numbers))
    rids = list(map(getitem, eids, repeat(_RECORD_ID)))  # C-level: "a:A1" -> "A1"
    at = maker_no.find(0)
    while at >= 0:  # the run's row ("run"): no record id
        rids[at] = ""
        at = maker_no.find(0, at + 1)
    makers = _makers()
    return (
        run,
        zip(eids, parent_ids, _uncoded(kinds), map(makers.__getitem__, maker_no), rids, strict=True),
        ends.tolist(),
    )
