"""The header keeps the leaf visible on long paths; Ctrl+Q asks when a moved leaf is unsaved."""

from __future__ import annotations

import shutil
from pathlib import Path

from app_helpers import browser, make_app, screen_text, select

from loomtui.app.screens.dialogs import ConfirmDialog
from loomtui.view.session_header import Header
from loomtui.view.width import text_width
from tests.waits import settled, until

FIXTURES = Path(__file__).parent / "fixtures"


def test_the_header_shortens_the_path_first() -> None:
    head = Header(
        "Parser fix",
        "/home/user/projects/a-very-long-directory-name/with/many/levels/below/it",
        "26 entries",
        leaf="leaf s1000001 (moved)",
    )
    for width in (200, 90, 70, 60):
        out = head.fit(width)
        assert text_width(out) <= width
        assert out.endswith("leaf s1000001 (moved)"), out
        assert out.startswith("Parser fix")
    assert "…" in head.fit(90) and "/it" in head.fit(90)
    assert head.fit(200) == "  ·  ".join(head.parts())
    assert text_width(head.fit(20)) <= 20


def test_at_80_columns_the_header_keeps_the_name_the_leaf_and_read_only() -> None:
    """The path, then the token figure, then the entry count give way; the session's name, the
    leaf and what the file is stay whole (a Codex session, read-only)."""
    codex = Header(
        "agent-history session about the retry loop",
        "/home/user/.codex/sessions/2026/02/23",
        "1,303 entries",
        read_only="Codex session, read-only",
        usage="↑3.8k ↓408 R23k",
        leaf="leaf L2720",
    )
    assert codex.fit(100) == "agent-history session about the retry loop  ·  Codex session, read-only  ·  leaf L2720"
    assert codex.fit(78) == "agent-history session about the retry loop  ·  read-only  ·  leaf L2720"
    weather = Header(
        "Fix forecast crash, add response cache",
        "/home/dev/.pi/agent/sessions/--home-dev-weather-cli--",
        "49 entries",
        usage="↑19k ↓3.9k R226k $0.185",
        leaf="leaf 8e4f5a6c",
    )
    assert weather.fit(78) == "Fix forecast crash, add response cache  ·  49 entries  ·  leaf 8e4f5a6c"
    long_name = Header("x" * 100, "/tmp", "3 entries", diagnostics="2 diagnostics", leaf="leaf abc")
    out = long_name.fit(78)
    assert text_width(out) <= 78 and out.endswith("2 diagnostics  ·  leaf abc") and "…" in out


async def test_a_long_path_at_160_columns_keeps_the_leaf_and_the_moved_mark(tmp_path: Path) -> None:
    deep = tmp_path / ("a-directory-with-a-long-name/" * 5) / "sessions" / "--home-user-projects-something--"
    deep.mkdir(parents=True)
    path = deep / "2026-01-01T00-00-00-000Z_0199e0a5-aaaa-7bbb-8ccc-123456789abc.jsonl"
    shutil.copyfile(FIXTURES / "kinds.jsonl", path)
    app = make_app(path)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "r1000004")
        await pilot.press("enter")
        await settled(pilot)
        header = screen_text(app).splitlines()[0]
        assert header.rstrip().endswith("leaf r1000004 (moved)"), header
        assert "…" in header and "26 entries" in header
        await pilot.resize_terminal(100, 30)
        await settled(pilot)
        header = screen_text(app).splitlines()[0]
        assert header.rstrip().endswith("leaf r1000004 (moved)"), header


async def test_ctrl_q_asks_before_leaving_a_moved_unsaved_leaf(fixture_copy) -> None:
    path = fixture_copy("kinds.jsonl")
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "r1000004")
        await pilot.press("enter")
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog), what="the quit dialog")
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        assert "r1000004" in dialog.body and "s1000001" in dialog.body
        await pilot.press("escape")  # stay
        await until(pilot, lambda: app.screen is screen, what="the dialog to close")
        assert app.screen is screen and app.is_running
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog), what="the quit dialog")
        await pilot.press("y")
        await until(pilot, lambda: not app.is_running, what="the app to quit")
    assert app.return_code == 0


async def test_ctrl_q_quits_at_once_without_a_moved_leaf(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        await browser(pilot)
        await pilot.press("down", "ctrl+q")
        await until(
            pilot,
            lambda: not app.is_running or not isinstance(app.screen, ConfirmDialog),
            what="the app to quit without asking",
        )
        assert not app.is_running or not isinstance(app.screen, ConfirmDialog)


async def test_the_header_at_80_columns_keeps_the_session_s_name_and_leaf(tmp_path: Path) -> None:
    from loomtui.session.locations import sample_dir

    name = "2026-03-02T09-14-05-120Z_5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19.jsonl"
    path = tmp_path / name
    shutil.copyfile(Path(sample_dir()) / name, path)
    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        await browser(pilot)
        await settled(pilot)
        header = screen_text(app).splitlines()[0].strip()
        # the file's last entry (a label entry) is named beside the marked leaf; the count gives way
        assert header == "Fix forecast crash, add response cache  ·  leaf 8e4f5a6c (last entry a6f7a8ba)", header
