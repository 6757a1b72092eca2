"""Reader mode's words: the header puts where the reading is first and the title last; the
footer's hints shorten their words before any is left out."""

from __future__ import annotations

from loomtui.view.reader import head_text
from loomtui.view.width import fit_hints, text_width

HINTS = [
    (8, "↑↓ scroll", "↑↓ scroll"),
    (4, "PgUp/PgDn page", "PgUp/PgDn page"),
    (6, "n/p next/previous entry", "n/p entry"),
    (2, "Home/End start/end", "Home/End"),
    (9, "Esc back to the tree (at the entry read)", "Esc to the tree, at this entry"),
]


def test_the_header_says_where_the_reading_is_before_the_title() -> None:
    assert head_text(4, 32, "Fix forecast crash") == "Reader · entry 5 of 32 · the active branch · Fix forecast crash"
    head = head_text(47985, 72017, "big100k.jsonl", measured=46014)
    assert head == "Reader · entry 47,986 of 72,017 · laying out 63%… · the active branch · big100k.jsonl"
    assert head_text(0, 3, "t", measured=3) == "Reader · entry 1 of 3 · the active branch · t"  # laid out
    assert head_text(0, 0, "") == "Reader · no entries · the active branch"  # no empty field between dots


def test_the_hints_shorten_their_words_then_leave_the_least_needed_out() -> None:
    wide = fit_hints(HINTS, 200)
    assert wide.endswith("Home/End start/end  Esc back to the tree (at the entry read)")
    at_80 = fit_hints(HINTS, 78)
    assert at_80 == "↑↓ scroll  PgUp/PgDn page  n/p entry  Home/End  Esc to the tree, at this entry"
    assert text_width(at_80) <= 78
    narrow = fit_hints(HINTS, 45)
    assert narrow == "↑↓ scroll  Esc to the tree, at this entry"
