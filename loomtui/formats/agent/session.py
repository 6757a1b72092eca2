"""Sessions read from other coding agents' files (Claude Code, Codex CLI): read-only, lazy.

The readers (``formats.claude.lines``, ``formats.codex.read``) turn each line of the tool's file into a
pi-style entry (docs/agent-formats.md, "Claude Code and Codex"). What the tree, filters and search need
is kept in the usual skeletons; the full entry is rebuilt on demand from the line's bytes, as
pi sessions are (so a 50k-line file costs what a pi file of that size costs).

:class:`AgentSession` is a ``SessionManager`` that never writes the tool's file:

* labels go to loomtui's label store (``formats.agent.labelstore``), keyed by session id + entry id;
* "export branch" writes a new file next to the original in the tool's own format holding
  exactly the branch's original lines (``export_native``); ``export_pi`` writes a pi session;
* every other append is refused with ``read_only_reason``.

:class:`AgentSource` carries what the session model cannot: the file's own tree facts (as the
file links them, before loomtui hangs subagents under their calls), the lines without an id
and the entry each is shown with, stray forks, subagents.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from loomtui.formats.agent import export as agent_export
from loomtui.formats.agent import labelstore
from loomtui.formats.agent.kinds import CLAUDE, TOOL_NAMES
from loomtui.formats.agent.tools import pi_call, tools_of
from loomtui.session import store, verify
from loomtui.session.entries import Entry
from loomtui.session.errors import LoomError, SessionFormatError, WriteRefused, cannot_open
from loomtui.session.fileio import open_regular, open_regular_file
from loomtui.session.ids import branch_file_name, new_session_id, now_iso
from loomtui.session.jsstr import js_json
from loomtui.session.locations import pi_session_dir
from loomtui.session.manager import CURRENT_VERSION, SessionManager
from loomtui.session.reader import line_value

if TYPE_CHECKING:
    from loomtui.formats.agent.resume import ToolResume
from loomtui.session.source import EXPORT, LABEL, PI_FILTERS, EntryWords, ParentSession, Source


@dataclass
class Subagent:
    """A subagent run shown as one row under the tool call that started it."""

    entry_id: str  # the placeholder row
    call_id: str | None  # the tool call (tool_use id) that started it
    description: str
    path: str  # the file holding its lines
    root: str | None = None  # inline sidechain: the root uuid of its entries
    entries: int = 0


#: entries whose tokens ``AgentSource.usage_of`` reads alone before it counts the whole file
USAGE_ALONE = 16


@dataclass
class AgentSource:
    """The tool's file behind an AgentSession."""

    tool: str
    path: str
    session_id: str
    #: entry id -> (offset, size, 1-based line) of its line in ``path`` (see ``spans``)
    _spans: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    #: skeletons whose offset/size/line give ``spans`` when it is first asked for (saves
    #: building a dict of every entry while opening)
    span_entries: list[Entry] | None = None
    #: entry id -> lines without an id shown with it: [{"line", "type", "text"}] (see ``attached``)
    _attached: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: entry id -> why it is a stray fork (parallel tool call, hook progress, ...)
    stray: dict[str, str] = field(default_factory=dict)
    #: entry id -> pi-style usage, only on the entry that counts for its API response (``usage``)
    _usage: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: entry id -> the parent the tree shows when it differs from the file's
    shown_parent: dict[str, str | None] = field(default_factory=dict)
    subagents: dict[str, Subagent] = field(default_factory=dict)
    #: the file's tree as it links itself: {"entries", "lines", "roots", "leaves", "branchPoints", ...}
    #: (a value may be a function computing it, resolved when ``stats`` is read)
    _stats: dict[str, Any] = field(default_factory=dict)
    #: labels the file itself gives (Claude summaries whose leafUuid is in the file)
    file_labels: dict[str, str] = field(default_factory=dict)
    #: the header line(s) a native export must start with (Codex: session_meta), as bytes
    preamble: list[bytes] = field(default_factory=list)
    #: extra per-source facts for ``info`` and the detail pane
    extra: dict[str, Any] = field(default_factory=dict)
    label_dir: str | None = None
    #: work a reader leaves until its results are first asked for: the tokens (``usage``,
    #: ``extra["usage"]``) and, apart, the lines without an id (``attached``): a user's or a
    #: tool result's detail pane needs no pass over the whole file's usage lines
    deferred: Callable[[], None] | None = None
    deferred_attached: Callable[[], None] | None = None
    _usage_asked: int = 0  # entries whose tokens ``usage_of`` read alone
    #: one entry's tokens without counting the whole file (while ``deferred`` is pending)
    usage_one: Callable[[str], dict[str, Any] | None] | None = None
    #: how the tool's reader opens a subagent's file as its own session: (path, sidechain
    #: root, label directory) -> the session (None: the tool has no subagents)
    subagent_opener: Callable[[str, str | None, str | None], SessionManager] | None = None
    #: how the tool resumes a session (its ``resume`` module: ``resume_words``, ``export_name``;
    #: ``agent/resume.py``); None: no agent resumes it
    resumer: ToolResume | None = None
    #: what the tool calls its entries (``Source.entry_words``: its ``words`` module)
    entry_words: EntryWords | None = None
    #: the tool's token counts have a cache-write figure (``Source.keeps_cache_write``)
    keeps_cache_write: bool = True
    #: the session this file's run is part of (``Source.parent``: a subagent run's session)
    parent: ParentSession | None = None

    def ensure(self) -> None:
        """Everything left for later, done now."""
        self._attach()
        self._count()

    def _count(self) -> None:
        if self.deferred is not None:
            fn, self.deferred = self.deferred, None
            fn()

    def _attach(self) -> None:
        if self.deferred_attached is not None:
            fn, self.deferred_attached = self.deferred_attached, None
            fn()

    @property
    def usage(self) -> dict[str, dict[str, Any]]:
        self._count()
        return self._usage

    def usage_of(self, eid: str) -> dict[str, Any] | None:
        """``usage.get(eid)``, without counting the whole file when the reader can say it alone:
        for the few entries a detail pane shows. Many asked one by one (``info`` reads every
        assistant turn) are cheaper counted all at once."""
        if self.deferred is not None and self.usage_one is not None and self._usage_asked < USAGE_ALONE:
            self._usage_asked += 1
            return self.usage_one(eid)
        return self.usage.get(eid)

    @property
    def attached(self) -> dict[str, list[dict[str, Any]]]:
        self._attach()
        return self._attached

    @property
    def stats(self) -> dict[str, Any]:
        for k, v in self._stats.items():
            if callable(v):
                self._stats[k] = v()
        return self._stats

    @stats.setter
    def stats(self, value: dict[str, Any]) -> None:
        self._stats = value

    def holds(self, e: Entry, obj: Any) -> bool:
        """Whether ``obj`` (a line decoded from ``e``'s span now) is the line ``e`` was read
        from: Claude Code by its uuid, Codex (ids are line numbers) by its timestamp."""
        if not isinstance(obj, dict):
            return False
        if self.tool == CLAUDE:
            return obj.get("uuid") == e.id
        return obj.get("timestamp") == e.timestamp

    @property
    def spans(self) -> dict[str, tuple[int, int, int]]:
        if self.span_entries is not None:
            self._spans.update((e.id, (e.offset, e.size, e.line)) for e in self.span_entries)
            self.span_entries = None
        return self._spans


def read_file_bytes(path: str) -> bytes:
    """The whole of a tool's session file (SessionFormatError when it cannot be read)."""
    if os.path.isdir(path):
        raise SessionFormatError(f"{path} is a directory, not a session file")
    try:
        with open_regular_file(path) as f:
            return f.read()
    except OSError as exc:
        raise SessionFormatError(cannot_open(path, exc)) from None


def agent_source(manager: SessionManager) -> AgentSource | None:
    src = manager.source.document
    return src if isinstance(src, AgentSource) else None


class AgentSession(SessionManager):
    """A read-only session made of another tool's file (see the module doc)."""

    agent: AgentSource

    def __init__(self, header: dict[str, Any], source: AgentSource, convert: Any) -> None:
        super().__init__(header, None)
        self.agent = source
        self._convert = convert  # (manager, entry, decoded line) -> pi-style entry dict
        tool = TOOL_NAMES.get(source.tool, source.tool)
        self.source = Source(
            source.tool,
            os.path.abspath(source.path),
            labels="store",
            document=source,
            read_only_reason=(
                f"A {tool} session: loomtui never writes its file. Labels are kept in loomtui's label "
                "store; export the branch to get a file of your own."
            ),
            label_store=labelstore.store_file(source.session_id, source.label_dir),
            opens=self.open_subagent,
            name=f"{tool} session",
            actions=frozenset((EXPORT, LABEL, PI_FILTERS)),
            export_as=f"a {tool} session",
            export_note=f"the branch's lines as {tool} wrote them, under a new session id; this file is not touched",
            leaf_rule="the format's leaf rule",
            keeps_cost=False,  # the file stores no cost, and loomtui ships no price table
            keeps_cache_write=source.keeps_cache_write,
            entry_words=source.entry_words,
            export_home=source.resumer.session_dir(source.path) if source.resumer is not None else None,
            parent=source.parent,
            file_usage=self._file_usage,
        )

    # reading ------------------------------------------------------------------------------
    def load(self, e: Entry) -> dict[str, Any]:
        if e.data is not None:
            return e.data
        hit = None if self._check_spans else self._cache.get(e.id)  # an export reads and checks again
        if hit is not None:
            self._cache.move_to_end(e.id)
            return hit
        raw = self.raw_line(e)
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            # JSON.parse's reading (a number beyond a double, bytes that are not UTF-8 in a field
            # the Claude typed scan skipped: ``claude/typed.py``); {} when it is no JSON at all
            obj = line_value(raw)
        if self._check_spans and e.id in self.agent.spans and not self.agent.holds(e, obj):
            raise verify.changed(self.agent.path, f"line {e.line} no longer holds entry {e.id}")
        full = self._convert(self, e, obj if isinstance(obj, dict) else {})
        if self._check_spans:
            return full  # type: ignore[no-any-return]
        self._cache[e.id] = full
        if len(self._cache) > 512:
            self._cache.popitem(last=False)
        return full  # type: ignore[no-any-return]

    def _file_usage(self) -> dict[str, int]:
        """The tokens of every API response the file holds, inline subagent runs' too (``info``)."""
        self.agent.ensure()
        return dict(self.agent.extra.get("usage") or {})

    @property
    def entry_count(self) -> int:
        """The file's entries, as ``info`` counts them: an inline subagent run's, which the tree
        shows as one row, each counted; the row of a run kept in its own file is none of them."""
        shown = self.index.by_id
        runs = [v for v in self.agent.subagents.values() if v.entry_id in shown]
        inline = sum(max(v.entries - 1, 0) for v in runs if v.path == self.agent.path)
        return len(self.index.entries) + inline - sum(1 for v in runs if v.path != self.agent.path)

    def tool_call_view(self, name: Any, args: Any) -> tuple[Any, Any]:
        tools = tools_of(self.agent.tool)
        return pi_call(tools, name, args) if tools else (name, args)

    def raw_line(self, e: Entry) -> bytes:
        """The entry's line exactly as the tool wrote it (placeholders: their JSON)."""
        span = self.agent.spans.get(e.id)
        if span is None:
            return js_json(e.data).encode() if e.data is not None else b"{}"
        offset, size, _line = span
        fd = open_regular(self.agent.path)
        try:
            raw = verify.whole_line(fd, offset, size) if self._check_spans else os.pread(fd, size, offset)
        finally:
            os.close(fd)
        if raw is None:
            raise verify.changed(self.agent.path, f"line {_line} is not where it was")
        return raw.rstrip(b"\r\n")

    def refresh(self) -> list[Entry]:
        return []  # the file is read once; reopen to see what the tool appended

    # labels: loomtui's store, never the file -------------------------------------------------
    def load_stored_labels(self) -> None:
        labels = self.index.labels
        for target, text in self.agent.file_labels.items():
            if target in self.index.by_id:
                labels[target] = (text, None)
        for target, (text, ts) in labelstore.read_labels(self.agent.session_id, self.agent.label_dir).items():
            if target in self.index.by_id:
                labels[target] = (text, ts)

    def append_label_change(self, target_id: str, label: str | None) -> str:
        """Set or clear a label in the label store; returns ``target_id`` (no entry is added)."""
        if target_id not in self.index.by_id:
            raise LoomError(f"entry {target_id} not found")
        text = label.strip() if label else None
        ts = labelstore.write_label(self.agent.session_id, target_id, text, self.agent.path, self.agent.label_dir)
        if text:
            self.index.labels[target_id] = (text, ts)
        else:
            self.index.labels.pop(target_id, None)
        self.index.version += 1
        return target_id

    def append_label_keeping_resume(self, target_id: str, label: str | None) -> str:
        return self.append_label_change(target_id, label)

    def append_refusal(self) -> str | None:
        return None  # labels go to the store; other appends raise WriteRefused with the reason

    @property
    def label_store_file(self) -> str:
        return labelstore.store_file(self.agent.session_id, self.agent.label_dir)

    # export ---------------------------------------------------------------------------------
    def branch_entries(self, leaf_id: str) -> tuple[list[Entry], list[dict[str, Any]]]:
        path = self.index.path_to(leaf_id)
        if not path:
            raise LoomError(f"entry {leaf_id} not found")
        return [e for e in path if e.id in self.agent.spans], []

    def create_branched_session(self, leaf_id: str, dir: str | None = None, out: str | None = None) -> str:
        """Export branch (Ctrl+E, ``export-branch``): the tool's own format, next to the file."""
        return agent_export.export_native(self, leaf_id, dir=dir or self.source.export_home, out=out)

    def pi_copy_dir(self) -> str:
        """Where a pi copy of a branch goes by default: pi's session folder for the session's
        cwd (pi lists it with the project; the tool's own folder is the tool's), else beside
        the file."""
        cwd = self.header.get("cwd") if isinstance(self.header, dict) else None
        return pi_session_dir(cwd) if isinstance(cwd, str) and cwd.strip() else os.path.dirname(self.agent.path)

    def export_pi(self, leaf_id: str, dir: str | None = None, out: str | None = None) -> str:
        """The branch as a pi session (v3 header, one entry per line of the branch); without
        ``dir`` or ``out`` in ``pi_copy_dir`` (made if missing)."""
        path = self.index.path_to(leaf_id)
        if not path:
            raise LoomError(f"entry {leaf_id} not found")
        with self.checked_spans():
            return self._export_pi(path, dir, out)

    def _export_pi(self, path: list[Entry], dir: str | None, out: str | None) -> str:
        sid = new_session_id()
        ts = now_iso()
        header: dict[str, Any] = {
            "type": "session",
            "version": CURRENT_VERSION,
            "id": sid,
            "timestamp": ts,
            "cwd": self.header.get("cwd") or os.getcwd(),
            "parentSession": self.agent.path,
        }
        lines = [js_json(header).encode()]
        prev: str | None = None
        for e in path:
            d = dict(self.load(e))
            d.pop("agentSource", None)
            d.pop("hidden", None)
            d["parentId"] = prev
            prev = d["id"]
            lines.append(js_json(d).encode())
        name = self.index.session_name  # the tool's title (custom-title, agent name, summary)
        if name:
            info_id = os.urandom(4).hex()
            lines.append(
                js_json(
                    {"type": "session_info", "id": info_id, "parentId": prev, "timestamp": ts, "name": name}
                ).encode()
            )
            prev = info_id
        on_path = {e.id for e in path}
        for target, (label, lts) in self.index.labels.items():
            if target in on_path:  # loomtui's label store: pi label entries
                lid = os.urandom(4).hex()
                lab = {
                    "type": "label",
                    "id": lid,
                    "parentId": prev,
                    "timestamp": lts or ts,
                    "targetId": target,
                    "label": label,
                }
                lines.append(js_json(lab).encode())
                prev = lid
        if out is None:
            if dir is None:
                dir = self.pi_copy_dir()
                os.makedirs(dir, exist_ok=True)
            out = os.path.join(dir, branch_file_name(ts, sid))
        store.write_new_file(out, b"\n".join(lines) + b"\n")
        return os.path.abspath(out)

    def _append(self, obj: dict[str, Any], **_kw: Any) -> str:
        raise WriteRefused(self.read_only_reason or "read-only session")

    # subagents ------------------------------------------------------------------------------
    def subagent_of(self, entry_id: str) -> Subagent | None:
        return self.agent.subagents.get(entry_id)

    def open_subagent(self, entry_id: str) -> SessionManager | None:
        """The subagent behind a placeholder row, as its own session (None for other rows)."""
        sub = self.agent.subagents.get(entry_id)
        opener = self.agent.subagent_opener
        if sub is None or opener is None:
            return None
        return opener(sub.path, sub.root, self.agent.label_dir)

    # info -----------------------------------------------------------------------------------
    def _ends_not_shown(self) -> tuple[list[str], list[str]]:
        """The file's roots and leaves the tree does not show: those of inline subagent runs
        (sidechains), each shown as one row and opened from it."""
        s, shown = self.agent.stats, self.index.by_id
        return [r for r in s.get("roots", []) if r not in shown], [x for x in s.get("leaves", []) if x not in shown]

    def _subagent_forks(self, file_forks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The rows the tree forks at (a fold) because a subagent run's row is one of their
        children, where the file itself does not fork, in file order, with their child counts."""
        children, by_id = self.index.child_lists(), self.index.by_id
        forks = {b.get("id") for b in file_forks}
        rows = {by_id[k].parent_id for k in self.agent.subagents if k in by_id}
        return [
            {"id": e.id, "children": len(children[e.id])}
            for e in self.index.entries
            if e.id in rows and e.id not in forks and len(children.get(e.id, ())) > 1
        ]

    def elsewhere(self, given: str) -> str | None:
        """A root or leaf of the file that the tree does not show is in an inline subagent run."""
        roots, leaves = self._ends_not_shown()
        if any(x == given or x.startswith(given) for x in (*roots, *leaves)):
            return (
                "is in a subagent run (a sidechain), not in the conversation the tree shows; "
                "open that subagent's row (Enter in the app) to see its entries"
            )
        return None

    def file_summary(self) -> dict[str, Any]:
        """What ``info`` reports for the file's own tree (shape of the pi summary's fields)."""
        self.agent.ensure()
        s = self.agent.stats
        u = self.agent.extra.get("usage") or {}
        usage = {k: u.get(k, 0) for k in ("input", "output", "cacheRead", "cacheWrite", "totalTokens")}
        usage["cost"] = {k: 0.0 for k in ("input", "output", "cacheRead", "cacheWrite", "total")}
        usage["assistantMessagesWithUsage"] = u.get("responses", 0)
        roots, leaves = list(s.get("roots", [])), list(s.get("leaves", []))
        hidden_roots, hidden_leaves = self._ends_not_shown()
        inline = [v for v in self.agent.subagents.values() if v.path == self.agent.path]
        in_files = [v for v in self.agent.subagents.values() if v.path != self.agent.path]
        return {
            "roots": roots,
            "leaves": leaves,
            # the ends the tree does not show: inline subagent runs (sidechains), opened from
            # their row; diff and export-branch name the conversation's
            "subagentRoots": hidden_roots,
            "subagentLeaves": hidden_leaves,
            "branchPoints": list(s.get("branchPoints", [])),
            # where the tree forks only because a subagent run's row hangs beside the conversation
            "subagentBranchPoints": self._subagent_forks(s.get("branchPoints", [])),
            "entryCount": s.get("entries", len(self.index.entries)),
            # the entries of inline subagent runs, each run one row of the tree (``treeRows``)
            "inlineSubagentRuns": len(inline),
            "inlineSubagentEntries": sum(v.entries for v in inline),
            # runs kept in their own files: one row each, their entries not in ``entryCount``
            "fileSubagentRuns": len(in_files),
            "fileSubagentEntries": sum(v.entries for v in in_files),
            "treeRows": len(self.index.entries),
            "usage": usage,
            "source": {
                "tool": TOOL_NAMES.get(self.agent.tool, self.agent.tool),
                "lines": s.get("lines"),
                "linesWithoutId": self.agent.extra.get("linesWithoutId"),
                "strayForkEntries": len(self.agent.stray),
                "subagents": [
                    {"id": k, "description": v.description, "file": v.path, "call": v.call_id, "entries": v.entries}
                    for k, v in self.agent.subagents.items()
                ],
                "labelStore": self.label_store_file,
                "pricing": "none: the file stores no cost and loomtui ships no price table",
            },
        }


def file_lines(data: bytes) -> list[tuple[int, int, int]]:
    """(offset, size, 1-based line number) of every non-blank line of ``data``."""
    out: list[tuple[int, int, int]] = []
    pos = 0
    n = 0
    end_all = len(data)
    find = data.find
    while pos < end_all:
        end = find(b"\n", pos)
        if end < 0:
            end = end_all
        n += 1
        size = end - pos
        if size and not data[pos:end].isspace():
            out.append((pos, size, n))
        pos = end + 1
    return out


def header_for(source: AgentSource, cwd: Any, timestamp: Any, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """A pi-style header describing the tool's session (never written anywhere)."""
    h: dict[str, Any] = {
        "type": "session",
        "version": CURRENT_VERSION,
        "id": source.session_id,
        "timestamp": timestamp,
        "cwd": cwd if isinstance(cwd, str) else "",
    }
    if extra:
        h.update(extra)
    return h
