"""Line filters that tolerate every segment Textual and rich hand them.

Textual's ``Monochrome`` filter (installed when ``NO_COLOR`` is set) reads ``style.color`` of
every segment and fails on a segment without a style, which rich and Textual both produce
(blank strips, padding). ``SafeMonochrome`` gives such segments an empty style first, so the
app runs in monochrome instead of stopping at its first paint. ``LoomApp.get_line_filters`` (the
public hook every widget reads its filters from) hands Textual's list through ``SafeFilters``.
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


class SafeFilters:
    """Swaps Textual's ``Monochrome`` for a ``SafeMonochrome`` in a list of line filters.

    The swap is made once per filter object: Textual caches filtered strips by filter, so the
    same replacement must come back on every call.
    """

    def __init__(self) -> None:
        self._swaps: dict[int, tuple[LineFilter, SafeMonochrome]] = {}

    def __call__(self, filters: Sequence[LineFilter]) -> list[LineFilter]:
        out: list[LineFilter] = []
        for f in filters:
            if type(f) is Monochrome:
                swap = self._swaps.get(id(f))
                if swap is None or swap[0] is not f:
                    swap = self._swaps[id(f)] = (f, SafeMonochrome(enabled=f.enabled))
                f = swap[1]
            out.append(f)
        return out


def monochrome(filters: Sequence[LineFilter]) -> bool:
    """True when the app draws without colours (``NO_COLOR``)."""
    return any(isinstance(f, (Monochrome, NoColor)) for f in filters)
