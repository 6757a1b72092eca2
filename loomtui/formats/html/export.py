"""`loomtui export-html`: one self-contained HTML page per session or loom.

The page holds three kinds of embedded data, each gzip-compressed and base64-encoded inside a
``<script type="application/gzip+base64">`` element (never executed, never parsed as HTML):

- the sidebar (``html/rows.sidebar_data``): loomtui's /tree rows for every filter mode,
  the one-line texts, search texts and labels, the tree links (parent, subtree end, newest
  leaf) and where each entry's record lives;
- the records, in chunks of ``CHUNK`` lines in file order: for each line of the session file
  its raw text as it stands (the JSONL download is rebuilt from them, byte for byte), then on
  the next line a JSON array ``[html, in_file, kind, head]``: for an entry, its HTML
  pre-rendered here (``html/render.py``; null for a tool result shown with its call,
  which the page hides). A JSONL line holds no newline, so the page splits a chunk at its
  newlines; a line and its HTML sit side by side, so the compressor finds the text of one in
  the other; the page inflates a chunk only when an entry in it is shown
  (``DecompressionStream``);
- for a loom that is not JSONL (OpenLoom, socketteer), the original file.

Everything the page shows from the session is either escaped here or set with
``textContent`` there, and a Content-Security-Policy lets only the page's own script run.
A big session is rendered on two CPUs: a forked child renders and compresses the second half
of the chunks while this process does the first (the same bytes either way).
"""

from __future__ import annotations

import html
import io
import os
import secrets
from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import orjson

from loomtui.formats.html.branch_file import BranchFile
from loomtui.formats.html.deflate import FIND_LEVEL, SIDE_LEVEL, GzipB64, gzip_b64, zlib_gzip_b64
from loomtui.formats.html.render import EntryRenderer, Stats, header_html
from loomtui.formats.html.rows import sidebar_data
from loomtui.formats.html.spool import Spool
from loomtui.formats.html.system_context import has_system_context, without_system
from loomtui.formats.html.theme import theme_css
from loomtui.session.entries import Entry
from loomtui.session.errors import LoomError, WriteRefused
from loomtui.session.fileio import open_regular_file
from loomtui.session.forked import can_fork, child_output, start_child
from loomtui.session.jsonvalue import deep_call, dumps_bytes
from loomtui.session.jsstr import js_json
from loomtui.session.manager import SessionManager
from loomtui.session.source import EXPORT
from loomtui.session.store import write_new_file_with
from loomtui.view import flat as F
from loomtui.view.model import TreeModel

T = TypeVar("T")

#: lines per record chunk (a chunk is inflated as a whole when one of its entries is shown)
CHUNK = 256
#: below this many chunks one process is faster than a fork
PARALLEL_MIN_CHUNKS = 8
#: the sidebar (with the tree model and the page's other facts) costs about as much as one chunk
#: per this many entries on a small session, and by ``1 + entries / SIDEBAR_GROWTH`` more on a
#: big one (a bigger tree costs more per entry): fitted to the CPU seconds of each process on
#: the 10k and 100k-entry sessions, with every blob deflated by ISA-L (benchmarks/bench_html.py)
SIDEBAR_PER_CHUNK = 560
SIDEBAR_GROWTH = 380_000
#: the most bytes of the session file (or of the chunks) read or compressed in one piece
READ_BYTES = 4 << 20
ASSETS = Path(__file__).parent


@dataclass
class HtmlExport:
    path: str
    entries: int
    bytes: int
    notes: list[str] = field(default_factory=list)


@dataclass
class _Records:
    """One record per line of a pi file, then one per entry that lives only in memory.

    The file is never held whole: its lines are read (``os.pread``, by their starts) by the
    process that writes their chunk, at most ``READ_BYTES`` at a time or one line (a forked
    child touches no per-line object of its parent, so the memory stays shared), and
    ``orjson`` parses an entry's line as it is."""

    #: the session file, open for reading (None for a loom read by an adapter)
    file: Any = None
    #: where each of the file's lines starts, then ``len(data) + 1``
    starts: list[int] = field(default_factory=lambda: [0])
    entry: list[Entry | None] = field(default_factory=list)
    #: file lines written otherwise (without system context), by record
    replaced: dict[int, bytes] = field(default_factory=dict)
    #: the records of the entries that live only in memory (records ``in_file`` on)
    memory: list[bytes] = field(default_factory=list)
    #: the records ``iter_lines`` read last, and the first one's number
    _piece: tuple[int, list[bytes]] = (0, [])

    @property
    def in_file(self) -> int:
        return len(self.starts) - 1

    def __len__(self) -> int:
        return len(self.entry)

    def lines(self, lo: int, hi: int) -> list[bytes]:
        """Records ``lo`` … ``hi - 1``."""
        n = self.in_file
        top = min(hi, n)
        out = self._read(self.starts[lo], self.starts[top] - 1).split(b"\n") if lo < top else []
        out += self.memory[max(lo, n) - n : hi - n]
        if self.replaced:
            get = self.replaced.get
            for i in range(lo, top):
                line = get(i)
                if line is not None:
                    out[i - lo] = line
        return out

    def line_of(self, e: Entry) -> bytes | None:
        """The record of an entry that has a line in the file, else None (from the piece
        ``iter_lines`` read last when it is there: a tool result is usually a line or two after
        its call)."""
        starts = self.starts
        i = bisect_left(starts, e.offset, 0, len(starts) - 1) if e.offset >= 0 else -1
        if i < 0 or i >= len(starts) - 1 or starts[i] != e.offset or self.entry[i] is not e:
            return None
        at, piece = self._piece
        if at <= i < at + len(piece):
            return piece[i - at]
        line = self.replaced.get(i)
        return line if line is not None else self._read(starts[i], starts[i + 1] - 1)

    def _read(self, lo: int, hi: int) -> bytes:
        """The file's bytes ``lo`` … ``hi - 1``."""
        fd = self.file.fileno()
        out = os.pread(fd, hi - lo, lo)
        while len(out) < hi - lo:  # a short read (a pipe, a signal): the rest
            more = os.pread(fd, hi - lo - len(out), lo + len(out))
            if not more:
                raise LoomError("the session file shrank while it was exported")
            out += more
        return out

    def iter_lines(self, lo: int, hi: int) -> Iterator[bytes]:
        """Records ``lo`` … ``hi - 1``, read at most ``READ_BYTES`` (or one line) at a time."""
        starts = self.starts
        top = min(hi, self.in_file)
        i = lo
        try:
            while i < top:
                j = i + 1
                limit = starts[i] + READ_BYTES
                while j < top and starts[j + 1] <= limit:
                    j += 1
                piece = self.lines(i, j)
                self._piece = (i, piece)
                yield from piece
                i = j
        finally:
            self._piece = (0, [])
        if hi > max(lo, top):
            yield from self.lines(max(lo, top), hi)


def _blob(element_id: str, b64: bytes) -> bytes:
    return b'<script type="application/gzip+base64" id="%s">%s</script>' % (element_id.encode("ascii"), b64)


def _records(manager: SessionManager, no_system_context: bool) -> tuple[_Records, bytes | None]:
    """The records (entries matched to their lines by byte offset); and, for a loom read by an
    adapter, the original file's bytes."""
    entries = manager.index.entries
    recs = _Records()
    original: bytes | None = None
    path = manager.path if manager.source_format == "pi" else None
    if path is not None:
        recs.file = f = open_regular_file(path)
        starts = recs.starts
        size = 0
        while block := f.read(READ_BYTES):
            find = block.find
            pos = find(b"\n")
            while pos >= 0:
                starts.append(size + pos + 1)
                pos = find(b"\n", pos + 1)
            size += len(block)
            del block, find
        starts.append(size + 1)
        by_offset = {e.offset: e for e in entries if e.offset >= 0 and e.data is None}
        recs.entry = list(map(by_offset.get, starts[:-1]))
        if no_system_context:
            _strip_lines(manager, recs)
    else:
        src = manager.source_path
        if src and not no_system_context:
            try:
                with open_regular_file(src) as f:
                    original = f.read()
            except (OSError, LoomError):
                original = None
    placed = {id(e) for e in recs.entry if e is not None}
    if len(placed) < len(entries):
        for e in entries:
            if id(e) not in placed:
                full = manager.load(e)
                recs.memory.append(js_json(without_system(full) if no_system_context else full).encode("utf-8"))
                recs.entry.append(e)
    return recs, original


def _strip_lines(manager: SessionManager, recs: _Records) -> None:
    """The lines that carry system context rewritten without it (and the header line, first)."""
    for i, e in enumerate(recs.entry):
        if e is not None and has_system_context(e):
            recs.replaced[i] = js_json(without_system(manager.load(e))).encode("utf-8")
    if recs.entry and recs.entry[0] is None and recs.starts[1] > 1:  # a header line, not empty
        recs.replaced[0] = js_json(without_system(manager.header)).encode("utf-8")


def _render_chunks(
    renderer: EntryRenderer,
    records: _Records,
    start: int,
    stop: int,
    write: Callable[[bytes], None],
    branch: BranchFile | None = None,
) -> Stats:
    """Writes the chunk blobs ``d-c<start>`` … ``d-c<stop-1>`` (each after a newline); the usage
    they add up; with ``branch``, each entry's line as a branch export writes it. A chunk's rows are compressed as they are made (``READ_BYTES`` at a time), so
    only one entry's text, HTML and row are held at once beyond that."""
    stats = Stats()
    render = renderer.render
    in_file = records.in_file
    entry = records.entry
    for k in range(start, stop):
        write(b'\n<script type="application/gzip+base64" id="d-c%d">' % k)
        gz = GzipB64()
        pending: list[bytes] = []
        held = 0
        lo = k * CHUNK
        hi = min(lo + CHUNK, len(records))
        for i, line in zip(range(lo, hi), records.iter_lines(lo, hi)):
            e = entry[i]
            if e is None:
                meta: bytes = _NO_ENTRY_META[i < in_file]
            else:
                body, kind, head = render(e, stats, line if i < in_file else None)
                written = branch.line_as_written(e, line) if branch is not None else None  # None: as read
                row = (body, 1 if i < in_file else 0, kind, head, *(() if written is None else (written,)))
                try:
                    meta = orjson.dumps(row)
                except TypeError:  # a lone surrogate in an entry read by an adapter
                    meta = dumps_bytes(row)
            pending += (line if line.isascii() else _utf8(line), b"\n", meta, b"\n")
            held += len(line) + len(meta)
            del line, meta
            if held >= READ_BYTES:
                write(gz.feed(b"".join(pending)))
                pending.clear()
                held = 0
        write(gz.feed(b"".join(pending)))
        write(gz.close() + b"</script>")
    return stats


#: the rendered part of a record without an entry (the header line, an empty or bad line), by
#: whether the line is in the file
_NO_ENTRY_META = (dumps_bytes(("", 0, "", None)), dumps_bytes(("", 1, "", None)))


def _utf8(line: bytes) -> bytes:
    """The line as the page reads it: valid UTF-8 (bytes that are not become U+FFFD, as Python
    and the browser's decoder both replace them)."""
    if line.isascii():
        return line
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return line.decode("utf-8", errors="replace").encode("utf-8")
    return line


def _all_chunks(
    renderer: EntryRenderer, records: _Records, meanwhile: Callable[[], T], branch: BranchFile | None
) -> tuple[list[Spool], Stats, T]:
    """Every chunk blob (in spool files, in order), and what ``meanwhile`` returns: with two
    CPUs a forked child renders the later chunks (into its own spool file, written into the
    page as it is) while this process runs ``meanwhile`` (the sidebar) and then the first ones.
    The child sends its usage figures."""
    n = (len(records) + CHUNK - 1) // CHUNK
    spool = Spool()
    if n < PARALLEL_MIN_CHUNKS or not can_fork():
        side = meanwhile()
        return [spool], _render_chunks(renderer, records, 0, n, spool.write, branch), side
    # this process also builds and compresses the sidebar (``SIDEBAR_PER_CHUNK``: measured in
    # chunks' work)
    sidebar = len(records) / SIDEBAR_PER_CHUNK * (1 + len(records) / SIDEBAR_GROWTH)
    split = max(1, min(n - 1, int(n - sidebar) // 2))
    later = Spool()
    spool.file.flush()

    def child() -> bytes:
        stats = _render_chunks(renderer, records, split, n, later.write, branch)
        later.file.flush()
        return orjson.dumps([stats.to_json(), later.size])

    pid, fd = start_child(child)
    try:
        side = meanwhile()
        stats = _render_chunks(renderer, records, 0, split, spool.write, branch)
    finally:
        got = child_output(pid, fd)
    if got is None:
        later = Spool()
        more = _render_chunks(renderer, records, split, n, later.write, branch)
    else:
        figures, later.size = orjson.loads(got)
        more = Stats.from_json(figures)
    stats.merge(more)
    return [spool, later], stats, side


#: one piece of the page: bytes, or the spooled chunks
Part = bytes | Spool


def write_parts(f: Any, parts: list[Part]) -> int:
    """Write the page's pieces to ``f``; how many bytes."""
    n = 0
    for part in parts:
        if isinstance(part, Spool):
            for piece in part.pieces(READ_BYTES):
                f.write(piece)
        else:
            f.write(part)
        n += len(part)
    return n


def build_page(
    manager: SessionManager,
    *,
    leaf_id: str | None = None,
    target_id: str | None = None,
    theme: str | None = None,
    no_system_context: bool = False,
    source_name: str | None = None,
) -> str:
    """The page, as one string."""
    buf = io.BytesIO()
    write_parts(
        buf,
        page_parts(
            manager,
            leaf_id=leaf_id,
            target_id=target_id,
            theme=theme,
            no_system_context=no_system_context,
            source_name=source_name,
        ),
    )
    return buf.getvalue().decode("utf-8")


def page_parts(
    manager: SessionManager,
    *,
    leaf_id: str | None = None,
    target_id: str | None = None,
    theme: str | None = None,
    no_system_context: bool = False,
    source_name: str | None = None,
) -> list[Part]:
    """The page's UTF-8 bytes, in pieces (written one after the other with ``write_parts``,
    never joined): the chunks stay in a temporary file until then."""
    for what, eid in (("leaf", leaf_id), ("target", target_id)):
        if eid is not None and eid not in manager.index.by_id:
            raise LoomError(f"no entry {eid!r} ({what}) in {source_name or manager.path}")
    records, original = _records(manager, no_system_context)
    try:
        return _page_parts(manager, records, original, leaf_id, target_id, theme, no_system_context, source_name)
    finally:
        if records.file is not None:
            records.file.close()


def _page_parts(
    manager: SessionManager,
    records: _Records,
    original: bytes | None,
    leaf_id: str | None,
    target_id: str | None,
    theme: str | None,
    no_system_context: bool,
    source_name: str | None,
) -> list[Part]:
    tool_calls = F.tool_call_map(manager.index.with_tool_calls)
    model: TreeModel | None = None
    if tool_calls is None:  # a call id repeats: the tree's order decides which call is meant
        model = TreeModel(manager, leaf_id=leaf_id, use_manager_leaf=leaf_id is None)
        tool_calls = model.flat.tool_calls
    renderer = EntryRenderer(manager, tool_calls, no_system_context=no_system_context, line_of=records.line_of)

    name = source_name or os.path.basename(manager.source_path or manager.path or "session")
    branch = BranchFile(manager) if manager.source.offers(EXPORT) else None
    n_chunks = (len(records) + CHUNK - 1) // CHUNK

    def sidebar() -> list[bytes]:
        """The sidebar blobs: the rows (read first) and the search texts (read after the
        first paint)."""
        m = model or TreeModel(manager, leaf_id=leaf_id, use_manager_leaf=leaf_id is None)
        side = sidebar_data(m)
        side.update(_page_facts(manager, m, records, original, name, target_id, n_chunks, branch))
        side["leaf"] = _leaf_through(side, side["target"])
        if no_system_context:
            for p, e in enumerate(m.flat.entries):
                if e.type == "custom_message" and e.aux == "system":
                    side["segs"][p] = [side["segs"][p][0], "[system]: ", 3, "(system context left out)"]
                    side["search"][p] = "system"
                elif e.type == "message" and e.role == "system":
                    side["search"][p] = "system"  # the row names the prompt; its text stays out
        search = side.pop("search")
        segs = side["segs"]
        for p, text in enumerate(search):
            if text.isascii() and text == _row_search_text(segs[p]):
                search[p] = 0  # the page makes it from the row's text (``rowSearchText``)
        return [
            _blob("d-side", gzip_b64(dumps_bytes(side), SIDE_LEVEL)),
            _blob("d-find", gzip_b64(dumps_bytes(search), FIND_LEVEL)),
        ]

    chunks, stats, side = _all_chunks(renderer, records, sidebar, branch)
    data: list[Part] = [side[0], b"\n" + side[1], *chunks]
    if original is not None:
        data.append(b"\n" + _blob("d-orig", zlib_gzip_b64(original, 6)))
    title = manager.get_session_name() or name
    nonce = secrets.token_urlsafe(16)
    css, theme_attr = theme_css(theme)
    head_args = (
        manager,
        title,
        stats,
        len(manager.index.entries),
        no_system_context,
        download_words(manager, name, original),
    )
    try:
        head = header_html(*head_args)
    except RecursionError:  # a header value nested thousands deep
        head = deep_call(header_html, *head_args)
    template = (ASSETS / "page.html").read_text(encoding="utf-8")
    parts = {
        "{{THEME_ATTR}}": theme_attr,
        "{{NONCE}}": nonce,
        "{{TITLE}}": html.escape(str(title)),
        "{{CSS}}": css + (ASSETS / "page.css").read_text(encoding="utf-8"),
        "{{HEADER}}": head,
        "{{JS}}": (ASSETS / "page.js").read_text(encoding="utf-8"),
    }
    out: list[Part] = []
    rest = template
    while "{{" in rest:
        before, _, after = rest.partition("{{")
        key, _, rest = after.partition("}}")
        out.append(before.encode("utf-8"))
        if key == "DATA":
            out += data
        else:
            out.append(parts["{{" + key + "}}"].encode("utf-8"))
    out.append(rest.encode("utf-8"))
    return out


def _leaf_through(side: dict[str, Any], target: int) -> int:
    """The leaf the page opens on: the tree's leaf when its branch holds the target (or there
    is no target), else the newest leaf below the target, the branch a click on the target's
    row opens (``rows.newest_leaves``): a page opened at an entry always shows it."""
    leaf: int = side["leaf"]
    if target < 0:
        return leaf
    parent = side["parent"]
    p = leaf
    while p >= 0:  # the index's parents hold no cycle
        if p == target:
            return leaf
        p = parent[p]
    return int(side["newest"][target])


def _row_search_text(segs: list[Any]) -> str:
    """A row's text as the search text most messages have ("user: hi" → "user hi"), in lower
    case; page.js ``rowSearchText`` makes the same from the same segments (for ASCII texts,
    where Python's and JavaScript's lower case agree)."""
    texts = segs[1::2]
    first = texts[0] if texts else ""
    if first.endswith(": "):
        first = first[:-2] + " "
    return (first + "".join(texts[1:])).lower()


def _page_facts(
    manager: SessionManager,
    model: TreeModel,
    records: _Records,
    original: bytes | None,
    name: str,
    target_id: str | None,
    n_chunks: int,
    branch: BranchFile | None,
) -> dict[str, Any]:
    """Where each entry's record is, the target, the download names."""
    flat_pos = {e.id: p for p, e in enumerate(model.flat.entries)}
    loc = [0] * len(flat_pos)
    for i, e in enumerate(records.entry):
        if e is not None:
            p = flat_pos.get(e.id)
            if p is not None:
                loc[p] = i
    return {
        "loc": loc,
        "chunkSize": CHUNK,
        "chunks": n_chunks,
        "target": flat_pos.get(target_id, -1) if target_id is not None else -1,
        # what the branch download writes besides the entries' lines (``branch_file``)
        "branchFile": branch.facts(flat_pos) if branch is not None else None,
        # the file the page holds the bytes of (a pi file's lines, a loom's original); else none,
        # and the header offers no download of it
        "fileName": name if original is not None or manager.source_format == "pi" else None,
        "original": name if original is not None else None,
    }


def download_words(manager: SessionManager, name: str, original: bytes | None) -> str | None:
    """The file download's words, naming what the file is as the app does ("download the OCP run
    (.json)"; the map of one loom configuration file: "download the loom configuration file
    (.json)"); None where the page holds no file's bytes (a pi file's lines, a loom's original):
    the map of a directory has no file of its own, and its page no download of one."""
    if original is None and manager.source_format != "pi":
        return None
    ext = os.path.splitext(name)[1]
    return f"download the {manager.source.file_word}" + (f" ({ext})" if ext else "")


def _stem(name: str) -> str:
    for ext in (".jsonl", ".json", ".zip"):
        if name.endswith(ext):
            return name[: -len(ext)]
    return name


def export_html(manager: SessionManager, out_path: str, **kwargs: Any) -> HtmlExport:
    """Write the page to ``out_path`` (a new file: never over an existing one)."""
    with manager.checked_spans():  # every line copied into the page is still the entry read
        parts = page_parts(manager, **kwargs)
    write_new_file_with(out_path, lambda f: write_parts(f, parts))
    return HtmlExport(out_path, len(manager.index.entries), sum(map(len, parts)))


def default_output(path: str) -> str:
    return _stem(path) + ".html"


def page_directory() -> str:
    """Where a page goes when the user names no file, in the app (Alt+E) and in
    ``loomtui export-html`` alike: the current directory, the one loomtui was started in (never
    beside the session, which may be another tool's folder or the bundled samples)."""
    return os.getcwd()


def export_to_free_name(manager: SessionManager, source: str, directory: str, **kwargs: Any) -> HtmlExport:
    """Export a session as it is open to ``DIRECTORY/NAME.html`` (``NAME-2.html``… when taken),
    named after ``source``. The app exports what it shows: labels not saved yet, the view a
    source was built as, a Claude Code subagent run read out of its parent's file."""
    with manager.checked_spans():  # every line copied into the page is still the entry read
        parts = page_parts(manager, source_name=os.path.basename(source), **kwargs)
    stem = os.path.basename(default_output(source))[: -len(".html")]
    for n in range(1, 1000):
        out = os.path.join(directory, f"{stem}.html" if n == 1 else f"{stem}-{n}.html")
        if os.path.lexists(out):
            continue
        try:
            write_new_file_with(out, lambda f: write_parts(f, parts))
        except WriteRefused:
            if os.path.lexists(out):
                continue  # taken in the meantime
            raise
        return HtmlExport(out, len(manager.index.entries), sum(map(len, parts)))
    raise WriteRefused(f"no free name for {stem}.html in {directory}")


def export_session_to_free_name(manager: SessionManager, source: str, directory: str, **kwargs: Any) -> str:
    """``export_to_free_name``'s path (the app's Alt+E)."""
    return export_to_free_name(manager, source, directory, **kwargs).path
