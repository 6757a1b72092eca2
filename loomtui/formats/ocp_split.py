"""Opening a big OCP run on two CPUs: a forked child places it while the app starts.

The app spends its first few tenths of a second importing and starting Textual on one CPU.
For a big OCP document, ``prestart`` (called by ``loomtui FILE`` before Textual is imported,
so before any thread runs) reads and parses the file here, exactly as
``formats.detect.open_any`` would, then forks a child that shares the parsed document (the
fork copies nothing up front) and does the per-record work of ``ocp.place_run``: the records
kept, each node's attempts in order, the dependency graph, the placement of every node and
retry, the findings, the notes, and the rows in order (ids, parents, kinds, makers by number).
It packs that with marshal and hands it over a pipe; then it makes the run's timing (what the
run's detail shows: every attempt's start and end read) and sends that as a second message,
taken when the run's detail is first made (``OcpRun.timing_later``).

When the app opens the file, ``open_any`` takes the document parsed here (``parsed_before``:
only while the file is the same, by device, inode, size and modification time) instead of
reading it again, and ``placed_run`` rebuilds the ``OcpRun`` around it from the child's
positions and placement; this process makes every attempt's facts while the child works.
The result is used only for that very document and the same view; anything unexpected (no
child, a failed child, another file, a payload that does not fit) means the run is placed
here, as without a child. Either way the rows, details, notes and findings are the same
(tests compare them on every fixture, on bad documents and on a generated run, both views).
"""

from __future__ import annotations

import marshal
import os
from itertools import repeat
from operator import getitem, itemgetter
from array import array
from collections.abc import Callable, Iterable, Iterator
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from loomtui.session.fileio import open_big
from loomtui.session.forked import ForkedChild, can_fork, start_child

if TYPE_CHECKING:
    from loomtui.formats.ocp import OcpRun
    from loomtui.formats.ocp_tree import Row

#: smaller runs open fast enough in one process
MIN_BYTES = 4 << 20
#: how much of the file's start ``prestart`` looks at to guess that it is an OCP document
#: before parsing it (what decides is the content: a parsed object with an ``ocp`` key)
SNIFF_BYTES = 64 << 10
_PAYLOAD_VERSION = 4
#: a row's record id in its entry id ("n:" + node id, …)
_RECORD_ID = slice(2, None)
#: list-valued members of the document whose records the run keeps (by position)
_RECORD_LISTS = ("groups", "nodes", "attempts", "artifacts")
#: children started before the app's threads, by absolute path (``prestart``; ``parsed_before``
#: and ``placed_run`` take what they hold)
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

    def __init__(self, path: str, view: str, pid: int, read_fd: int, parsed: Parsed) -> None:
        self.path = path
        self.view = view
        self.parsed: Parsed | None = parsed
        super().__init__(pid, read_fd)

    @classmethod
    def start(cls, path: str, view: str = "dag", min_bytes: int = MIN_BYTES) -> OcpSplit | None:
        """Read and parse ``path`` here, then fork the child that places it, when it is a regular
        file of at least ``min_bytes`` that is an OCP document (None otherwise, or when no fork
        is possible). The child shares the parsed document (copy-on-write): one parse for both."""
        if not can_fork():
            return None
        parsed = _read(path, min_bytes)
        if parsed is None:
            return None
        from loomtui.formats import ocp, ocp_check, ocp_tree  # noqa: F401 - what the child runs

        if not ocp.looks_like_ocp(parsed.doc):
            return None
        try:
            place, timing = _child_work(parsed.doc, path, view)
            pid, read_fd = start_child(place, then=timing)
        except OSError:
            return None
        return cls(os.path.abspath(path), view, pid, read_fd, parsed)

    def timing(self) -> Any | None:
        """The run's timing (``ocp_text.Timing``) the child made after its answer, or None."""
        from loomtui.formats.ocp_text import Timing

        try:
            data = self.then()
            if data is None:
                return None
            first_start, last_end, agent_seconds = marshal.loads(data)
            return Timing(float(first_start), float(last_end), float(agent_seconds))
        except (OSError, EOFError, ValueError, TypeError):
            return None

    def collect(self, idle: Iterator[None] | None = None) -> Any | None:
        """Wait for the child (doing ``idle``'s steps meanwhile, ``forked.child_output``); its
        payload (unpacked by marshal), or None when it failed."""
        data = self.output(idle=idle, keep=True)  # the run's timing follows
        if data is None:
            return None
        try:
            payload = marshal.loads(data)
        except (EOFError, ValueError, TypeError):
            return None
        return payload if isinstance(payload, tuple) and payload and payload[0] == _PAYLOAD_VERSION else None



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


def placed_run(doc: dict[str, Any], path: str, view: str,
               fid: FileId | None) -> tuple[OcpRun, Iterable[Row], list[int]] | None:
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
    ready = _prepared(doc)  # while the child places the run
    totals = EarlyTotals()
    steps = _totals_steps(doc, ready["facts"], totals)
    payload = split.collect(idle=steps)  # the totals, as far as the wait allows (the rows make the rest)
    placed = None
    if payload is not None and payload[1] == view:
        try:
            placed = _rebuilt(doc, path, view, payload[2], ready, totals)
        except (KeyError, IndexError, TypeError, ValueError):  # not this document's
            pass
    if placed is None:
        split.cancel()
        return None
    for earlier in _timing_due:  # one child at most waits to be asked (the latest run's)
        earlier.cancel()
    _timing_due[:] = [split]
    placed[0].timing_later = split.timing  # the first to show the run's timing takes it (ocp_text.run_timing)
    return placed


# the child ------------------------------------------------------------------------------------
def _child_work(doc: dict[str, Any], path: str, view: str) -> tuple[Callable[[], bytes], Callable[[], bytes]]:
    """What the child does: place the run (``_place_in_child``, its answer), then make the
    run's timing (its second message: the run's detail shows it right after the first paint,
    and reading 100k ISO times would delay that detail in the app)."""
    placed: list[Any] = []

    def place() -> bytes:
        return _place_in_child(doc, path, view, placed)

    def timing() -> bytes:
        from loomtui.formats.ocp_text import run_timing

        t = run_timing(placed[0])
        return marshal.dumps((t.first_start, t.last_end, t.agent_seconds), 2)

    return place, timing


def _place_in_child(doc: dict[str, Any], path: str, view: str, out: list[Any] | None = None) -> bytes:
    """In the child: place the run parsed before the fork, pack what the parent needs to
    rebuild it around the same document (``out`` gets the run)."""
    import gc

    from loomtui.formats import ocp

    gc.disable()  # a short-lived process that frees nothing
    run, order = ocp.place_run(doc, path, view, lazy_facts=True)  # the parent makes the facts meanwhile
    if out is not None:
        out.append(run)
    return marshal.dumps((_PAYLOAD_VERSION, view, _packed(doc, run, order)), 2)


def _document(data: bytes, path: str) -> Any:
    """The document as ``formats.detect.open_any`` parses the same bytes: a file that is one
    line with ``line_value``, anything else (or a line it cannot read) with ``load_json``.
    Raises for what is neither."""
    from loomtui.formats.common import MAX_DOCUMENT_BYTES, load_json
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
    number, each row's subtree end (the rows are in pre-order: ``flat.subtree_ends``). No
    record ids: ``ocp_tree._children`` makes every row's id as a two-character prefix and its
    record id (the run row's as "run", no record id), and ``_rows`` takes them apart."""
    from loomtui.formats.ocp_tree import parent_numbers
    from loomtui.view.flat import subtree_ends

    makers = {make: i for i, make in enumerate(_makers())}
    # a column at a time (one C-level map each: faster than transposing with zip(*order))
    eids, parents, kinds, makes = (list(map(itemgetter(i), order)) for i in range(4))
    numbers = parent_numbers(eids, parents)
    parent_no = array("i", numbers).tobytes()
    ends = array("i", subtree_ends(numbers)).tobytes()
    return eids, parent_no, _coded(kinds), bytes(map(makers.__getitem__, makes)), ends


def _makers() -> list[Any]:
    """The row makers ``ocp_tree.row_order`` names, by number."""
    from loomtui.formats import ocp_text as T
    from loomtui.formats.ocp_tree import run_row

    return [run_row, T.group_entry, T.missing_node_entry, T.node_entry, T.attempt_entry]



# the parent -----------------------------------------------------------------------------------
def _prepared(doc: dict[str, Any]) -> dict[str, Any]:
    """What the rebuild needs that this process can make before the child's result: each
    attempt's facts by position, and the node and attempt records by id as they are when the
    child kept all of them (the usual case)."""
    from loomtui.formats.ocp_text import facts_of

    items = doc.get("attempts")
    facts = [facts_of(a) if isinstance(a, dict) else None for a in items] if isinstance(items, list) else []
    ready: dict[str, Any] = {"facts": facts}
    for key in ("nodes", "attempts"):
        items = doc.get(key)
        try:
            ready[key] = dict(zip([x["id"] for x in items], items))  # checked against the child's
        except (TypeError, KeyError, IndexError):
            pass
    return ready


#: attempts taken per step of ``_totals_steps`` (a few milliseconds each)
TOTALS_STEP = 5000


@dataclass
class EarlyTotals:
    """What ``_totals_steps`` made while the child worked (None or missing: not made)."""

    run: Any = None
    groups: dict[str, Any] = field(default_factory=dict)


def _totals_steps(doc: dict[str, Any], facts: list[Any], out: EarlyTotals) -> Iterator[None]:
    """The totals of the run (first: its row is the first drawn), then of the groups (their
    folders are on the first screen too), made from the attempts' facts a step at a time
    while the child places the run (as far as the wait allows: the rows make the rest when
    shown). They are made in document order (they do not depend on the order:
    ``ocp_text.totals_from``) and are only right when the run keeps every node and attempt,
    which ``_rebuilt`` checks before it takes them; on anything unusual they are left unmade
    (the rows make their own)."""
    from loomtui.formats.ocp_text import totals_from

    attempts, nodes = doc.get("attempts"), doc.get("nodes")
    if not isinstance(attempts, list) or not isinstance(nodes, list) or len(facts) != len(attempts) or None in facts:
        return
    out.run = totals_from(facts)  # the run's, on its first row
    yield
    try:
        group_of = {n["id"]: g for n in nodes if type(g := n.get("group")) is str}
    except (TypeError, KeyError, AttributeError):
        return
    by_group: dict[str, list[Any]] = defaultdict(list)
    for at in range(0, len(attempts), TOTALS_STEP):
        for a, f in zip(attempts[at : at + TOTALS_STEP], facts[at : at + TOTALS_STEP]):
            nid = a.get("node")
            g = group_of.get(nid) if type(nid) is str else None
            if g is not None:
                by_group[g].append(f)
        yield
    for gid, group_facts in by_group.items():
        out.groups[gid] = totals_from(group_facts)
        yield


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


def _rebuilt(doc: dict[str, Any], path: str, view: str, packed: tuple[Any, ...], ready: dict[str, Any],
             totals: EarlyTotals | None = None) -> tuple[OcpRun, Iterable[Row], list[int]]:
    """The run around ``doc`` from the child's ``packed``, what ``_prepared`` made and the
    totals ``_totals_steps`` made (taken when the run keeps every node and attempt)."""
    from loomtui.formats.ocp import MadeOnRead, OcpRun
    from loomtui.formats.ocp_text import times_of

    version, kept, missing, graph, findings, checked, problems, rows = packed
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
    facts = ready["facts"]
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
    if totals is not None and kept[1][1] is None and kept[2][1] is None and kept[1][0] >= 0 and kept[2][0] >= 0:
        run.run_tot = totals.run
        run.group_tot = {gid: t for gid, t in totals.groups.items() if gid in run.groups}
    return _rows(run, rows)


def _rows(run: OcpRun, packed: tuple[Any, ...]) -> tuple[OcpRun, Iterable[Row], list[int]]:
    """The run, its rows in order, made as they are read (``ocp_tree.make_rows`` reads them
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
    return run, zip(eids, parent_ids, _uncoded(kinds), map(makers.__getitem__, maker_no), rids, strict=True), \
        ends.tolist()
