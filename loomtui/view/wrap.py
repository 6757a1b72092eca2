"""Word wrapping for the reader and the comparison: rows break after a space, and a word wider
than a whole row is cut where the row ends.

``row_ranges`` gives each row as a ``(start, end)`` range of the line: the space a row breaks at
belongs to no row, so the rows of a line are cut from its plain text alone (styled spans of the
same text break at the same places, whatever their styles).
"""

from __future__ import annotations

from loomtui.view.width import char_width


def row_ranges(line: str, width: int) -> list[tuple[int, int]]:
    """The rows of one line of text (no newline in it) at ``width`` cells."""
    width = max(1, width)
    n = len(line)
    if n <= width and line.isascii():
        return [(0, n)]
    if line.isascii():
        return _ascii_rows(line, width)
    return _cell_rows(line, width)


def _ascii_rows(line: str, width: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    pos, n = 0, len(line)
    while n - pos > width:
        space = line.rfind(" ", pos + 1, pos + width + 1)
        if space > pos:
            out.append((pos, space))
            pos = space + 1
        else:
            out.append((pos, pos + width))
            pos += width
    out.append((pos, n))
    return out


def _cell_rows(line: str, width: int) -> list[tuple[int, int]]:
    """As ``_ascii_rows``, counting terminal cells (wide characters take two)."""
    out: list[tuple[int, int]] = []
    start = 0
    used = 0
    space = -1  # the last space of the current row
    widths = [char_width(c) for c in line]
    i = 0
    while i < len(line):
        w = widths[i]
        if used + w > width and i > start:
            if line[i] == " ":
                out.append((start, i))
                start, used, space = i + 1, 0, -1
                i += 1
                continue
            if space > start:
                out.append((start, space))
                start = space + 1
                used = sum(widths[start:i])
            else:
                out.append((start, i))
                start, used = i, 0
            space = -1
            continue
        if line[i] == " ":
            space = i
        used += w
        i += 1
    out.append((start, len(line)))
    return out


def wrap_text(text: str, width: int) -> list[str]:
    """``text`` (one line; tabs as 4 spaces) as rows of at most ``width`` cells."""
    text = text.replace("\t", "    ")
    return [text[a:b] for a, b in row_ranges(text, width)]
