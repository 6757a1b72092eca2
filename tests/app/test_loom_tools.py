"""Pilot tests: every loom-tool key (mark, compare, hoist, jumps, history, go to, archive,
reader, compact) and their palette commands."""

from __future__ import annotations

import json
from pathlib import Path

from app_helpers import browser, make_app, notices, rows, screen_text, select

from loomtui.app.screens.browser import BrowserScreen
from loomtui.app.screens.compare import CompareScreen, CompareView
from loomtui.app.screens.dialogs import ConfirmDialog
from loomtui.app.screens.help import HelpScreen
from loomtui.app.screens.prompt import PromptDialog
from loomtui.app.screens.reader import ReaderScreen, ReaderView
from loomtui.view.archive import ARCHIVE_TYPE
from tests.waits import settled, until

BRANCH_B = ["u1000003", "r1000004", "b1000001"]


async def test_alt_m_marks_and_unmarks_and_m_types(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "a1000004")
        await pilot.press("alt+m")
        assert screen.model.marked_id == "a1000004"
        row = screen.model.row_of("a1000004")
        assert "✦ • assistant: Fixed." in screen.model.row_text(row)
        assert "✦ • assistant: Fixed." in screen_text(app)
        await pilot.press("alt+m")
        assert screen.model.marked_id is None
        # m is a letter: it types
        await pilot.press("f", "i", "m")
        assert screen.model.query == "fim" and screen.model.marked_id is None


async def test_alt_c_compares_the_marked_branch_with_the_selected_one(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await browser(pilot)
        await pilot.press("alt+c")  # nothing marked yet
        assert isinstance(app.screen, BrowserScreen)
        assert any("Mark an entry with Alt+M first" in n for n in notices(app))
        await select(pilot, screen, "a1000005")
        await pilot.press("alt+m")
        await pilot.press("alt+c")  # the marked entry itself
        assert isinstance(app.screen, BrowserScreen)
        await select(pilot, screen, "b1000001")
        await pilot.press("alt+c")
        await settled(pilot)
        assert isinstance(app.screen, CompareScreen)
        cmp = app.screen.cmp
        assert cmp.ancestor is not None and cmp.ancestor.id == "a1000002"
        text = screen_text(app)
        assert "from a1000002" in text and "A a1000005" in text and "B b1000001" in text
        assert "turns" in text.splitlines()[-4]  # totals under the columns


async def test_compare_screen_keys(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await browser(pilot)
        screen.open_compare("a1000005", "b1000001")
        await settled(pilot)
        view = app.screen.query_one(CompareView)
        lay = view.layout_
        assert lay is not None and len(lay.blocks) >= 3
        await pilot.press("down")
        assert view.cursor == 1
        await pilot.press("up")
        assert view.cursor == 0
        await pilot.press("end")
        assert view.cursor == len(lay.blocks) - 1
        await pilot.press("home")
        assert view.cursor == 0
        await pilot.press("pagedown")
        assert view.cursor > 0
        await pilot.press("home", "n")
        first_change = view.cursor
        assert app.screen.cmp.pairs[lay.blocks[first_change]].status != "same"  # type: ignore[index]
        await pilot.press("p")
        assert view.cursor <= first_change
        # Enter on a long pair shows it whole, again shortens it
        await pilot.press("enter")
        pair = view.selected_pair()
        assert pair is not None and pair in view.expanded
        await pilot.press("enter")
        assert pair not in view.expanded
        # g: back to the tree at the entry under the cursor
        await pilot.press("end", "g")
        await settled(pilot)
        assert isinstance(app.screen, BrowserScreen)
        last = app.screen.model.selected_id
        assert last in {"b1000001", "a1000005", "r1000004", "u1000003", "u1000005"}
        # Esc closes without moving
        screen.open_compare("a1000005", "b1000001")
        await settled(pilot)
        await pilot.press("escape")
        assert isinstance(app.screen, BrowserScreen) and app.screen.model.selected_id == last


async def test_identical_stretch_folds_and_enter_opens_it(tmp_path) -> None:
    head = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}
    lines = [
        head,
        {
            "type": "message",
            "id": "u0",
            "parentId": None,
            "timestamp": "2026-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": "go"},
        },
    ]
    for side in "ab":
        parent = "u0"
        for k in range(12):
            text = f"step {k}" + (" different " + side if k == 11 else "")
            eid = f"{side}{k:02d}"
            lines.append(
                {
                    "type": "message",
                    "id": eid,
                    "parentId": parent,
                    "timestamp": f"2026-01-01T00:{1 + k:02d}:0{'1' if side == 'a' else '2'}.000Z",
                    "message": {"role": "assistant", "content": [{"type": "text", "text": text}], "stopReason": "stop"},
                }
            )
            parent = eid
    f = tmp_path / "s.jsonl"
    f.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    app = make_app(f)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await browser(pilot)
        screen.open_compare("a11", "b11")
        await settled(pilot)
        assert "9 identical entries" in screen_text(app)
        view = app.screen.query_one(CompareView)
        await pilot.press("home", "enter")
        assert "identical entries" not in screen_text(app)
        assert view.layout_ is not None and len(view.layout_.blocks) == 12


async def test_alt_h_hoists_and_alt_u_or_escape_unhoists(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        full = rows(screen)
        await select(pilot, screen, "u1000003")
        await pilot.press("alt+h")
        assert rows(screen) == BRANCH_B
        assert screen.model.footer().endswith("[hoisted]")
        text = screen_text(app)
        assert "hoisted:" in text and "user: Try a different approach" in text.split("hoisted:")[1].splitlines()[0]
        # search works inside the hoist
        await pilot.press("r", "e", "w")
        assert rows(screen) == ["u1000003"]
        await pilot.press("escape")  # clears the search first
        assert rows(screen) == BRANCH_B
        await pilot.press("alt+u")
        assert rows(screen) == full and "hoisted:" not in screen_text(app)
        await pilot.press("alt+h")
        await pilot.press("escape")  # with nothing else to clear, Esc unhoists
        assert rows(screen) == full


async def test_alt_n_p_jump_between_labels_and_alt_j_k_between_branch_points(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await pilot.press("home")
        await pilot.press("alt+n")
        assert screen.model.selected_id == "a1000002"
        await pilot.press("alt+n")
        assert screen.model.selected_id == "u1000001"  # wraps
        await pilot.press("alt+p")
        assert screen.model.selected_id == "a1000002"
        await pilot.press("home", "alt+j")
        assert screen.model.selected_id == "a1000002"
        await pilot.press("alt+k")  # the only branch point
        assert any("No other branch point" in n for n in notices(app))


async def test_alt_o_and_alt_i_go_back_and_forward(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await pilot.press("home")
        await pilot.press("alt+n")  # u1000001 -> a1000002
        await pilot.press("down", "down")  # walk on with the arrows
        here = screen.model.selected_id
        await pilot.press("alt+o")
        assert screen.model.selected_id == "a1000002"
        await pilot.press("alt+o")
        assert screen.model.selected_id == "u1000001"
        await pilot.press("alt+i")
        assert screen.model.selected_id == "a1000002"
        await pilot.press("alt+i")
        assert screen.model.selected_id == here


async def test_alt_g_goes_to_an_entry_by_id_prefix(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await pilot.press("alt+g")
        assert isinstance(app.screen, PromptDialog)
        await pilot.press(*"r1000004", "enter")
        await pilot.pause()
        assert screen.model.selected_id == "r1000004"
        await pilot.press("alt+g", "u", "enter")  # ambiguous prefix
        await pilot.pause()
        assert screen.model.selected_id == "r1000004"
        assert any("entries start with 'u'" in n for n in notices(app))
        await pilot.press("alt+o")  # the jump is in the history
        assert screen.model.selected_id != "r1000004"


async def test_alt_a_archives_alt_r_shows_and_alt_a_restores(fixture_copy) -> None:
    path = fixture_copy("kinds.jsonl")
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        # refused on the active path, before any question
        await select(pilot, screen, "u1000002")
        await pilot.press("alt+a")
        await pilot.pause()
        assert app.screen is screen
        assert any("u1000002 is on the active path (the conversation pi continues)" in n for n in notices(app))
        # the other branch
        size = path.stat().st_size
        await select(pilot, screen, "u1000003")
        await pilot.press("alt+a")
        await pilot.press("y")
        await pilot.pause()
        assert not set(BRANCH_B) & set(rows(screen))
        record = json.loads(path.read_bytes()[size:])
        assert record["customType"] == ARCHIVE_TYPE and record["data"] == {"targetId": "u1000003", "archived": True}
        await pilot.press("alt+r")
        assert set(BRANCH_B) <= set(rows(screen))
        assert "[archived] user: Try a different" in screen_text(app)
        await select(pilot, screen, "u1000003")
        await pilot.press("alt+a")
        assert isinstance(app.screen, ConfirmDialog) and "Restore" in screen_text(app)
        await pilot.press("y")
        await pilot.pause()
        await pilot.press("alt+r")  # archived hidden again: the restored branch shows all the same
        assert not screen.model.show_archived and set(BRANCH_B) <= set(rows(screen))


async def test_ctrl_r_reader_follows_and_returns_to_the_entry_read(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "u1000002")
        await pilot.press("ctrl+r")
        await settled(pilot)
        assert isinstance(app.screen, ReaderScreen)
        view = app.screen.query_one(ReaderView)
        assert view.transcript.entry_id(view.current) == "u1000002"
        text = screen_text(app)
        assert "── user" in text and "Yes, apply the fix." in text
        await pilot.press("n")
        await pilot.pause()
        assert view.transcript.entry_id(view.current) == "a1000003"  # the tool call (hidden in the tree)
        await pilot.press("down", "up", "pagedown", "pageup", "end", "home")
        await pilot.press("n", "n")
        await pilot.pause()
        read = view.transcript.entry_id(view.current)
        await pilot.press("escape")
        assert isinstance(app.screen, BrowserScreen)
        assert screen.model.selected_id == read


def deep_session(tmp_path, levels: int = 70):
    """Every entry of the main line branches: one level deeper per entry."""
    head = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}
    lines = [head]
    parent = None
    for k in range(levels):
        ts = f"2026-01-01T{k // 60:02d}:{k % 60:02d}:00.000Z"
        lines.append(
            {
                "type": "message",
                "id": f"m{k:03d}",
                "parentId": parent,
                "timestamp": ts,
                "message": {"role": "user", "content": f"main {k} " + "word " * 20},
            }
        )
        if parent is not None:
            lines.append(
                {
                    "type": "message",
                    "id": f"s{k:03d}",
                    "parentId": parent,
                    "timestamp": ts[:-5] + "1.000Z",
                    "message": {"role": "user", "content": f"side {k} " + "text " * 20},
                }
            )
        parent = f"m{k:03d}"
    f = tmp_path / "deep.jsonl"
    f.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return f


async def test_ctrl_w_toggles_compact_indentation(tmp_path) -> None:
    app = make_app(deep_session(tmp_path))
    async with app.run_test(size=(200, 40)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "s060")
        assert screen.model.compact  # picked by itself: the rows are too deep for the pane
        await pilot.press("ctrl+w")
        assert not screen.model.compact
        await pilot.press("ctrl+w")
        assert screen.model.compact
        await pilot.pause()
        text = screen_text(app)
        assert "⋯60" in text
        # every row on screen shows its text
        for line in text.splitlines()[2:-1]:
            body = line.split("▏")[0]
            if "⋯" in body:
                assert "user: main" in body or "user: side" in body, body
        await pilot.press("ctrl+w")
        assert not screen.model.compact
        await pilot.pause()
        assert "⋯60" not in screen_text(app)


async def test_cursor_row_scrolls_its_gutter_away_in_normal_mode(tmp_path) -> None:
    from loomtui.app import ui_state

    ui_state.save(compact=False)  # the user chose pi's rows
    app = make_app(deep_session(tmp_path))
    async with app.run_test(size=(200, 40)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "s060")
        await pilot.pause()
        line = next(x for x in screen_text(app).splitlines() if x.startswith("›"))
        tree_part = line.split("▏")[0]
        at = tree_part.index("user: side 60")
        assert len(tree_part.rstrip()) - at >= 60  # 60 columns of its text, not just the gutter


async def test_palette_offers_the_loom_tools(fixture_copy) -> None:
    from loomtui.app.commands import LoomCommands

    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        provider = LoomCommands(screen)
        titles = {t: cb for t, cb, _h in provider.commands()}
        for want in (
            "compare the selected entry's branch with another, named by id…",
            "go to an entry by id or id prefix…",
            "compact indentation: off (toggle)",
            "reader mode: the active branch as one transcript",
            "hoist: show only the subtree under the selected entry",
            "archived branches: hidden (toggle)",
        ):
            assert want in titles
        titles["compact indentation: off (toggle)"]()
        assert screen.model.compact
        await select(pilot, screen, "b1000001")
        titles = {t: cb for t, cb, _h in provider.commands()}
        titles["compare the selected entry's branch with another, named by id…"]()
        await pilot.pause()
        assert isinstance(app.screen, PromptDialog)
        await pilot.press(*"a1000005", "enter")
        await settled(pilot)
        assert isinstance(app.screen, CompareScreen)
        assert (app.screen.cmp.a_id, app.screen.cmp.b_id) == ("b1000001", "a1000005")


async def test_help_lists_the_loom_keys(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 60)) as pilot:
        await browser(pilot)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.text
        for key, what in (
            ("Alt+M", "mark the entry"),
            ("Alt+C", "compare the marked"),
            ("Alt+H", "hoist"),
            ("Alt+U", "unhoist"),
            ("Alt+N", "next labelled"),
            ("Alt+P", "previous labelled"),
            ("Alt+J", "next branch point"),
            ("Alt+K", "previous branch point"),
            ("Alt+O", "back to the previous place"),
            ("Alt+I", "forward again"),
            ("Alt+G", "go to an entry"),
            ("Alt+A", "archive this branch"),
            ("Alt+R", "archived branches"),
            ("^R", "reader mode"),
            ("^W", "compact indentation"),
        ):
            assert any(line.strip().startswith(key) and what in line for line in text.splitlines()), key


async def test_alt_u_unhoists_and_alt_e_exports_html_with_or_without_a_query(fixture_copy, monkeypatch) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        exported: list[str] = []
        monkeypatch.setattr(type(screen), "_export_html", lambda self, *args: exported.append(args[-1]))
        await select(pilot, screen, "u1000003")
        await pilot.press("alt+h")
        assert screen.model.hoist_id == "u1000003"
        await pilot.press("alt+u")
        assert screen.model.hoist_id is None and exported == []
        await pilot.press("alt+u")  # not hoisted: says so
        await pilot.pause()
        assert exported == [] and screen.model.query == "" and any("Nothing is hoisted" in n for n in notices(app))
        await pilot.press("alt+e")
        assert exported == ["u1000003"]
        await pilot.press("T", "r", "y", "alt+e")  # capitals type; Alt+E exports during a search too
        await pilot.pause()
        assert screen.model.query == "Try" and exported == ["u1000003", screen.model.selected_id]


async def test_the_compare_header_writes_big_counts_with_thousands(tmp_path: Path) -> None:
    """Comparing two ends of a 100k-entry session read "72013 changed" beside "72,017 entries"."""
    lines = [{"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/tmp"}]
    parent = None
    for i in range(1200):
        role = "user" if i % 2 == 0 else "assistant"
        lines.append(
            {
                "type": "message",
                "id": f"e{i:07d}",
                "parentId": parent,
                "timestamp": f"2026-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}.000Z",
                "message": {"role": role, "content": [{"type": "text", "text": f"turn {i}"}]},
            }
        )
        parent = f"e{i:07d}"
    path = tmp_path / "long.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    app = make_app(path)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "e0000001")
        await pilot.press("alt+m", "end", "alt+c")
        await until(pilot, lambda: isinstance(app.screen, CompareScreen), what="the compare screen")
        assert "1,198 only in B · 0 identical" in screen_text(app)


async def test_the_compare_header_counts_entries_on_one_side_apart_from_changed_ones(tmp_path: Path) -> None:
    """The sample's [done] branch against its aborted reply: 28 entries are only in A, 2 pairs
    differ; "30 changed" called every one of them changed."""
    sample = Path(__file__).resolve().parents[2] / "sample_sessions"
    path = tmp_path / "w.jsonl"
    path.write_bytes(next(sample.glob("2026-03-02T09-14-05-120Z_5b0c1e2a-*.jsonl")).read_bytes())
    app = make_app(path)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        screen.open_compare("8e4f5a6c", "d9e8f7a6")
        await until(pilot, lambda: isinstance(app.screen, CompareScreen), what="the compare screen")
        await until(pilot, lambda: "from b71e09aa" in screen_text(app), what="the compare header")
        assert "from b71e09aa · 2 changed · 28 only in A · 0 identical" in screen_text(app)
