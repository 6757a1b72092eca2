"""SessionManager: pi's small append-only session API, in Python names (docs/formats.md §7).

Entries are never edited; branching only moves the in-memory leaf. Appends go to the file as
single lines (``store``), parented on the in-memory leaf, and become the leaf — label entries
included, exactly as in pi.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO

from loomtui.session import branch_copy, indexcache, store, verify
from loomtui.session.context import ContextPlan, context_plan
from loomtui.session.entries import Entry, fill, span
from loomtui.session.errors import Diagnostic, LoomError, SessionFormatError, WriteConflict, WriteRefused, cannot_open
from loomtui.session.fileio import open_regular
from loomtui.session.ids import branch_file_name, new_entry_id, new_session_id, now_iso
from loomtui.session.index import SessionIndex
from loomtui.session.jsstr import js_json
from loomtui.session.memory import bulk_allocation
from loomtui.session.reader import LineParser, ParseState, decode_line, parse_from
from loomtui.session.source import Source
from loomtui.session.split import SplitParse

CURRENT_VERSION = 3


#: a branch export writes its copy in pieces of about this many bytes
WRITE_PIECE = 8 << 20
#: most full entries ``SessionManager.load`` keeps decoded, and most bytes of their lines
LOAD_CACHE_ENTRIES = 512
LOAD_CACHE_BYTES = 32 << 20


class SessionManager:
    """An open session: its index, its in-memory leaf, and safe appends to its file."""

    def __init__(self, header: dict[str, Any], path: str | None = None) -> None:
        self.header = header
        self.path = os.path.abspath(path) if path else None
        self.index = SessionIndex()
        self.state = ParseState(header=header)
        self.title: dict[str, Any] | None = None
        self._leaf: str | None = None
        self._leaf_moved = False
        self._mark: store.FileMark | None = None
        self._indexed_to = 0
        #: (bytes read, their digests) when the open proved them (session/indexcache.py): what
        #: side files made from this read are keyed by; (0, ()) when the cache did not apply
        self.read_digests: tuple[int, tuple[bytes, ...]] = (0, ())
        #: set while an export copies entries (``checked_spans``): every span decoded must still
        #: hold the entry the index has there, else WriteConflict
        self._check_spans = 0
        #: full entries decoded lately, by id, with their line sizes (bounded by ``LOAD_CACHE_*``)
        self._cache: OrderedDict[str, tuple[dict[str, Any], int]] = OrderedDict()
        self._cache_bytes = 0
        #: what was opened and what may be written back (session/source.py)
        self.source = Source.memory()
        #: label entries appended in memory (a loom's bookmarks): not entries of the session
        self._memory_labels = 0

    # opening ------------------------------------------------------------------------------
    @classmethod
    def open(
        cls, path: str, split: SplitParse | None = None, progress: Callable[[int, int, int], None] | None = None
    ) -> SessionManager:
        """Read and index a pi/omp session file (raises SessionFormatError for non-sessions).

        ``split``: a child already parsing the file's tail (``split.SplitParse``); this
        process then reads only the head and takes the child's entries. ``progress``: called
        now and then with (bytes read, file size, entries read).
        """
        try:
            fd = open_regular(path)
        except (OSError, SessionFormatError) as exc:
            if split is not None:
                split.cancel()
            if isinstance(exc, SessionFormatError):
                raise
            raise SessionFormatError(cannot_open(path, exc)) from None
        # a load allocates ~10 objects per entry and frees none (docs/architecture.md, "Lazy full
        # entries"): the collector waits, and what was loaded is frozen
        with bulk_allocation():
            try:
                if os.path.isdir(path):
                    raise SessionFormatError(f"{path} is a directory, not a session file")
                state, pending, consumed, eof, index, digests = indexcache.read(path, fd, split, progress)
            finally:
                os.close(fd)
                if split is not None:
                    split.cancel()  # a no-op once its result was taken
            if state.header is None:
                raise SessionFormatError(f"{path}: no session header (empty file or not a pi session)")
            sm = cls(state.header, path)
            sm.state = state
            sm.title = state.title
            if index is None:
                sm.index.build(pending)
            else:
                sm.index = index
            del pending
        sm.index.diagnostics[:0] = state.diagnostics
        state.diagnostics = sm.index.diagnostics
        sm._indexed_to = consumed
        sm.read_digests = (consumed, digests)
        if consumed < eof:
            sm.index.diagnostics.append(Diagnostic(state.line_no + 1, TORN_LAST_LINE))
        sm._mark = store.mark_file(path, consumed)
        sm._leaf = sm.index.leaf_id
        sm.source = Source.pi_file(sm.path or path, sm.version, CURRENT_VERSION)
        return sm

    @classmethod
    def from_entries(
        cls,
        header: dict[str, Any],
        entries: list[dict[str, Any]],
        diagnostics: list[Diagnostic] | None = None,
        source_path: str | None = None,
        source_format: str = "memory",
        labels: dict[str, Any] | None = None,
        session_name: str | None = None,
        source: Source | None = None,
        leaf: str | None = None,
    ) -> SessionManager:
        """An in-memory session (adapters for other looms, tests). Appends stay in memory
        (or are refused, as ``source`` says).

        ``source`` says what was opened; without it, ``source_format`` and ``source_path``
        make a plain in-memory one. ``labels`` and ``session_name`` seed what pi would fold
        from label / session_info entries (a label or ``(label, time)``), for formats that keep
        bookmarks and titles outside the tree. ``leaf``: where the leaf starts (default: last).
        """
        skeletons = []
        for n, obj in enumerate(entries, start=1):
            e = entry_from_dict(obj, line=n)
            if e is not None:
                skeletons.append(e)
        if source is None:
            source = Source.memory(source_format, os.path.abspath(source_path) if source_path else None)
        return cls.from_skeletons(
            header, skeletons, diagnostics, labels=labels, session_name=session_name, source=source, leaf=leaf
        )

    @classmethod
    def from_skeletons(
        cls,
        header: dict[str, Any],
        skeletons: list[Entry],
        diagnostics: list[Diagnostic] | None = None,
        *,
        source: Source,
        labels: dict[str, Any] | None = None,
        session_name: str | None = None,
        leaf: str | None = None,
        preorder_ends: list[int] | None = None,
    ) -> SessionManager:
        """``from_entries`` for an adapter that makes the skeletons itself (their ``data``
        holds each full entry; it may be made when first read). ``preorder_ends``: the
        skeletons are already the tree in pre-order and these are their subtree ends
        (``SessionIndex.mark_preorder``)."""
        sm = cls(header, None)
        sm.source = source
        in_order = sm.index.build(skeletons)
        if preorder_ends is not None and in_order:
            sm.index.mark_preorder(preorder_ends)
        if diagnostics:
            sm.index.diagnostics[:0] = diagnostics
        for target, label in (labels or {}).items():
            if label and target in sm.index.by_id:  # no time made up for a label without one
                sm.index.labels[target] = label if isinstance(label, tuple) else (label, None)
        if session_name is not None and session_name.strip():
            sm.index.session_name = session_name.strip()
        sm._leaf = leaf if leaf in sm.index.by_id else sm.index.leaf_id
        return sm

    # what was opened ---------------------------------------------------------------------
    @property
    def source_format(self) -> str:  # ``source.kind`` (``pi``, ``openloom-v2``, …)
        return self.source.kind

    @property
    def source_path(self) -> str | None:  # ``source.path``: the file it was read from
        return self.source.path

    @property
    def read_only_reason(self) -> str | None:
        return self.source.read_only_reason

    @property
    def version(self) -> int:  # pi's API: reading
        return self.state.version

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return self.index.diagnostics

    def get_header(self) -> dict[str, Any]:
        return self.header

    def get_leaf_id(self) -> str | None:
        return self._leaf

    def get_entry(self, entry_id: str) -> dict[str, Any] | None:
        e = self.index.by_id.get(entry_id)
        return self.load(e) if e is not None else None

    def get_label(self, entry_id: str) -> Any:
        return self.index.label_of(entry_id)

    def elsewhere(self, given: str) -> str | None:
        """Where an id (or prefix) the tree does not hold is, when the file holds it elsewhere
        (a source whose file has more than its tree shows says so); None: not in the file."""
        return None

    def get_session_name(self) -> str | None:
        return self.index.session_name

    def session_context_plan(self, leaf_id: str | None = None) -> ContextPlan:
        """pi's ``buildSessionContext`` at ``leaf_id`` (default: the leaf; an unknown one: the
        file's last entry), its messages decoded one at a time, when asked."""
        return context_plan(self._context_path(leaf_id), self.load)

    def _context_path(self, leaf_id: str | None) -> list[Entry]:
        leaf = leaf_id if leaf_id is not None else self._leaf
        if leaf is None or not self.index.entries:
            return []
        if leaf not in self.index.by_id:
            leaf = self.index.entries[-1].id
        return self.index.path_to(leaf)

    # pi's API: moving the leaf ----------------------------------------------------------
    def branch(self, entry_id: str) -> None:
        if entry_id not in self.index.by_id:
            raise LoomError(f"entry {entry_id} not found")
        self._leaf = entry_id
        self._leaf_moved = entry_id != self.index.leaf_id

    def reset_leaf(self) -> None:
        self._leaf = None
        self._leaf_moved = True

    @property
    def leaf_moved(self) -> bool:
        """True when the user moved the leaf (``branch`` away from the file's last entry, or
        ``reset_leaf``): entries other writers append then no longer move it."""
        return self._leaf_moved

    @property
    def entry_count(self) -> int:
        """The entries the header counts: a loom's bookmarks (labels kept in memory) are none."""
        return len(self.index.entries) - self._memory_labels

    # pi's API: appending ------------------------------------------------------------------
    def append_custom_entry(self, custom_type: str, data: Any = None) -> str:
        entry = {"type": "custom", "customType": custom_type, "data": data, **self._base()}
        return self._append(_omit_none(entry, ("data",)))

    def append_label_change(self, target_id: str, label: str | None) -> str:
        """Set (or, with None/empty, clear) a label; the label entry becomes the leaf."""
        if target_id not in self.index.by_id:
            raise LoomError(f"entry {target_id} not found")
        entry: dict[str, Any] = {"type": "label", **self._base(), "targetId": target_id}
        if label:
            entry["label"] = label
        return self._append(entry)

    def append_label_keeping_resume(self, target_id: str, label: str | None) -> str:
        """A label appended without moving where pi resumes: parented on the file's current leaf
        (its last entry, where pi resumes), whatever the in-memory leaf is. pi takes the last
        entry as its leaf and leaves labels out of the context, so pi resumes the same
        conversation. The in-memory leaf stays where the user moved it (or follows the file when
        it was not moved). A label kept in memory (a loom's bookmark, a run's or a map's label)
        is no entry of the session: the leaf stays where it was, so no row moves."""
        if target_id not in self.index.by_id:
            raise LoomError(f"entry {target_id} not found")
        entry: dict[str, Any] = {"type": "label", **self._base(), "targetId": target_id}
        if label:
            entry["label"] = label
        leaf, moved = self._leaf, self._leaf_moved
        new_id = self._append(entry, on_file_leaf=True)
        if moved or self.path is None:
            self._leaf, self._leaf_moved = leaf, True
        return new_id

    def branch_with_summary(self, branch_from_id: str, summary: str, from_id: str) -> str:
        """pi's branchWithSummary: a ``branch_summary`` entry (what ``from_id``'s branch did, in
        ``summary``) parented on ``branch_from_id``; it becomes the leaf."""
        self.branch(branch_from_id)
        return self._append({"type": "branch_summary", **self._base(), "fromId": from_id, "summary": summary})

    def fork_point_candidates(self) -> list[str]:
        """Where a fork left its parent (pi copies the parent's path, same ids, into the new file):
        the ids of the path to the file's leaf, labels left out, deepest first."""
        return (
            [e.id for e in reversed(self.index.path_to(self.index.leaf_id)) if e.type != "label"]
            if self.index.leaf_id is not None
            else []
        )

    # branching to a new file --------------------------------------------------------------
    def branch_entries(self, leaf_id: str) -> tuple[list[Entry], list[dict[str, Any]]]:
        """What createBranchedSession copies: the root → leaf path without label entries, and
        the re-created label chain (docs/formats.md §7.5); then, where the path does not name the
        session as the file does (pi's fork would drop the name), one ``session_info`` entry
        with the session's name."""
        path = self.index.path_to(leaf_id)
        if not path:
            raise LoomError(f"entry {leaf_id} not found")
        kept = [e for e in path if e.type != "label"]
        path_ids = {e.id for e in kept}
        ids = set(path_ids)
        labels: list[dict[str, Any]] = []
        parent = kept[-1].id if kept else None
        for target, (label, ts) in self.index.labels.items():
            if target in path_ids:
                lid = new_entry_id(ids)
                ids.add(lid)
                entry: dict[str, Any] = {"type": "label", "id": lid, "parentId": parent}
                if ts is not None:
                    entry["timestamp"] = ts
                entry["targetId"] = target
                entry["label"] = label
                labels.append(entry)
                parent = lid
        info = self._name_entry(kept, ids, parent)
        if info is not None:
            labels.append(info)
        return kept, labels

    def _name_entry(self, kept: list[Entry], ids: set[str], parent: str | None) -> dict[str, Any] | None:
        """The ``session_info`` entry that keeps the session's name in a branch of it (None: the
        session has no name, or the branch's own last ``session_info`` already gives it)."""
        name = self.index.session_name
        if name is None:
            return None
        on_path = next((e for e in reversed(kept) if e.type == "session_info"), None)
        if on_path is not None and isinstance(on_path.text, str) and on_path.text.strip() == name:
            return None
        named = next((e for e in reversed(self.index.entries) if e.type == "session_info"), None)
        ts = named.timestamp if named is not None and named.timestamp else now_iso()
        return {"type": "session_info", "id": new_entry_id(ids), "parentId": parent, "timestamp": ts, "name": name}

    def create_branched_session(self, leaf_id: str | None, dir: str | None = None, out: str | None = None) -> str:
        """Write the branch ending at ``leaf_id`` to a new session file; returns its path.

        The file is what pi's createBranchedSession writes: a version 3 header whose
        ``parentSession`` is this file's absolute path, the path entries re-linked around the
        label entries left out (``branch_copy``), then the labels. ``leaf_id`` None: the header
        alone (pi's /fork before a first message starts an empty child session). A loom's entries
        are dated by their message's own time, else the export's (``branch_copy``). Written
        atomically, never over an existing file; this manager stays on its file. A version 1 or 2
        file's branch is copied as migrated in memory (the lines ``loomtui migrate`` would write).
        """
        kept, labels = self.branch_entries(leaf_id) if leaf_id is not None else ([], [])
        relinks = branch_copy.relinks(self.index.path_to(leaf_id)) if leaf_id is not None else []
        sid = new_session_id()
        ts = now_iso()
        cwd = self.header.get("cwd")  # pi 1.6.0: the header's cwd when it is a string
        header: dict[str, Any] = {
            "type": "session",
            "version": CURRENT_VERSION,
            "id": sid,
            "timestamp": ts,
            "cwd": cwd if isinstance(cwd, str) else os.getcwd(),
        }
        source = self.source.path
        if source:
            header["parentSession"] = source
        if out is None:
            base = dir or (os.path.dirname(source) if source else os.getcwd())
            out = os.path.join(base, branch_file_name(ts, sid))
        copied: list[bytes] = []  # the digest of the copied spans, once written
        own_times = self.source.keeps_times  # else the entries' timestamps only ordered the nodes
        labels = labels if own_times else branch_copy.dated_at(labels, ts)  # the export's time then

        def write_branch(f: BinaryIO) -> None:
            # a piece at a time: the branch of a session of inline images may be gigabytes
            fd = f.fileno()
            buf = bytearray(js_json(header).encode() + b"\n")

            def written() -> Iterator[bytes]:
                for (e, relink), line in zip(relinks, self._verified_line_iter(kept)):
                    written_line = branch_copy.line_as_written(line, e, relink)
                    if not own_times:
                        written_line = branch_copy.with_own_time(written_line, ts)
                    buf.extend(written_line + b"\n")
                    if len(buf) >= WRITE_PIECE:
                        store.write_fully(fd, bytes(buf))
                        buf.clear()
                    yield line

            copied.append(verify.digest(written()))
            buf.extend(b"".join(js_json(lab).encode() + b"\n" for lab in labels))
            store.write_fully(fd, bytes(buf))

        store.write_new_file_with(out, write_branch)
        if self.path is not None and self._mark is not None:
            # the copy was checked; the source must still hold the same bytes (size, tail, and a
            # hash of every copied span) now that the new file exists, or the new file goes
            try:
                if verify.digest(self._verified_line_iter(kept)) != copied[0]:
                    raise WriteConflict(f"{self.path} changed while the branch was exported; nothing was written")
            except LoomError:
                os.unlink(out)
                raise
        return os.path.abspath(out)

    def _verified_lines(self, entries: list[Entry]) -> list[bytes]:
        """The lines of ``entries`` as in the file now, checked against what was read."""
        return list(self._verified_line_iter(entries))

    def _verified_line_iter(self, entries: list[Entry]) -> Iterator[bytes]:
        """``_verified_lines`` one at a time."""
        if self.path is None or self._mark is None:
            return (self.raw_line(e) for e in entries)
        return verify.iter_lines(self.path, self._mark, self.state.lines, self.header, entries, self.raw_line)

    # live follow --------------------------------------------------------------------------
    def refresh(self) -> list[Entry]:
        """Index bytes another writer appended; returns the new entries (in file order).

        Raises WriteConflict when the file was rewritten, truncated or removed: the caller
        reloads or tells the user.
        """
        if self.path is None or self._mark is None:
            return []
        size = store.check_unchanged_prefix(self.path, self._mark)
        if size == self._indexed_to:
            return []
        added: list[Entry] = []
        torn_at = self.state.line_no + 1  # a torn last line reported at open may be complete now
        parser = LineParser(self.state, added.append)
        fd = open_regular(self.path)
        try:
            consumed, _eof = parse_from(fd, self._indexed_to, parser)
        finally:
            os.close(fd)
        fresh = [e for e in added if self.index.add(e)]
        if consumed > self._indexed_to:
            diags = self.index.diagnostics
            diags[:] = [d for d in diags if d.line != torn_at or d.reason != TORN_LAST_LINE]
        self._indexed_to = consumed
        self._mark = store.mark_file(self.path, consumed)
        if not self._leaf_moved:
            self._leaf = self.index.leaf_id
        return fresh

    # internals ----------------------------------------------------------------------------
    def tool_call_view(self, name: Any, args: Any) -> tuple[Any, Any]:
        """(name, arguments) the detail pane shows a tool call as: pi's own as they are (another
        agent's session maps its tools onto pi's, formats/agent/tools.py)."""
        return name, args

    def load(self, e: Entry) -> dict[str, Any]:
        """The full entry behind a skeleton (decoded from its byte span, cached)."""
        if e.data is not None:
            return e.data
        cache = self._cache
        if self._check_spans:  # an export: read again and checked, not taken from (or kept in) the cache
            raw = self.raw_line(e)
            if self.path is not None and e.offset >= 0 and not verify.holds(raw, e):
                raise verify.changed(self.path, f"line {e.line} no longer holds entry {e.id}")
            return decode_line(raw)  # type: ignore[no-any-return]
        hit = cache.get(e.id)
        if hit is not None:
            cache.move_to_end(e.id)
            return hit[0]
        obj = verify.decoded(self.raw_line(e), self.path, e)
        # bounded by count and by line bytes: an entry holding inline images decodes to
        # megabytes, and a session of them must not pile up in memory as it is browsed
        cache[e.id] = (obj, e.size)
        self._cache_bytes += e.size
        while len(cache) > LOAD_CACHE_ENTRIES or (self._cache_bytes > LOAD_CACHE_BYTES and len(cache) > 1):
            self._cache_bytes -= cache.popitem(last=False)[1][1]
        return obj  # type: ignore[no-any-return]

    def raw_line(self, e: Entry) -> bytes:
        """The entry's line as written (without newline); serialised for in-memory entries."""
        if e.data is not None or self.path is None or e.offset < 0:
            return js_json(e.data).encode()
        fd = open_regular(self.path)
        try:
            if self._check_spans:
                line = verify.whole_line(fd, e.offset, e.size)
                if line is None:
                    raise verify.changed(self.path, f"line {e.line} is not where it was")
                raw = line
            else:
                raw = os.pread(fd, e.size, e.offset)
        finally:
            os.close(fd)
        return raw.rstrip(b"\r\n\t ")

    @contextmanager
    def checked_spans(self) -> Iterator[None]:
        """While an export copies entries: each one is read from the file again (not from the
        cache of decoded entries) and checked to be still the entry the index has there
        (WriteConflict otherwise). Nested uses are fine."""
        self._check_spans += 1
        try:
            yield
        finally:
            self._check_spans -= 1

    def _base(self) -> dict[str, Any]:
        return {"id": self._new_id(), "parentId": self._leaf, "timestamp": now_iso()}

    def _new_id(self) -> str:
        return new_entry_id(self.index.by_id)

    def append_refusal(self) -> str | None:
        """Why an append would be refused (an old format, a read-only source); None: it is not."""
        if self.path is not None and self.state.version < CURRENT_VERSION:
            return (
                f"{self.path} is a version {self.state.version} session; run `loomtui migrate "
                f"{self.path}` first (it keeps a .bak copy)"
            )
        if self.path is None and not self.source.can_label:
            return self.source.read_only_reason or f"a {self.source.kind} source is read-only"
        return None

    def _require_writable_format(self) -> None:
        if self.path is not None and self.state.version < CURRENT_VERSION:
            raise WriteRefused(self.append_refusal() or "")

    def _append(self, obj: dict[str, Any], *, on_file_leaf: bool = False) -> str:
        """Append ``obj`` parented on the in-memory leaf (pi), or with ``on_file_leaf`` on the
        file's last entry (read after any other writer's lines)."""
        if on_file_leaf:
            obj["parentId"] = self.index.leaf_id
        if self.path is None:
            refusal = self.append_refusal()
            if refusal:
                raise WriteRefused(refusal)
            e = entry_from_dict(obj, line=0)
            assert e is not None
            self.index.add(e)
            if e.type == "label":
                self._memory_labels += 1
            self._leaf = e.id
            self._leaf_moved = False
            return e.id
        self._require_writable_format()
        self.refresh()  # index what another writer appended; raises if the file was rewritten
        assert self._mark is not None
        if on_file_leaf:
            obj["parentId"] = self.index.leaf_id  # another writer's lines may have come first
        else:
            obj["parentId"] = self._leaf  # the leaf may have followed another writer's lines
        line = js_json(obj).encode() + b"\n"
        # the header and the line parented on must still be what was read (a rewrite in place
        # keeps sizes and times)
        parent = self.index.by_id.get(obj["parentId"]) if obj["parentId"] is not None else None
        self._verified_lines([parent] if parent is not None else [])
        size = store.check_unchanged_prefix(self.path, self._mark)
        store.append_line(self.path, line, expect_size=size)  # PartialLastLine: the agent is mid-line
        self._leaf_moved = True  # keep refresh from moving the leaf; set below
        self.refresh()
        if obj["id"] not in self.index.by_id:
            raise LoomError("the appended line could not be read back; the file may be shared with a writer")
        self._leaf = obj["id"]
        self._leaf_moved = False
        return obj["id"]  # type: ignore[no-any-return]


#: what open says of a last line without a newline that does not parse (live follow drops it
#: once the line is complete, e.g. after pi 1.6.0 appended the newline it lacked)
TORN_LAST_LINE = "torn last line (no newline, not valid JSON): kept as is"


def _omit_none(entry: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if not (k in keys and v is None)}


def entry_from_dict(obj: dict[str, Any], line: int = 0) -> Entry | None:
    """A skeleton for an entry that lives in memory (keeps the dict as its data)."""
    eid = obj.get("id")
    if not isinstance(eid, str):
        return None
    parent = obj.get("parentId")
    etype = obj.get("type")
    e = Entry(eid, parent if isinstance(parent, str) else None, etype if isinstance(etype, str) else "")
    e.span = span(line, -1, 0)
    fill(e, obj)
    e.data = obj
    return e
