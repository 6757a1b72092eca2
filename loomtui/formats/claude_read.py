"""Reading a Claude Code file in one pass: skeletons, the file's own tree, tokens, subagents.

Each line is decoded once. A line with a ``uuid`` becomes a skeleton directly (the fields
``entries.fill`` would take from the pi-style entry ``claude.to_pi`` builds; a test holds the
two equal), and the few facts the rest needs are kept in flat lists; the decoded line is then
dropped, so opening costs about what a pi file of the same size costs (benchmarks/
bench_claude_open.py). Lines without a ``uuid`` are kept (small) to be shown with an entry.
"""

from __future__ import annotations

import bisect
import os
from typing import Any

import orjson

from loomtui.formats.agent_session import CLAUDE, AgentSession, AgentSource, header_for
from loomtui.formats.claude import (
    ATTACHED_CAP,
    CMD_PREFIXES,
    SHOWN_SYSTEM,
    STOP,
    STRAY_REASONS,
    _blocks,
    _describe_book,
    _usage_parts,
    command_text,
    fork_class,
    pi_usage,
    read_file_bytes,
    text_of,
    to_pi,
)
from loomtui.formats.claude_subagents import file_subagents, inline_subagents
from loomtui.session.entries import Entry, compact_args, content_text, has_text_content
from loomtui.session.errors import Diagnostic, SessionFormatError
from loomtui.session.jsstr import js_trim, utf16_slice
from loomtui.session.memory import bulk_allocation

AGENT_TOOLS = ("Task", "Agent")
#: kinds of user, assistant and system lines (the leaf rule skips progress/attachment lines)
LEAF_KINDS = frozenset(("prompt", "tool_result", "meta", "command", "assistant", "system"))


class Scan:
    """What one pass over the file keeps (index ``i`` = the i-th line with a uuid; its skeleton
    holds its id, the parent it was written with, its line, offset and size)."""

    def __init__(self) -> None:
        self.skels: list[Entry] = []
        self.by_id: dict[str, int] = {}
        self.kids: dict[str, list[int]] = {}  # parentUuid as written -> children
        self.roots: list[str] = []  # lines with parentUuid null
        self.forks: list[str] = []  # parents with several children, in the order they became so
        self.kinds: list[str] = []
        self.side: set[int] = set()  # sidechain lines
        self.logical: dict[int, str] = {}
        #: (kept fields, line, last non-sidechain index before it, last index before it)
        self.books: list[tuple[dict[str, Any], int, int, int]] = []
        self.progress: list[int] = []  # progress / attachment lines
        self.last_key: Any = None  # the previous assistant line's response and usage
        self.last_usage: Any = None
        self.last_main = False
        self.tool_names: dict[str, str] = {}
        self.agent_calls: dict[str, tuple[int, dict[str, Any]]] = {}
        self.results: dict[str, int] = {}
        self.agent_ids: list[tuple[int, str, Any]] = []  # (index, agentId, tool_use_id)
        self.side_roots: dict[int, str] = {}  # sidechain root index -> its prompt
        self.usage: dict[Any, tuple[tuple[bool, int, int], int, dict[str, Any]]] = {}
        self.session_id: str | None = None
        self.cwd: str | None = None
        self.version: str | None = None
        self.forked_from: str | None = None
        self.lines = 0
        self.diags: list[Diagnostic] = []

    def uuid(self, i: int) -> str:
        return self.skels[i].id

    def span(self, i: int) -> tuple[int, int, int]:
        e = self.skels[i]
        return e.offset, e.size, e.line


def _scan(data: bytes) -> Scan:
    sc = Scan()
    by_id = sc.by_id
    kids = sc.kids
    roots = sc.roots
    loads = orjson.loads
    names = sc.tool_names
    skels = sc.skels
    kinds = sc.kinds
    view = memoryview(data)
    find = data.find
    n = len(data)
    pos = 0
    line = 0
    last_main = last_any = -1
    nlines = 0
    need_sid = True
    books = sc.books
    progress = sc.progress
    sidechain = sc.side
    while pos < n:
        nl = find(b"\n", pos)
        if nl < 0:
            nl = n
        off = pos
        pos = nl + 1
        line += 1
        if nl == off:
            continue
        raw = view[off:nl]
        try:
            obj = loads(raw)
        except orjson.JSONDecodeError:
            if bytes(raw).isspace():
                continue
            sc.diags.append(Diagnostic(line, "not valid JSON: skipped"))
            continue
        nlines += 1
        if type(obj) is not dict:
            sc.diags.append(Diagnostic(line, "not a JSON object: skipped"))
            continue
        u = obj.get("uuid")
        if type(u) is not str or not u:
            books.append((obj, line, last_main, last_any))
            continue
        if u in by_id:
            sc.diags.append(Diagnostic(line, f"duplicate uuid {u!r}: the first line with it wins"))
            continue
        i = len(skels)
        by_id[u] = i
        if need_sid:
            sid = obj.get("sessionId")
            if type(sid) is str:
                need_sid = False
                sc.session_id = sid
                cwd = obj.get("cwd")
                sc.cwd = cwd if type(cwd) is str else None
                ver = obj.get("version")
                sc.version = ver if type(ver) is str else None
                fork = obj.get("forkedFrom")  # a /branch file: the session it was branched from
                if type(fork) is dict and type(fork.get("sessionId")) is str and fork["sessionId"] != sid:
                    sc.forked_from = fork["sessionId"]
        side = obj.get("isSidechain") is True
        parent = obj.get("parentUuid")
        if type(parent) is not str:
            parent = None
            roots.append(u)
        else:
            k = kids.get(parent)
            if k is None:
                kids[parent] = [i]
            else:
                k.append(i)
                if len(k) == 2:
                    sc.forks.append(parent)
        kind, e = _skeleton(u, parent, obj, obj.get("type"), names, sc, i, side)
        e.line = line
        e.offset = off
        e.size = nl - off
        skels.append(e)
        kinds.append(kind)
        last_any = i
        if side:
            sidechain.add(i)
        else:
            last_main = i
        if kind == "progress":
            progress.append(i)
        if parent is None:
            lp = obj.get("logicalParentUuid")
            if type(lp) is str:
                sc.logical[i] = lp
            if side and kind == "prompt":
                m = obj.get("message")
                sc.side_roots[i] = text_of(m.get("content") if type(m) is dict else None).strip()
    sc.lines = nlines
    return sc


def _skeleton(eid: str, parent: str | None, obj: dict[str, Any], t: Any, names: dict[str, str], sc: Scan, i: int,
              side: bool) -> tuple[str, Entry]:
    """(line kind, skeleton) of one line, as ``fill(to_pi(line))`` would make it."""
    ts = obj.get("timestamp")
    if t == "assistant" or t == "user":
        msg = obj.get("message")
        if type(msg) is not dict:
            msg = {}
    if t == "assistant":
        e = Entry(eid, parent, "message")
        e.timestamp = ts
        e.role = "assistant"
        content = msg.get("content")
        text = ""
        has = False
        calls = None
        if type(content) is str:
            text = content
            has = bool(js_trim(content))
        elif type(content) is list:
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
                    calls.append((cid, name, compact_args(inp)))
                    if type(cid) is str:
                        names[cid] = str(name)
                        if name in AGENT_TOOLS:
                            sc.agent_calls[cid] = (i, inp if type(inp) is dict else {})
        e.text = text if len(text) < 100 else (text[:200] if text.isascii() else utf16_slice(text, 200))
        e.has_text = has
        if calls:
            e.tool_calls = tuple(calls)
        sr = msg.get("stop_reason")
        stop = STOP.get(sr) if type(sr) is str else None
        if ("error" in obj or "isApiErrorMessage" in obj) and (obj.get("isApiErrorMessage") or obj.get("error")):
            stop = "error"
            err = text_of(content) or str(obj.get("error"))
            e.aux = utf16_slice(err, 400) if err else None
        e.stop_reason = stop
        u = msg.get("usage")
        if type(u) is dict:
            mid = msg.get("id")
            rid = obj.get("requestId")
            key = (mid, rid if type(rid) is str else None) if type(mid) is str else ("line", i)
            if key == sc.last_key and u == sc.last_usage and (not side) <= sc.last_main:
                return "assistant", e  # the next part of a response repeating its usage
            sc.last_key, sc.last_usage, sc.last_main = key, u, not side
            g = u.get
            try:
                tot = ((g("input_tokens") or 0) + (g("output_tokens") or 0) + (g("cache_read_input_tokens") or 0)
                       + (g("cache_creation_input_tokens") or 0))
                if type(tot) is not int:
                    tot = sum(_usage_parts(u))
            except TypeError:
                tot = sum(_usage_parts(u))
            rank = (not side, tot, -i)
            best = sc.usage.get(key)
            if best is None or rank > best[0]:
                sc.usage[key] = (rank, i, u)
        return "assistant", e
    if t == "user":
        content = msg.get("content")
        if type(content) is list and content and (
                (type(content[0]) is dict and content[0].get("type") == "tool_result")
                or any(type(b) is dict and b.get("type") == "tool_result" for b in content)):
            e = Entry(eid, parent, "message")
            e.timestamp = ts
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
            agent_calls = sc.agent_calls
            if agent_calls:  # results of Task/Agent calls: where their subagents hang
                for r in results:
                    cid = r.get("tool_use_id")
                    if type(cid) is str and cid in agent_calls:
                        sc.results.setdefault(cid, i)
            tur = obj.get("toolUseResult")
            if type(tur) is dict and type(tur.get("agentId")) is str:
                sc.agent_ids.append((i, tur["agentId"], call))
            return "tool_result", e
        text = content if type(content) is str else text_of(content)
        if obj.get("isMeta") or obj.get("isCompactSummary") or text.lstrip().startswith(CMD_PREFIXES):
            kind = "meta" if (obj.get("isMeta") or obj.get("isCompactSummary")) else "command"
            e = Entry(eid, parent, "custom_message")
            e.timestamp = ts
            e.aux = "compact summary" if obj.get("isCompactSummary") else ("command" if kind == "command" else "meta")
            e.text = command_text(text) if kind == "command" else text
            e.content_is_str = True
            return kind, e
        e = Entry(eid, parent, "message")
        e.timestamp = ts
        e.role = "user"
        if type(content) is str:
            e.text = content if len(content) < 100 else (
                content[:200] if content.isascii() else utf16_slice(content, 200))
            e.has_text = bool(js_trim(content))
        else:
            blocks = _blocks(content)
            e.text = content_text(blocks)
            e.has_text = has_text_content(blocks)
        return "prompt", e
    # system, progress, attachment, anything else with a uuid (as ``to_pi`` maps them)
    if t == "system":
        sub = obj.get("subtype")
        if sub == "compact_boundary":
            meta = obj.get("compactMetadata") if type(obj.get("compactMetadata")) is dict else {}
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
        e.timestamp = ts
        return "system", e
    e = Entry(eid, parent, "custom")
    e.timestamp = ts
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


@bulk_allocation()
def read_claude(path: str, sidechain_root: str | None = None, label_dir: str | None = None) -> AgentSession:
    path = os.path.abspath(path)
    data = read_file_bytes(path)
    sc = _scan(data)
    del data
    if not sc.skels and not sc.books:
        raise SessionFormatError(f"{path}: no Claude Code lines")
    session_id = sc.session_id or next((b[0]["sessionId"] for b in sc.books if isinstance(b[0].get("sessionId"), str)),
                                       None) or os.path.splitext(os.path.basename(path))[0]
    src = AgentSource(CLAUDE, path, session_id, label_dir=label_dir)
    src.extra["lines"] = sc.lines
    skels = sc.skels
    n = len(skels)
    by_id = sc.by_id
    kids = sc.kids
    roots = sc.roots
    forks = {p: kids[p] for p in sc.forks}
    src.stats = {
        "entries": n, "lines": sc.lines, "roots": roots,
        "leaves": lambda: [e.id for e in skels if e.id not in kids],
        "branchPoints": [{"id": p, "children": len(k), "kind": fork_class([sc.kinds[i] for i in k])}
                         for p, k in forks.items()],
        "danglingParents": lambda: sum(len(k) for p, k in kids.items() if p not in by_id),
    }
    if sidechain_root is not None:
        if sidechain_root not in by_id:
            raise SessionFormatError(f"{path}: no sidechain starting at {sidechain_root}")
        main = _subtree(by_id[sidechain_root], sc, kids)
    elif sc.side and len(sc.side) < n:
        main = [i for i in range(n) if i not in sc.side]
    else:
        main = list(range(n))  # no sidechains, or a subagent file: all of it
    main_set = set(main) if len(main) < n else None

    def in_main(i: int | None) -> bool:
        return i is not None and (main_set is None or i in main_set)

    # compaction boundaries hang under their logical parent (unless that would make a cycle)
    relinked = False
    for i, lp in sc.logical.items():
        j = by_id.get(lp)
        if in_main(i) and j is not None and in_main(j) and not _descends(j, i, sc, by_id):
            skels[i].parent_id = lp
            src.shown_parent[skels[i].id] = lp
            relinked = True
    if main_set is None and not relinked:
        shown_kids, shown_forks = kids, forks
    else:
        shown_kids = {}
        for i in main:
            p = skels[i].parent_id
            if p is not None and in_main(by_id.get(p)):
                shown_kids.setdefault(p, []).append(i)
        shown_forks = {p: k for p, k in shown_kids.items() if len(k) > 1}

    leaf = _find_leaf(sc, main, shown_kids, by_id, sidechain_root is None and len(main) < n, in_main)
    _mark_stray(src, sc, in_main, shown_kids, shown_forks, leaf, by_id)
    def deferred() -> None:
        """Tokens and the lines without a uuid: computed when first asked for."""
        for _key, (_rank, i, u) in sc.usage.items():
            if sidechain_root is None or in_main(i):
                src._usage[skels[i].id] = pi_usage(u)
        total = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}
        for u in src._usage.values():
            for k in total:
                total[k] += u[k]
        src.extra["usage"] = {**total, "responses": len(src._usage)}
        if sidechain_root is not None:
            nearest = "search"
        else:
            nearest = "main" if main_set is not None else "any"
        _attach_books(src, sc, main, by_id, in_main, nearest)

    src.deferred = deferred
    for b, *_rest in sc.books:  # summaries whose leaf is in the file label it
        ref = b.get("leafUuid")
        if b.get("type") == "summary" and isinstance(ref, str) and in_main(by_id.get(ref)) and isinstance(
                b.get("summary"), str) and b["summary"].strip():
            src.file_labels[ref] = " ".join(b["summary"].split())[:80]
    src.span_entries = [skels[i] for i in main] if main_set is not None else skels
    header = header_for(src, sc.cwd or "", skels[main[0]].timestamp if main else None,
                        {"tool": CLAUDE, "version": sc.version}
                        | ({"parentSession": sc.forked_from} if sc.forked_from else {}))
    names = sc.tool_names
    sm = AgentSession(header, src, lambda m, e, obj: to_pi(src, e.id, e.parent_id, obj, names))
    skeletons = [skels[i] for i in main] if main_set is not None else list(skels)
    for u in src.stray:
        skels[by_id[u]].hidden = "stray"
    if sidechain_root is None and main_set is not None:
        skeletons += inline_subagents(src, sc, main, main_set, kids)
    skeletons += file_subagents(src, sc, in_main)
    sm.index.build(skeletons)
    sm.index.diagnostics[:0] = sc.diags
    leaf_id = skels[leaf].id if leaf is not None else (skeletons[-1].id if skeletons else None)
    sm.index.leaf_id = leaf_id
    sm._leaf = leaf_id
    title = None
    for b, *_rest in sc.books:
        t = b.get("type")
        ref = b.get("leafUuid")
        if t == "summary" and title is None and isinstance(ref, str) and ref in by_id and isinstance(
                b.get("summary"), str):
            title = b["summary"]
        elif t in ("custom-title", "agent-name") and isinstance(b.get("customTitle") or b.get("agentName"), str):
            title = b.get("customTitle") or b.get("agentName")
    if title and str(title).strip():
        sm.index.session_name = " ".join(str(title).split())
    sm.load_stored_labels()
    return sm


def _subtree(start: int, sc: Scan, kids: dict[Any, list[int]]) -> list[int]:
    out = []
    stack = [start]
    while stack:
        i = stack.pop()
        out.append(i)
        stack.extend(kids.get(sc.skels[i].id, ()))
    return sorted(out)


def _descends(i: int, ancestor: int, sc: Scan, by_id: dict[str, int]) -> bool:
    """True when line ``i`` has ``ancestor`` among its parents (linking would make a cycle)."""
    seen = set()
    cur: int | None = i
    while cur is not None and cur not in seen:
        if cur == ancestor:
            return True
        seen.add(cur)
        p = sc.skels[cur].parent_id or sc.logical.get(cur)
        cur = by_id.get(p) if isinstance(p, str) else None
    return False


def _find_leaf(sc: Scan, main: list[int], kids: dict[str, list[int]], by_id: dict[str, int], skip_side: bool,
               in_main: Any) -> int | None:
    for b, *_rest in reversed(sc.books):
        if b.get("type") == "last-prompt" and isinstance(b.get("leafUuid"), str):
            i = by_id.get(b["leafUuid"])
            if in_main(i) and not kids.get(b["leafUuid"]):
                return i
            break
    for i in reversed(main):
        if sc.kinds[i] in LEAF_KINDS and not (skip_side and i in sc.side):
            return i
    return main[-1] if main else None


def _mark_stray(src: AgentSource, sc: Scan, in_main: Any, kids: dict[str, list[int]],
                forks: dict[str, list[int]], leaf: int | None, by_id: dict[str, int]) -> None:
    """Side chains of forks that are not rewinds (parallel tool calls, hook lines, local commands,
    a response written twice). At such a fork the child leading to a prompt or to the leaf goes
    on; when none does (the end of an abandoned branch), the child written to last goes on. The other children, with everything below them, are stray unless a prompt is among them.
    The search below a child stops at the first prompt or the leaf, so it stays local."""
    kinds = sc.kinds
    skels = sc.skels
    stray = src.stray
    on: set[int] = set()  # lines known to lead to a prompt or the leaf
    for children in reversed(list(forks.values())):  # deeper forks first: their answers are reused
        cls = fork_class([kinds[i] for i in children])
        if cls == "prompt":
            continue
        sides: list[list[int]] = []
        goes_on = False
        for c in children:
            side: list[int] = []
            stack = [c]
            while stack:
                i = stack.pop()
                if kinds[i] == "prompt" or i == leaf or i in on:
                    side = []
                    goes_on = True
                    on.add(c)
                    break
                eid = skels[i].id
                if eid in stray:
                    continue  # a fork below, already settled with everything under it
                side.append(i)
                stack.extend(kids.get(eid, ()))
            sides.append(side)
        if not goes_on:
            sides.remove(max(sides, key=lambda side: max(side, default=-1)))  # the abandoned branch went on there
        reason = STRAY_REASONS[cls]
        for side in sides:
            for i in side:
                if skels[i].id not in stray:
                    stray[skels[i].id] = reason
    for i in sc.progress:
        if i != leaf and skels[i].id not in kids and in_main(i):
            stray.setdefault(skels[i].id, "hook progress")


def _attach_books(src: AgentSource, sc: Scan, main: list[int], by_id: dict[str, int], in_main: Any,
                  nearest: str) -> None:
    """Each line without a uuid to the entry it names, else the entry before it (``nearest``:
    ``main`` when the view is the non-sidechain lines, ``any`` when it is all of them, else a
    search among the shown lines)."""
    main_lines = [sc.skels[i].line for i in main] if nearest == "search" else []
    for b, line, last_main, last_any in sc.books:
        t = b.get("type")
        target: int | None = None
        ref = b.get("leafUuid") if t in ("summary", "last-prompt") else b.get("messageId")
        if isinstance(ref, str) and in_main(by_id.get(ref)):
            target = by_id[ref]
        if target is None and main:
            if nearest == "search":
                k = bisect.bisect_left(main_lines, line) - 1
                target = main[k] if k >= 0 else main[0]
            else:
                k = last_main if nearest == "main" else last_any
                target = k if k >= 0 else main[0]
        if target is None:
            sc.diags.append(Diagnostic(line, f"{t} line with no entry to show it with"))
            continue
        lst = src._attached.setdefault(sc.skels[target].id, [])
        if len(lst) < ATTACHED_CAP:
            lst.append({"line": line, "type": t, "text": _describe_book(b)})
        elif len(lst) == ATTACHED_CAP:
            lst.append({"line": line, "type": "…", "text": "more lines attached here; `loomtui info` counts them"})
    src.extra["linesWithoutId"] = len(sc.books)
