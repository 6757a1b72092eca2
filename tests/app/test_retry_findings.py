"""Rough edges found by trying the app again as a new user (fresh HOME, the bundled samples,
every key, every source): each test failed before its fix."""

from __future__ import annotations

from pathlib import Path

from test_picker import HostApp, env, sessions, start  # noqa: F401 (fixtures)
from test_typing_is_searching import _driver_read, _settled


async def test_picker_keys_that_arrive_together_move_before_enter_opens(
    sessions: dict[str, Path], tmp_path: Path
) -> None:
    app = HostApp([str(tmp_path / "extra")])
    async with app.run_test(size=(100, 20)) as pilot:
        picker = await start(app, pilot)
        assert picker.session_list.selected == 1
        # Down, Down, Enter in one read of the terminal (a loaded machine, a slow link)
        _driver_read(app, "\x1b[B\x1b[B\r")
        await _settled(pilot, lambda: bool(app.opened))
        assert app.opened == [(str(sessions["c"]), None)]  # the third session row: "Refactor auth"


WEATHER = "2026-03-02T09-14-05-120Z_5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19.jsonl"
FORECAST_CACHE = "2026-03-02T11-02-41-907Z_7d3e9f10-2a6b-4c1d-8e5f-9a0b1c2d3e4f.jsonl"


def _sample_copy(tmp_path: Path, name: str) -> Path:
    import shutil

    from loomtui.session.locations import sample_dir

    dest = tmp_path / name
    shutil.copyfile(Path(sample_dir()) / name, dest)
    return dest


async def _compare_lines(tmp_path: Path, size: tuple[int, int], a: str, b: str, name: str = WEATHER) -> list[str]:
    from app_helpers import browser, make_app, screen_text

    from loomtui.app.screens.compare import CompareScreen

    app = make_app(_sample_copy(tmp_path, name))
    async with app.run_test(size=size) as pilot:
        screen = await browser(pilot)
        screen.open_compare(a, b)
        await _settled(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.view.layout_ is not None)
        await pilot.pause()
        return screen_text(app).split("\n")


async def test_compare_head_totals_and_hints_fit_the_width(tmp_path: Path) -> None:
    lines = await _compare_lines(tmp_path, (80, 24), "8e4f5a6c", "d9e8f7a6")
    # the two branches' titles on one line, each cut with … (it wrapped into the next line)
    assert lines[0].lstrip().startswith("A 8e4f5a6c assistant: Added") and " B d9e8f7a6 " in lines[0]
    assert lines[0].rstrip().endswith("(aborted)") and "…" in lines[0]
    assert lines[1].lstrip().startswith("from b71e09aa · ")
    # the totals of one turn say "turn"; the hints are whole items, not cut mid-word
    assert any(x.lstrip().startswith("B 1 turn · 0 calls · 1 err · 0 files") for x in lines)
    hints = lines[-1].strip()
    assert hints.endswith("Esc back") or not hints.endswith(("whole", "Enter open fold /"))
    assert all(
        part
        in (
            "↑↓ move",
            "PgUp/PgDn page",
            "n/p next/previous change",
            "Enter open fold / whole entry",
            "g go to the entry in the tree",
            "Esc back",
        )
        for part in hints.split("  ")
    )


async def test_compare_says_when_one_branch_is_the_common_ancestor(tmp_path: Path) -> None:
    lines = await _compare_lines(tmp_path, (120, 40), "81f4d3a2", "41e8f9a0", FORECAST_CACHE)
    assert "B is the common ancestor: nothing after it" in lines[1]
    totals = [x for x in lines if "file touched" in x or "files touched" in x]
    # a totals line cut at its column ends in … (it was cut mid-path)
    assert totals and all(x.split("│")[0].rstrip().endswith(("…", "touched", ".py")) for x in totals)


async def test_header_shows_a_uuid_leaf_by_its_prefix_so_the_file_name_keeps_room(shared_dir: Path) -> None:
    from app_helpers import browser, make_app, screen_text

    path = shared_dir / "fixtures/claude/claude-code-viewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
    app = make_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await browser(pilot)
        await pilot.pause()
        head = screen_text(app).split("\n")[0]
        assert head.rstrip().endswith("leaf 5ac34508…")
        assert head.lstrip().startswith("claude-code-viewer__f")  # it was "claude-…"


async def test_reader_head_names_a_claude_session(shared_dir: Path) -> None:
    from app_helpers import browser, make_app, screen_text

    from loomtui.app.screens.reader import ReaderScreen

    path = shared_dir / "fixtures/claude/claude-code-viewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
    app = make_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await browser(pilot)
        await pilot.press("ctrl+r")
        await _settled(pilot, lambda: isinstance(app.screen, ReaderScreen))
        await pilot.pause()
        head = screen_text(app).split("\n")[0]
        assert "·  ·" not in head  # it read "Reader ·  · the active branch"
        assert "claude-code-viewer__fe5e1c67" in head


async def test_the_detail_pane_says_why_a_reply_ended_in_words(tmp_path: Path) -> None:
    """pi's stop reasons are ``stop``, ``toolUse``, ``length``, ``error``, ``aborted``: the pane said
    "stop stop" and "stop toolUse"; it says how the reply ended."""
    from app_helpers import browser, make_app, screen_text, select

    app = make_app(_sample_copy(tmp_path, WEATHER))
    async with app.run_test(size=(220, 40)) as pilot:
        screen = await browser(pilot)
        seen = {}
        for eid in ("9a0b1c2d", "f5a6b7c8", "d9e8f7a6"):
            await select(pilot, screen, eid)
            await _settled(pilot, lambda eid=eid: f"id {eid}" in screen_text(app))
            seen[eid] = screen_text(app)
        assert "ended normally" in seen["9a0b1c2d"]
        assert "ended to call tools" in seen["f5a6b7c8"]
        assert "aborted by the user" in seen["d9e8f7a6"]
        for text in seen.values():
            assert "stop stop" not in text and "stop toolUse" not in text and "stop aborted" not in text
