"""Every session on the machine, one summary each: what the picker lists (docs/formats.md §1,
§3, §7.6). A file is never indexed here: ``session/scan.py`` reads what a summary needs from the
bytes. Summaries are cached by path, size, mtime and inode in
``$XDG_CACHE_HOME/loomtui/sessions.json``, so listing again reads only files that changed.
Projects and forks are in ``session/lineage.py``, full-text search in ``session/fulltext.py``,
where sessions live in ``session/locations.py``. No Textual here: the picker screen draws what
these modules return.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields, replace
from typing import Any

import orjson

from loomtui.session import agent_catalog, catalog_window
from loomtui.session.errors import LoomError
from loomtui.session.fileio import open_regular_file, read_regular
from loomtui.session.jsonvalue import dumps_bytes
from loomtui.session.locations import default_session_dirs, discover
from loomtui.session.scan import NO_MESSAGES, Counts, SessionScan, one_line, seconds

#: bumped whenever SessionSummary or the way it is computed changes (old caches are dropped)
CACHE_VERSION = 4


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """What the picker shows for a session (pi's ``SessionInfo``, docs/formats.md §7.6, plus branches).

    ``created`` is the header timestamp; ``modified`` the entry timestamp of the last message
    (pi: the newest message time), else the header time, else the file's mtime. Both are Unix
    seconds. ``parent_session`` is the header's ``parentSession`` (a path in pi, maybe an id in
    omp) or a v1 file's ``branchedFrom``.
    """

    path: str
    id: str
    cwd: str
    name: str | None
    first_message: str
    created: float
    modified: float
    message_count: int
    branch_count: int
    parent_session: str | None
    version: int
    entry_count: int
    size: int
    #: which tool wrote it: pi, omp, or the tool of the lister that read it (``agent_catalog.py``);
    #: ocp: an OCP run
    tool: str = "pi"
    #: read from a head and a tail window only (a huge file): the counts are estimates
    #: (session/catalog_window.py)
    partial: bool = False
    #: what one of these is called where they are counted ("3 sessions"; an OCP run: "run")
    noun: str = "session"
    #: what the picker shows instead of the message and branch point counts, where those are
    #: not what the file holds (an OCP run: its attempts' status counts and cost)
    figures: str | None = None

    @property
    def title(self) -> str:
        """The session's name, else its first user message."""
        return self.name or self.first_message


_FIELDS = tuple(f.name for f in fields(SessionSummary))


def summarize_bytes(path: str, buf: bytes, mtime: float) -> SessionSummary | None:
    """The summary of a session file whose bytes are ``buf`` (None when it is not a session)."""
    scan = SessionScan.of(buf)
    if scan is None:
        return agent_summary(path, buf, mtime)
    return _make_summary(path, scan, mtime, scan.counts())


def agent_summary(path: str, buf: bytes, mtime: float) -> SessionSummary | None:
    """Another agent's file's summary, from the row its tool's lister reads
    (``agent_catalog.py``); None for anything no lister claims."""
    lister = agent_catalog.lister_of(buf)
    if lister is None:
        return None
    row = lister.row(path, buf)
    if not row.id:
        return None
    created = seconds(row.created)
    created = mtime if math.isnan(created) else created
    modified = seconds(row.modified)
    return SessionSummary(
        path=path,
        id=str(row.id),
        cwd=row.cwd or "",
        name=one_line(row.name) if isinstance(row.name, str) else None,
        first_message=one_line(row.first_message) if row.first_message else NO_MESSAGES,
        created=created,
        modified=created if math.isnan(modified) else modified,
        message_count=row.message_count,
        branch_count=row.branch_count,
        parent_session=row.parent,
        version=0,
        entry_count=row.entry_count,
        size=len(buf),
        tool=lister.tool,
    )


def _make_summary(path: str, scan: SessionScan, mtime: float, counts: Counts) -> SessionSummary:
    name = counts.name
    header = scan.header
    if name is None:
        # omp: the title slot is rewritten in place on rename; older files keep it in the header
        for src in (scan.title, header):
            t = src.get("title") if src else None
            if isinstance(t, str) and t.strip():
                name = one_line(t)
                break
    created = seconds(header.get("timestamp"))
    if math.isnan(created):
        created = mtime
    modified = seconds(counts.last_message_ts)
    if math.isnan(modified) or modified < created:
        # pi's last activity; a fork or export copies older messages into a file made now, and
        # is not listed as modified before it was created (pi 1.6.0 sorts it by the copies)
        modified = created
    cwd = header.get("cwd")
    return SessionSummary(
        path=path,
        id=str(header.get("id")),
        cwd=cwd if isinstance(cwd, str) else "",
        name=name,
        first_message=scan.first_user_message(),
        created=created,
        modified=modified,
        message_count=counts.messages,
        branch_count=counts.branches,
        parent_session=parent_reference(header),
        version=scan.version,
        entry_count=counts.entries,
        size=len(scan.buf),
        tool="omp" if scan.title is not None else "pi",  # omp's title slot: omp wrote it, wherever it lies
    )


def summarize(path: str) -> SessionSummary | None:
    """Read and summarise one file (None when it is not a pi/omp v1–v3 session nor another
    agent's that a lister reads, ``agent_catalog.py``). A pi/omp file above
    ``catalog_window.WINDOW_LIMIT`` is read in two windows only."""
    path = os.path.abspath(path)
    summary: SessionSummary | None = None
    try:
        with open_regular_file(path) as f:
            st = os.fstat(f.fileno())
            if st.st_size > catalog_window.WINDOW_LIMIT:
                summary = catalog_window.summarize_windows(path, f, st.st_size, st.st_mtime, summarize_bytes)
            if summary is None:
                f.seek(0)
                summary = summarize_bytes(path, f.read(), st.st_mtime)
    except (OSError, LoomError):
        return None
    if summary is not None and summary.tool == "pi":
        omp = os.path.join(os.path.abspath(default_session_dirs()[1]), "")
        if path.startswith(omp):
            summary = replace(summary, tool="omp")
    return summary


def parent_reference(header: Any) -> str | None:
    """A header's ``parentSession`` (a path in pi, maybe an id in omp) or a v1 file's
    ``branchedFrom``; None when the session is not a fork."""
    if not isinstance(header, dict):
        return None
    for key in ("parentSession", "branchedFrom"):
        ref = header.get(key)
        if isinstance(ref, str) and ref.strip():
            return ref.strip()
    return None


# the cache --------------------------------------------------------------------------------


def cache_path(env: dict[str, str] | os._Environ[str] | None = None) -> str:
    env = os.environ if env is None else env
    base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "loomtui", "sessions.json")


class SummaryCache:
    """Summaries by path, valid while the file's (size, mtime_ns, inode) are unchanged."""

    def __init__(self, path: str | None = None) -> None:
        self.path = path or cache_path()
        self.rows: dict[str, list[Any]] = {}
        self.dirty = False
        try:
            data = orjson.loads(read_regular(self.path))
            if data.get("version") == CACHE_VERSION and data.get("fields") == list(_FIELDS):
                self.rows = data["sessions"]
        except (OSError, LoomError, ValueError, AttributeError, KeyError, TypeError):
            self.rows = {}

    def get(self, path: str, st: os.stat_result) -> tuple[bool, SessionSummary | None]:
        row = self.rows.get(path)
        if row is None or row[0] != st.st_size or row[1] != st.st_mtime_ns or row[2] != st.st_ino:
            return False, None
        values = row[3]
        if values is None:
            return True, None  # known not to be a session
        try:
            summary = SessionSummary(*values)
        except TypeError:
            return False, None
        if summary.partial and catalog_window.may_be_exact(path):
            return False, None  # estimated counts, and loomtui has indexed the file since
        return True, summary

    def put(self, path: str, st: os.stat_result, summary: SessionSummary | None) -> None:
        values = None if summary is None else [getattr(summary, f) for f in _FIELDS]
        self.rows[path] = [st.st_size, st.st_mtime_ns, st.st_ino, values]
        self.dirty = True

    def retain(self, keep: set[str], roots: list[str]) -> None:
        """Forget files under ``roots`` that were not listed this time (deleted sessions)."""
        prefixes = tuple(os.path.join(os.path.abspath(r), "") for r in roots)
        gone = [p for p in self.rows if p not in keep and p.startswith(prefixes)]
        for p in gone:
            del self.rows[p]
        if gone:
            self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        data = {"version": CACHE_VERSION, "fields": list(_FIELDS), "sessions": self.rows}
        directory = os.path.dirname(self.path)
        try:
            os.makedirs(directory, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".sessions-", suffix=".tmp", dir=directory)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(dumps_bytes(data))  # a lone surrogate in a first message is escaped
                os.replace(tmp, self.path)  # our own cache: replacing it is fine
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
        except OSError:
            return  # a read-only cache dir only costs speed
        self.dirty = False


def list_sessions(
    dirs: Iterable[str] | None = None,
    *,
    extra: Iterable[str] = (),
    cache: SummaryCache | bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> list[SessionSummary]:
    """Summaries of every session in ``dirs`` (default: pi's and omp's roots and the other
    agents' folders, ``agent_catalog.agent_roots``) plus ``extra``, newest ``modified`` first.
    ``progress(done, total)`` is called every 100 files read (not for cache hits), for a first
    listing of many large sessions."""
    roots = [os.path.abspath(os.path.expanduser(d)) for d in (default_session_dirs() if dirs is None else dirs)]
    roots += [os.path.abspath(os.path.expanduser(d)) for d in extra]
    store = SummaryCache() if cache is True else (cache or None)
    out: list[SessionSummary] = []
    listed: set[str] = set()
    paths = discover(roots)
    if dirs is None:
        # the other agents' own folders (each tool lays its files out its own way)
        for lister, root in agent_catalog.agent_roots():
            found = agent_catalog.session_files(root, lister.layout)
            if found:
                roots.append(os.path.abspath(root))
                paths += found
    read = 0
    for done, path in enumerate(paths):
        path = os.path.abspath(path)
        listed.add(path)
        try:
            st = os.stat(path)
        except OSError:
            continue
        if store is not None:
            hit, summary = store.get(path, st)
            if hit:
                if summary is not None:
                    out.append(summary)
                continue
        summary = summarize(path)
        if summary is not None:
            out.append(summary)
        if store is not None:
            store.put(path, st, summary)
        read += 1
        if progress is not None and read % 100 == 0:
            progress(done + 1, len(paths))
    if store is not None:
        store.retain(listed, roots)
        store.save()
    out.sort(key=lambda s: (-s.modified, s.path))
    return out
