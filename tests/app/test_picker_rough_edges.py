"""The picker's rough edges: the query's cursor after Ctrl+F, capped full-text hits that say so
and load the rest, and the no-sessions page naming every agent's folder."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from loomtui.app.widgets.session_list import HIT, MORE, NOTE, SESSION
from loomtui.session.fulltext import PER_SESSION, SEARCH_LIMIT
from tests.app.test_picker import HostApp, env, rows, sessions, settle, start, status, write  # noqa: F401


async def test_ctrl_f_keeps_the_cursor_at_the_end_of_the_query(sessions: dict[str, Path], tmp_path: Path) -> None:
    app = HostApp([str(tmp_path / "extra")])
    async with app.run_test(size=(100, 20)) as pilot:
        picker = await start(app, pilot)
        await pilot.press(*"oauth")
        await pilot.press("ctrl+f")
        assert picker.input.value == "oauth" and picker.input.cursor_position == 5
        await pilot.press(*" pass")  # goes on where the query ends
        assert picker.input.value == "oauth pass"
        await pilot.press("ctrl+f")  # back to the list and its filter, the cursor at its end
        assert picker.mode == "list" and picker.input.value == "oauth"
        assert picker.input.cursor_position == 5
        await pilot.press("ctrl+f")  # the search query as it was
        assert picker.input.value == "oauth pass" and picker.input.cursor_position == 10


async def test_a_session_with_more_hits_says_so_and_enter_shows_them(env: Path, tmp_path: Path) -> None:
    many = PER_SESSION * 3 + 5
    write(
        tmp_path / "big/2020-01-05T10-00-00-000Z_big.jsonl",
        "big-1",
        "/home/u/big",
        "2020-01-05",
        [f"retry number {i} of the flaky upload" for i in range(many)],
    )
    write(
        tmp_path / "big/2020-01-06T10-00-00-000Z_small.jsonl",
        "sml-1",
        "/home/u/big",
        "2020-01-06",
        ["one flaky thing", "fixed"],
    )
    app = HostApp([str(tmp_path / "big")], only=True)
    async with app.run_test(size=(120, 30)) as pilot:
        picker = await start(app, pilot)
        await pilot.press("ctrl+f", *"flaky", "enter")
        await settle(app, pilot)
        got = rows(picker)
        kinds = [k for k, *_ in got]
        assert kinds.count(HIT) == PER_SESSION + 1
        more = [r for r in got if r[0] == MORE]
        assert len(more) == 1 and f"showing the first {PER_SESSION}" in str(more[0][2])
        assert kinds == [SESSION, HIT, SESSION] + [HIT] * PER_SESSION + [MORE]  # under the big session's hits
        assert status(picker).startswith(f"{PER_SESSION + 1}+ hits in 2 sessions (1 session holds more")
        picker.session_list.select_where(lambda r: r.kind == MORE)
        await pilot.press("enter")
        await settle(app, pilot)
        got = rows(picker)
        assert [k for k, *_ in got].count(HIT) == many + 1 and not [r for r in got if r[0] == MORE]
        big_hits = [line for k, line, _s in got if k == HIT][1:]
        assert big_hits == sorted(big_hits) and len(set(big_hits)) == many  # in file order, none twice
        selected = picker.session_list.selected_row
        assert selected is not None and selected.hit is not None and selected.hit.line == big_hits[PER_SESSION]
        assert status(picker).startswith(f"{many + 1} hits in 2 sessions")
        assert app.opened == []


async def test_a_search_that_stops_at_the_limit_says_so_and_searches_on(env: Path, tmp_path: Path) -> None:
    sessions = SEARCH_LIMIT // PER_SESSION + 2
    for n in range(sessions):
        write(
            tmp_path / f"lots/2020-01-{n % 28 + 1:02d}T10-00-00-000Z_s{n:03d}.jsonl",
            f"s{n:03d}-x",
            "/home/u/lots",
            f"2020-01-{n % 28 + 1:02d}",
            [f"needle {i}" for i in range(PER_SESSION)],
        )
    app = HostApp([str(tmp_path / "lots")], only=True)
    async with app.run_test(size=(120, 30)) as pilot:
        picker = await start(app, pilot)
        await pilot.press("ctrl+f", *"needle", "enter")
        await settle(app, pilot)
        got = rows(picker)
        assert [k for k, *_ in got].count(HIT) == SEARCH_LIMIT
        assert got[-1][0] == MORE and f"stopped at {SEARCH_LIMIT}" in str(got[-1][2])
        assert status(picker).startswith(f"The first {SEARCH_LIMIT}+ hits")
        picker.session_list.end()
        await pilot.press("enter")
        await settle(app, pilot)
        got = rows(picker)
        assert [k for k, *_ in got].count(HIT) == sessions * PER_SESSION
        assert not [r for r in got if r[0] == MORE]


async def test_no_sessions_names_every_folder_looked_in(env: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    app = HostApp([str(empty)], only=True)
    async with app.run_test(size=(160, 20)) as pilot:
        picker = await start(app, pilot)
        [(kind, _n, text)] = rows(picker)
        assert kind == NOTE and str(empty) in str(text)
    app = HostApp([])
    async with app.run_test(size=(200, 20)) as pilot:
        picker = await start(app, pilot)  # the samples, and a note naming the folders
        note = str(picker.query_one("#picker-note", Static).render())
        for folder in ("~/.pi/agent/sessions", "~/.omp/agent/sessions", "~/.claude/projects", "~/.codex/sessions"):
            assert folder in note
        assert "Claude Code" in note and "Codex" in note


async def test_at_80_columns_the_search_status_is_whole_and_hits_use_the_tree_s_words(
    env: Path, tmp_path: Path
) -> None:
    """The status line was cut mid-sentence ("… Enter on a “more” row shows"), and hit rows began
    with pi's type names (``custom_message:``, ``toolResult:``, ``compaction:``)."""
    import json

    from loomtui.view.width import text_width

    d = tmp_path / "s"
    write(d / "2020-01-05T10-00-00-000Z_big.jsonl", "big-1", "/home/u/a", "2020-01-05", ["flaky"] * (PER_SESSION + 3))
    kinds = tmp_path / "s/2020-01-06T10-00-00-000Z_kinds.jsonl"
    at = "2020-01-06T10:0{}:00.000Z"
    lines = [
        {"type": "session", "version": 3, "id": "knd-1", "timestamp": at.format(0), "cwd": "/home/u/b"},
        {"type": "message", "id": "k1", "parentId": None, "timestamp": at.format(1),
         "message": {"role": "user", "content": "run the flaky test"}},
        {"type": "message", "id": "k2", "parentId": "k1", "timestamp": at.format(2),
         "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
                     "content": [{"type": "text", "text": "1 flaky failure"}]}},
        {"type": "custom_message", "id": "k3", "parentId": "k2", "timestamp": at.format(3),
         "customType": "reminder", "content": "the flaky test again", "display": True},
        {"type": "compaction", "id": "k4", "parentId": "k3", "timestamp": at.format(4),
         "summary": "fixed the flaky test", "firstKeptEntryId": "k3", "tokensBefore": 1000},
        {"type": "branch_summary", "id": "k5", "parentId": "k4", "timestamp": at.format(5),
         "fromId": "k4", "summary": "a flaky branch"},
    ]  # fmt: skip
    kinds.write_text("".join(json.dumps(line) + "\n" for line in lines))
    app = HostApp([str(d)], only=True)
    async with app.run_test(size=(80, 40)) as pilot:
        picker = await start(app, pilot)
        await pilot.press("ctrl+f", *"flaky", "enter")
        await settle(app, pilot)
        said = status(picker)
        assert text_width(said) <= 78 and not said.endswith("…"), said
        assert said.startswith(f"{PER_SESSION + 5}+ hits in 2 sessions (1 holds more: Enter on “more”)"), said
        heads = [
            "".join(seg.text for seg in picker.session_list.render_line(i)).lstrip("› ").split(": ")[0]
            for i, r in enumerate(picker.session_list.rows)
            if r.kind == HIT and r.session is not None and r.session.path == str(kinds)
        ]
        assert heads == ["user", "[bash]", "[reminder]", "[compaction]", "[branch summary]"]
        await pilot.resize_terminal(160, 40)
        await pilot.pause()
        assert "(1 session holds more: Enter on a “more” row shows them)  ·  Enter open at entry" in status(picker)


async def test_a_label_hit_and_a_session_name_hit_read_as_the_tree_s_rows(env: Path, tmp_path: Path) -> None:
    """The tree writes ``[label: flaky start]`` and ``[title: flaky parser]``; the hits said
    ``[label]: flaky start`` and ``[title]: flaky parser``."""
    import json

    at = "2020-01-06T10:0{}:00.000Z"
    lines = [
        {"type": "session", "version": 3, "id": "lbl-1", "timestamp": at.format(0), "cwd": "/home/u/b"},
        {"type": "message", "id": "m1", "parentId": None, "timestamp": at.format(1),
         "message": {"role": "user", "content": "hello"}},
        {"type": "label", "id": "m2", "parentId": "m1", "timestamp": at.format(2), "targetId": "m1",
         "label": "flaky start"},
        {"type": "session_info", "id": "m3", "parentId": "m2", "timestamp": at.format(3), "name": "flaky parser"},
    ]  # fmt: skip
    path = tmp_path / "s/2020-01-06T10-00-00-000Z_labels.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    app = HostApp([str(path.parent)], only=True)
    async with app.run_test(size=(100, 20)) as pilot:
        picker = await start(app, pilot)
        await pilot.press("ctrl+f", *"flaky", "enter")
        await settle(app, pilot)
        said = [
            "".join(seg.text for seg in picker.session_list.render_line(i)).strip(" ›")
            for i, r in enumerate(picker.session_list.rows)
            if r.kind == HIT
        ]
        assert said == ["[label: flaky start]", "[title: flaky parser]"]
