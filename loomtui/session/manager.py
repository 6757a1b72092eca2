"""SessionManager: pi's small append-only session API, in Python names (docs/formats.md §7).

Entries are never edited; branching only moves the in-memory leaf. Appends go to the file as
single lines (``store``), parented on the in-memory leaf, and become the leaf — label entries
included, exactly as in pi.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from datetime import datetime, timezone
from collections.abc import Iterator
from typing import Any, BinaryIO, Callable

from loomtui.session import indexcache, store, verify
from loomtui.session.context import ContextPlan, context_plan
from loomtui.session.entries import Entry, fill
from loomtui.session.errors import Diagnostic, LoomError, SessionFormatError, WriteConflict, WriteRefused
from loomtui.session.fileio import open_regular
from loomtui.session.index import SessionIndex
from loomtui.session.jsstr import js_json
from loomtui.session.memory import bulk_allocation
from loomtui.session.reader import LineParser, ParseState, decode_line, parse_from
from loomtui.session.source import Source
from loomtui.session.split import SplitParse

CURRENT_VERSION = 3


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_entry_id(taken: Any) -> str:
    """8 lowercase hex chars not in ``taken``; a full UUID after 100 collisions (pi's generateId)."""
    for _ in range(100):
        candidate = os.urandom(4).hex()  # the first 8 hex digits of a UUIDv4: all random
        if candidate not in taken:
            return candidate
    import uuid

    return str(uuid.uuid4())


def new_session_id() -> str:
    """A UUIDv7 (what pi 0.73 uses for session ids)."""
    ms = int(datetime.now(timezone.utc).timestamp() * 1000) & ((1 << 48) - 1)
    rand = int.from_bytes(os.urandom(10), "big")
    value = (ms << 80) | (0x7 << 76) | ((rand >> 68) & 0xFFF) << 64 | (0b10 << 62) | (rand & ((1 << 62) - 1))
    import uuid  # only when a session is written: keeps `loomtui tree` start-up short

    return str(uuid.UUID(int=value))


def branch_file_name(timestamp: str, session_id: str) -> str:
    return f"{timestamp.replace(':', '-').replace('.', '-')}_{session_id}.jsonl"


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
        #: full entries decoded lately, by id, with their line sizes (bounded by ``LOAD_CACHE_*``)
        self._cache: OrderedDict[str, tuple[dict[str, Any], int]] = OrderedDict()
        self._cache_bytes = 0
        #: what was opened and what may be written back (session/source.py)
        self.source = Source.memory()

    # opening ------------------------------------------------------------------------------
    @classmethod
    def open(cls, path: str, split: SplitParse | None = None,
             progress: Callable[[int, int, int], None] | None = None) -> "SessionManager":
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
            raise SessionFormatError(f"cannot open {path}: {exc.strerror}") from None
        # a load allocates ~10 objects per entry and frees none (docs/architecture.md, "Lazy full
        # entries"): the collector waits, and what was loaded is frozen
        with bulk_allocation():
            try:
                if os.path.isdir(path):
                    raise SessionFormatError(f"{path} is a directory, not a session file")
                state, pending, consumed, eof, index = indexcache.read(path, fd, split, progress)
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
        if consumed < eof:
            sm.index.diagnostics.append(
                Diagnostic(state.line_no + 1, "torn last line (no newline, not valid JSON): kept as is")
            )
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
    ) -> "SessionManager":
        """An in-memory session (adapters for other looms, tests). Appends stay in memory
        (or are refused, as ``source`` says).

        ``source`` says what was opened; without it, ``source_format`` and ``source_path``
        make a plain in-memory one. ``labels`` and ``session_name`` seed what pi would fold
        from label / session_info entries, for formats that keep bookmarks and titles outside
        the tree. ``leaf``: where the leaf starts (default: the last entry).
        """
        skeletons = []
        for n, obj in enumerate(entries, start=1):
            e = entry_from_dict(obj, line=n)
            if e is not None:
                skeletons.append(e)
        if source is None:
            source = Source.memory(source_format, os.path.abspath(source_path) if source_path else None)
        return cls.from_skeletons(header, skeletons, diagnostics, labels=labels, session_name=session_name,
                                  source=source, leaf=leaf)

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
    ) -> "SessionManager":
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
            if label and target in sm.index.by_id:
                sm.index.labels[target] = (label, header.get("timestamp"))
        if session_name is not None and session_name.strip():
            sm.index.session_name = session_name.strip()
        sm._leaf = leaf if leaf in sm.index.by_id else sm.index.leaf_id
        return sm

    # what was opened ---------------------------------------------------------------------
    @property
    def source_format(self) -> str:
        """``source.kind`` (what the file was: ``pi``, ``openloom-v2``, …)."""
        return self.source.kind

    @property
    def source_path(self) -> str | None:
        """``source.path``: the file this session was read from."""
        return self.source.path

    @property
    def read_only_reason(self) -> str | None:
        return self.source.read_only_reason

    # pi's API: reading --------------------------------------------------------------------
    @property
    def version(self) -> int:
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
        it was not moved)."""
        if target_id not in self.index.by_id:
            raise LoomError(f"entry {target_id} not found")
        entry: dict[str, Any] = {"type": "label", **self._base(), "targetId": target_id}
        if label:
            entry["label"] = label
        leaf, moved = self._leaf, self._leaf_moved
        new_id = self._append(entry, on_file_leaf=True)
        if moved:
            self._leaf, self._leaf_moved = leaf, True
        return new_id

    def fork_point_candidates(self) -> list[str]:
        """Where a fork left its parent: pi copies the parent's path (same ids) into the new
        file, so the fork point is the deepest of these ids the parent holds. The ids of the
        path to the file's leaf, labels left out, deepest first."""
        return [e.id for e in reversed(self.index.path_to(self.index.leaf_id)) if e.type != "label"] \
            if self.index.leaf_id is not None else []

    # branching to a new file --------------------------------------------------------------
    def branch_entries(self, leaf_id: str) -> tuple[list[Entry], list[dict[str, Any]]]:
        """What createBranchedSession copies: the root → leaf path without label entries, and
        the re-created label chain (docs/formats.md §7.5)."""
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
        return kept, labels

    def create_branched_session(self, leaf_id: str, dir: str | None = None, out: str | None = None) -> str:
        """Write the branch ending at ``leaf_id`` to a new session file; returns its path.

        The file is what pi's createBranchedSession writes: a version 3 header whose
        ``parentSession`` is this file's absolute path, the path entries, then the labels.
        Written atomically and never over an existing file. This manager stays on its file.
        """
        self._require_writable_format()
        kept, labels = self.branch_entries(leaf_id)
        sid = new_session_id()
        ts = now_iso()
        cwd = self.header.get("cwd")  # pi: header?.cwd ?? process.cwd()
        header: dict[str, Any] = {"type": "session", "version": CURRENT_VERSION, "id": sid, "timestamp": ts,
                                  "cwd": os.getcwd() if cwd is None else cwd}
        source = self.source.path
        if source:
            header["parentSession"] = source
        if out is None:
            base = dir or (os.path.dirname(source) if source else os.getcwd())
            out = os.path.join(base, branch_file_name(ts, sid))
        copied: list[bytes] = []  # the digest of the copied spans, once written

        def write_branch(f: BinaryIO) -> None:
            # a piece at a time: the branch of a session of inline images may be gigabytes
            fd = f.fileno()
            buf = bytearray(js_json(header).encode() + b"\n")

            def written() -> Iterator[bytes]:
                for line in self._verified_line_iter(kept):
                    buf.extend(line + b"\n")
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
        """The lines of ``entries`` as they are in the file now, checked against what was read
        (``verify.lines``); serialised for entries that live in memory."""
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
        parser = LineParser(self.state, added.append)
        fd = open_regular(self.path)
        try:
            consumed, _eof = parse_from(fd, self._indexed_to, parser)
        finally:
            os.close(fd)
        fresh = [e for e in added if self.index.add(e)]
        self._indexed_to = consumed
        self._mark = store.mark_file(self.path, consumed)
        if not self._leaf_moved:
            self._leaf = self.index.leaf_id
        return fresh

    # internals ----------------------------------------------------------------------------
    def load(self, e: Entry) -> dict[str, Any]:
        """The full entry behind a skeleton (decoded from its byte span, cached)."""
        if e.data is not None:
            return e.data
        cache = self._cache
        hit = cache.get(e.id)
        if hit is not None:
            cache.move_to_end(e.id)
            return hit[0]
        obj = decode_line(self.raw_line(e))
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
            raw = os.pread(fd, e.size, e.offset)
        finally:
            os.close(fd)
        return raw.rstrip(b"\r\n\t ")

    def _base(self) -> dict[str, Any]:
        return {"id": self._new_id(), "parentId": self._leaf, "timestamp": now_iso()}

    def _new_id(self) -> str:
        return new_entry_id(self.index.by_id)

    def append_refusal(self) -> str | None:
        """Why an append would be refused (an old format, a read-only source); None: it is not."""
        if self.path is not None and self.state.version < CURRENT_VERSION:
            return (f"{self.path} is a version {self.state.version} session; run `loomtui migrate "
                    f"{self.path}` first (it keeps a .bak copy)")
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
        needs_newline = size > 0 and not _ends_with_newline(self.path, size)
        store.append_line(self.path, line, needs_newline, expect_size=size)
        self._leaf_moved = True  # keep refresh from moving the leaf; set below
        self.refresh()
        if obj["id"] not in self.index.by_id:
            raise LoomError("the appended line could not be read back; the file may be shared with a writer")
        self._leaf = obj["id"]
        self._leaf_moved = False
        return obj["id"]  # type: ignore[no-any-return]


def _ends_with_newline(path: str, size: int) -> bool:
    fd = open_regular(path)
    try:
        return os.pread(fd, 1, size - 1) == b"\n"
    finally:
        os.close(fd)


def _omit_none(entry: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    for k in keys:
        if entry.get(k) is None:
            entry.pop(k, None)
    return entry


def entry_from_dict(obj: dict[str, Any], line: int = 0) -> Entry | None:
    """A skeleton for an entry that lives in memory (keeps the dict as its data)."""
    eid = obj.get("id")
    if not isinstance(eid, str):
        return None
    parent = obj.get("parentId")
    etype = obj.get("type")
    e = Entry(eid, parent if isinstance(parent, str) else None, etype if isinstance(etype, str) else "")
    e.line = line
    fill(e, obj)
    e.data = obj
    return e
