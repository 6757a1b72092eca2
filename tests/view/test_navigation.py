"""Keys of pi's /tree on the view model (pi-session-spec §9.6)."""

from __future__ import annotations

from loomtui.view.model import TreeModel
from tests.agent_writer import AgentWriter
from tests.shared_material import FIXTURES, needs_shared
from tests.view.helpers import HEADER, assistant, branched, branched_entries, label, session, user


def test_initial_selection_is_the_leaf() -> None:
    model = TreeModel(branched())
    assert model.selected_id == "ok"
    assert model.footer() == "  (7/10)"


def test_hidden_leaf_selects_nearest_visible_ancestor() -> None:
    sm = branched()
    sm.append_label_change("ua", "good")  # the label entry becomes the leaf
    model = TreeModel(sm)
    assert sm.get_leaf_id() not in {"ok"}
    assert model.selected_id == "ok"


def test_up_and_down_wrap() -> None:
    model = TreeModel(branched())
    model.select_row(0)
    model.move(-1)
    assert model.selected == len(model) - 1
    model.move(1)
    assert model.selected == 0


def test_page_moves_clamp_at_the_ends() -> None:
    model = TreeModel(branched(), page_size=4)
    model.select_row(1)
    model.page(-1)
    assert model.selected == 0
    model.page(1)
    model.page(1)
    assert model.selected == 8
    model.page(1)
    assert model.selected == 9


def test_home_and_end() -> None:
    model = TreeModel(branched())
    model.end_key()
    assert model.selected == 9
    model.home_key()
    assert model.selected == 0


def test_fold_hides_subtree_and_unfold_restores_it() -> None:
    model = TreeModel(branched())
    model.select_id("ua")
    model.fold_or_up()
    assert "ua" in model.folded
    assert [model.row_text(i, cursor=False) for i in range(len(model))][3:] == [
        "├⊞ • user: try A",
        "└⊟ user: try B",
        "      assistant: B done",
        "      user: more B",
    ]
    model.unfold_or_down()
    assert not model.folded
    assert len(model) == 10


def test_fold_on_non_foldable_row_jumps_to_previous_segment_start() -> None:
    model = TreeModel(branched())
    model.select_id("ok")
    model.fold_or_up()
    assert model.selected_id == "ua"
    model.fold_or_up()  # ua is foldable: folds
    assert model.folded == {"ua"}


def test_unfold_on_expanded_row_jumps_down_to_next_branch() -> None:
    model = TreeModel(branched())
    model.select_id("u1")
    model.unfold_or_down()
    assert model.selected_id == "ua"
    model.unfold_or_down()
    assert model.selected_id == "ok"


def test_root_fold_marker() -> None:
    sm = session(
        [user("u1", None, "a", 1), assistant("a1", "u1", "b", 2), user("u2", "a1", "c", 3), user("u3", "a1", "d", 4)]
    )
    model = TreeModel(sm, leaf_id="u2", use_manager_leaf=False)
    model.select_row(0)
    model.fold_or_up()
    assert model.row_text(0) == "› ⊞ • user: a"
    assert len(model) == 1


def test_filter_toggles_and_cycles_reset_folds() -> None:
    model = TreeModel(branched())
    model.select_id("ua")
    model.fold_or_up()
    model.toggle_filter("user-only")
    assert model.mode == "user-only" and not model.folded
    model.toggle_filter("user-only")
    assert model.mode == "default"
    model.cycle_filter(1)
    assert model.mode == "no-tools"
    model.cycle_filter(-1)
    model.cycle_filter(-1)
    assert model.mode == "all"
    assert model.footer().endswith(" [all]")


def test_selection_survives_refilter_via_nearest_visible_ancestor() -> None:
    model = TreeModel(branched())
    model.select_id("aa")
    model.set_filter("user-only")
    assert model.selected_id == "ua"


def test_search_types_backspaces_and_escape_clears() -> None:
    model = TreeModel(branched())
    model.type_text("more")
    assert [model.entry_at(i).id for i in range(len(model))] == ["ua2", "ub2"]
    model.type_text(" b")
    assert [model.entry_at(i).id for i in range(len(model))] == ["ub2"]
    model.backspace()
    model.backspace()
    assert len(model) == 2
    assert model.clear_query() is True
    assert model.query == "" and len(model) == 10
    assert model.clear_query() is False


def test_search_matches_labels_too() -> None:
    sm = branched()
    sm.append_label_change("ab", "Winner")
    model = TreeModel(sm)
    model.type_text("winner done")
    assert [model.entry_at(i).id for i in range(len(model))] == ["ab"]


def test_incremental_search_equals_fresh_search() -> None:
    sm = branched()
    for q in ["a", "a d", "a do", "more a"]:
        step = TreeModel(sm)
        step.type_text(q)
        fresh = TreeModel(sm)
        fresh.set_query(q)
        assert [step.entry_at(i).id for i in range(len(step))] == [fresh.entry_at(i).id for i in range(len(fresh))]


def test_set_leaf_reorders_and_moves_active_path() -> None:
    model = TreeModel(branched())
    model.set_leaf("ab")
    assert model.row_text(3, cursor=False) == "├⊟ • user: try B"
    assert model.index.by_id["ok"] not in model.flat.active
    assert model.index.by_id["ab"] in model.flat.active


def test_label_timestamps_toggle() -> None:
    sm = session([user("u1", None, "q", 1), label("l1", "u1", "u1", "mark", 2)])
    model = TreeModel(sm)
    model.toggle_label_times()
    assert model.row_text(0, cursor=False).startswith("• [mark] ")
    assert model.footer().endswith(" [+label time]")
    assert "user: q" in model.row_text(0, cursor=False)


def test_entries_changed_picks_up_appends(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    from loomtui.session.manager import SessionManager

    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(o) + "\n" for o in [HEADER, *branched_entries()]))
    sm = SessionManager.open(str(path))
    model = TreeModel(sm)
    new = AgentWriter(path).append_message({"role": "user", "content": "again", "timestamp": 11})
    model.entries_changed(sm.refresh(), leaf_id=sm.get_leaf_id())
    assert sm.get_leaf_id() == new
    assert model.selected_id == new  # the cursor was on the followed leaf: it follows
    assert model.row_of(new) == 7
    assert model.row_text(7, cursor=False) == "│     • user: again"


def _snapshot(model: TreeModel) -> tuple[list[str], str]:
    return [model.row_text(i) for i in range(len(model))], model.footer()


@needs_shared()
def test_incremental_appends_match_a_fresh_model(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import shutil

    src = FIXTURES / "pi" / "dnouri-browse-session.jsonl"
    path = tmp_path / "s.jsonl"
    shutil.copy(src, path)
    from loomtui.session.manager import SessionManager

    for mode in ("default", "no-tools", "all", "user-only"):
        sm = SessionManager.open(str(path))
        agent = AgentWriter(path)
        live = TreeModel(sm, filter_mode=mode, home="/home/user")
        live.select_row(2)
        for k in range(4):
            if k == 1:
                agent.append_model_change("openai", "gpt-5")
            elif k == 2:
                agent.append_message({"role": "assistant", "content": [], "stopReason": "toolUse"})
            else:
                agent.append_message({"role": "user", "content": f"step {k}", "timestamp": k})
            new = sm.refresh()
            selected = live.selected_id
            live.entries_changed(new, leaf_id=sm.get_leaf_id())
            fresh = TreeModel(sm, filter_mode=mode, home="/home/user")
            fresh.select_id(selected)  # type: ignore[arg-type]
            assert _snapshot(live) == _snapshot(fresh), (mode, k)
            assert live.selected_id == selected


def test_tool_result_after_tool_only_leaf_updates_in_place_like_a_fresh_model(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from loomtui.session.manager import SessionManager

    path = tmp_path / "live.jsonl"
    path.write_text('{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n')
    writer = AgentWriter(path)
    writer.append_message({"role": "user", "content": "go", "timestamp": 1})
    writer.append_message({"role": "assistant", "content": [{"type": "text", "text": "ok"}], "stopReason": "stop"})
    writer.append_message({"role": "user", "content": "branch", "timestamp": 2})
    writer.branch(writer.ids[1])
    writer.append_message({"role": "user", "content": "other", "timestamp": 3})
    for mode in ("default", "no-tools", "all"):
        reader = SessionManager.open(str(path))
        live = TreeModel(reader, filter_mode=mode, home="/home/user")
        live.home_key()  # off the followed leaf: the cursor stays there
        initial = live.selected_id
        steps = [
            lambda mode=mode: writer.append_message(
                {
                    "role": "assistant",
                    "stopReason": "toolUse",
                    "content": [{"type": "toolCall", "id": f"c-{mode}", "name": "ls", "arguments": {"path": "/p"}}],
                }
            ),
            lambda mode=mode: writer.append_message(
                {
                    "role": "toolResult",
                    "toolCallId": f"c-{mode}",
                    "toolName": "ls",
                    "content": [{"type": "text", "text": "a b"}],
                    "isError": False,
                }
            ),
            lambda: writer.append_message(
                {"role": "assistant", "content": [{"type": "text", "text": "done"}], "stopReason": "stop"}
            ),
        ]
        for k, step in enumerate(steps):
            step()
            new = reader.refresh()
            live.entries_changed(new, leaf_id=reader.get_leaf_id())
            fresh = TreeModel(reader, filter_mode=mode, home="/home/user")
            assert [live.row_text(i, cursor=False) for i in range(len(live))] == [
                fresh.row_text(i, cursor=False) for i in range(len(fresh))
            ], (mode, k)
            assert live.selected_id == initial, (mode, k)  # the selection stays where the user left it


def _two_roots(tmp_path):  # type: ignore[no-untyped-def]
    """u1 → a1 and u5 → a5 → u6 (the leaf), on a real file another writer appends to."""
    import json

    from helpers import HEADER

    from loomtui.session.manager import SessionManager

    path = tmp_path / "two-roots.jsonl"
    lines = [
        HEADER,
        user("u1", None, "first question", 1),
        assistant("a1", "u1", "first answer", 2),
        user("u5", None, "second question", 5),
        assistant("a5", "u5", "second answer", 6),
        user("u6", "a5", "follow-up", 7),
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path, SessionManager.open(str(path))


def _append(path, *objs) -> None:  # type: ignore[no-untyped-def]
    import json

    with open(path, "a") as f:
        for obj in objs:
            f.write(json.dumps(obj) + "\n")


def test_a_live_append_keeps_the_selected_entry_not_its_row_number(tmp_path) -> None:  # type: ignore[no-untyped-def]
    for mode in ("default", "no-tools", "all", "user-only"):
        path, sm = _two_roots(tmp_path)
        model = TreeModel(sm, filter_mode=mode)
        model.home_key()
        assert model.selected_id == "u5"
        # a child of the other root's answer
        _append(path, user("u2", "a1", "back to the first", 8))
        model.entries_changed(sm.refresh(), leaf_id=sm.get_leaf_id())
        assert model.selected_id == "u5", mode
        # a sibling branch (a new question under a5), then a new root
        _append(path, user("u7", "a5", "another follow-up", 9), user("u8", None, "a new root", 10))
        model.entries_changed(sm.refresh(), leaf_id=sm.get_leaf_id())
        assert model.selected_id == "u5", mode
        model.select_id("u6" if mode != "user-only" else "u1")
        kept = model.selected_id
        _append(path, assistant("a9", "u1", "late answer", 11))
        model.entries_changed(sm.refresh(), leaf_id=sm.get_leaf_id())
        assert model.selected_id == kept, mode
        fresh = TreeModel(sm, filter_mode=mode)
        assert [model.row_text(i, cursor=False) for i in range(len(model))] == [
            fresh.row_text(i, cursor=False) for i in range(len(fresh))
        ]


def test_the_cursor_on_the_followed_leaf_follows_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path, sm = _two_roots(tmp_path)
    model = TreeModel(sm)
    assert model.selected_id == "u6" == model.leaf_id
    _append(path, assistant("a6", "u6", "an answer", 8))
    model.entries_changed(sm.refresh(), leaf_id=sm.get_leaf_id())
    assert model.leaf_id == "a6" and model.selected_id == "a6"
    # a leaf that is not followed (the user moved it): the cursor stays
    _append(path, user("u7", "a6", "next", 9))
    model.entries_changed(sm.refresh(), leaf_id="a6")
    assert model.selected_id == "a6" and model.leaf_id == "a6"
