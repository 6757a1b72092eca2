"""Word-level changes between two texts of a branch comparison (what ``compare_layout`` and
``compare_text`` highlight). No Textual here."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

# word changes ---------------------------------------------------------------------------
_WORD = re.compile(r"\w+\s*|[^\w\s]\s*|\s+")
#: longest token lists diffed word by word; past it, the rest is marked changed as a whole
WORD_LIMIT = 3000

Span = tuple[bool, str]  # (changed, text)


def word_diff(a: str, b: str) -> tuple[list[Span], list[Span]]:
    """``a`` and ``b`` as spans, the words that differ marked changed."""
    if a == b:
        return [(False, a)], [(False, b)]
    ta = _WORD.findall(a)
    tb = _WORD.findall(b)
    rest_a = "".join(ta[WORD_LIMIT:])
    rest_b = "".join(tb[WORD_LIMIT:])
    ta, tb = ta[:WORD_LIMIT], tb[:WORD_LIMIT]
    sa: list[Span] = []
    sb: list[Span] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, ta, tb).get_opcodes():
        if tag == "equal":
            sa.append((False, "".join(ta[i1:i2])))
            sb.append((False, "".join(tb[j1:j2])))
        else:
            if i2 > i1:
                sa.append((True, "".join(ta[i1:i2])))
            if j2 > j1:
                sb.append((True, "".join(tb[j1:j2])))
    if rest_a or rest_b:
        same = rest_a == rest_b
        if rest_a:
            sa.append((not same, rest_a))
        if rest_b:
            sb.append((not same, rest_b))
    return _merge(sa), _merge(sb)


def _merge(spans: list[Span]) -> list[Span]:
    out: list[Span] = []
    for changed, text in spans:
        if not text:
            continue
        if out and out[-1][0] == changed:
            out[-1] = (changed, out[-1][1] + text)
        else:
            out.append((changed, text))
    return out


def span_lines(spans: list[Span]) -> list[list[Span]]:
    """Spans cut at newlines: one list of spans per text line."""
    lines: list[list[Span]] = [[]]
    for changed, text in spans:
        parts = text.split("\n")
        for k, part in enumerate(parts):
            if k:
                lines.append([])
            if part:
                lines[-1].append((changed, part))
    return lines
