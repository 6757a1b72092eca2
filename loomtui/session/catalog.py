"""Every session on the machine: where they live, one summary each, projects, forks, search.

docs/formats.md §1 (locations), §3 (header), §7.6 (what pi's ``SessionManager.list`` computes).
No Textual here: the picker screen draws what this module returns.

Listing must stay fast with thousands of sessions, so a file is never indexed here. The
header, the omp title slot and the first user message come from the first lines; the counts
(messages, entries, branch points) and the latest name come from C-speed ``bytes.count`` and
``re.findall`` passes over the bytes, relying on pi writing ``type``, ``id``, ``parentId``,
``timestamp`` first on every line (docs/formats.md §2 rule 5); only the lines that need it are decoded
(payload-first ``custom`` lines, the latest ``session_info``, the last message). Files laid
out otherwise take slower, exact paths. Summaries are cached by path, size, mtime and inode in
``$XDG_CACHE_HOME/loomtui/sessions.json``, so listing again reads only files that changed.
"""

from __future__ import annotations

import math
import os
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, fields, replace
from typing import Any

import orjson

from loomtui.session import agent_catalog, catalog_window
from loomtui.session.errors import LoomError
from loomtui.session.fileio import open_regular_file
from loomtui.session.entries import content_text
from loomtui.session.index import timestamp_ms
from loomtui.session.jsstr import session_version

#: bumped whenever SessionSummary or the way it is computed changes (old caches are dropped)
CACHE_VERSION = 2
NO_MESSAGES = "(no messages)"
#: characters of the first user message kept in a summary (pi's /resume shows one line)
FIRST_MESSAGE_CAP = 200


# where sessions live ----------------------------------------------------------------------


def _agent_dir(env_name: str, default: str, env: dict[str, str] | os._Environ[str]) -> str:
    """``$<APP>_CODING_AGENT_DIR`` with a leading ``~`` expanded, else ``default`` (docs/formats.md §1.1)."""
    value = env.get(env_name)
    if value:
        return os.path.expanduser(value) if value.startswith("~") else value
    return os.path.expanduser(default)


def default_session_dirs(env: dict[str, str] | os._Environ[str] | None = None) -> list[str]:
    """pi's and omp's sessions roots (whether or not they exist)."""
    env = os.environ if env is None else env
    return [
        os.path.join(_agent_dir("PI_CODING_AGENT_DIR", "~/.pi/agent", env), "sessions"),
        os.path.join(_agent_dir("OMP_CODING_AGENT_DIR", "~/.omp/agent", env), "sessions"),
    ]


def sample_dir() -> str:
    """The bundled ``sample_sessions/`` directory (what the app shows on a machine without any)."""
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (
        os.path.join(os.path.dirname(here), "sample_sessions"),  # inside an installed wheel
        os.path.join(os.path.dirname(os.path.dirname(here)), "sample_sessions"),  # source tree
    ):
        if os.path.isdir(candidate):
            return candidate
    return os.path.join(os.path.dirname(os.path.dirname(here)), "sample_sessions")


def pi_session_dir(cwd: str, env: dict[str, str] | os._Environ[str] | None = None) -> str:
    """pi's session directory for a project (``getDefaultSessionDir``): ``--<cwd>--`` under
    its sessions root, the leading separator dropped and the others turned into ``-``."""
    env = os.environ if env is None else env
    body = cwd[1:] if cwd[:1] in ("/", "\\") else cwd
    safe = "--" + re.sub(r"[/\\:]", "-", body) + "--"
    return os.path.join(_agent_dir("PI_CODING_AGENT_DIR", "~/.pi/agent", env), "sessions", safe)


def export_dir(source: str | None, cwd: Any) -> str:
    """Where a branch export goes unless the user says otherwise: next to its source, but never
    into the bundled samples (the install) nor a directory that cannot be written: there pi's
    session directory for the session's cwd (pi lists it with the project), else the current
    directory."""
    if source:
        here = os.path.dirname(os.path.abspath(source))
        inside_samples = os.path.realpath(here) == os.path.realpath(sample_dir())
        if not inside_samples and os.access(here, os.W_OK):
            return here
    if isinstance(cwd, str) and cwd.strip():
        return pi_session_dir(cwd)
    return os.getcwd()


def discover(dirs: Iterable[str]) -> list[str]:
    """Session files in ``dirs``: ``*.jsonl`` directly inside each, and one level of bucket dirs.

    pi's ``listAll`` reads ``<root>/--<cwd>--/*.jsonl``; omp's newer buckets are named
    ``-<rel>`` or ``-tmp-<rel>`` (docs/formats.md §1.2), and a directory given with ``--sessions-dir`` may
    hold files directly. An omp session's artifacts directory (the session path without
    ``.jsonl``, holding subagent transcripts) is not a bucket and is skipped. Each file is
    listed once, however many of ``dirs`` reach it.
    """
    seen: set[str] = set()
    out: list[str] = []

    def add(real_dir: str, path: str) -> None:
        # resolving the directory, not each file, keeps this to one realpath per bucket
        key = os.path.join(real_dir, os.path.basename(path))
        if key not in seen:
            seen.add(key)
            out.append(path)

    for root in dirs:
        root = os.path.abspath(os.path.expanduser(root))
        try:
            with os.scandir(root) as it:
                items = sorted(it, key=lambda d: d.name)
        except OSError:
            continue
        real_root = os.path.realpath(root)
        names = {d.name for d in items}
        for d in items:
            if d.name.startswith("."):
                continue
            if d.name.endswith(".jsonl"):
                if d.is_file():
                    add(real_root, d.path)
            elif d.is_dir() and d.name + ".jsonl" not in names:
                try:
                    with os.scandir(d.path) as inner:
                        files = sorted(
                            f.path for f in inner if f.name.endswith(".jsonl") and not f.name.startswith(".") and f.is_file()
                        )
                except OSError:
                    continue
                real_dir = os.path.realpath(d.path)
                for f in files:
                    add(real_dir, f)
    return out


# one summary per session ------------------------------------------------------------------


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
    #: which tool wrote it: pi, omp, claude-code or codex
    tool: str = "pi"
    #: read from a head and a tail window only (a huge file): the counts are estimates
    #: (session/catalog_window.py)
    partial: bool = False

    @property
    def title(self) -> str:
        """The session's name, else its first user message."""
        return self.name or self.first_message


_FIELDS = tuple(f.name for f in fields(SessionSummary))

#: the start of an entry line as pi writes it (docs/formats.md §2 rule 5); whitespace tolerated for
#: writers that use ``json.dumps`` defaults
_HEAD = (
    rb'\{\s*"type"\s*:\s*"([^"\\]*)"'
    rb'(?:\s*,\s*"id"\s*:\s*"([^"\\]*)"\s*,\s*"parentId"\s*:\s*(?:"([^"\\]*)"|(null))'
    rb'(?:\s*,\s*"timestamp"\s*:\s*"([^"\\]*)")?)?'
)
#: searched from the newline before each line: a literal prefix scans ten times faster than ``^``
_ENTRY_HEAD = re.compile(rb"\n" + _HEAD)
_LINE_HEAD = re.compile(_HEAD)
_USER_ROLE = re.compile(rb'"role"\s*:\s*"user"')
_ONE_LINE = re.compile(r"\s+")


def _loads(raw: bytes) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None


def _line_at(buf: bytes, pos: int) -> tuple[int, int]:
    """(start, end) of the line holding ``pos`` (end excludes the newline)."""
    start = buf.rfind(b"\n", 0, pos) + 1
    end = buf.find(b"\n", pos)
    return start, (len(buf) if end < 0 else end)


def _seconds(value: Any) -> float:
    ms = timestamp_ms(value)
    return ms / 1000.0 if not math.isnan(ms) else math.nan


def one_line(text: str, cap: int = FIRST_MESSAGE_CAP) -> str:
    return _ONE_LINE.sub(" ", text[: cap * 2]).strip()[:cap].rstrip()


def _joined_text(content: Any) -> str:
    """pi's ``extractTextContent`` for session listings: a string, or text blocks joined by spaces."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        )
    return ""


def _first_user_message(buf: bytes, start: int) -> str:
    """The first user message's text (pi's ``firstMessage``), found without parsing every line."""
    pos = start
    for _ in range(1000):
        m = _USER_ROLE.search(buf, pos)
        if m is None:
            break
        ls, le = _line_at(buf, m.start())
        obj = _loads(buf[ls:le])
        if isinstance(obj, dict) and obj.get("type") == "message":
            msg = obj.get("message")
            if isinstance(msg, dict) and msg.get("role") == "user":
                text = one_line(_joined_text(msg.get("content")))
                if text:
                    return text
        pos = le + 1
    return NO_MESSAGES


def _header(buf: bytes) -> tuple[dict[str, Any], dict[str, Any] | None, int] | None:
    """(header, omp title slot, offset after the header line), or None for a non-session."""
    pos = 3 if buf.startswith(b"\xef\xbb\xbf") else 0
    title = None
    for _ in range(2):
        # skip blank lines before the header, as pi's trim() does
        while pos < len(buf) and buf[pos : pos + 1] in (b"\n", b"\r", b" ", b"\t"):
            pos += 1
        end = buf.find(b"\n", pos)
        end = len(buf) if end < 0 else end
        obj = _loads(buf[pos:end])
        if not isinstance(obj, dict):
            return None
        if obj.get("type") == "title" and title is None:
            title = obj
            pos = end + 1
            continue
        if obj.get("type") == "session" and isinstance(obj.get("id"), str):
            return obj, title, end + 1
        return None
    return None


#: the header of a file from its first bytes (session/catalog_window.py reads a window)
header_of = _header


def summarize_bytes(path: str, buf: bytes, mtime: float) -> SessionSummary | None:
    """The summary of a session file whose bytes are ``buf`` (None when it is not a session)."""
    head = _header(buf)
    if head is None:
        return agent_catalog.summary(path, buf, mtime)
    header, title_slot, body = head
    version = session_version(header.get("version"))
    counts = _scan_compact(buf, body, version) or _scan_lines(buf, body, version) or _scan_slow(buf, body, version)
    name, messages, entries, branch_count, last_message_ts = counts
    return _make_summary(
        path, buf, body, header, title_slot, version, mtime, name, messages, entries, branch_count, last_message_ts
    )


#: (latest session name, message count, entry count, branch count, last message timestamp)
_Counts = tuple[str | None, int, int, int, Any]

#: a line in pi's layout: type, id, parentId first (the parent captured; empty for null)
_STD_PARENT = re.compile(rb'\n\{"type":"[^"\\]*","id":"[^"\\]*","parentId":(?:"([^"\\]*)"|null)')
#: pi writes custom / custom_message payload keys before id and parentId
_PAYLOAD_FIRST = re.compile(rb'\n\{"type":"custom(?:_message)?","customType"')


def _branch_count(parents: list[Any]) -> int:
    return sum(1 for c in Counter(parents).values() if c > 1)


def _name_of(obj: Any) -> str | None:
    """pi-new: the latest session_info wins and an empty name clears (as the index does)."""
    n = obj.get("name") if isinstance(obj, dict) else None
    return n.strip() or None if isinstance(n, str) else None


def _scan_compact(buf: bytes, body: int, version: int) -> _Counts | None:
    """Counts for a file laid out as pi writes it (``{"type":…,"id":…,"parentId":…`` on every
    line, payload first for custom entries), using C-speed ``count`` and ``findall``; decodes
    only custom lines, the latest session_info and the last message. None when some line looks
    different (blank lines, spaces, another key order, a second header, v1 files)."""
    start = body - 1  # the newline ending the header line
    stop = len(buf) - 1 if buf.endswith(b"\n") else len(buf)
    if start >= stop:
        return None, 0, 0, 0, None
    if version < 2:
        return None
    lines = buf.count(b"\n", start, stop)
    parents: list[Any] = _STD_PARENT.findall(buf, start)
    if len(parents) != lines:
        custom = list(_PAYLOAD_FIRST.finditer(buf, start))
        if len(parents) + len(custom) != lines:
            return None
        for m in custom:
            ls, le = _line_at(buf, m.start() + 1)
            obj = _loads(buf[ls:le])
            p = obj.get("parentId") if isinstance(obj, dict) else None
            if isinstance(p, str):
                parents.append(p.encode())
    counter = Counter(parents)
    counter.pop(b"", None)  # roots
    branches = sum(1 for c in counter.values() if c > 1)
    messages = buf.count(b'\n{"type":"message"', start)
    name = None
    at = buf.rfind(b'\n{"type":"session_info"', start)
    if at >= 0:
        ls, le = _line_at(buf, at + 1)
        name = _name_of(_loads(buf[ls:le]))
    last_ts = None
    at = buf.rfind(b'\n{"type":"message"', start)
    if at >= 0:
        head = _LINE_HEAD.match(buf, at + 1)
        if head is not None and head.group(5) is not None:
            last_ts = head.group(5).decode()
        else:
            ls, le = _line_at(buf, at + 1)
            obj = _loads(buf[ls:le])
            last_ts = obj.get("timestamp") if isinstance(obj, dict) else None
    return name, messages, lines, branches, last_ts


# radon rates this D: kept in one piece on purpose. It runs once per line of every listed session over a whole
# session (100k entries); a helper call per branch adds measurable time there
# (benchmarks/bench_tree.py, bench_open.py, bench_app.py). docs/architecture.md, "Where each rule lives".
def _scan_lines(buf: bytes, body: int, version: int) -> _Counts | None:
    """Counts from the start of each line (tolerates spaces, blank lines and key orders by
    decoding the lines it cannot read from their start); None when a line does not start
    with ``{"type"`` at all."""
    messages = 0
    entries = 0
    name: str | None = None
    last_message_ts: Any = None
    last_message_at = -1
    parents: list[Any] = []
    matched = 0
    for m in _ENTRY_HEAD.finditer(buf, body - 1):
        matched += 1
        etype = m.group(1)
        if etype == b"session" or etype == b"title":
            continue
        entries += 1
        eid = m.group(2)
        if eid is None or etype == b"session_info":
            # payload keys first (custom, custom_message), another writer's key order, or a line
            # whose content we need: decode this one line
            if version < 2 and etype != b"session_info":
                if etype == b"message":
                    messages += 1
                    last_message_at = m.start() + 1
                continue
            ls, le = _line_at(buf, m.start() + 1)
            obj = _loads(buf[ls:le])
            if not isinstance(obj, dict):
                entries -= 1
                continue
            if etype == b"session_info":
                name = _name_of(obj)
            p = obj.get("parentId")
            if isinstance(p, str) and version >= 2:
                parents.append(p.encode())
            if etype == b"message":
                messages += 1
                last_message_ts = obj.get("timestamp")
                last_message_at = -1
            continue
        parent = m.group(3)
        if parent is not None:
            parents.append(parent)
        if etype == b"message":
            messages += 1
            ts = m.group(5)
            if ts is not None:
                last_message_ts = ts.decode()
                last_message_at = -1
            else:
                last_message_at = m.start() + 1

    lines = buf.count(b"\n", body) + (0 if buf.endswith(b"\n") else 1)
    if matched < lines and _has_unmatched_lines(buf, body):
        return None
    if last_message_at >= 0:
        ls, le = _line_at(buf, last_message_at)
        obj = _loads(buf[ls:le])
        if isinstance(obj, dict):
            last_message_ts = obj.get("timestamp")
    return name, messages, entries, _branch_count(parents), last_message_ts


def _has_unmatched_lines(buf: bytes, body: int) -> bool:
    """True when a non-blank line does not start like an entry (another writer's key order)."""
    for line in buf[body:].split(b"\n"):
        s = line.strip()
        if s and not _LINE_HEAD.match(s):
            return True
    return False


def _scan_slow(buf: bytes, body: int, version: int) -> _Counts:
    """Decode every line: for files not written in pi's key order."""
    messages = entries = 0
    name = None
    last_ts = None
    parents: list[str] = []
    for line in buf[body:].split(b"\n"):
        if not line.strip():
            continue
        obj = _loads(line)
        if not isinstance(obj, dict) or obj.get("type") in ("session", None):
            continue
        entries += 1
        t = obj.get("type")
        p = obj.get("parentId")
        if version >= 2 and isinstance(p, str):
            parents.append(p)
        if t == "message":
            messages += 1
            last_ts = obj.get("timestamp")
        elif t == "session_info":
            name = _name_of(obj)
    return name, messages, entries, _branch_count(parents), last_ts


def _make_summary(
    path: str,
    buf: bytes,
    body: int,
    header: dict[str, Any],
    title_slot: dict[str, Any] | None,
    version: int,
    mtime: float,
    name: str | None,
    messages: int,
    entries: int,
    branch_count: int,
    last_message_ts: Any,
) -> SessionSummary:
    if name is None:
        # omp: the title slot is rewritten in place on rename; older files keep it in the header
        for src in (title_slot, header):
            t = src.get("title") if src else None
            if isinstance(t, str) and t.strip():
                name = one_line(t)
                break
    created = _seconds(header.get("timestamp"))
    if math.isnan(created):
        created = mtime
    modified = _seconds(last_message_ts)
    if math.isnan(modified):
        modified = created
    cwd = header.get("cwd")
    parent = parent_reference(header)
    return SessionSummary(
        path=path,
        id=str(header.get("id")),
        cwd=cwd if isinstance(cwd, str) else "",
        name=name,
        first_message=_first_user_message(buf, body),
        created=created,
        modified=modified,
        message_count=messages,
        branch_count=branch_count,
        parent_session=parent,
        version=version,
        entry_count=entries,
        size=len(buf),
    )


def summarize(path: str) -> SessionSummary | None:
    """Read and summarise one file (None when it is not a pi/omp v1–v3, Claude Code or Codex
    session). A pi/omp file above ``catalog_window.WINDOW_LIMIT`` is read in two windows only."""
    path = os.path.abspath(path)
    summary: SessionSummary | None = None
    try:
        with open_regular_file(path) as f:
            st = os.fstat(f.fileno())
            if st.st_size > catalog_window.WINDOW_LIMIT:
                summary = catalog_window.summarize_windows(path, f, st.st_size, st.st_mtime)
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
            with open(self.path, "rb") as f:
                data = orjson.loads(f.read())
            if data.get("version") == CACHE_VERSION and data.get("fields") == list(_FIELDS):
                self.rows = data["sessions"]
        except (OSError, ValueError, AttributeError, KeyError, TypeError):
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
                    f.write(orjson.dumps(data))
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
    """Summaries of every session in ``dirs`` (default: pi's and omp's roots) plus ``extra``,
    newest ``modified`` first. ``progress(done, total)`` is called every 100 files read (not
    for cache hits), for a first listing of many large sessions."""
    roots = [os.path.abspath(os.path.expanduser(d)) for d in (default_session_dirs() if dirs is None else dirs)]
    roots += [os.path.abspath(os.path.expanduser(d)) for d in extra]
    store = SummaryCache() if cache is True else (cache or None)
    out: list[SessionSummary] = []
    listed: set[str] = set()
    paths = discover(roots)
    if dirs is None:
        # Claude Code's and Codex's own folders (their layouts differ from pi's)
        for tool, root in agent_catalog.agent_roots():
            found = agent_catalog.discover_agent(tool, root)
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


# projects and forks -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ProjectGroup:
    """The sessions of one working directory, threaded: each item is (summary, fork depth)."""

    cwd: str
    items: tuple[tuple[SessionSummary, int], ...]

    @property
    def newest(self) -> float:
        return max(s.modified for s, _d in self.items)


class Lineage:
    """Finds a session's parent among listed sessions: by path, by id (omp stores the parent's
    id), else by file name (pi's ``<ts>_<id>.jsonl`` is unique, so a parent path recorded on
    another machine or before a move still resolves)."""

    def __init__(self, sessions: Iterable[SessionSummary]) -> None:
        self.by_path: dict[str, SessionSummary] = {}
        self.by_id: dict[str, SessionSummary] = {}
        self.by_name: dict[str, SessionSummary] = {}
        for s in sessions:
            self.by_path.setdefault(os.path.normpath(s.path), s)
            self.by_id.setdefault(s.id, s)
            self.by_name.setdefault(os.path.basename(s.path), s)

    def parent_of(self, s: SessionSummary) -> SessionSummary | None:
        ref = s.parent_session
        if not ref:
            return None
        hit = (
            self.by_path.get(os.path.normpath(os.path.expanduser(ref)))
            or self.by_id.get(ref)
            or (self.by_name.get(os.path.basename(ref)) if ref.endswith(".jsonl") else None)
        )
        return hit if hit is not None and hit is not s else None


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


def resolve_parent(ref: str | None, near: str | None, sessions: Iterable[SessionSummary]) -> str | None:
    """The one parent resolver: the file a ``parentSession`` reference means (docs/formats.md §3, §16 item
    6). The path itself when it exists (a relative one next to ``near``), else one of
    ``sessions`` with that path, that id (omp) or that file name (a pi path from before a move);
    never ``near`` itself."""
    if not ref:
        return None
    p = os.path.expanduser(ref)
    if not os.path.isabs(p) and near:
        p = os.path.join(os.path.dirname(os.path.abspath(near)), p)
    if p.endswith(".jsonl") and os.path.isfile(p):
        return os.path.abspath(p)
    probe = SessionSummary(near or "", "", "", None, "", 0.0, 0.0, 0, 0, ref, 3, 0, 0)
    hit = Lineage(sessions).parent_of(probe)
    if hit is None or (near and os.path.normpath(hit.path) == os.path.normpath(near)):
        return None
    return hit.path


def parent_path(s: SessionSummary, sessions: Iterable[SessionSummary]) -> str | None:
    """The file of ``s``'s parent session, among the listed ``sessions`` or on disk."""
    return resolve_parent(s.parent_session, s.path, sessions)


def find_session_file(ref: str, near: str | None = None, dirs: Iterable[str] | None = None) -> str | None:
    """``resolve_parent`` over the sessions in ``dirs`` (default: pi's and omp's roots and Claude
    Code's and Codex's folders, where a Codex fork's ``forked_from_id`` and a Claude ``/branch``
    file's source are found by id) and ``near``'s directory, read only when the reference is not
    an existing path. For a browser's "open parent session"."""
    direct = resolve_parent(ref, near, ())
    if direct is not None or not ref:
        return direct
    extra = [os.path.dirname(os.path.abspath(near))] if near else []
    return resolve_parent(ref, near, list_sessions(None if dirs is None else list(dirs), extra=extra))


def group_sessions(sessions: Iterable[SessionSummary]) -> list[ProjectGroup]:
    """Sessions grouped by the header's cwd (never the bucket name, docs/formats.md §1.1), the project with
    the newest session first; in a project, newest first with forks threaded under their parent
    session (pi's /resume "threaded" view) when the parent is in the same project."""
    sessions = list(sessions)
    lineage = Lineage(sessions)
    by_cwd: dict[str, list[SessionSummary]] = {}
    for s in sessions:
        by_cwd.setdefault(s.cwd, []).append(s)
    groups: list[ProjectGroup] = []
    for cwd, members in by_cwd.items():
        member_paths = {s.path for s in members}
        kids: dict[str, list[SessionSummary]] = {}
        roots: list[SessionSummary] = []
        for s in members:
            p = lineage.parent_of(s)
            if p is not None and p.path in member_paths and not _forks_back(s, lineage):
                kids.setdefault(p.path, []).append(s)
            else:
                roots.append(s)
        newest: dict[str, float] = {}

        def thread_newest(s: SessionSummary, depth: int = 0) -> float:
            """A thread is as recent as its newest session (forks keep a thread on top)."""
            hit = newest.get(s.path)
            if hit is None:
                hit = s.modified
                if depth < 1000:
                    for k in kids.get(s.path, ()):
                        hit = max(hit, thread_newest(k, depth + 1))
                newest[s.path] = hit
            return hit

        def order(s: SessionSummary) -> tuple[float, float, str]:
            return (-thread_newest(s), -s.modified, s.path)

        items: list[tuple[SessionSummary, int]] = []
        stack = [(s, 0) for s in sorted(roots, key=order, reverse=True)]
        while stack:
            s, depth = stack.pop()
            items.append((s, depth))
            stack.extend((k, depth + 1) for k in sorted(kids.get(s.path, ()), key=order, reverse=True))
        groups.append(ProjectGroup(cwd, tuple(items)))
    groups.sort(key=lambda g: (-g.newest, g.cwd))
    return groups


def _forks_back(s: SessionSummary, lineage: Lineage) -> bool:
    """True when following parents from ``s`` comes back to ``s`` (a lineage cycle)."""
    seen = {s.path}
    cur = lineage.parent_of(s)
    while cur is not None:
        if cur.path in seen:
            return cur.path == s.path
        seen.add(cur.path)
        cur = lineage.parent_of(cur)
    return False


def matches_filter(s: SessionSummary, tokens: list[str]) -> bool:
    """The picker's type-to-filter: every token in the name, first message or project."""
    if not tokens:
        return True
    hay = f"{s.name or ''}\n{s.first_message}\n{s.cwd}".lower()
    return all(t in hay for t in tokens)


# full-text search -------------------------------------------------------------------------

#: a search stops after this many hits (and after 20 in one session)
SEARCH_LIMIT = 500


@dataclass(frozen=True, slots=True)
class SearchProgress:
    done: int
    total: int
    hits: int


@dataclass(frozen=True, slots=True)
class SearchHit:
    """An entry whose text holds every query token; ``line`` is its 1-based physical line."""

    path: str
    entry_id: str | None
    line: int
    snippet: str
    role: str


def entry_search_text(obj: dict[str, Any]) -> tuple[str, str]:
    """(kind, all searchable text) of one decoded entry: what a person could have typed or read."""
    t = obj.get("type")
    parts: list[str] = []
    kind = t if isinstance(t, str) else ""
    if t == "message":
        msg = obj.get("message")
        if not isinstance(msg, dict):
            return kind, ""
        role = msg.get("role")
        kind = role if isinstance(role, str) else "message"
        content = msg.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            for b in content:
                if not isinstance(b, dict):
                    continue
                bt = b.get("type")
                if bt == "text" and isinstance(b.get("text"), str):
                    parts.append(b["text"])
                elif bt == "thinking" and isinstance(b.get("thinking"), str):
                    parts.append(b["thinking"])
                elif bt == "toolCall":
                    parts.append(str(b.get("name")))
                    args = b.get("arguments")
                    values = args.values() if isinstance(args, dict) else [args]
                    # argument values as written (a path, a command, an edit's text), not as JSON
                    parts += [v if isinstance(v, str) else orjson.dumps(v).decode() for v in values]
        for key in ("command", "output", "errorMessage"):
            v = msg.get(key)
            if isinstance(v, str):
                parts.append(v)
    elif t == "custom_message":
        c = obj.get("content")
        parts.append(c if isinstance(c, str) else content_text(c, None))
    elif kind in _TEXT_FIELD:  # ``kind``: the type when it is a string (a list is not hashable)
        text = obj.get(_TEXT_FIELD[kind])
        if isinstance(text, str):
            parts.append(text)
    return kind, "\n".join(parts)


#: the one text field of the other entry kinds that full-text search reads
_TEXT_FIELD = {"compaction": "summary", "branch_summary": "summary", "session_info": "name", "label": "label",
               "title_change": "title"}


def _snippet(text: str, token: str, width: int = 80) -> str:
    """About ``width`` characters of ``text`` on one line, the match a third of the way in,
    starting at a word."""
    i = text.lower().find(token)
    if i < 0:
        return one_line(text, width)
    start = max(0, i - width // 3)
    if start > 0:
        m = re.search(r"\s", text[start:i])
        start = start + m.end() if m else start
    out = one_line(text[start : start + width * 2], width)
    return ("…" if start > 0 else "") + out


def _json_escaped(token: str) -> bytes:
    escaped: bytes = orjson.dumps(token)
    return escaped[1:-1]


def search_sessions(
    paths: Iterable[str],
    query: str,
    *,
    per_session: int = 20,
    limit: int = SEARCH_LIMIT,
) -> Iterator[SearchProgress | SearchHit]:
    """Every entry whose text holds all whitespace-separated tokens of ``query`` (any case).

    Yields a ``SearchProgress`` after each file and a ``SearchHit`` per match, so a background
    worker can show progress and stop between items. Files are read whole (a huge one a piece
    at a time), but only lines whose bytes contain the query's longest ASCII token are decoded.
    """
    tokens = [t for t in query.lower().split() if t]
    paths = list(paths)
    total = len(paths)
    hits = 0
    if not tokens:
        yield SearchProgress(total, total, 0)
        return
    ascii_tokens = [t for t in tokens if t.isascii()]
    probe = _json_escaped(max(ascii_tokens, key=len)) if ascii_tokens else None
    for done, path in enumerate(paths, start=1):
        try:
            with open_regular_file(path) as f:
                # a huge pi file a piece of whole lines at a time (session/catalog_window.py)
                found = catalog_window.search_in_pieces(
                    f, lambda buf, cap: _search_file(path, buf, tokens, probe, cap), per_session)
                if found is None:
                    f.seek(0)
                    found = list(_search_file(path, f.read(), tokens, probe, per_session))
        except (OSError, LoomError):
            yield SearchProgress(done, total, hits)
            continue
        if found and any(h.entry_id is None for h in found):
            found = _resolve_ids(path, found)
        for h in found:
            yield h
            hits += 1
            if hits >= limit:
                yield SearchProgress(total, total, hits)
                return
        yield SearchProgress(done, total, hits)


def _search_file(path: str, buf: bytes, tokens: list[str], probe: bytes | None, cap: int) -> Iterator[SearchHit]:
    head = _header(buf)
    if head is None:
        yield from agent_catalog.search_file(path, buf, tokens, probe, cap)
        return
    _header_obj, _title, body = head
    low = buf.lower()
    pos = body
    counted_to = 0
    newlines = 0  # newlines before counted_to
    n = 0
    while True:
        if probe is not None:
            i = low.find(probe, pos)
            if i < 0:
                return
            start, end = _line_at(buf, i)
        else:
            if pos >= len(buf):
                return
            start = pos
            end = buf.find(b"\n", pos)
            end = len(buf) if end < 0 else end
        newlines += buf.count(b"\n", counted_to, start)
        counted_to = start
        pos = end + 1
        obj = _loads(buf[start:end])
        if not isinstance(obj, dict) or obj.get("type") in ("session", "title"):
            continue
        kind, text = entry_search_text(obj)
        low_text = text.lower()
        if text and all(t in low_text for t in tokens):
            eid = obj.get("id")
            yield SearchHit(path, eid if isinstance(eid, str) else None, newlines + 1, _snippet(text, tokens[0]), kind)
            n += 1
            if n >= cap:
                return


def _resolve_ids(path: str, hits: list[SearchHit]) -> list[SearchHit]:
    """v1 files have no ids on disk: take the ids loomtui's reader gives their lines."""
    from loomtui.session.manager import SessionManager

    try:
        sm = SessionManager.open(path)
    except Exception:  # noqa: BLE001 - a file that cannot be opened keeps id-less hits
        return hits
    by_line = {e.line: e.id for e in sm.index.entries}
    return [
        h if h.entry_id is not None else SearchHit(h.path, by_line.get(h.line), h.line, h.snippet, h.role) for h in hits
    ]
