"""Each source says what it can do, in its own words: a Claude Code session, an OCP run, an
OpenLoom document and a pi session each get their own notices, export dialog, footer hints
and filters; keys for what a source cannot do are not offered (the footer, the palette) and,
pressed, say why."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from app_helpers import browser, make_app, notices, select

from loomtui.app.screens.dialogs import ExportDialog
from loomtui.app.widgets.session_list import tool_tag
from loomtui.formats.ocp.catalog import list_runs
from tests.shared_material import FIXTURES as SHARED
from tests.shared_material import needs_shared

CLAUDE = SHARED / "claude" / "claude-code-log__0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl"
OCP = SHARED / "ocp" / "review-loop-v01.ocp.json"
LOOM = SHARED / "loom" / "openloom-v1-existence-of-claude.openloom.json"
CODEX = SHARED / "codex" / "agtrace__codex_session.jsonl"


def copy(tmp_path: Path, src: Path) -> Path:
    dst = tmp_path / src.name
    shutil.copyfile(src, dst)
    return dst


def hints(screen: object) -> str:
    return str(screen.query_one("#hints").render())  # type: ignore[attr-defined]


def files(where: Path) -> set[str]:
    return {p.name for p in where.iterdir()}


@needs_shared()
async def test_a_claude_session_never_speaks_of_persisting_for_pi(tmp_path: Path) -> None:
    path = copy(tmp_path, CLAUDE)
    before = files(tmp_path)
    app = make_app(path)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        assert "persist" not in hints(screen) and "export" in hints(screen)
        assert "Claude Code session, read-only" in screen.controller.title_parts(screen.path)
        user = next(e for e in screen.manager.index.entries if e.type == "message" and e.role == "assistant")
        await select(pilot, screen, user.id)
        await pilot.press("enter")
        await pilot.pause()
        moved = [n for n in notices(app) if n.startswith("Leaf moved")]
        assert (
            moved
            and "for pi" not in moved[-1]
            and "exports the branch ending here as a Claude Code session" in moved[-1]
        )
        shown = len(notices(app))
        await pilot.press("ctrl+s")  # not offered: nothing asked, nothing written, one notice says why
        await pilot.pause()
        assert app.screen is screen and len(notices(app)) == shown + 1
        said = notices(app)[-1]  # in the source's words: it read "… no file for pi to resume"
        assert said.startswith("Persisting the leaf is not offered: loomtui never writes a Claude Code session")
        assert "pi" not in said.split()
        await pilot.press("ctrl+e")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ExportDialog)
        text = str(dialog.query_one("#count").render())
        assert "parentSession" not in text and "header" not in text
        assert "as Claude Code wrote them" in text and "Claude Code session" in dialog.export_as
        await pilot.press("escape")
    assert files(tmp_path) == before


@needs_shared()
async def test_an_ocp_run_offers_neither_persist_nor_export_and_keeps_to_its_own_filters(tmp_path: Path) -> None:
    path = copy(tmp_path, OCP)
    before = files(tmp_path)
    app = make_app(path)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        assert "persist" not in hints(screen) and "export" not in hints(screen) and "Enter open" in hints(screen)
        model = screen.model
        assert "no-tools" not in model.modes and "failed" in model.modes
        seen = set()
        for _ in range(len(model.modes) + 1):
            await pilot.press("ctrl+o")
            seen.add(model.mode)
        assert seen <= set(model.modes) and not seen & {"no-tools", "user-only", "labeled-only", "all"}
        await pilot.press("ctrl+u")  # pi's user-only: not a filter of a run
        assert model.mode in seen
        await pilot.press("ctrl+d")
        await pilot.press("ctrl+e", "ctrl+s")
        await pilot.pause()
        assert app.screen is screen
        assert "Persisting the leaf is not offered: an OCP run has no conversation leaf." in notices(app)
        assert not any(" a ocp " in n or "loom" in n for n in notices(app))
    assert files(tmp_path) == before


@needs_shared()
async def test_a_run_label_is_kept_in_memory_in_the_runs_words(tmp_path: Path) -> None:
    app = make_app(copy(tmp_path, OCP))
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        out = screen.controller.set_label(screen.model.selected_id, "look")
        assert "loomtui never writes an OCP run" in out.notices[0].text
        prompt = screen.controller.label_prompt(screen.model.selected_id)
        assert prompt is not None and "OCP run" in prompt.note and "bookmark" not in prompt.note


@needs_shared()
async def test_an_openloom_document_saves_bookmarks_with_ctrl_s(tmp_path: Path) -> None:
    app = make_app(copy(tmp_path, LOOM))
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        assert "^S save" in hints(screen) and "^E export" in hints(screen)
        out = screen.controller.persist_leaf()
        assert out.notices[0].text.startswith("No bookmarks to save: no label differs from the file")
        assert "pi session file" not in out.notices[0].text


async def test_a_pi_session_still_persists_for_pi(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        assert "^S persist" in hints(screen) and "^E export" in hints(screen)
        assert "no-tools" in screen.model.modes
        await pilot.press("ctrl+e")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ExportDialog) and "parentSession names this file" in str(
            dialog.query_one("#count").render()
        )


@needs_shared()
def test_the_picker_lists_a_run_as_a_run(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copyfile(SHARED / "ocp" / "v0.3" / "solo.ocp.json", runs / "solo.ocp.json")
    (summary,) = list_runs([str(runs)])
    assert summary.tool == "ocp" and tool_tag(summary.tool) == "ocp"
    assert "1 node" in summary.title and "1 nodes" not in summary.title


async def test_a_filter_the_file_does_not_have_is_said(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"), filter_mode="failed")  # a run's filter, on a pi session
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        await pilot.pause()
        assert screen.model.mode == "default"
        assert any("'failed' is not a filter of a pi session" in n for n in notices(app))


async def test_findings_on_a_run_without_findings_says_the_run_has_none() -> None:
    """`loomtui --filter findings RUN` on a run whose checks found nothing: the notice says the
    run has no findings (it said "'findings' is not a filter of an OCP run")."""
    run = Path(__file__).resolve().parents[1] / "fixtures" / "ocp" / "run-with-session" / "run.ocp.json"
    app = make_app(run, filter_mode="findings")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        await pilot.pause()
        assert screen.model.mode == "default"
        said = [n for n in notices(app) if "findings" in n]
        told = [n for n in said if "This OCP run has no findings" in n and "only to runs with findings" in n]
        assert told, said
        assert not any("is not a filter of" in n for n in said), said


@needs_shared()
async def test_ctrl_g_speaks_of_no_header_where_the_file_has_none(tmp_path: Path) -> None:
    """Ctrl+G on a Claude Code session, an OCP run or an OpenLoom document said "This session is
    not a fork: its header names no parent session." — pi's header, which these files do not
    have; a parent not found was looked for "in the pi and omp session directories" only."""
    from loomtui.app.commands import LoomCommands

    for path, name in ((CLAUDE, "Claude Code session"), (OCP, "OCP run"), (LOOM, "OpenLoom document")):
        app = make_app(copy(tmp_path, path))
        async with app.run_test(size=(160, 40)) as pilot:
            screen = await browser(pilot)
            await pilot.press("ctrl+g")
            await pilot.pause()
            said = f"This {name} is not a fork: it names no parent session."
            assert said in notices(app) and not any("header" in n for n in notices(app))
            helps = {t: h for t, _cb, h in LoomCommands(screen).commands()}
            assert helps["open parent session"].endswith(said)


def test_a_parent_not_found_names_where_it_was_looked_for(tmp_path: Path) -> None:
    from loomtui.formats.detect import open_any
    from loomtui.view.controller import SessionController

    fork = tmp_path / "fork.jsonl"
    fork.write_text(
        '{"type":"session","version":3,"id":"f1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp",'
        '"parentSession":"0000-no-such-session"}\n'
    )
    out = SessionController(open_any(str(fork))).find_parent()
    (note,) = out.notices
    assert "not on this machine" in note.text and "pi and omp session directories" not in note.text
    assert "Claude Code" in note.text and "Codex" in note.text


@needs_shared()
async def test_alt_r_where_archiving_is_not_offered_says_so(tmp_path: Path) -> None:
    """Alt+A on a Claude Code session says archiving is not offered, but Alt+R answered
    "Archived branches shown (0 archived)." and the palette offered the toggle."""
    from loomtui.app.commands import LoomCommands

    app = make_app(copy(tmp_path, CLAUDE))
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        await pilot.press("alt+r")
        await pilot.pause()
        said = notices(app)[-1]
        assert said.startswith("No branch is archived, and archiving is not offered: loomtui never writes a Claude")
        assert screen.model is not None and not screen.model.show_archived
        titles = [t for t, _cb, _h in LoomCommands(screen).commands()]
        assert not any(t.startswith("archived branches:") for t in titles)


async def test_alt_r_on_a_pi_session_still_toggles(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        await pilot.press("alt+r")
        await pilot.pause()
        assert screen.model is not None and screen.model.show_archived
        assert notices(app)[-1].startswith("Archived branches shown (")


async def test_an_oh_my_pi_session_speaks_of_omp(tmp_path: Path) -> None:
    """On the bundled oh-my-pi sample, Enter said "^S persists it for pi", Ctrl+S asked to append
    a label entry "so that pi resumes the session there" and the palette offered to persist
    "so pi resumes there": omp resumes an omp session (`loomtui resume` runs omp)."""
    from loomtui.app.commands import LoomCommands
    from loomtui.app.screens.dialogs import ConfirmDialog
    from loomtui.session.locations import sample_dir

    path = copy(tmp_path, Path(sample_dir()) / "2026-03-03T14-30-12-480Z_0196f2a4c1d87e3b.jsonl")
    app = make_app(path)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        assistant = [e for e in screen.manager.index.entries if e.type == "message" and e.role == "assistant"]
        await select(pilot, screen, assistant[1].id)
        await pilot.press("enter")
        await pilot.pause()
        moved = [n for n in notices(app) if n.startswith("Leaf moved")]
        assert moved and moved[-1].endswith("persists it for omp.")
        titles = [t for t, _cb, _h in LoomCommands(screen).commands()]
        assert any(t.startswith("persist the leaf") and t.endswith("so omp resumes there…") for t in titles)
        await pilot.press("ctrl+s")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        body = dialog.body
        assert "so that omp resumes the session there" in body and "pi " not in body
        await pilot.press("escape")


@needs_shared()
async def test_a_codex_reply_shows_no_cache_write_codex_never_records(tmp_path: Path, monkeypatch) -> None:
    """Codex counts cached input (a cache read) and never a cache write: the detail pane read
    "R3,968 W0"."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    app = make_app(copy(tmp_path, CODEX))
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "L54")  # an assistant reply with 3,968 cached input tokens
        header = " ".join(screen.detail.text.split("\n\n", 1)[0].split())  # the header, unwrapped
        assert "R3,968" in header and "tokens" in header, header
        assert re.search(r"\bW\d", header) is None, header
