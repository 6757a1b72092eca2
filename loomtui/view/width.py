"""Terminal cell widths and pi's ``truncateToWidth`` (pi-tui), for plain rows."""

from __future__ import annotations

import unicodedata
from functools import lru_cache


@lru_cache(maxsize=4096)
def char_width(c: str) -> int:
    """Columns a code point takes: 0 for combining/format marks, 2 for wide and emoji."""
    o = ord(c)
    if o < 0x300:
        return 0 if o < 32 or 0x7F <= o < 0xA0 else 1
    cat = unicodedata.category(c)
    if cat in ("Mn", "Me", "Cf") or 0xFE00 <= o <= 0xFE0F:
        return 0
    if unicodedata.east_asian_width(c) in ("W", "F") or 0x1F300 <= o <= 0x1FAFF:
        return 2
    return 1


def text_width(s: str) -> int:
    if s.isascii():
        return len(s)
    return sum(char_width(c) for c in s)


def truncate_to_width(s: str, width: int, ellipsis: str = "...") -> str:
    """Cut ``s`` to ``width`` columns, ending in ``ellipsis`` when cut (as pi's rows are)."""
    if width <= 0:
        return ""
    if text_width(s) <= width:
        return s
    ew = text_width(ellipsis)
    if ew >= width:
        return ellipsis[:width]
    target = width - ew
    if s.isascii():
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
