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


def test_a_run_reads_the_selected_rows_branch_and_the_rows_under_it() -> None:
    """An OCP run has no conversation leaf: the reader read its run row alone, whatever row was
    selected. It reads the rows down to the selected one and every row under it."""
    from pathlib import Path

    from loomtui.formats.detect import open_any
    from loomtui.view.reader import Transcript

    run = Path(__file__).resolve().parents[1] / "fixtures" / "ocp" / "review-loop-v03.ocp.json"
    manager = open_any(str(run))
    node = Transcript(manager, "n:B1", under=True)
    assert [e.id for e in node.entries] == ["run", "g:build", "n:P1", "n:B1", "a:B1.a1", "a:B1.a2", "a:B1.a3"]
    assert node.item(5).text.startswith("⊘ #2 rejected (reported)")
    whole = Transcript(manager, "run", under=True)
    assert len(whole) == len(manager.index.entries) == 17
    assert [e.id for e in Transcript(manager, "a:B1.a2", under=True).entries][-2:] == ["a:B1.a1", "a:B1.a2"]
    assert head_text(3, 7, "run-review-loop-01", under=True) == (
        "Reader · row 4 of 7 · the selected row with the rows above and under it · run-review-loop-01"
    )


def test_a_thinking_level_change_and_a_reply_that_only_thought_say_what_they_are() -> None:
    """Both read like a thinking block (``── thinking`` / ``medium``) or like an empty reply
    (``(no content)``)."""
    from loomtui.view.reader import Transcript
    from tests.view.helpers import assistant, session, ts, user

    think = {"type": "thinking", "thinking": "The cache key ignores the units."}
    entries = [
        user("u1", None, "why?", 1),
        {"type": "thinking_level_change", "id": "t1", "parentId": "u1", "timestamp": ts(2), "thinkingLevel": "medium"},
        assistant("a1", "t1", "", 3, stop="length", blocks=[think]),
        assistant("a2", "a1", "", 4, blocks=[{"type": "thinking", "thinking": "", "redacted": True}]),
        assistant("a3", "a2", "", 5),
    ]
    transcript = Transcript(session(entries), "a3", home="/h")
    transcript.layout(80)
    blocks = [[line.text for line in transcript.lines_of(k)][:2] for k in range(len(transcript))]
    assert blocks[1] == ["── thinking level", "medium"]
    assert blocks[2] == ["── assistant", "(thinking only, 32 characters)"]
    assert blocks[3] == ["── assistant", "(thinking only, redacted)"]
    assert blocks[4] == ["── assistant", "(no content)"]
