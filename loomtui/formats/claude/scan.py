"""The Claude Code scan: one pass over a file's lines into skeletons and flat facts (``Scan``).

The leaf of the package: the reader (``claude/read.py``), the split read (``claude/split.py``),
the tree (``claude/tree.py``) and the subagents (``claude/subagents.py``) import it; it imports
none of them. Each line is decoded once: the usual line into typed structs of the fields kept
(``claude/typed.py``), any other whole by orjson. A line with a ``uuid`` becomes a skeleton
directly (the fields ``entries.fill`` would take from the pi-style entry ``lines.to_pi``
builds; a test holds the two equal), and the few facts the rest needs are kept in flat lists;
the decoded line is then dropped (benchmarks/bench_claude_open.py measures the open against a
pi file of the same size). The file's own tree is each line's parent index (``Scan.parents``),
not a map of children. Lines without a ``uuid`` are kept to be shown with an entry: as written,
with their type, when the typed scan read them (``Scan.book`` reads one when asked for).
"""

from __future__ import annotations

import marshal
from typing import Any

import orjson

from loomtui.formats.agent.tools import CLAUDE_TOOLS, pi_call
from loomtui.formats.claude import typed
from loomtui.formats.claude.lines import CMD_PREFIXES, SHOWN_SYSTEM, STOP, _blocks, command_text, text_of
from loomtui.session import jsonvalue
from loomtui.session.entries import LINE_AT, SIZE_AT, Entry, compact_args, content_text, has_text_content
from loomtui.session.errors import Diagnostic
from loomtui.session.jsstr import js_trim, utf16_slice

AGENT_TOOLS = ("Task", "Agent")
#: the read buffer (grown for a longer line)
BUFFER = 1 << 20


class Scan:
    """What one pass over the file keeps (index ``i`` = the i-th line with a uuid; its skeleton
    holds its id, the parent it was written with, its line, offset and size)."""

    def __init__(self) -> None:
        self.skels: list[Entry] = []
        self.by_id: dict[str, int] = {}
        #: each line's parent as written (its index; -1 for a root and for a parent not in the
        #: file): the file's own tree, without a map of children (``kids`` makes one when asked)
        self.parents: list[int] = []
        #: lines whose parent was not read before them (looked up again when a scan ends: ``link``)
        self.unlinked: list[int] = []
        self.roots: list[str] = []  # lines with parentUuid null
        self.kinds: list[str] = []
        self.side: set[int] = set()  # sidechain lines
        self.logical: dict[int, str] = {}
        #: the lines without a uuid: (the line, line number, last non-sidechain index before it,
        #: last index before it); a line the typed scan read is kept as its bytes until it is
        #: asked for (``book``, ``books``)
        self.book_lines: list[tuple[Any, int, int, int]] = []
        #: each line without a uuid's ``type``, what the tree looks for without reading the lines
        self.book_types: list[Any] = []
        self.progress: list[int] = []  # progress / attachment lines
        self.tool_names: dict[str, str] = {}
        self.agent_calls: dict[str, tuple[int, dict[str, Any]]] = {}
        self.results: dict[str, int] = {}
        self.agent_ids: list[tuple[int, str, Any]] = []  # (index, agentId, tool_use_id)
        self.side_roots: dict[int, str] = {}  # sidechain root index -> its prompt
        #: (index, sidechain, message id, request id, usage) of each assistant line with a usage
        #: (the typed scan keeps a usage's raw bytes: ``usage`` decodes them)
        self.usage_lines: list[tuple[int, bool, Any, Any, Any]] = []
        self.session_id: str | None = None
        self.cwd: str | None = None
        self.version: str | None = None
        self.forked_from: str | None = None
        self.lines = 0  # lines that are JSON
        self.line_no = 0  # physical lines read
        self.last_main_i = -1  # the last non-sidechain line with a uuid
        self.diags: list[Diagnostic] = []
        self.read_to = 0  # the offset after the last line that ended with a newline
        #: a scan of a file's tail (``claude/split.py``): the results whose call it has not seen
        self.foreign: list[tuple[str, int]] | None = None
        #: ``usage_lines`` of tails merged in (``claude/split.py``), marshal-packed, and the index
        #: their lines start at: unpacked when tokens are first asked for (``usage``)
        self.usage_packed: list[tuple[bytes, int]] = []
        #: a merged tail's marks for ``claude/tree._leading`` in the non-sidechain view (the
        #: tail's first index, its marks, its lines marked whose parent is not in the tail)
        self.tail_leads: tuple[int, bytearray, list[int]] | None = None
        #: skeletons' tool calls made as pi shows the same tools (``agent/tools.py``); a split
        #: read's child keeps them as written (marshal takes plain values only): the parent
        #: maps them when it merges the tail (``split.merge``)
        self.shown_calls = True

    @property
    def kids(self) -> dict[str, list[int]]:
        """parentUuid as written -> its children (a parent not in the file too), made from
        ``parents`` when asked (``info``, a sidechain's lines, its subagents)."""
        return self.tree()[0]

    @property
    def forks(self) -> list[str]:
        """The parents (as written) with several children, in the order they became so."""
        return self.tree()[1]

    def tree(self) -> tuple[dict[str, list[int]], list[str]]:
        """(``kids``, ``forks``) of the file as written."""
        kids: dict[str, list[int]] = {}
        forks = []
        skels = self.skels
        loose = set(self.unlinked)
        for i, p in enumerate(self.parents):
            if p >= 0:
                parent = skels[p].id
            elif i in loose:
                parent = skels[i].parent_id  # type: ignore[assignment]
            else:
                continue
            k = kids.get(parent)
            if k is None:
                kids[parent] = [i]
            else:
                k.append(i)
                if len(k) == 2:
                    forks.append(parent)
        return kids, forks

    def link(self) -> None:
        """Parents written after their children: their indices, now that they are read."""
        by_id, skels, parents = self.by_id, self.skels, self.parents
        left = []
        for i in self.unlinked:
            p = by_id.get(skels[i].parent_id)  # type: ignore[arg-type]
            if p is None:
                left.append(i)
            else:
                parents[i] = p
        self.unlinked = left

    @property
    def books(self) -> list[tuple[dict[str, Any], int, int, int]]:
        """``book_lines``, every line read."""
        for k, b in enumerate(self.book_lines):
            if type(b[0]) is bytes:
                self.book(k)
        return self.book_lines

    def book(self, k: int) -> dict[str, Any]:
        """The ``k``-th line without a uuid, read (as JSON.parse reads it: the typed scan took it)."""
        b = self.book_lines[k]
        obj = b[0]
        if type(obj) is bytes:
            obj = jsonvalue.loads(obj)
            self.book_lines[k] = (obj, b[1], b[2], b[3])
        return obj  # type: ignore[no-any-return]

    def uuid(self, i: int) -> str:
        return self.skels[i].id

    def span(self, i: int) -> tuple[int, int, int]:
        e = self.skels[i]
        return e.offset, e.size, e.line

    def usage(self) -> list[tuple[int, bool, Any, Any, dict[str, Any]]]:
        """``usage_lines`` of the whole file (a merged tail's unpacked, the typed scan's raw
        usages decoded, on the first call)."""
        lines = self.usage_lines
        for data, base in self.usage_packed:
            lines += [(i + base, side, mid, rid, u) for i, side, mid, rid, u in marshal.loads(data)]
        self.usage_packed = []
        loads = orjson.loads
        for p, (i, side, mid, rid, u) in enumerate(lines):
            if type(u) is bytes:
                lines[p] = (i, side, mid, rid, loads(u))
        return lines


def scan(fd: int, start: int = 0, end: int | None = None, sc: Scan | None = None) -> Scan:
    """Read the lines from byte ``start`` to ``end`` (a line boundary; default the end of the
    file) through one reused buffer: reading the whole file at once would double the peak
    memory and fault in every page of a buffer the size of the file. ``sc``: go on from a scan
    that ended at ``start``."""
    if sc is None:
        sc = Scan()
    buf = bytearray(BUFFER)
    have = 0  # bytes of the file in ``buf``, from file offset ``at``
    at = start
    left = -1 if end is None else end - start
    with open(fd, "rb", buffering=0, closefd=False) as f:
        f.seek(start)
        while left:
            if have == len(buf):
                buf.extend(bytes(len(buf)))  # a line longer than the buffer
            with memoryview(buf) as room:
                got = f.readinto(room[have:] if left < 0 else room[have : have + left])
            if not got:
                break
            if left > 0:
                left -= got
            have += got
            used = _scan_buffer(sc, buf, have, at, False)
            buf[: have - used] = buf[used:have]
            have -= used
            at += used
    sc.read_to = at
    if have:
        _scan_buffer(sc, buf, have, at, True)  # a last line without a newline
    sc.link()
    return sc


def _scan_buffer(sc: Scan, data: bytearray, n: int, base: int, final: bool) -> int:
    """Scan the complete lines in ``data[:n]`` (all of it when ``final``); returns the bytes used.
    The usual line is typed (``claude/typed.py``); anything else is read whole by orjson."""
    by_id = sc.by_id
    skels = sc.skels
    typed_decode = typed.decode
    parents_append = sc.parents.append
    unlinked_append = sc.unlinked.append
    skels_append = skels.append
    kinds_append = sc.kinds.append
    side_add = sc.side.add
    progress_append = sc.progress.append
    book_append = sc.book_lines.append
    book_type_append = sc.book_types.append
    typed_skeleton = typed.skeleton
    typed_errors = typed.ERRORS
    view = memoryview(data)
    find = data.find
    pos = 0
    line = sc.line_no
    last_main = sc.last_main_i
    last_any = len(skels) - 1
    json_lines = sc.lines
    need_sid = sc.session_id is None
    while pos < n:
        nl = find(b"\n", pos, n)
        if nl < 0:
            if not final:
                break
            nl = n
        off = pos
        pos = nl + 1
        line += 1
        if nl == off:
            continue
        raw = view[off:nl]
        if not need_sid:
            try:
                s = typed_decode(raw)
            except typed_errors:
                s = None
            if s is not None and not s.uuid:  # kept as written until asked for (``Scan.book``)
                book_append((bytes(raw), line, last_main, last_any))
                book_type_append(s.type)
                json_lines += 1
                continue
            # a root, a duplicate: the general route below
            if s is not None and (u := s.uuid) and (parent := s.parent_uuid) is not None and u not in by_id:
                i = last_any + 1
                try:
                    kind, e = typed_skeleton(s, u, parent, sc, i)
                except typed_errors:
                    kind = None
                if kind is not None:  # ``_note``, inline (the hot path)
                    json_lines += 1
                    by_id[u] = i
                    p = by_id.get(parent, -1)
                    parents_append(p)
                    if p < 0:
                        unlinked_append(i)
                    e.span = (base + off + 1) | (nl - off) << SIZE_AT | line << LINE_AT  # ``entries.span``
                    skels_append(e)
                    kinds_append(kind)
                    last_any = i
                    if s.is_sidechain:
                        side_add(i)
                    else:
                        last_main = i
                    if kind == "progress":
                        progress_append(i)
                    continue
        counted, last_main, last_any = _general_line(sc, raw, line, base + off, last_main, last_any)
        json_lines += counted
        need_sid = sc.session_id is None
    sc.line_no = line
    sc.last_main_i = last_main
    sc.lines = json_lines
    return min(pos, n)


def _general_line(
    sc: Scan, raw: memoryview, line: int, offset: int, last_main: int, last_any: int
) -> tuple[int, int, int]:
    """A line the typed scan left, decoded whole by orjson: a skeleton, a line without a uuid, or
    a diagnostic. Returns (1 if it is JSON, else 0; the last non-sidechain index; the last index)."""
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        _bad_line(sc, line, raw, "not valid JSON: skipped")
        return 0, last_main, last_any
    if type(obj) is not dict:
        _bad_line(sc, line, None, "not a JSON object: skipped")
        return 1, last_main, last_any
    u = obj.get("uuid")
    if type(u) is not str or not u:
        sc.book_lines.append((obj, line, last_main, last_any))
        sc.book_types.append(obj.get("type"))
        return 1, last_main, last_any
    if u in sc.by_id:
        _bad_line(sc, line, None, f"duplicate uuid {u!r}: the first line with it wins")
        return 1, last_main, last_any
    i = last_any + 1
    sc.by_id[u] = i
    if sc.session_id is None:
        _session_fields(sc, obj)
    side = obj.get("isSidechain") is True
    parent = obj.get("parentUuid")
    if type(parent) is not str:
        parent = None
    t = obj.get("type")
    make = _SKELETONS.get(t, _other) if type(t) is str else _other
    kind, e = make(u, parent, obj, t, sc.tool_names, sc, i, side)
    _note(sc, e, kind, i, side, line, offset, len(raw))
    if parent is None:
        _root_line(sc, obj, u, i, side and kind == "prompt")
    return 1, (last_main if side else i), i


def _note(sc: Scan, e: Entry, kind: str, i: int, side: bool, line: int, offset: int, size: int) -> None:
    """Keep line ``i``'s skeleton and its place in the file's own tree."""
    parent = e.parent_id
    p = -1 if parent is None else sc.by_id.get(parent, -1)
    sc.parents.append(p)
    if p < 0 and parent is not None:
        sc.unlinked.append(i)
    e.span = (offset + 1) | size << SIZE_AT | line << LINE_AT  # ``entries.span``
    sc.skels.append(e)
    sc.kinds.append(kind)
    if side:
        sc.side.add(i)
    if kind == "progress":
        sc.progress.append(i)


def _bad_line(sc: Scan, line: int, raw: memoryview | None, reason: str) -> None:
    if raw is not None and bytes(raw).isspace():
        return  # a blank line
    sc.diags.append(Diagnostic(line, reason))


def _session_fields(sc: Scan, obj: dict[str, Any]) -> None:
    """The session's id, directory and version from the first line that names a session."""
    sid = obj.get("sessionId")
    if type(sid) is not str:
        return
    sc.session_id = sid
    cwd = obj.get("cwd")
    sc.cwd = cwd if type(cwd) is str else None
    ver = obj.get("version")
    sc.version = ver if type(ver) is str else None
    fork = obj.get("forkedFrom")  # a /branch file: the session it was branched from
    if type(fork) is dict and type(fork.get("sessionId")) is str and fork["sessionId"] != sid:
        sc.forked_from = fork["sessionId"]


def _root_line(sc: Scan, obj: dict[str, Any], u: str, i: int, side_prompt: bool) -> None:
    """A line written without a parent: a root, a compaction boundary, a sidechain's start."""
    sc.roots.append(u)
    lp = obj.get("logicalParentUuid")
    if type(lp) is str:
        sc.logical[i] = lp
    if side_prompt:
        m = obj.get("message")
        sc.side_roots[i] = text_of(m.get("content") if type(m) is dict else None).strip()


def _assistant(
    eid: str, parent: str | None, obj: dict[str, Any], t: Any, names: dict[str, str], sc: Scan, i: int, side: bool
) -> tuple[str, Entry]:
    """An assistant line: its text, its tool calls, how it stopped; its usage noted."""
    msg = obj.get("message")
    if type(msg) is not dict:
        msg = {}
    e = Entry(eid, parent, "message")
    e.timestamp = obj.get("timestamp")
    e.role = "assistant"
    content = msg.get("content")
    if type(content) is str:
        text = content
        has = bool(js_trim(content))
    elif type(content) is list:
        text, has = _assistant_blocks(e, content, names, sc, i)
    else:
        text = ""
        has = False
    e.text = text if len(text) < 100 else (text[:200] if text.isascii() else utf16_slice(text, 200))
    e.has_text = has
    sr = msg.get("stop_reason")
    e.stop_reason = STOP.get(sr) if type(sr) is str else None
    if ("error" in obj or "isApiErrorMessage" in obj) and (obj.get("isApiErrorMessage") or obj.get("error")):
        e.stop_reason = "error"
        err = text_of(content) or str(obj.get("error"))
        e.aux = utf16_slice(err, 400) if err else None
    u = msg.get("usage")
    if type(u) is dict:  # counted when first asked for (``claude/tree.count_usage``)
        sc.usage_lines.append((i, side, msg.get("id"), obj.get("requestId"), u))
    return "assistant", e


def _assistant_blocks(e: Entry, content: list[Any], names: dict[str, str], sc: Scan, i: int) -> tuple[str, bool]:
    """(text, whether it has any) of an assistant's content blocks; their tool calls set on ``e``
    and noted by id (Task/Agent calls too: where subagents hang)."""
    text = ""
    has = False
    calls = None
    shown = sc.shown_calls
    for b in content:
        if type(b) is not dict:
            continue
        bt = b.get("type")
        if bt == "text":
            s = b.get("text")
            if type(s) is str:
                text += s
                if not has and js_trim(s):
                    has = True
        elif bt == "tool_use" or bt == "server_tool_use":
            cid = b.get("id")
            if type(cid) is not str:
                cid = None
            name = b.get("name")
            inp = b.get("input")
            if calls is None:
                calls = []
            if shown:
                pname, pargs = pi_call(CLAUDE_TOOLS, name, compact_args(inp))
                calls.append((cid, pname, pargs))
            else:
                calls.append((cid, name, compact_args(inp)))
            if type(cid) is str:
                names[cid] = str(name)
                if name in AGENT_TOOLS:
                    sc.agent_calls[cid] = (i, inp if type(inp) is dict else {})
    if calls:
        e.tool_calls = tuple(calls)
    return text, has


def _user(
    eid: str, parent: str | None, obj: dict[str, Any], t: Any, names: dict[str, str], sc: Scan, i: int, side: bool
) -> tuple[str, Entry]:
    """A user line: tool results, a meta or command line, or a prompt."""
    msg = obj.get("message")
    content = msg.get("content") if type(msg) is dict else None
    if (
        type(content) is list
        and content
        and (
            (type(content[0]) is dict and content[0].get("type") == "tool_result")
            or any(type(b) is dict and b.get("type") == "tool_result" for b in content)
        )
    ):
        return "tool_result", _tool_result(eid, parent, obj, content, names, sc, i)
    text = content if type(content) is str else text_of(content)
    if obj.get("isMeta") or obj.get("isCompactSummary") or text.lstrip().startswith(CMD_PREFIXES):
        return _meta(eid, parent, obj, text)
    e = Entry(eid, parent, "message")
    e.timestamp = obj.get("timestamp")
    e.role = "user"
    if type(content) is str:
        e.text = content if len(content) < 100 else (content[:200] if content.isascii() else utf16_slice(content, 200))
        e.has_text = bool(js_trim(content))
    else:
        blocks = _blocks(content)
        e.text = content_text(blocks)
        e.has_text = has_text_content(blocks)
    return "prompt", e


def _tool_result(
    eid: str, parent: str | None, obj: dict[str, Any], content: list[Any], names: dict[str, str], sc: Scan, i: int
) -> Entry:
    """A user line holding tool results: a pi toolResult message of the first one."""
    e = Entry(eid, parent, "message")
    e.timestamp = obj.get("timestamp")
    e.role = "toolResult"
    if len(content) == 1:
        results = content
    else:
        results = [b for b in content if type(b) is dict and b.get("type") == "tool_result"]
    call = results[0].get("tool_use_id")
    if type(call) is not str:
        call = None
    e.aux = call
    e.tool_name = names.get(call) if call is not None else None
    inner = results[0].get("content")
    if len(results) == 1 and type(inner) is str:
        e.text = inner if len(inner) < 100 else (inner[:200] if inner.isascii() else utf16_slice(inner, 200))
    else:
        blocks: list[dict[str, Any]] = []
        for r in results:
            blocks += _blocks(r.get("content"))
        e.text = content_text(blocks)
    if sc.agent_calls or sc.foreign is not None:
        _agent_results(sc, results, i)
    tur = obj.get("toolUseResult")
    if type(tur) is dict and type(tur.get("agentId")) is str:
        sc.agent_ids.append((i, tur["agentId"], call))
    return e


def _agent_results(sc: Scan, results: list[Any], i: int) -> None:
    """Results of Task/Agent calls: where their subagents hang (a tail's scan keeps the results
    whose call it has not seen, ``foreign``)."""
    agent_calls = sc.agent_calls
    foreign = sc.foreign
    for r in results:
        cid = r.get("tool_use_id")
        if type(cid) is str:
            if cid in agent_calls:
                sc.results.setdefault(cid, i)
            elif foreign is not None:
                foreign.append((cid, i))


def _meta(eid: str, parent: str | None, obj: dict[str, Any], text: str) -> tuple[str, Entry]:
    """A user line that is meta, a compact summary or a slash command: a custom message."""
    kind = "meta" if (obj.get("isMeta") or obj.get("isCompactSummary")) else "command"
    e = Entry(eid, parent, "custom_message")
    e.timestamp = obj.get("timestamp")
    e.aux = "compact summary" if obj.get("isCompactSummary") else ("command" if kind == "command" else "meta")
    e.text = command_text(text) if kind == "command" else text
    e.content_is_str = True
    return kind, e


def _system(
    eid: str, parent: str | None, obj: dict[str, Any], t: Any, names: dict[str, str], sc: Scan, i: int, side: bool
) -> tuple[str, Entry]:
    """A system line: a compaction boundary, a shown system message, or a custom entry."""
    sub = obj.get("subtype")
    if sub == "compact_boundary":
        meta: Any = obj.get("compactMetadata") if type(obj.get("compactMetadata")) is dict else {}
        e = Entry(eid, parent, "compaction")
        e.aux = meta.get("preTokens") or 0
        e.text = f"compacted ({meta.get('trigger') or 'auto'})"
    elif sub in SHOWN_SYSTEM and type(obj.get("content")) is str:
        e = Entry(eid, parent, "custom_message")
        e.aux = f"system: {sub}"
        e.text = command_text(obj["content"]) if sub == "local_command" else obj["content"]
        e.content_is_str = True
    else:
        e = Entry(eid, parent, "custom")
        e.text = f"system: {sub}" if sub else "system: hook"
    e.timestamp = obj.get("timestamp")
    return "system", e


def _other(
    eid: str, parent: str | None, obj: dict[str, Any], t: Any, names: dict[str, str], sc: Scan, i: int, side: bool
) -> tuple[str, Entry]:
    """Progress, attachment, anything else with a uuid (as ``to_pi`` maps them): a custom entry."""
    e = Entry(eid, parent, "custom")
    e.timestamp = obj.get("timestamp")
    if t == "progress":
        data = obj.get("data")
        sub = data.get("type") if type(data) is dict else None
    elif t == "attachment":
        att = obj.get("attachment")
        sub = att.get("type") if type(att) is dict else None
    else:
        sub = None
    e.text = f"{t}: {sub}" if sub else str(t)
    return ("progress" if t in ("progress", "attachment") else (t if isinstance(t, str) else "none")), e


#: each line kind's skeleton (``fill(to_pi(line))`` as it would make it), by the line's type;
#: ``_other`` for the rest. One call a line, looked up in ``_scan_buffer``.
_SKELETONS = {"assistant": _assistant, "user": _user, "system": _system}
