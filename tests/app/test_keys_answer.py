"""Every key acts or says why not, in one short notice; what a source cannot do is not offered
(the footer, the palette), and Alt+A says what cannot be archived before it asks anything,
then asks in the source's own words."""

from __future__ import annotations

import shutil
from pathlib import Path

from app_helpers import browser, make_app, notices, select

from loomtui.app.app import LoomApp
from loomtui.app.commands import LoomCommands
from loomtui.app.screens.dialogs import ConfirmDialog
from loomtui.app.screens.picker import PickerScreen
from tests.shared_material import FIXTURES as SHARED
from tests.shared_material import needs_shared
from tests.waits import until

CLAUDE = SHARED / "claude" / "claude-code-log__03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl"
OCP = SHARED / "ocp" / "herdr-run-assemble-v01.ocp.json"
SOCKETTEER = SHARED / "loom" / "socketteer-loom_demo.json"


def _copy(tmp_path: Path, src: Path) -> Path:
    dst = tmp_path / src.name
    shutil.copyfile(src, dst)
    return dst


def _titles(screen: object) -> list[str]:
    return [title for title, _cb, _help in LoomCommands(screen).commands()]  # type: ignore[arg-type]


async def _one_notice(pilot, key: str) -> str:  # type: ignore[no-untyped-def]
    """Press ``key`` on the browser: no dialog opens, exactly one notice comes; its text."""
    app = pilot.app
    screen, before = app.screen, len(notices(app))
    await pilot.press(key)
    await until(pilot, lambda: len(notices(app)) > before, what=f"a notice after {key}")
    await pilot.pause()
    assert app.screen is screen, f"{key} opened {app.screen!r}"
    assert len(notices(app)) == before + 1, notices(app)[before:]
    return notices(app)[-1]


@needs_shared()
async def test_a_claude_session_s_keys_for_writes_say_why_not_and_are_not_offered(tmp_path: Path) -> None:
    path = _copy(tmp_path, CLAUDE)
    data = path.read_bytes()
    app = make_app(path)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        assert not screen.offered("archive") and not screen.offered("persist_leaf")
        assert not any(t.startswith(("archive / restore", "persist the leaf")) for t in _titles(screen))
        assert (await _one_notice(pilot, "alt+a")) == (
            "Archiving is not offered: loomtui never writes a Claude Code session."
        )
        assert (await _one_notice(pilot, "ctrl+s")).startswith(
            "Persisting the leaf is not offered: loomtui never writes a Claude Code session."
        )
    assert path.read_bytes() == data


@needs_shared()
async def test_an_ocp_run_s_pi_keys_say_why_not(tmp_path: Path) -> None:
    app = make_app(_copy(tmp_path, OCP))
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        mode = screen.model.mode
        said = await _one_notice(pilot, "ctrl+u")
        assert said.startswith("An OCP run has no user-only filter; ^O cycles its own (default, failed"), said
        assert screen.model.mode == mode
        assert (await _one_notice(pilot, "ctrl+e")) == "An OCP run is not a conversation: it has no branch to export."
        assert (await _one_notice(pilot, "alt+w")) == "No agent takes up an OCP run."
        assert (await _one_notice(pilot, "alt+s")) == "No agent takes up an OCP run."
        # archiving is about branches: not "has no conversation leaf", but what Ctrl+E says
        assert (await _one_notice(pilot, "alt+a")) == (
            "Archiving is not offered: an OCP run is not a conversation, so it has no branch to archive."
        )
        assert not screen.offered("archive")
        assert (await _one_notice(pilot, "alt+r")) == (
            "No branch is archived, and archiving is not offered: an OCP run is not a conversation, "
            "so it has no branch to archive."
        )


@needs_shared()
async def test_an_ocp_run_s_palette_exports_the_run_as_html(tmp_path: Path) -> None:
    """The palette said "export HTML: the session as one page": an OCP run is a run."""
    app = make_app(_copy(tmp_path, OCP))
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        html = [t for t in _titles(screen) if t.startswith("export HTML")]
        assert html == ["export HTML: the OCP run as one page, opened at the selected entry"], html


async def test_a_pi_session_s_palette_exports_the_session_as_html(fixture_copy) -> None:  # type: ignore[no-untyped-def]
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        html = [t for t in _titles(screen) if t.startswith("export HTML")]
        assert html == ["export HTML: the pi session as one page, opened at the selected entry"], html


@needs_shared()
async def test_a_loom_archives_in_memory_and_says_so(tmp_path: Path) -> None:
    path = _copy(tmp_path, SOCKETTEER)
    data = path.read_bytes()
    app = make_app(path)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        assert screen.offered("archive") and "archive / restore the branch at the selected entry…" in _titles(screen)
        said = await _one_notice(pilot, "alt+w")
        assert said == "No agent takes up a socketteer loom. ^E exports the branch as a pi session, which pi takes up."
        # on the active path: refused before any question, in the loom's words
        assert "is on the active path (the branch the leaf ends)" in await _one_notice(pilot, "alt+a")
        model = screen.model
        off_path = next(model.entry_at(i).id for i in range(len(model)) if model.entry_at(i) not in model.flat.active)
        await select(pilot, screen, off_path)
        await pilot.press("alt+a")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog), what="the archive question")
        body = app.screen.body
        assert "In memory only: loomtui never writes archive records into a socketteer loom" in body
        assert "pi ignores" not in body and "Append" not in body
        await pilot.press("y")
        await until(pilot, lambda: any("(in memory only)" in n for n in notices(app)), what="the archive")
    assert path.read_bytes() == data


async def test_alt_a_on_a_pi_file_counts_the_entries_and_clips_the_row_at_a_word(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "b1000001")  # a branch of one entry, off the active path
        await pilot.press("alt+a")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog), what="the archive question")
        body = app.screen.body
        assert "(1 entry)" in body and "pi ignores the record" in body, body
        row = body.splitlines()[1].strip()
        assert len(row) <= 150


async def test_esc_alt_x_and_alt_z_with_nothing_to_do_say_so(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))  # opened directly: no session list below
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        assert (await _one_notice(pilot, "escape")) == "Nothing to clear: no search, fold or hoist. ^Q quits."
        await select(pilot, screen, "u1000002")  # a short user message: nothing cut, no thinking
        assert (await _one_notice(pilot, "alt+x")) == "Nothing is cut in this entry: everything is shown in full."
        assert (await _one_notice(pilot, "alt+z")) == "This entry has no thinking blocks to open or close."
        await pilot.press("tab")  # from the detail pane too
        assert (await _one_notice(pilot, "alt+z")) == "This entry has no thinking blocks to open or close."


async def test_the_picker_s_ctrl_r_and_esc_say_what_they_did(tmp_path: Path) -> None:
    (tmp_path / "sessions").mkdir()
    shutil.copyfile(Path(__file__).parent / "fixtures" / "kinds.jsonl", tmp_path / "sessions" / "kinds.jsonl")
    app = LoomApp(sessions_dirs=[str(tmp_path / "sessions")], only_dirs=True, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen.sessions, what="the list")
        await pilot.press("ctrl+r")
        await until(pilot, lambda: "Read the session directories again: 1 session." in notices(app), what="Ctrl+R")
        await pilot.press("escape")
        await until(pilot, lambda: "Nothing to clear. ^Q quits." in notices(app), what="Esc")
        assert isinstance(app.screen, PickerScreen)
