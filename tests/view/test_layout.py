"""pi's layout rules (pi-session-spec §9.2) on hand-built trees."""

from __future__ import annotations

from loomtui.view.model import TreeModel
from tests.view.helpers import assistant, branched, label, session, user


def rows(model: TreeModel) -> list[str]:
    return [model.row_text(i, cursor=False) for i in range(len(model))]


def test_branch_with_leaf_on_a_is_listed_first_and_chains_stay_flat() -> None:
    assert rows(TreeModel(branched())) == [
        "• user: fix the build",
        "• assistant: looking",
        "• user: two ideas",
        "├⊟ • user: try A",
        "│     • assistant: A done",
        "│     • user: more A",
        "│     • assistant: ok",
        "└⊟ user: try B",
        "      assistant: B done",
        "      user: more B",
    ]


def test_leaf_on_b_puts_branch_b_first() -> None:
    model = TreeModel(branched(), leaf_id="ub2", use_manager_leaf=False)
    assert rows(model)[3:5] == ["├⊟ • user: try B", "│     • assistant: B done"]
    assert rows(model)[6] == "└⊟ user: try A"


def test_nested_branching_gutters() -> None:
    sm = session(
        [
            user("u1", None, "u1", 1),
            assistant("a1", "u1", "a1", 2),
            user("x", "a1", "x", 3),
            user("x1", "x", "x1", 4),
            assistant("x1a", "x1", "x1a", 5),
            user("x2", "x", "x2", 6),
            user("y", "a1", "y", 7),
            assistant("ya", "y", "ya", 8),
        ]
    )
    model = TreeModel(sm, leaf_id="x1a", use_manager_leaf=False)
    assert rows(model) == [
        "• user: u1",
        "• assistant: a1",
        "├⊟ • user: x",
        "│  ├⊟ • user: x1",
        "│  │     • assistant: x1a",
        "│  └─ user: x2",
        "└⊟ user: y",
        "      assistant: ya",
    ]


def test_two_roots_shift_everything_below_them() -> None:
    sm = session(
        [
            user("r1", None, "fix the build", 1),
            assistant("a1", "r1", "looking", 2),
            user("r2", None, "fix the build (re-edited)", 3),
            assistant("a2", "r2", "hi again", 4),
            label("l1", "a1", "a1", None, 5),
        ]
    )
    model = TreeModel(sm, leaf_id="a1", use_manager_leaf=False)
    assert rows(model) == [
        "• user: fix the build",
        "   • assistant: looking",
        "user: fix the build (re-edited)",
        "   assistant: hi again",
    ]


def test_hidden_entries_reattach_children_to_nearest_visible_ancestor() -> None:
    sm = session(
        [
            user("u1", None, "q", 1),
            assistant(
                "t1",
                "u1",
                "",
                2,
                stop="toolUse",
                blocks=[{"type": "toolCall", "id": "c1", "name": "ls", "arguments": {}}],
            ),
            {
                "type": "message",
                "id": "r1",
                "parentId": "t1",
                "timestamp": "2026-01-01T00:00:03.000Z",
                "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "ls", "content": []},
            },
            assistant("a2", "r1", "done", 4),
        ]
    )
    model = TreeModel(sm, filter_mode="no-tools")
    assert rows(model) == ["• user: q", "• assistant: done"]
    model.set_filter("default")
    assert rows(model) == ["• user: q", "• [ls: .]", "• assistant: done"]
    model.set_filter("all")
    assert rows(model) == ["• user: q", "• [ls: .]", "• assistant: done"]


def test_tool_only_assistant_is_shown_when_it_is_the_leaf_or_errored() -> None:
    sm = session(
        [
            user("u1", None, "q", 1),
            assistant("e1", "u1", "", 2, stop="error", errorMessage="Rate limit\nexceeded " + "x" * 100),
            assistant("t1", "e1", "", 3, stop="toolUse"),
        ]
    )
    model = TreeModel(sm)
    assert rows(model) == ["• user: q", "• assistant: Rate limit exceeded " + "x" * 60, "• assistant: (no content)"]
    other = TreeModel(sm, leaf_id="e1", use_manager_leaf=False)
    assert rows(other) == ["• user: q", "• assistant: Rate limit exceeded " + "x" * 60]


def test_unknown_entry_types_render_generically() -> None:
    # (a kind only omp writes, such as ttsr_injection, makes the session omp's: hidden by default)
    sm = session(
        [
            user("u1", None, "q", 1),
            {"type": "future_kind", "id": "t1", "parentId": "u1", "timestamp": "2026-01-01T00:00:02.000Z"},
        ]
    )
    assert rows(TreeModel(sm)) == ["• user: q", "• [future kind]"]


def test_empty_view_says_no_entries_found() -> None:
    model = TreeModel(branched(), filter_mode="labeled-only")
    assert model.lines() == ["  No entries found", "  (0/0) [labeled]"]


def _tool_session(same_id: bool):  # type: ignore[no-untyped-def]
    """Two branches, each an assistant calling a tool and its result; the calls share an id
    when ``same_id`` (a copied branch), so which call a result shows depends on the order."""
    call_b = "call-1" if same_id else "call-2"
    return session(
        [
            user("u", None, "go", 1),
            assistant(
                "a1",
                "u",
                "",
                2,
                stop="toolUse",
                blocks=[{"type": "toolCall", "id": "call-1", "name": "read", "arguments": {"path": "/a.py"}}],
            ),
            {
                "type": "message",
                "id": "r1",
                "parentId": "a1",
                "timestamp": "2026-01-01T00:00:03.000Z",
                "message": {"role": "toolResult", "toolCallId": "call-1", "toolName": "read", "content": "x"},
            },
            assistant(
                "a2",
                "u",
                "",
                4,
                stop="toolUse",
                blocks=[{"type": "toolCall", "id": call_b, "name": "bash", "arguments": {"command": "ls"}}],
            ),
            {
                "type": "message",
                "id": "r2",
                "parentId": "a2",
                "timestamp": "2026-01-01T00:00:05.000Z",
                "message": {"role": "toolResult", "toolCallId": call_b, "toolName": "bash", "content": "y"},
            },
        ]
    )


def test_tool_call_map_is_shared_by_every_leaf_unless_call_ids_repeat() -> None:
    from loomtui.view import flat as F

    for same_id in (False, True):
        sm = _tool_session(same_id)
        model = TreeModel(sm, filter_mode="all")
        shared = F.tool_call_map(sm.index.entries)
        assert (shared is None) == same_id
        for leaf in ("r1", "r2", "u", "a1"):
            model.set_leaf(leaf)
            # what pi builds while flattening for this leaf (the last call in the order wins)
            assert model.flat.tool_calls == F.flatten(sm.index, leaf).tool_calls
            rows = [model.row_text(i, cursor=False) for i in range(len(model))]
            fresh = TreeModel(sm, leaf_id=leaf, use_manager_leaf=False, filter_mode="all")
            assert rows == [fresh.row_text(i, cursor=False) for i in range(len(fresh))]
        if same_id:
            # r1's call was overwritten by the other branch's copy when that one came later
            model.set_leaf("r1")
            row = model.row_of("r1")
            assert row is not None and model.row_text(row, cursor=False).endswith("[bash: ls]")
