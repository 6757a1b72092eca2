"""Compact indentation: deep rows keep their text on screen.

pi indents one level (3 columns) per branch point above a row, so in a heavily branched tree most
rows are nothing but gutter at any terminal width. In compact mode a row whose prefix would
leave less than ``MIN_TEXT`` columns of a ``width``-column line shows its indentation (levels) as a number and
only its innermost levels (connector included): ``⋯12│  ├─ user: …``. Rows that fit are drawn
exactly as pi draws them, so shallow trees look the same in both modes. Until the user picks a
mode (Ctrl+W, remembered), the tree is compact exactly when its rows are ``too_deep`` for the pane.
"""

from __future__ import annotations

from loomtui.view import layout as L

#: columns of text every row keeps in compact mode
MIN_TEXT = 60
#: columns before the prefix (the cursor) and after it (fold marker or active-path bullet, and
#: the "..." of a cut row)
_CURSOR = 2
_MARKERS = 4 + 3


def max_levels(width: int) -> int:
    """How many 3-column levels fit in front of ``MIN_TEXT`` columns of text (at least 2)."""
    return max(2, (width - _CURSOR - _MARKERS - MIN_TEXT) // 3)


def prefix_room(width: int) -> int:
    """The most columns the tree lets a row's prefix take in a ``width``-column pane: half the
    row, leaving at least 40 columns of text (12 at the least)."""
    return max(12, min(width // 2, width - 40))


def too_deep(lay: L.Layout, width: int) -> bool:
    """Whether pi's indentation does not fit a ``width``-column pane: the deepest row's prefix
    is longer than ``prefix_room``, so the rows would be shifted left (their outer levels cut)
    to show its text."""
    if not lay.indent or width <= 0:
        return False
    deepest = max(lay.indent) - (1 if lay.multiple_roots else 0)
    return 3 * deepest > prefix_room(width)


def depth_tag(depth: int) -> str:
    return f"⋯{depth}"


def compact_prefix(lay: L.Layout, i: int, folded: bool, width: int) -> str:
    """Row ``i``'s prefix in compact mode for a ``width``-column line."""
    d = lay.display_indent(i)
    limit = max_levels(width)
    if d <= limit:
        return L.prefix(lay, i, folded, width)
    tag = depth_tag(d)
    tag_levels = (len(tag) + 3) // 3  # whole levels, with a space before the first glyph
    keep = max(1, limit - tag_levels)
    return tag.ljust(3 * tag_levels) + _levels(lay, i, folded, d, d - keep)


def _levels(lay: L.Layout, i: int, folded: bool, d: int, lo: int) -> str:
    """Levels ``lo..d-1`` of row ``i``'s prefix, drawn as ``layout.prefix`` draws them."""
    shows_connector = bool(lay.connector[i] and not lay.virtual_root_child[i])
    glyph = ""
    if shows_connector:
        glyph = ("└" if lay.last[i] else "├") + ("⊞" if folded else ("⊟" if lay.is_foldable(i) else "─")) + " "
    cpos = d - 1 if shows_connector else -1
    first: dict[int, bool] = {}
    chain = lay.gutters[i]
    while chain:  # innermost first: an outer gutter at the same position wins (pi's order)
        chain, position, show = chain
        if lo <= position < d:
            first[position] = show
    parts = []
    for level in range(lo, d):
        shown = first.get(level)
        if shown is not None:
            parts.append("│  " if shown else "   ")
        elif level == cpos:
            parts.append(glyph)
        else:
            parts.append("   ")
    return "".join(parts)
