"""A comparison laid out for a screen: side by side, or stacked when the screen is narrow.

Each shown block (a pair of entries, or a fold of identical ones) becomes screen rows of styled
runs. Rows are built only for the blocks on screen (and kept), while block heights come from the
plain text alone — wrapping is at its word boundaries, so the word changes never move a line break — so
the first screen of two 5k-entry branches costs a few blocks' word diffs, not thousands.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import NamedTuple

from loomtui.view.compare import CHANGED, ONLY_A, ONLY_B, SAME, Comparison, Fold, Item
from loomtui.view.compare_words import Span, word_diff
from loomtui.view.words import counted
from loomtui.view.wrap import row_ranges

#: below this width the two columns stack
STACK_BELOW = 110
#: text lines shown per side of a pair until it is expanded
CAP = 8

Run = tuple[str, str]  # (style role, text); roles: text, dim, muted, head, added, removed, added_word…


class Row(NamedTuple):
    block: int
    left: list[Run]
    right: list[Run] | None  # None: one full-width row (stacked mode, folds)


_GLYPH = {SAME: " ", CHANGED: "~", ONLY_A: "-", ONLY_B: "+"}


def wrap_spans(spans: list[Span], width: int) -> list[list[Span]]:
    """Spans cut into screen lines: at newlines, and at word boundaries of the plain text (so
    the word changes of a pair never move a line break)."""
    width = max(1, width)
    lines: list[list[Span]] = [[]]
    for changed, text in spans:
        for j, part in enumerate(text.replace("\t", "    ").split("\n")):
            if j:
                lines.append([])
            if part:
                lines[-1].append((changed, part))
    out: list[list[Span]] = []
    for line in lines:
        out.extend(_cut_rows(line, row_ranges("".join(t for _, t in line), width)))
    return out


def _cut_rows(line: list[Span], ranges: list[tuple[int, int]]) -> list[list[Span]]:
    """The spans of one line cut at the rows' ranges (of its plain text)."""
    rows: list[list[Span]] = []
    k, pos = 0, 0  # the span where the row starts and that span's first offset
    for a, b in ranges:
        row: list[Span] = []
        while k < len(line) and pos + len(line[k][1]) <= a:
            pos += len(line[k][1])
            k += 1
        j, p = k, pos
        while j < len(line) and p < b:
            changed, t = line[j]
            lo, hi = max(a, p), min(b, p + len(t))
            if lo < hi:
                row.append((changed, t[lo - p : hi - p]))
            p += len(t)
            j += 1
        rows.append(row)
    return rows


def _count_lines(text: str, width: int, limit: int) -> int:
    """How many screen lines ``text`` wraps to (counting stops past ``limit``)."""
    n = 0
    width = max(1, width)
    for line in text.split("\n", limit + 1):
        n += len(row_ranges(line.replace("\t", "    "), width))
        if n > limit:
            break
    return n


class CompareLayout:
    """Rows of a comparison at one width."""

    def __init__(
        self,
        cmp: Comparison,
        width: int,
        *,
        context: int = 2,
        unfolded: set[int] | None = None,
        expanded: set[int] | None = None,
    ) -> None:
        self.cmp = cmp
        self.width = max(20, width)
        self.stacked = self.width < STACK_BELOW
        self.col = self.width - 2 if self.stacked else (self.width - 3) // 2
        self.context = context
        self.unfolded = set(unfolded or ())
        self.expanded = set(expanded or ())  # pair indices shown whole
        self.blocks: list[int | Fold] = cmp.blocks(context, self.unfolded)
        self._rows: dict[int, list[Row]] = {}
        self.offsets: list[int] = []
        total = 0
        for b in self.blocks:
            self.offsets.append(total)
            total += self._height(b)
        self.height = total

    # sizes -------------------------------------------------------------------------------
    def _side_height(self, item: Item | None, pair: int) -> int:
        if item is None:
            return 0
        cap = 10**9 if pair in self.expanded else CAP
        n = _count_lines(item.text, self.col - 2, cap) if item.text else 0
        return 1 + min(n, cap) + (1 if n > cap else 0)

    def _height(self, b: int | Fold) -> int:
        if isinstance(b, Fold):
            return 1
        p = self.cmp.pairs[b]
        ha, hb = self._side_height(p.a, b), self._side_height(p.b, b)
        return (ha + hb if self.stacked else max(ha, hb)) + 1

    # lookups -----------------------------------------------------------------------------
    def block_at(self, y: int) -> int:
        return max(0, bisect_right(self.offsets, y) - 1)

    def row(self, y: int) -> Row | None:
        if not 0 <= y < self.height:
            return None
        k = self.block_at(y)
        rows = self.block_rows(k)
        i = y - self.offsets[k]
        return rows[i] if i < len(rows) else Row(k, [], None)

    def block_rows(self, k: int) -> list[Row]:
        hit = self._rows.get(k)
        if hit is None:
            hit = self._rows[k] = self._build(k)
            if len(self._rows) > 512:
                self._rows.pop(next(iter(self._rows)))
        return hit

    def is_fold(self, k: int) -> bool:
        return isinstance(self.blocks[k], Fold)

    def next_change(self, k: int, step: int) -> int | None:
        j = k + step
        while 0 <= j < len(self.blocks):
            b = self.blocks[j]
            if not isinstance(b, Fold) and self.cmp.pairs[b].status != SAME:
                return j
            j += step
        return None

    # building ----------------------------------------------------------------------------
    def _build(self, k: int) -> list[Row]:
        b = self.blocks[k]
        if isinstance(b, Fold):
            text = f"⋯ {b.text} (Enter shows them) ⋯"
            return [Row(k, [("dim", text.center(self.width - 1))], None)]
        p = self.cmp.pairs[b]
        sa: list[Span] | None = None
        sb: list[Span] | None = None
        if p.status == CHANGED and p.a is not None and p.b is not None:
            sa, sb = word_diff(p.a.text, p.b.text)
        left = self._side(p.a, sa, p.status, "a", b)
        right = self._side(p.b, sb, p.status, "b", b)
        rows: list[Row] = []
        if self.stacked:
            for side, lines in (("A", left), ("B", right)):
                rows += [Row(k, [("side", f"{side} "), *line], None) for line in lines]
        else:
            for i in range(max(len(left), len(right))):
                rows.append(Row(k, left[i] if i < len(left) else [], right[i] if i < len(right) else []))
        rows.append(Row(k, [], None))
        return rows

    def _side(self, item: Item | None, spans: list[Span] | None, status: str, side: str, pair: int) -> list[list[Run]]:
        if item is None:
            return []
        width = self.col - 2
        head_style = "error" if item.error else "head"
        mark = _GLYPH[status]
        out: list[list[Run]] = [
            [("mark_" + status, mark + " "), (head_style, item.head), ("dim", f"  {item.entry.id}")]
        ]
        if spans is None:
            spans = [(False, item.text)]
        if status == SAME:
            base, strong = "dim", "dim"
        elif status == CHANGED:
            base, strong = "text", "removed_word" if side == "a" else "added_word"
        else:
            base = strong = "removed" if side == "a" else "added"
        lines = wrap_spans(spans, width) if item.text else []
        cap = len(lines) if pair in self.expanded else CAP
        for line in lines[:cap]:
            out.append([("text", "  ")] + [(strong if changed else base, t) for changed, t in line])
        if len(lines) > cap:
            out.append([("dim", f"  … {counted(len(lines) - cap, 'more line')} (Enter shows all)")])
        return out


def totals_rows(cmp: Comparison, width: int) -> list[tuple[str, str]]:
    """The totals under each column: (left, right) lines, or one line per side when stacked."""
    ta, tb = cmp.totals_a.lines(), cmp.totals_b.lines()
    if width < STACK_BELOW:
        return [("A " + " · ".join(_short(cmp.totals_a)), ""), ("B " + " · ".join(_short(cmp.totals_b)), "")]
    return list(zip(ta, tb))


def _short(t: object) -> list[str]:
    from loomtui.view.compare_totals import Totals

    assert isinstance(t, Totals)

    def n(k: int, word: str) -> str:
        return f"{k} {word}{'' if k == 1 else 's'}"

    if not t.conversation:  # an OCP run: its entries, and what is not counted
        return [counted(t.entries, "entry", "entries"), f"nothing else counted for {t.a_name}"]
    return [
        n(t.turns, "turn"),
        n(t.tool_calls, "call"),
        f"{t.errors} err",
        n(len(t.files), "file"),
        *t.spent("tok", "{:.2f}"),
    ]
