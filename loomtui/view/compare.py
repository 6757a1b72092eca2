"""Two branches side by side: common ancestor, aligned entries, word changes, totals.

``compare(manager, a_id, b_id)`` takes the paths root → A and root → B, splits off what they
share (the common ancestor and above) and turns each remaining entry into an ``Item``: an
alignment key (``user``, ``assistant``, ``tool:read``, …) and the entry's transcript text.
Identical items are matched first (a sequence match on content signatures), the gaps between
them are paired by order and key, so a user message faces a user message and a ``read`` result a
``read`` result. Word-level changes are computed only for the pairs a screen shows
(``compare_words.word_diff``), which keeps the first screen of two 5k-entry branches fast.

Nothing here depends on the source kind: everything is read through the session model
(``SessionManager.index`` and the decoded entries), which every adapter fills.
"""

from __future__ import annotations

import math
import os
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from loomtui.session.entries import Entry, content_text
from loomtui.session.fileio import open_regular
from loomtui.session.index import timestamp_ms
from loomtui.session.locations import home_dir
from loomtui.session.manager import SessionManager
from loomtui.session.reader import decode_line
from loomtui.view.compare_tools import ToolView, as_is, call_line, shown_tool
from loomtui.view.compare_totals import Totals

#: entries that are bookkeeping, not conversation: not part of a transcript
SKIPPED_TYPES = frozenset({"label", "custom", "session_info", "archive"})
#: longest transcript text kept per item (the rest is summarised; equality uses the full text)
TEXT_LIMIT = 8000
#: how far the gap aligner looks ahead for an entry of the same kind
LOOKAHEAD = 16

SAME, CHANGED, ONLY_A, ONLY_B = "same", "changed", "only_a", "only_b"


class Item(NamedTuple):
    """One transcript entry of a branch."""

    entry: Entry
    key: str  # what aligns with what: "user", "assistant", "tool:read", "bash", "compaction"…
    head: str  # the short header a transcript shows: "user", "assistant", "read result"…
    text: str
    error: bool
    sig: int  # hash of (key, full text, error): equal signatures are identical entries


class Pair(NamedTuple):
    status: str  # SAME, CHANGED, ONLY_A, ONLY_B
    a: Item | None
    b: Item | None


class Fold(NamedTuple):
    """A folded stretch of identical pairs: ``pairs[start:stop]``."""

    start: int
    stop: int

    @property
    def size(self) -> int:
        return self.stop - self.start

    @property
    def text(self) -> str:
        n = self.size
        return f"{n:,} identical {'entry' if n == 1 else 'entries'}"


@dataclass
class Comparison:
    ancestor: Entry | None
    a_id: str
    b_id: str
    a_items: list[Item]
    b_items: list[Item]
    pairs: list[Pair]
    totals_a: Totals
    totals_b: Totals

    @property
    def identical(self) -> bool:
        return all(p.status == SAME for p in self.pairs)

    def changed_count(self) -> int:
        """The pairs that differ: changed ones and entries on one side only."""
        return sum(1 for p in self.pairs if p.status != SAME)

    def counts_text(self) -> str:
        """The compare header's counts: "3 changed · 28 only in A · 0 identical". An entry on
        one side only is not called changed; a kind of difference that is absent is left out
        ("0 changed" where there is none at all), the identical count is always there."""
        n = {SAME: 0, CHANGED: 0, ONLY_A: 0, ONLY_B: 0}
        for p in self.pairs:
            n[p.status] += 1
        parts = [
            f"{n[k]:,} {words}"
            for k, words in ((CHANGED, "changed"), (ONLY_A, "only in A"), (ONLY_B, "only in B"))
            if n[k]
        ]
        return " · ".join([*(parts or ["0 changed"]), f"{n[SAME]:,} identical"])

    def blocks(self, context: int = 2, unfolded: Iterable[int] = ()) -> list[int | Fold]:
        """The pairs to show: indices into ``pairs``, with long identical runs as ``Fold``s.

        ``context`` identical pairs stay visible next to each change; ``unfolded`` holds the
        ``start`` of folds the user opened.
        """
        return fold_pairs(self.pairs, context, set(unfolded))


# building -------------------------------------------------------------------------------
def split_paths(manager: SessionManager, a_id: str, b_id: str) -> tuple[Entry | None, list[Entry], list[Entry]]:
    """(common ancestor, A's entries after it, B's entries after it)."""
    index = manager.index
    for given in (a_id, b_id):
        if given not in index.by_id:
            raise KeyError(given)
    pa = index.path_to(a_id)
    pb = index.path_to(b_id)
    k = 0
    for x, y in zip(pa, pb):
        if x is not y:
            break
        k += 1
    return (pa[k - 1] if k else None), pa[k:], pb[k:]


def compare(
    manager: SessionManager,
    a_id: str,
    b_id: str,
    home: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Comparison:
    """Compare the branch ending at ``a_id`` with the one ending at ``b_id``; ``progress`` is
    called now and then with (entries read, entries of both branches)."""
    ancestor, ea, eb = split_paths(manager, a_id, b_id)
    home = home_dir() if home is None else home
    start = timestamp_ms(ancestor.timestamp) if ancestor is not None else math.nan
    # entries decoded one at a time: only the items' texts stay (a branch of screenshots may be
    # gigabytes of JSON)
    timed = manager.source.keeps_times  # a loom's timestamps only order it: no wall time
    total = len(ea) + len(eb)
    loaded_a = _reporting(iter_loaded(manager, ea), progress, 0, total)
    loaded_b = _reporting(iter_loaded(manager, eb), progress, len(ea), total)
    a_items, ta = _items(ea, loaded_a, home, start, timed, manager)
    b_items, tb = _items(eb, loaded_b, home, start, timed, manager)
    for t in (ta, tb):
        t.usage_kept, t.cost_kept, t.timed = manager.source.keeps_usage, manager.source.counts_cost, timed
        t.conversation, t.a_name = manager.source.has_leaf, manager.source.a_name
    return Comparison(ancestor, a_id, b_id, a_items, b_items, align(a_items, b_items), ta, tb)


def branch_items(manager: SessionManager, entries: Sequence[Entry], home: str | None = None) -> list[Item]:
    """The transcript items of ``entries`` (reader mode shows a branch with them)."""
    items, _totals = _items(
        list(entries), iter_loaded(manager, entries), home_dir() if home is None else home, math.nan, manager=manager
    )
    return items


def entry_item(e: Entry, obj: dict[str, Any], home: str, manager: SessionManager | None = None) -> Item | None:
    """One entry's transcript item (None for bookkeeping), without totals: reader mode builds
    its items one at a time, as they come on screen."""
    return _item(e, obj, home, Totals(), {}, manager)


def load_entries(manager: SessionManager, entries: Sequence[Entry]) -> list[dict[str, Any]]:
    """The decoded entries, read through one descriptor (``manager.load`` opens the file per
    entry and keeps a small cache: right for the detail pane, slow for thousands)."""
    return list(iter_loaded(manager, entries))


def iter_loaded(manager: SessionManager, entries: Sequence[Entry]) -> Iterator[dict[str, Any]]:
    """``load_entries`` one at a time."""
    path = manager.path
    fd = -1
    try:
        for e in entries:
            if e.data is not None or path is None or e.offset < 0:
                obj: Any = manager.load(e)
            else:
                if fd < 0:
                    fd = open_regular(path)
                raw = os.pread(fd, e.size, e.offset).rstrip(b"\r\n\t ")
                try:
                    obj = decode_line(raw)
                except ValueError:
                    obj = None
            yield obj if isinstance(obj, dict) else {}
    finally:
        if fd >= 0:
            os.close(fd)


#: entries read between two progress reports
REPORT_EVERY = 1024


def _reporting(
    objs: Iterator[dict[str, Any]], progress: Callable[[int, int], None] | None, done: int, total: int
) -> Iterator[dict[str, Any]]:
    """``objs`` with (entries read so far, ``total``) reported every ``REPORT_EVERY``."""
    if progress is None:
        yield from objs
        return
    for k, obj in enumerate(objs):
        if not k % REPORT_EVERY:
            progress(done + k, total)
        yield obj


def _num(v: Any) -> float:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else 0.0


#: the token counts a reply's ``usage`` may carry (``totalTokens`` is their sum where given)
_TOKEN_KEYS = ("input", "output", "cacheRead", "cacheWrite")


def _count_usage(msg: dict[str, Any], t: Totals) -> None:
    """Add a reply's tokens and cost to ``t``, and whether it carries them at all (a reply
    without a count is not a reply of 0 tokens)."""
    u = msg.get("usage")
    if not isinstance(u, dict):
        return
    total = u.get("totalTokens")
    if isinstance(total, (int, float)) and not isinstance(total, bool):
        t.tokens += int(_num(total))
        t.replies_with_tokens += 1
    elif any(isinstance(u.get(k), (int, float)) and not isinstance(u.get(k), bool) for k in _TOKEN_KEYS):
        t.tokens += int(sum(_num(u.get(k)) for k in _TOKEN_KEYS))
        t.replies_with_tokens += 1
    c = u.get("cost")
    if isinstance(c, dict) and c:
        t.cost += _num(c.get("total")) if "total" in c else sum(_num(v) for v in c.values())
        t.replies_with_cost += 1
    elif isinstance(c, (int, float)) and not isinstance(c, bool):
        t.cost += _num(c)
        t.replies_with_cost += 1


def _cap(text: str) -> str:
    if len(text) <= TEXT_LIMIT:
        return text
    return text[:TEXT_LIMIT] + f"\n… ({len(text) - TEXT_LIMIT} more characters)"


def _items(
    entries: list[Entry],
    objs: Iterable[dict[str, Any]],
    home: str,
    start: float,
    timed: bool = True,
    manager: SessionManager | None = None,
) -> tuple[list[Item], Totals]:
    items: list[Item] = []
    t = Totals(entries=len(entries))
    files: dict[str, None] = {}
    first = start
    if first != first:
        first = next((x for x in map(timestamp_ms, (e.timestamp for e in entries)) if x == x), math.nan)
    last = next((x for x in map(timestamp_ms, (e.timestamp for e in reversed(entries))) if x == x), math.nan)
    for e, obj in zip(entries, objs):
        item = _item(e, obj, home, t, files, manager)
        if item is not None:
            items.append(item)
    t.files = list(files)
    if timed and first == first and last == last and last > first:
        t.wall_ms = last - first
    return items, t


def _item(
    e: Entry, obj: dict[str, Any], home: str, t: Totals, files: dict[str, None], manager: SessionManager | None = None
) -> Item | None:
    et = e.type
    if et in SKIPPED_TYPES:
        return None
    if et == "message":
        msg = obj.get("message")
        msg = msg if isinstance(msg, dict) else {}
        r = msg.get("role")
        role: str = r if isinstance(r, str) else "message"
        build = _MESSAGE_ITEMS.get(role)
        if role == "assistant" and manager is not None:
            key, head, text, error = _assistant_item(msg, home, t, files, manager.tool_call_view)
        elif role == "toolResult" and manager is not None:
            key, head, text, error = _tool_result_item(msg, home, t, files, shown_tool(manager, e))
        else:
            key, head, text, error = build(msg, home, t, files) if build is not None else _other_message(role, msg)
    else:
        entry_item = _ENTRY_ITEMS.get(et)
        key, head, text, error = (
            entry_item(obj) if entry_item is not None else (et or "entry", et or "entry", "", False)
        )
    if error:
        t.errors += 1
    return Item(e, key, head, _cap(text), error, hash((key, text, error)))


#: (alignment key, column heading, text, is an error) of one entry
_ItemParts = tuple[str, str, str, bool]


def _user_item(msg: dict[str, Any], home: str, t: Totals, files: dict[str, None]) -> _ItemParts:
    t.user_messages += 1
    return "user", "user", content_text(msg.get("content"), None), False


def _assistant_item(
    msg: dict[str, Any], home: str, t: Totals, files: dict[str, None], view: ToolView = as_is
) -> _ItemParts:
    t.turns += 1
    _count_usage(msg, t)
    content = msg.get("content")
    parts = [content_text(content, None)] if content else []
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "toolCall":
            t.tool_calls += 1
            parts.append(call_line(block, home, files, view))
    err = msg.get("errorMessage")
    error = False
    if msg.get("stopReason") == "error" or (isinstance(err, str) and err):
        error = True
        parts.append(f"error: {err}" if isinstance(err, str) and err else "error")
    elif msg.get("stopReason") == "aborted":
        parts.append("(aborted)")
    return "assistant", "assistant", "\n".join(p for p in parts if p) or _no_text(content), error


def _no_text(content: Any) -> str:
    """A reply with no text, tool call or error: what it holds instead (thinking alone, as a
    reply cut off after thinking is)."""
    thinking = (
        [b for b in content if isinstance(b, dict) and b.get("type") == "thinking"] if isinstance(content, list) else []
    )
    if not thinking:
        return "(no content)"
    chars = sum(len(t) for t in (b.get("thinking") for b in thinking) if isinstance(t, str))
    if not chars:
        return "(thinking only, redacted)" if any(b.get("redacted") for b in thinking) else "(thinking only, empty)"
    return f"(thinking only, {chars:,} characters)"


def _tool_result_item(
    msg: dict[str, Any], home: str, t: Totals, files: dict[str, None], shown: str | None = None
) -> _ItemParts:
    name = shown or msg.get("toolName")
    name = name if isinstance(name, str) and name else "tool"
    return f"tool:{name}", f"{name} result", content_text(msg.get("content"), None), msg.get("isError") is True


def _bash_item(msg: dict[str, Any], home: str, t: Totals, files: dict[str, None]) -> _ItemParts:
    cmd = msg.get("command")
    out = msg.get("output")
    code = msg.get("exitCode")
    error = isinstance(code, int) and not isinstance(code, bool) and code != 0
    text = f"$ {cmd if isinstance(cmd, str) else ''}"
    if isinstance(out, str) and out:
        text += "\n" + out
    if error:
        text += f"\n(exit code {code})"
    return "bash", "bash", text, error


def _other_message(role: str, msg: dict[str, Any]) -> _ItemParts:
    content = msg.get("content")
    return role, role, content_text(content, None) if content else "", False


_MESSAGE_ITEMS: dict[str, Callable[[dict[str, Any], str, Totals, dict[str, None]], _ItemParts]] = {
    "user": _user_item,
    "assistant": _assistant_item,
    "toolResult": _tool_result_item,
    "bashExecution": _bash_item,
}


def _custom_item(obj: dict[str, Any]) -> _ItemParts:
    ct = obj.get("customType")
    key = f"[{ct}]" if isinstance(ct, str) else "[custom]"
    return key, key, content_text(obj.get("content"), None), False


def _compaction_item(obj: dict[str, Any]) -> _ItemParts:
    tb = obj.get("tokensBefore")
    summary = obj.get("summary")
    text = (f"[{int(_num(tb) / 1000 + 0.5)}k tokens before]\n" if tb is not None else "") + (
        summary if isinstance(summary, str) else ""
    )
    return "compaction", "compaction", text, False


def _branch_summary_item(obj: dict[str, Any]) -> _ItemParts:
    s = obj.get("summary")
    return "branch summary", "branch summary", s if isinstance(s, str) else "", False


def _model_item(obj: dict[str, Any]) -> _ItemParts:
    model = obj.get("modelId", obj.get("model"))
    return "model", "model", f"{obj.get('provider')}/{model}" if obj.get("provider") else str(model), False


_ENTRY_ITEMS: dict[str, Callable[[dict[str, Any]], _ItemParts]] = {
    "custom_message": _custom_item,
    "compaction": _compaction_item,
    "branch_summary": _branch_summary_item,
    "model_change": _model_item,
    "thinking_level_change": lambda obj: ("thinking level", "thinking level", str(obj.get("thinkingLevel")), False),
}


# aligning -------------------------------------------------------------------------------
def align(a: list[Item], b: list[Item]) -> list[Pair]:
    """Identical items matched in order (longest common runs of signatures), the gaps paired
    by order and key."""
    out: list[Pair] = []
    # a common head and tail need no matcher (retries often share both)
    n = min(len(a), len(b))
    h = 0
    while h < n and a[h].sig == b[h].sig:
        h += 1
    tail = 0
    while tail < n - h and a[len(a) - 1 - tail].sig == b[len(b) - 1 - tail].sig:
        tail += 1
    out.extend(Pair(SAME, a[k], b[k]) for k in range(h))
    ma, mb = a[h : len(a) - tail], b[h : len(b) - tail]
    matched: list[tuple[int, int]] = []
    if ma and mb:
        _anchor([x.sig for x in ma], [x.sig for x in mb], 0, len(ma), 0, len(mb), matched)
    i = j = 0
    for mi, mj in matched:
        _align_gap(ma[i:mi], mb[j:mj], out)
        out.append(Pair(SAME, ma[mi], mb[mj]))
        i, j = mi + 1, mj + 1
    _align_gap(ma[i:], mb[j:], out)
    out.extend(Pair(SAME, a[len(a) - tail + k], b[len(b) - tail + k]) for k in range(tail))
    return out


def _anchor(
    sa: list[int], sb: list[int], alo: int, ahi: int, blo: int, bhi: int, out: list[tuple[int, int]], depth: int = 0
) -> None:
    """Identical items of ``sa[alo:ahi]`` and ``sb[blo:bhi]`` as (i, j) pairs in order
    (patience matching: signatures found exactly once on each side anchor the match, the longest
    increasing run of anchors is kept, runs of equal neighbours extend it, the gaps recurse).
    O(n log n), where a general sequence matcher is quadratic on long, repetitive branches."""
    while alo < ahi and blo < bhi and sa[alo] == sb[blo]:
        out.append((alo, blo))
        alo += 1
        blo += 1
    tail: list[tuple[int, int]] = []
    while alo < ahi and blo < bhi and sa[ahi - 1] == sb[bhi - 1]:
        ahi -= 1
        bhi -= 1
        tail.append((ahi, bhi))
    if alo < ahi and blo < bhi and depth < 100:  # deeper gaps are left to the gap aligner
        _match_between_anchors(sa, sb, alo, ahi, blo, bhi, out, depth)
    out.extend(reversed(tail))


def _unique_anchors(sa: list[int], sb: list[int], alo: int, ahi: int, blo: int, bhi: int) -> list[tuple[int, int]]:
    """(i, j) of the signatures found exactly once in ``sa[alo:ahi]`` and once in
    ``sb[blo:bhi]``, sorted by i."""
    count: dict[int, list[int]] = {}
    for i in range(alo, ahi):
        c = count.get(sa[i])
        if c is None:
            count[sa[i]] = [1, 0, i, -1]
        else:
            c[0] += 1
    for j in range(blo, bhi):
        c = count.get(sb[j])
        if c is not None:
            c[1] += 1
            c[3] = j
    return sorted((c[2], c[3]) for c in count.values() if c[0] == 1 and c[1] == 1)


def _match_between_anchors(
    sa: list[int], sb: list[int], alo: int, ahi: int, blo: int, bhi: int, out: list[tuple[int, int]], depth: int
) -> None:
    """The patience step of ``_anchor``: keep the longest increasing run of unique anchors,
    extend each over equal neighbours, recurse into the gaps between them."""
    chain = _longest_increasing(_unique_anchors(sa, sb, alo, ahi, blo, bhi))
    i, j = alo, blo
    for ai, bj in chain:
        if ai < i or bj < j:
            continue  # swallowed by the extension of the previous anchor
        # extend the anchor backwards over equal neighbours, then recurse into the gap before it
        s, t = ai, bj
        while s > i and t > j and sa[s - 1] == sb[t - 1]:
            s -= 1
            t -= 1
        if (s, t) != (i, j):
            _anchor(sa, sb, i, s, j, t, out, depth + 1)
        out.extend(zip(range(s, ai + 1), range(t, bj + 1)))
        i, j = ai + 1, bj + 1
        while i < ahi and j < bhi and sa[i] == sb[j]:
            out.append((i, j))
            i += 1
            j += 1
    if chain and (i < ahi and j < bhi):
        _anchor(sa, sb, i, ahi, j, bhi, out, depth + 1)


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest run of ``pairs`` (sorted by first) whose seconds increase (patience sort)."""
    tops: list[int] = []  # second of the last pair of each pile
    top_at: list[int] = []  # index into pairs of that pair
    back = [-1] * len(pairs)
    for k, (_i, j) in enumerate(pairs):
        p = bisect_left(tops, j)
        if p == len(tops):
            tops.append(j)
            top_at.append(k)
        else:
            tops[p] = j
            top_at[p] = k
        back[k] = top_at[p - 1] if p else -1
    out = []
    k = top_at[-1] if top_at else -1
    while k >= 0:
        out.append(pairs[k])
        k = back[k]
    out.reverse()
    return out


def _align_gap(a: list[Item], b: list[Item], out: list[Pair]) -> None:
    """Pair items of the same key in order; an item with no partner nearby stands alone."""
    i = j = 0
    while i < len(a) and j < len(b):
        x, y = a[i], b[j]
        if x.key == y.key:
            out.append(Pair(SAME if x.sig == y.sig else CHANGED, x, y))
            i += 1
            j += 1
            continue
        db = next((k for k in range(1, LOOKAHEAD + 1) if j + k < len(b) and b[j + k].key == x.key), None)
        da = next((k for k in range(1, LOOKAHEAD + 1) if i + k < len(a) and a[i + k].key == y.key), None)
        if db is not None and (da is None or db <= da):
            out.extend(Pair(ONLY_B, None, b[j + k]) for k in range(db))
            j += db
        elif da is not None:
            out.extend(Pair(ONLY_A, a[i + k], None) for k in range(da))
            i += da
        else:
            out.append(Pair(ONLY_A, x, None))
            out.append(Pair(ONLY_B, None, y))
            i += 1
            j += 1
    out.extend(Pair(ONLY_A, x, None) for x in a[i:])
    out.extend(Pair(ONLY_B, None, y) for y in b[j:])


def fold_pairs(pairs: Sequence[Pair], context: int = 2, unfolded: set[int] | None = None) -> list[int | Fold]:
    """Pair indices, with each run of identical pairs longer than the context kept around
    the changes replaced by a ``Fold``."""
    unfolded = unfolded or set()
    context = max(0, context)
    out: list[int | Fold] = []
    n = len(pairs)
    i = 0
    while i < n:
        if pairs[i].status != SAME:
            out.append(i)
            i += 1
            continue
        j = i
        while j < n and pairs[j].status == SAME:
            j += 1
        keep_head = context if i > 0 else 0  # after a change
        keep_tail = context if j < n else 0  # before a change
        if j - i > keep_head + keep_tail + 1 and (i + keep_head) not in unfolded:
            out.extend(range(i, i + keep_head))
            out.append(Fold(i + keep_head, j - keep_tail))
            out.extend(range(j - keep_tail, j))
        else:
            out.extend(range(i, j))
        i = j
    return out
