"""The lines of ``loomtui diff``, made only where a hunk shows them.

The transcript diff of two long branches can be millions of lines, most of them never printed
(identical entries far from a change) or printed once and dropped. So the whole diff is first
planned in runs of lines (``Run``: one tag, one pair, counted, not made: an entry's line count is
its text's newlines), the hunks are cut from the plan, and each hunk's lines are made from the
pairs it covers when it is printed (``hunk_lines``): nothing holds every line at once.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from difflib import SequenceMatcher
from typing import NamedTuple

from loomtui.view.compare import CHANGED, ONLY_A, ONLY_B, Comparison, Item, Pair
from loomtui.view.compare_words import Span, span_lines, word_diff
from loomtui.view.printable import printable


def safe(s: str) -> str:
    """Text from a file made printable, newlines kept (tabs as four spaces)."""
    return printable(s.replace("\t", "    "), keep_lines=True)


class Line(NamedTuple):
    tag: str  # " ", "-", "+"
    spans: list[Span]  # the text, changed words marked
    a_id: str | None
    b_id: str | None

    @property
    def text(self) -> str:
        return "".join(t for _c, t in self.spans)


def item_lines(item: Item) -> list[str]:
    """The transcript lines of one entry (made printable)."""
    lines = safe(item.text).split("\n")
    out = [f"{item.head}: {lines[0]}" if lines[0] else f"{item.head}:"]
    out += [f"  {x}" for x in lines[1:]]
    return out


def _line_count(item: Item) -> int:
    """``len(item_lines(item))`` without making them (``safe`` keeps every newline)."""
    return item.text.count("\n") + 1


def changed_lines(la: list[str], lb: list[str], aid: str | None, bid: str | None) -> list[Line]:
    """The lines of a changed pair: equal runs as context, the others word-diffed."""
    out: list[Line] = []
    for tag, i1, i2, j1, j2 in _line_opcodes(la, lb):
        if tag == "equal":
            out += [Line(" ", [(False, x)], aid, bid) for x in la[i1:i2]]
            continue
        sa, sb = word_diff("\n".join(la[i1:i2]), "\n".join(lb[j1:j2]))
        if i2 > i1:
            out += [Line("-", spans, aid, None) for spans in span_lines(sa)[: i2 - i1]]
        if j2 > j1:
            out += [Line("+", spans, None, bid) for spans in span_lines(sb)[: j2 - j1]]
    return out


def _line_opcodes(la: list[str], lb: list[str]) -> Sequence[tuple[str, int, int, int, int]]:
    return SequenceMatcher(None, la, lb, autojunk=False).get_opcodes()


class Run(NamedTuple):
    """Consecutive lines of the diff with one tag, from one pair."""

    start: int  # the first line's position in the whole diff
    tag: str  # " ", "-", "+"
    n: int  # how many lines
    pair: int  # index into ``Comparison.pairs``
    at: int  # the first line's index among the pair's own lines (``pair_lines``)
    a_no: int  # lines of A before the run (``+`` lines are not A's)
    b_no: int  # lines of B before it


class Plan(NamedTuple):
    runs: list[Run]
    starts: list[int]  # each run's start, for bisect
    total: int  # lines in the whole diff

    def numbers(self, pos: int) -> tuple[int, int]:
        """(lines of A, lines of B) before position ``pos``."""
        k = bisect_right(self.starts, pos) - 1
        if k < 0:
            return 0, 0
        r = self.runs[k]
        inside = min(pos - r.start, r.n)
        return r.a_no + (inside if r.tag != "+" else 0), r.b_no + (inside if r.tag != "-" else 0)


def plan(cmp: Comparison) -> Plan:
    """Every line of the diff, as runs (only a changed pair's lines are made, to be matched)."""
    runs: list[Run] = []
    pos = a_no = b_no = 0

    def add(tag: str, n: int, pair: int, at: int) -> None:
        nonlocal pos, a_no, b_no
        if n:
            runs.append(Run(pos, tag, n, pair, at, a_no, b_no))
            pos += n
            a_no += n if tag != "+" else 0
            b_no += n if tag != "-" else 0

    for k, p in enumerate(cmp.pairs):
        if p.status == ONLY_A and p.a is not None:
            add("-", _line_count(p.a), k, 0)
        elif p.status == ONLY_B and p.b is not None:
            add("+", _line_count(p.b), k, 0)
        elif p.status == CHANGED and p.a is not None and p.b is not None:
            at = 0
            for tag, i1, i2, j1, j2 in _line_opcodes(item_lines(p.a), item_lines(p.b)):
                if tag == "equal":
                    add(" ", i2 - i1, k, at)
                    at += i2 - i1
                    continue
                add("-", i2 - i1, k, at)
                add("+", j2 - j1, k, at + i2 - i1)
                at += i2 - i1 + j2 - j1
        elif p.a is not None:
            add(" ", _line_count(p.a), k, 0)
    return Plan(runs, [r.start for r in runs], pos)


class Hunk(NamedTuple):
    lo: int  # its lines: positions lo..hi-1 of the diff
    hi: int
    first: Run  # the run of its first changed line


def hunks(p: Plan, context: int = 3) -> Iterator[Hunk]:
    """The unified diff's hunks: changed lines with ``context`` lines around them, hunks
    closer than twice the context joined."""
    context = max(0, context)
    group: list[int] = []  # first and last changed line
    first: Run | None = None
    for r in p.runs:
        if r.tag == " ":
            continue
        if first is not None and r.start - group[1] <= 2 * context + 1:
            group[1] = r.start + r.n - 1
            continue
        if first is not None:
            yield Hunk(max(0, group[0] - context), min(p.total, group[1] + context + 1), first)
        group, first = [r.start, r.start + r.n - 1], r
    if first is not None:
        yield Hunk(max(0, group[0] - context), min(p.total, group[1] + context + 1), first)


def header(p: Plan, cmp: Comparison, h: Hunk) -> str:
    """``@@ -a,n +b,m @@ A:id`` (the entry of the hunk's first changed line)."""
    a_lo, b_lo = p.numbers(h.lo)
    a_hi, b_hi = p.numbers(h.hi)
    na, nb = a_hi - a_lo, b_hi - b_lo
    sa = a_lo + 1 if na else a_lo
    sb = b_lo + 1 if nb else b_lo
    pair = cmp.pairs[h.first.pair]
    side = pair.a if h.first.tag == "-" else pair.b
    where = f" {'A' if h.first.tag == '-' else 'B'}:{side.entry.id}" if side is not None else ""
    return f"@@ -{sa},{na} +{sb},{nb} @@{where}"


def hunk_lines(p: Plan, cmp: Comparison, h: Hunk) -> Iterator[tuple[str, str | list[Span]]]:
    """The hunk's lines as (tag, text), or (tag, spans) for a changed pair's lines (their
    changed words marked), made from the pairs the hunk covers."""
    k = bisect_right(p.starts, h.lo) - 1
    made: tuple[int, list[str] | list[Line]] | None = None
    while k < len(p.runs) and p.runs[k].start < h.hi:
        r = p.runs[k]
        k += 1
        lo, hi = max(h.lo, r.start) - r.start, min(h.hi, r.start + r.n) - r.start
        if hi <= lo:
            continue
        if made is None or made[0] != r.pair:
            made = (r.pair, _pair_lines(cmp.pairs[r.pair]))
        lines = made[1][r.at + lo : r.at + hi]
        for line in lines:
            yield (line.tag, line.spans) if isinstance(line, Line) else (r.tag, line)


def _pair_lines(pair: Pair) -> list[str] | list[Line]:
    """A pair's lines: its entry's (one side only, or identical), or a changed pair's."""
    if pair.status == CHANGED and pair.a is not None and pair.b is not None:
        return changed_lines(item_lines(pair.a), item_lines(pair.b), pair.a.entry.id, pair.b.entry.id)
    item = pair.b if pair.status == ONLY_B else pair.a
    return item_lines(item) if item is not None else []
