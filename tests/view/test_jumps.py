"""Loom jumps: labels, branch points, id prefixes, back/forward history."""

from __future__ import annotations

import pytest

from loomtui.view.jumps import (
    AmbiguousPrefix,
    History,
    next_branch_point,
    next_label,
    not_shown_words,
    resolve_prefix,
)
from loomtui.view.model import TreeModel
from tests.view.helpers import branched


def ids(model: TreeModel) -> list[str]:
    return [model.entry_at(i).id for i in range(len(model))]


def test_next_and_previous_label_wrap_over_visible_rows() -> None:
    sm = branched()
    sm.append_label_change("a1", "start")
    sm.append_label_change("ab", "plan B")
    model = TreeModel(sm, leaf_id="ok", use_manager_leaf=False)
    assert ids(model) == ["u1", "a1", "u2", "ua", "aa", "ua2", "ok", "ub", "ab", "ub2"]
    model.select_id("u1")
    row = next_label(model)
    assert row is not None and model.entry_at(row).id == "a1"
    model.select_row(row)
    row = next_label(model)
    assert row is not None and model.entry_at(row).id == "ab"
    model.select_row(row)
    row = next_label(model)  # wraps around
    assert row is not None and model.entry_at(row).id == "a1"
    model.select_id("u1")
    row = next_label(model, -1)
    assert row is not None and model.entry_at(row).id == "ab"


def test_no_label_means_no_jump() -> None:
    model = TreeModel(branched())
    assert next_label(model) is None


def test_branch_points() -> None:
    model = TreeModel(branched())
    model.select_row(0)
    row = next_branch_point(model)
    assert row is not None and model.entry_at(row).id == "u2"
    model.select_row(row)
    assert next_branch_point(model) is None  # the only one
    assert next_branch_point(model, -1) is None


def test_exact_id_wins_over_longer_ids_and_ambiguity_is_reported() -> None:
    sm = branched()
    assert resolve_prefix(sm.index, "ub").id == "ub"
    with pytest.raises(AmbiguousPrefix) as err:
        resolve_prefix(sm.index, "u")
    assert err.value.matches == ["u1", "u2", "ua", "ua2", "ub", "ub2"]
    with pytest.raises(KeyError):
        resolve_prefix(sm.index, "zz")
    with pytest.raises(KeyError):
        resolve_prefix(sm.index, "")
    assert resolve_prefix(sm.index, "OK").id == "ok"  # case-insensitive when nothing else matches


def test_history_back_and_forward() -> None:
    h = History()
    assert h.forward() is None
    h.jumped("a", "b")
    h.jumped("b", "c")
    assert h.back("c") == "b"
    assert h.back("b") == "a"
    assert h.back("a") is None
    assert h.forward() == "b"
    assert h.forward() == "c"
    assert h.forward() is None
    # a new jump after going back drops the forward places
    h.back("c")
    h.jumped("b", "z")
    assert h.forward() is None
    assert h.back("z") == "b"


def test_history_back_remembers_where_the_cursor_moved_to() -> None:
    h = History()
    h.jumped("a", "b")
    # the user walked from b to q with the arrows, then goes back: forward returns to q
    assert h.back("q") == "b"
    assert h.forward() == "q"


def test_an_entry_the_search_hides_names_the_search_and_claims_no_selection_on_an_empty_tree() -> None:
    model = TreeModel(branched())
    model.set_query("d9e8f7a6")
    assert len(model) == 0
    model.select_id("ub2")
    assert not_shown_words(model, "ub2") == "ub2 is hidden by the search 'd9e8f7a6'; Esc clears it."


def test_an_entry_the_search_hides_says_where_the_selection_went() -> None:
    model = TreeModel(branched())
    model.set_query("done")
    assert ids(model) == ["aa", "ab"]
    model.select_id("ub2")  # its parent ab is shown
    assert model.selected_id == "ab"
    assert not_shown_words(model, "ub2") == (
        "ub2 is hidden by the search 'done'; Esc clears it; selected the nearest entry above it."
    )
    model.select_id("u2")  # nothing above u2 matches: the model falls back to the last row
    assert (
        not_shown_words(model, "u2") == "u2 is hidden by the search 'done'; Esc clears it; no entry above it is shown."
    )


def test_an_entry_the_filter_hides_keeps_the_filter_words() -> None:
    model = TreeModel(branched())
    model.set_filter("user-only")
    model.select_id("aa")
    assert model.selected_id == "ua"
    assert not_shown_words(model, "aa") == (
        "aa is not shown with this filter (or archived); selected the nearest entry above it."
    )
    model.set_query("try")  # the filter hides aa whether or not the search would show it
    model.select_id("aa")
    assert not_shown_words(model, "aa").startswith("aa is not shown with this filter")
