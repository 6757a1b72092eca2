"""Terminal cell widths and pi's ``truncateToWidth`` (pi-tui), for plain rows."""

from __future__ import annotations

import re
from functools import cache, lru_cache

_WIDE_CLASS = (
    "[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf"
    "\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6"
    "\U0001f300-\U0001faff\U00020000-\U0003fffd]"
)
_ZERO_CLASS = "[\x00-\x1f\x7f-\x9f\u0300-\u036f\u0483-\u0489\u0591-\u05bd\u200b-\u200f\u20d0-\u20ff\ufe00-\ufe0f\ufeff]"


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """(wide, zero-width, either): compiled on first use, since these classes take ~15 ms to
    compile and a tree of plain ASCII rows never needs them."""
    return re.compile(_WIDE_CLASS), re.compile(_ZERO_CLASS), re.compile(_WIDE_CLASS[:-1] + _ZERO_CLASS[1:])


@lru_cache(maxsize=4096)
def char_width(c: str) -> int:
    """Columns a code point takes: 0 for control and combining marks, 2 for wide and emoji."""
    wide, zero, _either = _patterns()
    if zero.match(c):
        return 0
    return 2 if wide.match(c) else 1


def one_column_each(s: str) -> bool:
    """Whether every code point of ``s`` takes one column (no wide, control or combining one)."""
    return s.isascii() and s.isprintable() or not _patterns()[2].search(s)


def text_width(s: str) -> int:
    """Columns ``s`` takes (fast: counts only the wide and zero-width code points)."""
    wide, zero, either = _patterns()
    if s.isascii():
        return len(s) - (len(zero.findall(s)) if not s.isprintable() else 0)
    if not either.search(s):  # box-drawing glyphs and other one-column code points only
        return len(s)
    return len(s) + len(wide.findall(s)) - len(zero.findall(s))


#: the cursor's columns before every /tree row (``› ``), which pi's horizontal pan keeps in place
GUTTER = 2

#: pi 1.6.0 cuts /tree rows at the width with no ellipsis (its footer keeps "...")
ROW_ELLIPSIS = ""


def truncate_to_width(s: str, width: int, ellipsis: str = "...", safe_prefix: int = 0) -> str:
    """Cut ``s`` to ``width`` columns, ending in ``ellipsis`` when cut (as pi's rows are).

    ``safe_prefix``: the first that many code points are known to be one column each (tree
    glyphs), so only the rest is examined.
    """
    if safe_prefix and width > 0:
        rest = s[safe_prefix:]
        if rest.isascii() and rest.isprintable():
            if len(s) <= width:
                return s
            return s[: width - len(ellipsis)] + ellipsis if len(ellipsis) < width else ellipsis[:width]
    if width <= 0:
        return ""
    wide, zero, either = _patterns()
    if not either.search(s):
        # every code point is one column wide (box-drawing glyphs included): slice
        if len(s) <= width:
            return s
        return s[: width - len(ellipsis)] + ellipsis if len(ellipsis) < width else ellipsis[:width]
    if text_width(s) <= width:
        return s
    ew = text_width(ellipsis)
    if ew >= width:
        return ellipsis[:width]
    target = width - ew
    if s.isascii() or not (wide.search(s) or zero.search(s)):
        return s[:target] + ellipsis
    out = []
    used = 0
    for c in s:
        w = char_width(c)
        if used + w > target:
            break
        out.append(c)
        used += w
    return "".join(out) + ellipsis


def fit_items(items: list[tuple[int, str]], width: int, sep: str = "  ") -> str:
    """``(priority, text)`` items joined by ``sep`` in ``width`` columns, in their order: the
    lowest priorities are left out first, so the rest is never cut mid-word."""
    keep = list(items)
    while keep and text_width(sep.join(t for _p, t in keep)) > width:
        drop = min(range(len(keep)), key=lambda k: (keep[k][0], -k))
        del keep[drop]
    return sep.join(t for _p, t in keep)


def fit_hints(items: list[tuple[int, str, str]], width: int, sep: str = "  ") -> str:
    """``(priority, text, short text)`` hints joined by ``sep`` in ``width`` columns: each in
    its own words where they all fit, else the least needed ones in their short words first, and
    then, where even that is too wide, the least needed left out (``fit_items``)."""
    texts = [(p, long) for p, long, _short in items]
    for k in sorted(range(len(items)), key=lambda k: items[k][0]):
        if text_width(sep.join(t for _p, t in texts)) <= width:
            break
        texts[k] = (items[k][0], items[k][2])
    return fit_items(texts, width, sep)


def columns(segs: list[tuple[str, str]], start: int, length: int) -> list[tuple[str, str]]:
    """The code points of ``segs`` that start at column ``start`` or later and end within
    ``length`` columns of it (pi-tui's strict ``sliceByColumn``)."""
    out: list[tuple[str, str]] = []
    end = start + length
    col = 0
    for style, text in segs:
        if one_column_each(text):  # every code point one column: a slice
            piece = text[max(0, start - col) : max(0, end - col)]
            col += len(text)
            if piece:
                out.append((style, piece))
            if col > end:
                break
            continue
        kept = []
        for c in text:
            w = char_width(c)
            if col >= start and col + w <= end and (w or col < end):
                kept.append(c)
            col += w
            if col > end:
                break
        if kept:
            out.append((style, "".join(kept)))
        if col > end:
            break
    return out
