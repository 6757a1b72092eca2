"""Panned rows (a tree deeper than the width) printed by the bulk path are the rows the
segments give, and the shift is the one every row measured gives: the printing leaves out the
texts of rows far left of the window, and the measuring the rows that cannot be the widest."""

from __future__ import annotations

from typing import Any

import pytest

from loomtui.view import pan
from loomtui.view.model import TreeModel
from loomtui.view.text import calls_cols, display_bound, display_text, format_tool_call
from loomtui.view.width import GUTTER, text_width
from tests.view.helpers import assistant, label, session, ts, user

#: texts of every width a row can take: wide, emoji, combining marks, controls, JS blanks
TEXTS = (
    "plain words " * 3,
    "東京 の 話 " * 9,
    "party 🎉 time",
    "e\u0301 accent \u0301",
    "bell \x07 and esc \x1b[31m red",
    "\ufeff\u3000 blank start",
    "   ",
    "x" * 199,
    "",
)


def _tool(i: str, parent: str, call_id: str, n: int, arrays: bool) -> list[dict[str, Any]]:
    """An assistant calling one tool and its result (the row shows the call); ``arrays``: a
    path is an array (it shows all its items: no bound of the calls' columns, each row is made)."""
    calls = (
        ("read", {"path": "/home/user/" + "深い/" * (n % 7) + "f.py", "offset": 1e20, "limit": "7"}),
        ("bash", {"command": "echo " + "long " * 30}),
        ("grep", {"pattern": "東" * (n % 13), "path": True}),
        ("find", {"pattern": 12, "path": {"x": 1}}),
        ("mystery", {"a": [1, 2, 3], "b": "東京" * 20}),
        ("ls", {"path": ["a", "東京", 3]} if arrays else None),
    )
    name, args = calls[(n // 3) % len(calls)]
    call = {"type": "toolCall", "id": call_id, "name": name, "arguments": args}
    return [
        assistant(i, parent, "", n, stop="toolUse", blocks=[call]),
        {
            "type": "message",
            "id": i + "r",
            "parentId": i,
            "timestamp": ts(n),
            "message": {"role": "toolResult", "toolCallId": call_id, "toolName": name, "content": "ok"},
        },
    ]


def deep(depth: int, arrays: bool = True) -> list[dict[str, Any]]:
    """A chain of ``depth`` branch points, each with a side branch, every kind of row on the way."""
    out: list[dict[str, Any]] = []
    parent = None
    for k in range(depth):
        text = TEXTS[k % len(TEXTS)]
        out.append(user(f"s{k}", parent, f"side {k} " + text, k))
        out.append(user(f"k{k}", parent, text + f" go on {k}", k))
        parent = f"k{k}"
        if k % 3 == 0:
            out += _tool(f"t{k}", parent, f"c{k}", k, arrays)
            parent = f"t{k}r"
        if k % 4 == 1:
            out.append(assistant(f"e{k}", parent, "", k, stop="error", errorMessage="boom " * 30))
            parent = f"e{k}"
        if k % 5 == 2:
            out.append(assistant(f"a{k}", parent, "", k, stop="aborted"))
            out.append(
                {
                    "type": "message",
                    "id": f"b{k}",
                    "parentId": f"a{k}",
                    "timestamp": ts(k),
                    "message": {"role": "bashExecution", "command": "ls", "output": "x"},
                }
            )
            out.append(
                {
                    "type": "compaction",
                    "id": f"m{k}",
                    "parentId": f"b{k}",
                    "timestamp": ts(k),
                    "summary": "s",
                    "firstKeptEntryId": f"k{k}",
                    "tokensBefore": 1234,
                }
            )
            parent = f"m{k}"
    out.append(label("l1", parent, "k3", "LABEL 東京 " * 4, depth + 1))
    out.append(label("l2", "l1", f"s{depth - 2}", "deep label", depth + 2))
    out.append(assistant("leaf", "l2", "the end", depth + 3))
    return out


def widest_of_all(model: TreeModel) -> int:
    """What ``pan.shift`` measures, row by row: the selected row as the segments give it and
    every row as `loomtui tree` prints it uncut."""
    uncut = max(text_width(line[2:]) for line in model.plain_rows(1 << 30))
    return max(uncut, text_width(model.row_text(model.selected, cursor=False)))


def shift_of(model: TreeModel, width: int) -> int:
    """pi's shift from every row measured (``renderHorizontalViewport``)."""
    viewport = max(0, width - GUTTER)
    at = pan.anchor(model, model.selected)
    if at <= viewport - min(20, max(4, viewport // 3)):
        return 0
    context = min(12, max(2, viewport // 4))
    return max(0, min(max(0, widest_of_all(model) - viewport), at - context))


def drawn(model: TreeModel, width: int, by: int) -> list[str]:
    return ["".join(t for _s, t in pan.panned_row(model, i, width, by)) for i in range(len(model))]


@pytest.mark.parametrize("depth", [12, 60])
@pytest.mark.parametrize("width", [30, 80, 200])
@pytest.mark.parametrize("mode", ["default", "all", "no-tools"])
@pytest.mark.parametrize("arrays", [True, False])
def test_panned_rows_are_the_drawn_rows_and_the_shift_is_every_rows(
    depth: int, width: int, mode: str, arrays: bool
) -> None:
    model = TreeModel(session(deep(depth, arrays)), filter_mode=mode, home="/home/user")
    for leaf in (None, f"s{depth // 2}", "k0"):
        if leaf is not None:
            model.select_id(leaf)
        by = pan.shift(model, width)
        assert by == shift_of(model, width)
        if by:
            assert list(model.plain_rows(width, shift=by)) == drawn(model, width, by)
            assert list(model.plain_rows(width, 3, 9, shift=by)) == drawn(model, width, by)[3:9]


@pytest.mark.parametrize("arrays", [True, False])
def test_a_shift_the_rows_do_not_need_prints_them_as_drawn(arrays: bool) -> None:
    """Any shift, not only pan.shift's: blank rows, rows all prefix, rows cut in a wide glyph."""
    model = TreeModel(session(deep(40, arrays)), filter_mode="all", home="/home/user")
    model.marked_id = "k20"
    model.folded.add("k30")
    model._refilter()
    for by in (1, 37, 100, 118, 119, 120, 121, 200):
        for width in (10, 41, 120):
            assert list(model.plain_rows(width, shift=by)) == drawn(model, width, by)


def test_row_texts_are_never_longer_than_their_bounds() -> None:
    model = TreeModel(session(deep(60, arrays=False)), filter_mode="all", home="/home/user")
    calls = model.flat.tool_calls
    widest_call = calls_cols(calls)
    assert widest_call >= max(text_width(format_tool_call(n, a, "/home/user")) for n, a in calls.values())
    assert calls_cols(TreeModel(session(deep(60)), home="/home/user").flat.tool_calls) == -1  # a path array
    for e in model.flat.entries:
        bound = display_bound(e, calls)
        if bound >= 0:
            assert len(display_text(e, calls, "/home/user")) <= bound
