"""The picker's full-text search in its own words: hit rows start as the tree's rows do, and the
status line says what was found in the width it has, never cut mid-sentence."""

from __future__ import annotations

from loomtui.view.search_words import fit, hit_head, search_status
from loomtui.view.width import text_width


def test_hit_heads_are_the_tree_s_row_words() -> None:
    assert [hit_head(k) for k in ("user", "assistant", "compaction", "branch_summary", "session_info")] == [
        "user: ",
        "assistant: ",
        "[compaction]: ",
        "[branch summary]: ",
        "[title]: ",
    ]
    assert hit_head("toolResult", "read") == "[read]: " and hit_head("toolResult") == "[tool]: "
    assert hit_head("custom_message", "reminder") == "[reminder]: "
    assert hit_head("bashExecution") == "[bash]: " and hit_head("title_change") == "[title]: "
    assert hit_head("model_usage") == "[model usage]: " and hit_head("") == "[entry]: "


def test_the_status_says_most_in_the_width_it_has() -> None:
    said = search_status(62, 4, 3, False, True)
    assert fit(said, 200).startswith("62+ hits in 4 sessions (3 sessions hold more: Enter on a “more” row shows them)")
    assert fit(said, 78) == "62+ hits in 4 sessions (3 hold more: Enter on “more”)  ·  Esc back"
    assert fit(said, 30) == "62+ hits in 4 sessions"
    for width in (40, 60, 78, 100, 140):
        assert text_width(fit(said, width)) <= width
    stopped = search_status(500, 30, 0, True, True)
    assert fit(stopped, 78) == "The first 500+ hits in 30 sessions (add words, or Enter on “more”)"
    assert fit(search_status(0, 0, 0, False, False), 78).startswith("No matches  ·  Enter open at entry")
