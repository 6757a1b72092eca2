"""The picker's full-text search in its own words: hit rows start as the tree's rows do, and the
status line says what was found in the width it has, never cut mid-sentence."""

from __future__ import annotations

from loomtui.session.manager import SessionManager
from loomtui.view.search_words import fit, hit_words, search_status
from loomtui.view.text import display_text
from loomtui.view.width import text_width

HEADER = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}


def test_hit_heads_are_the_tree_s_row_words() -> None:
    assert [hit_words(k) for k in ("user", "assistant", "compaction", "branch_summary")] == [
        ("user: ", ""),
        ("assistant: ", ""),
        ("[compaction]: ", ""),
        ("[branch summary]: ", ""),
    ]
    assert hit_words("toolResult", "read") == ("[read]: ", "") and hit_words("toolResult") == ("[tool]: ", "")
    assert hit_words("custom_message", "reminder") == ("[reminder]: ", "")
    assert hit_words("bashExecution") == ("[bash]: ", "")
    assert hit_words("model_usage") == ("[model usage]: ", "") and hit_words("") == ("[entry]: ", "")


def test_a_label_and_a_session_name_hit_read_as_their_tree_rows() -> None:
    """``[label: checkpoint]`` and ``[title: Parser fix]``, as the tree writes the rows, not
    ``[label]: checkpoint``."""
    at = "2026-01-01T00:00:0{}.000Z"
    entries = [
        {"type": "message", "id": "u1", "parentId": None, "timestamp": at.format(1),
         "message": {"role": "user", "content": "hi"}},
        {"type": "label", "id": "l1", "parentId": "u1", "timestamp": at.format(2), "targetId": "u1",
         "label": "checkpoint"},
        {"type": "session_info", "id": "n1", "parentId": "l1", "timestamp": at.format(3), "name": "Parser fix"},
    ]  # fmt: skip
    m = SessionManager.from_entries(HEADER, entries)  # type: ignore[arg-type]
    for entry_id, kind, text in (("l1", "label", "checkpoint"), ("n1", "session_info", "Parser fix")):
        head, tail = hit_words(kind)
        assert head + text + tail == display_text(m.index.by_id[entry_id], {})
    assert hit_words("label") == ("[label: ", "]")
    assert hit_words("session_info") == hit_words("title_change") == ("[title: ", "]")


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
