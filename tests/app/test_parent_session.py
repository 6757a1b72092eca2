"""'Open parent session' in the browser (issue 5): a key (Ctrl+G) and a palette command that open
the session a fork was made from (``parentSession``, or a v1 file's ``branchedFrom``), found with
``lineage.find_session_file``; Esc comes back. No parent, or one not on this machine: a notice."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from app_helpers import browser, make_app, notices, select

from loomtui.app.screens.browser import BrowserScreen
from loomtui.session.locations import sample_dir
from tests.agent_writer import AgentWriter
from tests.waits import settled, until


def js(obj: object) -> str:
    return json.dumps(obj, separators=(",", ":"))


def write_session(path: Path, sid: str, texts: list[str], *, parent: str | None = None) -> Path:
    header: dict[str, Any] = {
        "type": "session",
        "version": 3,
        "id": sid,
        "timestamp": "2026-02-01T10:00:00.000Z",
        "cwd": "/home/user/proj",
    }
    if parent is not None:
        header["parentSession"] = parent
    lines = [js(header)]
    prev = None
    for i, text in enumerate(texts):
        eid = f"{sid[:4]}{i:04d}"
        msg: dict[str, Any] = (
            {"role": "user", "content": text}
            if i % 2 == 0
            else {"role": "assistant", "content": [{"type": "text", "text": text}]}
        )
        lines.append(
            js(
                {
                    "type": "message",
                    "id": eid,
                    "parentId": prev,
                    "timestamp": f"2026-02-01T10:{i + 1:02d}:00.000Z",
                    "message": msg,
                }
            )
        )
        prev = eid
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


async def next_browser(pilot: Any, below: BrowserScreen) -> BrowserScreen:
    """The browser opened on top of ``below``, once its session is loaded."""
    await pilot.app.workers.wait_for_complete()

    def opened() -> bool:
        screen = pilot.app.screen
        return isinstance(screen, BrowserScreen) and screen is not below and screen.model is not None

    await until(pilot, opened, what="a second browser with its session")
    return pilot.app.screen


async def test_ctrl_g_opens_the_parent_session_and_escape_returns(tmp_path: Path) -> None:
    parent = write_session(
        tmp_path / "s" / "2026-02-01T10-00-00-000Z_par1.jsonl",
        "par1",
        ["Write a parser", "Here is a parser", "Add tests", "Added tests"],
    )
    child = write_session(
        tmp_path / "s" / "2026-02-02T10-00-00-000Z_kid1.jsonl",
        "kid1",
        ["Write a parser", "Here is a parser"],
        parent=str(parent),
    )
    app = make_app(child)
    async with app.run_test(size=(120, 30)) as pilot:
        fork = await browser(pilot)
        assert fork.parent_ref() == str(parent)
        await pilot.press("ctrl+g")
        opened = await next_browser(pilot, fork)
        assert opened.path == str(parent)
        # the fork shares no entry id with it (not written by pi): its own leaf, and a notice
        assert opened.model is not None and opened.model.selected_id == "par10003"
        assert any("No entry of the fork" in n for n in notices(app))
        assert app.screen_stack[-2] is fork
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is fork


async def test_an_omp_parent_id_and_a_moved_pi_parent_are_found(tmp_path: Path) -> None:
    # omp records the parent's session id: found next to this file
    parent = write_session(
        tmp_path / "omp" / "2026-02-01T10-00-00-000Z_x.jsonl", "omp-parent-7", ["Plan the release", "Planned"]
    )
    child = write_session(
        tmp_path / "omp" / "2026-02-03T10-00-00-000Z_y.jsonl",
        "omp-child-8",
        ["Plan the release"],
        parent="omp-parent-7",
    )
    # a pi path recorded before the sessions moved: found by its file name under pi's sessions root
    moved = write_session(
        Path(os.environ["PI_CODING_AGENT_DIR"])
        / "sessions"
        / "--home-user-proj--"
        / "2026-01-05T09-00-00-000Z_old.jsonl",
        "old-5",
        ["Old work", "Done"],
    )
    child2 = write_session(
        tmp_path / "elsewhere" / "2026-02-04T10-00-00-000Z_z.jsonl",
        "new-9",
        ["Old work"],
        parent="/mnt/old-machine/.pi/agent/sessions/--p--/2026-01-05T09-00-00-000Z_old.jsonl",
    )
    for fork_file, expected in ((child, parent), (child2, moved)):
        app = make_app(fork_file)
        async with app.run_test(size=(120, 30)) as pilot:
            fork = await browser(pilot)
            await pilot.press("ctrl+g")
            opened = await next_browser(pilot, fork)
            assert opened.path == str(expected)


async def test_no_parent_and_a_missing_parent_are_notices(tmp_path: Path) -> None:
    plain = write_session(tmp_path / "plain.jsonl", "solo", ["Hello", "Hi"])
    app = make_app(plain)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await browser(pilot)
        assert screen.parent_ref() is None
        await pilot.press("ctrl+g")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen is screen
        assert "This session is not a fork: its header names no parent session." in notices(app)

    # the bundled v1 sample names its parent with ``branchedFrom``, a path on another machine
    v1 = next(p for p in sorted(os.listdir(sample_dir())) if p.startswith("2025-11-18T16-40-03-512Z"))
    copy = tmp_path / v1
    shutil.copyfile(os.path.join(sample_dir(), v1), copy)
    app = make_app(copy)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await browser(pilot)
        ref = screen.parent_ref()
        assert ref == (
            "/home/dev/.pi/agent/sessions/--home-dev-dotfiles--/"
            "2025-11-17T10-02-11-004Z_8c1f4e2a-3b5d-4a6c-9e7f-0d1c2b3a4f5e.jsonl"
        )
        await pilot.press("ctrl+g")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen is screen
        assert (
            f"The parent session {ref} is not on this machine (looked next to this file and in the session "
            "folders of pi, omp, Claude Code and Codex)."
        ) in notices(app)


async def test_the_palette_opens_the_parent_session(tmp_path: Path) -> None:
    from textual.command import CommandPalette

    from loomtui.app.commands import LoomCommands

    parent = write_session(tmp_path / "2026-02-01T10-00-00-000Z_p.jsonl", "pp-1", ["Start", "Started"])
    child = write_session(tmp_path / "2026-02-02T10-00-00-000Z_c.jsonl", "cc-2", ["Start"], parent=parent.name)
    app = make_app(child)
    async with app.run_test(size=(120, 30)) as pilot:
        fork = await browser(pilot)
        titles = [t for t, _cb, _h in LoomCommands(fork).commands()]
        assert "open parent session" in titles
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"open parent")
        await settled(pilot)
        await pilot.press("enter")
        opened = await next_browser(pilot, fork)
        assert opened.path == str(parent)  # a relative parentSession resolves next to the fork


async def test_the_palette_says_when_a_session_is_not_a_fork(tmp_path: Path) -> None:
    from loomtui.app.commands import LoomCommands

    plain = write_session(tmp_path / "plain.jsonl", "solo", ["Hello"])
    app = make_app(plain)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await browser(pilot)
        helps = {t: h for t, _cb, h in LoomCommands(screen).commands()}
        # the one wording of the browser's and the picker's notices (view/words.NOT_A_FORK)
        assert helps["open parent session"] == "^G  ·  This session is not a fork: its header names no parent session."


async def test_ctrl_g_opens_the_parent_at_the_fork_point(tmp_path: Path) -> None:
    """pi's fork copies the parent's path with its ids: the parent opens on the last shared entry."""
    from loomtui.session.manager import SessionManager

    parent = write_session(
        tmp_path / "s" / "2026-02-01T10-00-00-000Z_par1.jsonl",
        "par1",
        ["Write a parser", "Here is a parser", "Add tests", "Added tests", "Ship it", "Shipped"],
    )
    sm = SessionManager.open(str(parent))
    sm.append_label_change("par10001", "good parser")  # labels are re-created, not shared
    child_path = sm.create_branched_session("par10001", dir=str(tmp_path / "s"))
    kid = AgentWriter(child_path)  # pi continues the fork
    kid.append_message({"role": "user", "content": "Try another way", "timestamp": 1})
    kid.append_message({"role": "assistant", "content": [{"type": "text", "text": "Done"}], "stopReason": "stop"})
    app = make_app(child_path)
    async with app.run_test(size=(120, 30)) as pilot:
        fork = await browser(pilot)
        await pilot.press("ctrl+g")
        opened = await next_browser(pilot, fork)
        assert opened.path == str(parent)
        assert opened.model is not None and opened.model.selected_id == "par10001"
        assert opened.model.leaf_id == sm.index.leaf_id  # the parent's own leaf is not moved
        assert opened.detail.entry_id == "par10001"
        assert any("fork point par10001" in n for n in notices(app))


async def test_ctrl_g_in_a_claude_subagent_run_opens_its_session_at_the_run_s_row(tmp_path: Path) -> None:
    """A subagent run is no fork, but its lines carry its session's id: Ctrl+G opens that
    session at the row the run hangs under (it said "not a fork"); gone, a notice says so in
    Claude Code's words."""
    from tests.claude_subagent_files import AGENT, SID, session_with_subagent_file

    main, run = session_with_subagent_file(tmp_path / "projects" / "-home-user-proj")
    row = f"agent:{AGENT}"
    app = make_app(main)
    async with app.run_test(size=(140, 30)) as pilot:
        session = await browser(pilot)
        await select(pilot, session, row)
        await pilot.press("enter")
        sub = await next_browser(pilot, session)
        assert sub.path == str(run)
        app.clear_notifications()
        await pilot.press("ctrl+g")
        opened = await next_browser(pilot, sub)
        assert opened.path == str(main)
        assert opened.model is not None and opened.model.selected_id == row
        assert not any("not a fork" in n or "is not in this session" in n for n in notices(app)), notices(app)
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is sub, what="back in the subagent run")

    main.unlink()
    app = make_app(run)
    async with app.run_test(size=(140, 30)) as pilot:
        sub = await browser(pilot)
        await pilot.press("ctrl+g")
        said = f"This is a subagent run of the Claude Code session {SID}, whose file was not found"
        await until(pilot, lambda: any(n.startswith(said) for n in notices(app)), what="the notice")
        assert app.screen is sub
