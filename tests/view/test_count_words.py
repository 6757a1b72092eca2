"""Every count is written one way, as the browser's header writes it: ``1,303 entries``, the
export dialog and its notice (``branch_copy``) too."""

from __future__ import annotations

from loomtui.view.words import branch_copy, counted


def test_a_count_has_thousands_separators_wherever_it_is_said() -> None:
    assert counted(1303, "entry", "entries") == "1,303 entries"
    assert counted(1, "entry", "entries") == "1 entry" and counted(999, "row") == "999 rows"
    # the export dialog's words and its notice's: they read "1303 entries"
    assert branch_copy(1303, 0, False) == "1,303 entries"
    assert branch_copy(12_345, 1_001, True) == (
        "12,345 entries + 1,001 label entries + the session's name (a session_info entry)"
    )
