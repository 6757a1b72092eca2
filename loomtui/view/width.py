"""Terminal cell widths and pi's ``truncateToWidth`` (pi-tui), for plain rows."""

from __future__ import annotations

import re
from functools import cache, lru_cache

_WIDE_CLASS = (
    "[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf"
    "\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6"
    "\U0001f300-\U0001faff\U00020000-\U0003fffd]"
)
_ZERO_CLASS = ("[\x00-\x1f\x7f-\x9f\u0300-\u036f\u0483-\u0489\u0591-\u05bd\u200b-\u200f"
               "\u20d0-\u20ff\ufe00-\ufe0f\ufeff]")


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


def text_width(s: str) -> int:
    """Columns ``s`` takes (fast: counts only the wide and zero-width code points)."""
    wide, zero, _either = _patterns()
    if s.isascii():
        return len(s) - (len(zero.findall(s)) if not s.isprintable() else 0)
    return len(s) + len(wide.findall(s)) - len(zero.findall(s))


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


def fit_parts(parts: list[str], width: int, shrink: int, sep: str = "  ·  ") -> str:
    """``parts`` joined by ``sep`` in ``width`` columns: part ``shrink`` (a path) gives up its
    left end first (``…/tail``), so the parts after it (counts, the leaf) stay whole; only when
    that is not enough is the end cut with ``…``."""
    text = sep.join(parts)
    over = text_width(text) - width
    if over <= 0 or not 0 <= shrink < len(parts):
        return text if over <= 0 else _cut(text, width)
    part = parts[shrink]
    keep = text_width(part) - over - 1
    if keep < 8:
        # no room for a useful piece of the path: leave it out, then shorten the first part
        rest = parts[:shrink] + parts[shrink + 1:]
        out = sep.join(rest)
        over = text_width(out) - width
        if over > 0 and shrink != 0 and text_width(rest[0]) > 8:
            out = sep.join([_cut(rest[0], max(8, text_width(rest[0]) - over))] + rest[1:])
        return out if text_width(out) <= width else _cut(out, width)
    tail = part
    while text_width(tail) > keep:
        tail = tail[1:]
    cut = tail.find("/")
    if 0 <= cut < len(tail) - 8:
        tail = tail[cut:]
    short = "…" + tail
    out = sep.join(parts[:shrink] + [short] + parts[shrink + 1:])
    return out if text_width(out) <= width else _cut(out, width)


def _cut(text: str, width: int) -> str:
    if width <= 0:
        return ""
    while text_width(text) > width - 1:
        text = text[:-1]
    return text + "…"


def fit_items(items: list[tuple[int, str]], width: int, sep: str = "  ") -> str:
    """``(priority, text)`` items joined by ``sep`` in ``width`` columns, in their order: the
    lowest priorities are left out first, so the rest is never cut mid-word."""
    keep = list(items)
    while keep and text_width(sep.join(t for _p, t in keep)) > width:
        drop = min(range(len(keep)), key=lambda k: (keep[k][0], -k))
        del keep[drop]
    return sep.join(t for _p, t in keep)
