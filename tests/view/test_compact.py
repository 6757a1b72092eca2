"""Compact indentation: a row whose prefix would take more than half the pane shows its levels as
``⋯N`` and its innermost levels, keeping 60 columns of text at 160 columns; the rows that fit are pi's."""

from __future__ import annotations

from pathlib import Path

import pytest

from loomtui.cli import main
from loomtui.session.manager import SessionManager
from loomtui.view.compact import MIN_TEXT, compact_levels, prefix_room, room_levels, too_deep
from loomtui.view.model import TreeModel
from loomtui.view.text import display_text
from tests.shared_material import SHARED
from tests.view.helpers import session, user

BROWSE = SHARED / "fixtures" / "pi" / "dnouri-browse-session.jsonl"


def deep(levels: int = 70) -> SessionManager:
    """A chain where every entry branches: the main line gets one level deeper per entry."""
    entries = []
    parent = None
    n = 0
    for k in range(levels):
        main_id, side_id = f"m{k:03d}", f"s{k:03d}"
        entries.append(user(main_id, parent, f"main {k} " + "word " * 30, n))
        if parent is not None:
            entries.append(user(side_id, parent, f"side {k} " + "text " * 30, n + 1))
        parent = main_id
        n += 2
    return session(entries)


def test_every_row_keeps_sixty_columns_of_text_at_160() -> None:
    model = TreeModel(deep(), leaf_id="m069", use_manager_leaf=False)
    model.compact = True
    lines = list(model.plain_rows(160))
    assert len(lines) == len(model) > 100
    deepest = 0
    for i, line in enumerate(lines):
        text = display_text(model.entry_at(i), {}, "")
        at = line.index(text[:12])
        assert 160 - at >= MIN_TEXT, (i, line)
        assert len(line) <= 160
        deepest = max(deepest, model.rows.display_indent(i))
    assert deepest > room_levels(160)  # the test does reach rows deeper than the window
    # the depth shows as a number on the rows that needed it
    assert any(line.startswith("  ⋯69") for line in lines)


def test_normal_mode_keeps_pis_rows() -> None:
    model = TreeModel(deep(), leaf_id="m069", use_manager_leaf=False)
    normal = list(model.plain_rows(160))
    assert not any("⋯" in x for x in normal)
    # pi's rows: the deepest rows are pure gutter at 160 columns
    assert any("main" not in x and "side" not in x for x in normal)


def test_compact_rows_show_the_innermost_levels_and_connector() -> None:
    model = TreeModel(deep(), leaf_id="m069", use_manager_leaf=False)
    model.compact = True
    row = model.row_of("s060")
    assert row is not None
    line = model.row_line(row, 160)
    depth = model.rows.display_indent(row)
    assert line.startswith(f"  ⋯{depth}")
    assert "└─ user: side 60" in line
    # segments and the bulk path agree
    assert model.row_text(row) != line  # row_text has no width: pi's full prefix
    segs = model.row_segments(row, max_cols=160)
    assert "".join(t for _s, t in segs).startswith(line[:100])


def test_shallow_trees_look_the_same_in_both_modes(capsys: pytest.CaptureFixture[str]) -> None:
    main(["tree", str(BROWSE), "--width", "160", "--filter", "all"])
    normal = capsys.readouterr().out
    main(["tree", str(BROWSE), "--width", "160", "--filter", "all", "--compact"])
    assert capsys.readouterr().out == normal


def test_tree_compact_option(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import json

    from tests.view.helpers import HEADER

    sm = deep(40)
    f = tmp_path / "deep.jsonl"
    f.write_text("\n".join(json.dumps(x) for x in [HEADER, *(sm.load(e) for e in sm.index.entries)]) + "\n")
    assert main(["tree", str(f), "--width", "100", "--compact", "--color", "never"]) == 0
    lines = capsys.readouterr().out.splitlines()[:-1]
    assert all(("main" in x or "side" in x) for x in lines)
    assert any("⋯" in x for x in lines)
    assert main(["tree", str(f), "--width", "100", "--compact", "--color", "always"]) == 0
    colored = capsys.readouterr().out.splitlines()[:-1]
    assert any("⋯" in x for x in colored)


@pytest.mark.parametrize("width", [80, 120, 160])
def test_the_depth_number_never_touches_the_glyph_after_it(width: int) -> None:
    """``⋯9 ├─``, ``⋯10   ├─``, ``⋯69   │``: one, two or three digits, then a space; the depth
    column takes whole 3-column levels so the rows' guide lines still line up."""
    import re

    model = TreeModel(deep(120), leaf_id="m119", use_manager_leaf=False)
    model.compact = True
    tagged = [line[2:] for line in model.plain_rows(width) if line[2:].startswith("⋯")]
    assert tagged and {len(re.match(r"⋯\d+", t).group()) for t in tagged} >= {3, 4}  # 2- and 3-digit depths
    for t in tagged:
        number = re.match(r"⋯\d+", t).group()
        assert t[len(number)] == " ", t
        assert re.match(r"⋯\d+ +", t).end() % 3 == 0, t  # the tag fills whole levels


REVIEW_RUN = Path(__file__).resolve().parents[1] / "fixtures" / "ocp" / "review-loop-v03.ocp.json"


def _review_run_model() -> TreeModel:
    from loomtui.formats.detect import open_any

    return TreeModel(open_any(str(REVIEW_RUN)))


def test_a_run_whose_rows_fit_is_not_too_deep_for_a_fifty_column_pane() -> None:
    """The deepest row is indented five levels (15 columns): half of a 50-column pane would still
    be its text, so pi's rows fit there and compact indentation stays off."""
    model = _review_run_model()
    deepest = max(model.rows.display_indent(i) for i in range(len(model)))
    assert deepest == 5
    assert 3 * deepest <= prefix_room(50)
    assert not too_deep(model.rows, 50)
    # a pane too narrow for it: on
    assert too_deep(model.rows, 26)


@pytest.mark.parametrize("width", [50, 80, 120])
def test_compact_shortens_only_the_rows_whose_own_indentation_does_not_fit(width: int) -> None:
    model = _review_run_model()
    normal = list(model.plain_rows(width))
    model.compact = True
    assert list(model.plain_rows(width)) == normal  # every row fits: drawn as pi draws it


def test_only_the_rows_that_do_not_fit_are_compacted() -> None:
    """At 50 columns a row fits in 8 levels (24 columns, half the pane): those rows are pi's, the
    deeper ones show ``⋯N`` and their innermost levels, keeping the rest for their text."""
    model = TreeModel(deep(), leaf_id="m069", use_manager_leaf=False)
    width = 50
    normal = list(model.plain_rows(width))
    model.compact = True
    compact = list(model.plain_rows(width))
    room = prefix_room(width)
    tagged = 0
    for i, (pi_row, row) in enumerate(zip(normal, compact)):
        text = display_text(model.entry_at(i), {}, "")
        if 3 * model.rows.display_indent(i) <= room:
            assert row == pi_row, i
            continue
        tagged += 1
        assert row[2:].startswith(f"⋯{model.rows.display_indent(i)}"), row
        # the cursor, at most the room for the prefix, the active-path dot: half the row is text
        assert row.index(text[:8]) <= 2 + prefix_room(width) + 2, row
        assert row.index(text[:8]) <= 2 + 3 * (compact_levels(width) + 1) + 2, row
    assert tagged
