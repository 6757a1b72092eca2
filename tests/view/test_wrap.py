"""Word wrapping of the reader and the comparison: rows break after spaces, never mid-word
(unless a word is wider than a row), and styled spans break where their plain text does."""

from __future__ import annotations

from loomtui.view.compare_layout import _count_lines, wrap_spans
from loomtui.view.wrap import row_ranges, wrap_text


def test_rows_break_at_spaces_and_fold_only_words_wider_than_a_row() -> None:
    assert wrap_text("the quick brown fox jumps", 10) == ["the quick", "brown fox", "jumps"]
    assert wrap_text("abcdefghijklmnop xy", 6) == ["abcdef", "ghijkl", "mnop", "xy"]
    assert wrap_text("short", 10) == ["short"]
    assert wrap_text("", 10) == [""]


def test_wide_characters_count_two_cells() -> None:
    rows = wrap_text("日本語 の テキスト です", 8)
    assert rows == ["日本語", "の", "テキスト", "です"]
    assert wrap_text("ab 日本", 5) == ["ab", "日本"]


def test_compare_spans_break_at_word_boundaries_whatever_their_styles() -> None:
    spans = [(False, "alpha beta "), (True, "gamma"), (False, " delta epsilon")]
    rows = wrap_spans(spans, 12)
    assert ["".join(t for _, t in row) for row in rows] == ["alpha beta", "gamma delta", "epsilon"]
    assert rows[1] == [(True, "gamma"), (False, " delta")]
    plain = wrap_spans([(False, "alpha beta gamma delta epsilon")], 12)
    assert ["".join(t for _, t in row) for row in plain] == ["alpha beta", "gamma delta", "epsilon"]
    assert _count_lines("alpha beta gamma delta epsilon\nzeta", 12, 100) == 4


def test_every_character_but_the_break_spaces_is_kept() -> None:
    text = "lorem ipsum dolor sit amet, consectetur adipiscing elit " * 5
    for width in (7, 13, 40):
        ranges = row_ranges(text, width)
        assert all(b - a <= width for a, b in ranges)
        assert ranges[0][0] == 0 and ranges[-1][1] == len(text)
        for (_, b), (a, _) in zip(ranges, ranges[1:]):
            assert a == b or (a == b + 1 and text[b] == " ")
