"""The tree a scanned Claude Code file shows: which lines (the non-sidechain ones, or one
sidechain), the leaf, stray forks, and where the lines without a uuid are shown."""

from __future__ import annotations

import bisect
import os
from collections.abc import Callable
from itertools import compress, islice
from operator import itemgetter, lt, ne
from typing import Any

from loomtui.formats.agent.session import AgentSource
from loomtui.formats.claude.lines import (
    ATTACHED_CAP,
    STRAY_REASONS,
    _describe_book,
    _usage_parts,
    fork_class,
    pi_usage,
)
from loomtui.formats.claude.scan import Scan
from loomtui.session.errors import Diagnostic, SessionFormatError

#: kinds of user, assistant and system lines (the leaf rule skips progress/attachment lines)
LEAF_KINDS = frozenset(("prompt", "tool_result", "meta", "command", "assistant", "system"))


def session_id_of(sc: Scan, path: str) -> str:
    if sc.session_id:
        return sc.session_id
    for b, *_rest in sc.books:
        if isinstance(b.get("sessionId"), str) and b["sessionId"]:
            return str(b["sessionId"])
    return os.path.splitext(os.path.basename(path))[0]


def stats_of(sc: Scan) -> dict[str, Any]:
    """The file's own tree, as ``info`` reports it (leaves, forks and dangling parents when
    asked: the map of children is made then, once)."""
    skels, by_id = sc.skels, sc.by_id
    made: list[tuple[dict[str, list[int]], list[str]]] = []

    def tree() -> tuple[dict[str, list[int]], list[str]]:
        if not made:
            made.append(sc.tree())
        return made[0]

    def branch_points() -> list[dict[str, Any]]:
        kids, forks = tree()
        return [{"id": p, "children": len(kids[p]), "kind": fork_class([sc.kinds[i] for i in kids[p]])} for p in forks]

    return {
        "entries": len(skels),
        "lines": sc.lines,
        "roots": sc.roots,
        "leaves": lambda: [e.id for e in skels if e.id not in tree()[0]],
        "branchPoints": branch_points,
        "danglingParents": lambda: sum(len(k) for p, k in tree()[0].items() if p not in by_id),
    }


class Shown:
    """The lines the view shows: the non-sidechain lines (or one sidechain's lines), and their
    parents as shown (compaction boundaries under their logical parent; -1: none shown)."""

    def __init__(self, sc: Scan, sidechain_root: str | None, path: str) -> None:
        self.sc = sc
        n = len(sc.skels)
        if sidechain_root is not None:
            if sidechain_root not in sc.by_id:
                raise SessionFormatError(f"{path}: no sidechain starting at {sidechain_root}")
            self.main = subtree(sc.by_id[sidechain_root], sc, sc.kids)
        elif sc.side and len(sc.side) < n:
            self.main = [i for i in range(n) if i not in sc.side]
        else:
            self.main = list(range(n))  # no sidechains, or a subagent file: all of it
        self.main_set = set(self.main) if len(self.main) < n else None
        #: each line's parent as shown: the file's own (``Scan.parents``) until ``relink``
        self.parents = sc.parents
        #: the file's own tree is shown: children of a parent not in the file are siblings too
        self.as_written = True

    def has(self, i: int | None) -> bool:
        return i is not None and (self.main_set is None or i in self.main_set)

    def relink(self, src: AgentSource) -> None:
        """Compaction boundaries hang under their logical parent (unless that makes a cycle);
        then the shown children are counted again if the shown lines or links differ."""
        sc = self.sc
        skels, by_id, has = sc.skels, sc.by_id, self.has
        relinked = False
        for i, lp in sc.logical.items():
            j = by_id.get(lp)
            if has(i) and j is not None and has(j) and not _descends(j, i, sc, by_id):
                skels[i].parent_id = lp
                src.shown_parent[skels[i].id] = lp
                relinked = True
        if self.main_set is None and not relinked:
            return
        parents = [-1] * len(skels)
        for i in self.main:
            p = skels[i].parent_id
            if p is not None and has(j := by_id.get(p)):
                parents[i] = j  # type: ignore[assignment]
        self.parents = parents
        self.as_written = False

    def forks(self) -> tuple[list[list[int]], dict[int, list[int]]]:
        """(the children of each line with several, in file order; lines in the order ``mark_stray``
        reads them backwards: as written, by when they got their second child, else by their
        first child), and the children of every line with a child that is not the line after it
        (the others' only child is the line after them)."""
        parents = self.parents
        n = len(parents)
        kids: dict[int, list[int]] = {}
        for j in compress(range(n), map(ne, parents, range(-1, n - 1))):
            p = parents[j]
            if p >= 0:
                k = kids.get(p)
                if k is None:
                    kids[p] = [j]
                else:
                    k.append(j)
        forks = []
        for p, k in kids.items():
            if p + 1 < n and parents[p + 1] == p:
                bisect.insort(k, p + 1)
            if len(k) > 1:
                forks.append(k)
        if self.as_written and self.sc.unlinked:  # children of the same parent not in the file
            skels = self.sc.skels
            loose: dict[Any, list[int]] = {}
            for i in self.sc.unlinked:
                loose.setdefault(skels[i].parent_id, []).append(i)
            forks += [k for k in loose.values() if len(k) > 1]
        forks.sort(key=itemgetter(1 if self.as_written else 0))
        return forks, kids

    def has_children(self, i: int) -> bool:
        return i in self.parents


def deferred_usage(src: AgentSource, sc: Scan, shown: Shown, one_sidechain: bool) -> None:
    """Tokens: counted when first asked for."""
    for i, u in count_usage(sc):
        if not one_sidechain or shown.has(i):
            src._usage[sc.skels[i].id] = pi_usage(u)
    total = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}
    for u in src._usage.values():
        for k in total:
            total[k] += u[k]
    src.extra["usage"] = {**total, "responses": len(src._usage)}


def deferred_books(src: AgentSource, sc: Scan, shown: Shown, one_sidechain: bool) -> None:
    """The lines without a uuid, attached to the entries they refer to when first asked for."""
    if one_sidechain:
        nearest = "search"
    else:
        nearest = "main" if shown.main_set is not None else "any"
    attach_books(src, sc, shown.main, sc.by_id, shown.has, nearest)


UsageLine = tuple[int, bool, Any, Any, dict[str, Any]]


def one_usage(sc: Scan, shown: Shown, one_sidechain: bool) -> Callable[[str], dict[str, Any] | None]:
    """One entry's tokens by ``count_usage``'s rule, reading only its response's lines: an
    assistant's detail (a tool result's call) needs no count of the whole file. The usage lines'
    line indexes and message ids are listed once, on the first call; a response's lines are then
    found by C-level scans of the message ids, without grouping every response."""
    lines: list[UsageLine] = []
    at: list[int] = []  # each usage line's line index (ascending: the lines come in file order)
    mids: list[Any] = []
    where: dict[int, int] = {}  # line index -> position, only if they ever come out of order

    def position(i: int) -> int | None:
        if where:
            return where.get(i)
        p = bisect.bisect_left(at, i)
        return p if p < len(at) and at[p] == i else None

    def usage(eid: str) -> dict[str, Any] | None:
        if not lines and not at:
            lines.extend(sc.usage())
            at.extend(map(itemgetter(0), lines))
            mids.extend(map(itemgetter(2), lines))
            if not all(map(lt, at, islice(at, 1, None))):
                where.update((line[0], p) for p, line in enumerate(lines))
        i = sc.by_id.get(eid)
        p = position(i) if i is not None else None
        if p is None or (one_sidechain and not shown.has(i)):
            return None
        _i, _side, mid, rid, _u = lines[p]
        key = _usage_key(i, mid, rid)
        if type(mid) is str:  # the response's lines: those with its message id and request id
            group = [q for q in _positions(mids, mid) if _usage_key(at[q], mid, lines[q][3]) == key]
        else:
            group = [q for q, line in enumerate(lines) if _usage_key(line[0], line[2], line[3]) == key]
        chosen = _counted(lines, group)
        return pi_usage(chosen[1]) if chosen is not None and chosen[0] == i else None

    return usage


def _positions(values: list[Any], value: Any) -> list[int]:
    """Where ``value`` is in ``values``, ascending (each found by ``list.index``, at C speed)."""
    out: list[int] = []
    start = 0
    try:
        while True:
            start = values.index(value, start)
            out.append(start)
            start += 1
    except ValueError:
        return out


def _usage_key(i: int, mid: Any, rid: Any) -> Any:
    """The response a usage line belongs to: its (message id, request id), else the line alone."""
    return (mid, rid if type(rid) is str else None) if type(mid) is str else ("line", i)


def _responses(lines: list[UsageLine]) -> dict[Any, list[int]]:
    """Each response's lines (positions in ``lines``), responses in the order they first appear."""
    groups: dict[Any, list[int]] = {}
    for p, (i, _side, mid, rid, _u) in enumerate(lines):
        groups.setdefault(_usage_key(i, mid, rid), []).append(p)
    return groups


def _counted(lines: list[UsageLine], group: list[int]) -> tuple[int, Any] | None:
    """(line, usage) counted for one response, its lines at ``group`` (positions in ``lines``):
    its largest usage, a main-chain line before a sidechain copy, the first such line. A line
    repeating the usage of the line just before it, of the same response, is skipped (the next
    part of a response): after another response's line the walk starts afresh."""
    best: tuple[tuple[bool, int, int], int, Any] | None = None
    last: tuple[Any, bool] | None = None
    prev = -2
    for p in group:
        i, side, _mid, _rid, u = lines[p]
        if p != prev + 1:
            last = None
        prev = p
        if last is not None and u == last[0] and (not side) <= last[1]:
            continue
        last = (u, not side)
        rank = (not side, _total(u), -i)
        if best is None or rank > best[0]:
            best = (rank, i, u)
    return None if best is None else (best[1], best[2])


def count_usage(sc: Scan) -> list[tuple[int, dict[str, Any]]]:
    """(line index, usage) of each response, counted once (``_counted``), in the order the
    responses first appear."""
    lines = sc.usage()
    counted = (_counted(lines, group) for group in _responses(lines).values())
    return [c for c in counted if c is not None]


def _total(u: dict[str, Any]) -> int:
    g = u.get
    try:
        tot = (
            (g("input_tokens") or 0)
            + (g("output_tokens") or 0)
            + (g("cache_read_input_tokens") or 0)
            + (g("cache_creation_input_tokens") or 0)
        )
        if type(tot) is int:
            return tot
    except TypeError:
        pass
    return sum(_usage_parts(u))


def names_from_books(src: AgentSource, sc: Scan, shown: Shown) -> str | None:
    """Summaries whose leaf is shown label it; returns the session's name: a custom title or
    agent name written last, else the first summary of a leaf in the file."""
    title = None
    by_id = sc.by_id
    for k, t in enumerate(sc.book_types):
        if t != "summary" and t != "custom-title" and t != "agent-name":
            continue
        b = sc.book(k)
        if t == "summary":
            ref = b.get("leafUuid")
            text = b.get("summary")
            if not isinstance(ref, str) or not isinstance(text, str):
                continue
            if title is None and ref in by_id:
                title = text
            if shown.has(by_id.get(ref)) and text.strip():
                src.file_labels[ref] = " ".join(text.split())[:80]
        elif t == "custom-title" or t == "agent-name":
            name = b.get("customTitle") or b.get("agentName")
            if isinstance(name, str):
                title = name
    return " ".join(title.split()) if title and title.strip() else None


def subtree(start: int, sc: Scan, kids: dict[Any, list[int]]) -> list[int]:
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


def find_leaf(sc: Scan, shown: Shown, by_id: dict[str, int], skip_side: bool) -> int | None:
    main = shown.main
    types = sc.book_types
    for k in range(len(types) - 1, -1, -1):
        if types[k] == "last-prompt" and isinstance((b := sc.book(k)).get("leafUuid"), str):
            i = by_id.get(b["leafUuid"])
            if shown.has(i) and not shown.has_children(i):  # type: ignore[arg-type]
                return i
            break
    for i in reversed(main):
        if sc.kinds[i] in LEAF_KINDS and not (skip_side and i in sc.side):
            return i
    return main[-1] if main else None


def mark_stray(src: AgentSource, sc: Scan, shown: Shown, leaf: int | None, by_id: dict[str, int]) -> None:
    """Side chains of forks that are not rewinds (parallel tool calls, hook lines, local commands,
    a response written twice). At such a fork the children leading to a prompt or to the leaf go
    on; when none does (the end of an abandoned branch), the child written to last goes on. The
    other children, with everything below them, are stray (``hidden`` in their skeleton)."""
    kinds = sc.kinds
    leads = _leading(sc, leaf, by_id, shown.parents, shown.main_set)
    forks, kids = shown.forks()
    marks = _Marks(src, sc, shown, by_id, kids)
    gone = marks.gone
    for children in reversed(forks):  # deeper forks first: their marks are reused
        cls = fork_class([kinds[i] for i in children])
        if cls == "prompt":
            continue
        lost = [c for c in children if not leads[c]]
        if not lost:
            continue
        reason = STRAY_REASONS[cls]
        if len(lost) == len(children):  # nothing goes on: the abandoned branch went on in the last one
            sides = [marks.below(c) for c in lost if not gone[c]]
            if sides:
                sides.remove(max(sides, key=max))
            for side in sides:
                marks.mark(side, reason)
        else:
            for c in lost:
                marks.mark_below(c, reason)
    marks.hook_lines(sc.progress, leaf, shown.main_set)


class _Marks:
    """The stray marks being made (``gone``: the lines marked; a stray line's subtree is), over
    the shown parents and ``Shown.forks``'s children of the lines whose children are not just
    the line after them."""

    def __init__(self, src: AgentSource, sc: Scan, shown: Shown, by_id: dict[str, int], kids: dict[int, list[int]]):
        self.skels = sc.skels
        self.stray = src.stray
        self.parents = shown.parents
        self.kids = kids
        self.gone = bytearray(len(self.parents))
        for eid in self.stray:
            if (j := by_id.get(eid)) is not None:
                self.gone[j] = 1

    def below(self, start: int) -> list[int]:
        """``start`` and the lines below it that are not stray yet."""
        gone, kids, parents = self.gone, self.kids, self.parents
        n = len(parents)
        out: list[int] = []
        seen: set[int] = set()
        stack = [start]
        while stack:
            i = stack.pop()
            if gone[i] or i in seen:
                continue
            seen.add(i)
            out.append(i)
            k = kids.get(i)
            if k is not None:
                stack.extend(k)
            elif i + 1 < n and parents[i + 1] == i:
                stack.append(i + 1)
        return out

    def mark(self, lines: list[int], reason: str) -> None:
        gone, skels, stray = self.gone, self.skels, self.stray
        for i in lines:
            if not gone[i]:
                gone[i] = 1
                e = skels[i]
                stray[e.id] = reason
                e.hidden = "stray"

    def mark_below(self, start: int, reason: str) -> None:
        """``below(start)``, marked as the lines are found."""
        gone, kids, parents, skels, stray = self.gone, self.kids, self.parents, self.skels, self.stray
        n = len(parents)
        stack = [start]
        while stack:
            i = stack.pop()
            if gone[i]:
                continue
            gone[i] = 1
            e = skels[i]
            stray[e.id] = reason
            e.hidden = "stray"
            k = kids.get(i)
            if k is not None:
                stack.extend(k)
            elif i + 1 < n and parents[i + 1] == i:
                stack.append(i + 1)

    def hook_lines(self, progress: list[int], leaf: int | None, main_set: set[int] | None) -> None:
        """Hook lines nothing follows (but the leaf) are stray too."""
        gone, kids, parents, skels, stray = self.gone, self.kids, self.parents, self.skels, self.stray
        n = len(parents)
        for i in progress:
            if (
                not gone[i]
                and i not in kids
                and (i + 1 == n or parents[i + 1] != i)
                and i != leaf
                and (main_set is None or i in main_set)
            ):
                e = skels[i]
                stray[e.id] = "hook progress"
                e.hidden = "stray"


def _leading(
    sc: Scan, leaf: int | None, by_id: dict[str, int], parents: list[int], main_set: set[int] | None
) -> bytearray:
    """1 for each shown line with a prompt or the leaf at or below it (each line is visited once,
    from below, so a file whose lines link in a cycle cannot keep this going). A tail read by
    a child (``claude/split.py``) comes with its own marks (``tail_leads``): the walks go on from
    where those left the tail and from lines linked since (compaction boundaries)."""
    skels = sc.skels
    leads = bytearray(len(skels))
    get = by_id.get
    starts = list(compress(range(len(skels)), map("prompt".__eq__, sc.kinds)))
    pre = sc.tail_leads
    if pre is not None:
        base, marks, exits = pre
        leads[base:] = marks
        starts = [i for i in starts if i < base]
        starts += [j for j in (get(skels[e].parent_id or "") for e in exits) if j is not None]
        starts += [j for j in (get(skels[i].parent_id or "") for i in sc.logical if leads[i]) if j is not None]
    if leaf is not None:
        starts.append(leaf)
    _mark_up(starts, leads, parents, main_set)
    return leads


def _mark_up(starts: list[int], leads: bytearray, parents: list[int], main_set: set[int] | None) -> None:
    """Mark each start and its ancestors (``parents`` as shown) up to the first one marked, or
    not shown."""
    if main_set is None:  # the whole file: no test per step
        for j in starts:
            while j >= 0 and not leads[j]:
                leads[j] = 1
                j = parents[j]
        return
    for j in starts:
        while j >= 0 and not leads[j] and j in main_set:
            leads[j] = 1
            j = parents[j]


def tail_leads(sc: Scan) -> tuple[bytearray, list[int]]:
    """In a child reading a file's tail: ``_leading``'s marks for the non-sidechain view as far
    as the tail's own links reach (from its prompts; the leaf is not known here), and the
    marked lines whose parent is not in the tail (the walks go on from there)."""
    skels, side, get = sc.skels, sc.side, sc.by_id.get
    leads = bytearray(len(skels))
    exits = []
    for i in compress(range(len(skels)), map("prompt".__eq__, sc.kinds)):
        j = i
        while not leads[j] and j not in side:
            leads[j] = 1
            p = skels[j].parent_id
            if p is None:
                break
            k = get(p)
            if k is None:
                exits.append(j)
                break
            j = k
    return leads, exits


def attach_books(
    src: AgentSource, sc: Scan, main: list[int], by_id: dict[str, int], in_main: Any, nearest: str
) -> None:
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
    src.extra["linesWithoutId"] = len(sc.book_lines)
