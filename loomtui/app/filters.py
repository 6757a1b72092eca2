"""Line filters that tolerate every segment Textual and rich hand them.

Textual's ``Monochrome`` filter (installed when ``NO_COLOR`` is set) reads ``style.color`` of
every segment and fails on a segment without a style, which rich and Textual both produce
(blank strips, padding). ``safe_filters`` gives such segments an empty style first, so the app
runs in monochrome instead of stopping at its first paint.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.filter import LineFilter, Monochrome, NoColor

_PLAIN = Style()


class SafeMonochrome(Monochrome):
    """``Monochrome`` for segments that may have no style."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        styled = [seg if seg.style is not None else Segment(seg.text, _PLAIN, seg.control) for seg in segments]
        return super().apply(styled, background)


def safe_filters(filters: Sequence[LineFilter]) -> list[LineFilter]:
    """``filters`` with Textual's monochrome filter replaced by the safe one (same state)."""
    out: list[LineFilter] = []
    for f in filters:
        if type(f) is Monochrome:
            f = SafeMonochrome(enabled=f.enabled)
        out.append(f)
    return out


def monochrome(filters: Sequence[LineFilter]) -> bool:
    """True when the app draws without colours (``NO_COLOR``)."""
    return any(isinstance(f, (Monochrome, NoColor)) for f in filters)
