"""Compact indentation: deep rows keep their text on screen.

pi indents one level (3 columns) per branch point above a row, so in a heavily branched tree most
rows are nothing but gutter at any terminal width. A row's prefix fits a ``width``-column pane
when it takes at most ``prefix_room(width)`` columns: half the pane, and 12 at the least. In
compact mode a row whose prefix does not fit shows its indentation (levels) as a number and only
its innermost levels (connector included): as many as leave ``MIN_TEXT`` columns for its text,
never more than fit the room, at least its connector: ``⋯12│  ├─ user: …``. Rows that fit are
drawn exactly as pi draws them, so a tree whose rows all fit looks the same in both modes.
Until the user picks a mode (Ctrl+W, remembered), the tree is compact exactly when its deepest
row does not fit the pane (``too_deep``); with compact indentation off, the tree widget shifts
the rows in view left together instead, by as many levels as the deepest one needs to fit.
"""

from __future__ import annotations

from loomtui.view import layout as L

#: columns of text a row that does not fit keeps in compact mode (where the pane has them)
MIN_TEXT = 60
#: columns before the prefix (the cursor) and after it (fold marker or active-path bullet, and
#: the "..." of a cut row)
_CURSOR = 2
_MARKERS = 4 + 3


def prefix_room(width: int) -> int:
    """The most columns a row's prefix takes in a ``width``-column pane before it no longer
    fits: half the pane (the other half is the row's text), 12 columns at the least."""
    return max(12, width // 2)


def room_levels(width: int) -> int:
    """How many 3-column levels fit in ``prefix_room(width)``: a row indented more does not fit."""
    return prefix_room(width) // 3


def compact_levels(width: int) -> int:
    """How many levels a row that does not fit keeps in compact mode, its ``⋯N`` included: as
    many as leave ``MIN_TEXT`` columns of text, no more than ``room_levels``, 2 at the least."""
    return min(room_levels(width), max(2, (width - _CURSOR - _MARKERS - MIN_TEXT) // 3))


def too_deep(lay: L.Layout, width: int) -> bool:
    """Whether pi's indentation does not fit a ``width``-column pane: the deepest row's prefix
    is longer than ``prefix_room``, so the rows would be shifted left (their outer levels cut)
    to show its text."""
    if not lay.indent or width <= 0:
        return False
    deepest = max(lay.indent) - (1 if lay.multiple_roots else 0)
    return deepest > room_levels(width)


def depth_tag(depth: int) -> str:
    return f"⋯{depth}"


def compact_prefix(lay: L.Layout, i: int, folded: bool, width: int) -> str:
    """Row ``i``'s prefix in compact mode for a ``width``-column line: pi's when it fits
    ``prefix_room``, else its levels as ``⋯N`` and its innermost levels (``compact_levels``)."""
    d = lay.display_indent(i)
    if d <= room_levels(width):
        return L.prefix(lay, i, folded, width)
    limit = compact_levels(width)
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
