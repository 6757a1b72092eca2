"""Carry on from a branch in the browser: Alt+W resumes the agent at the selected entry, Alt+S
carries the marked branch onto the selected one.

The agent is a small script standing in for pi (``LOOMTUI_PI``): it records how it was started
and appends two entries under the file's last one, as pi appends its turn. Under Pilot the app
runs headless, and Textual's ``App.suspend()`` raises ``SuspendNotSupported`` there (the headless
driver has no terminal to hand over), so the app runs the agent without a terminal: one test
takes that real path as it is; another replaces ``App.suspend`` with a context manager that
records it was entered, so the path a terminal takes (the agent run inside ``suspend``) is the
one exercised (tests/app/test_tmux_resume.py runs the real suspend in a real terminal). Either way the plan, the append, the agent's run in the session's directory, the
reload and the selection of what the agent appended are the app's own.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from app_helpers import browser, make_app, notices, select
from textual.widgets import TextArea

from loomtui.app.screens.dialogs import ConfirmDialog
from loomtui.app.screens.summary_dialog import SummaryDialog
from loomtui.session.manager import SessionManager
from tests.waits import until

AGENT = """\
import json, os, sys
argv = sys.argv[1:]
path = argv[argv.index("--session") + 1]
with open(os.environ["FAKE_AGENT_LOG"], "w") as f:
    json.dump({"argv": argv, "cwd": os.getcwd(), "tty": os.isatty(0)}, f)
last = [json.loads(l) for l in open(path) if l.strip()][-1]["id"]
with open(path, "a") as f:
    f.write(json.dumps({"type": "message", "id": "agentu01", "parentId": last, "timestamp": "2026-03-01T10:00:00.000Z",
                        "message": {"role": "user", "content": "typed in the agent", "timestamp": 1}}) + "\\n")
    f.write(json.dumps({"type": "message", "id": "agenta01", "parentId": "agentu01",
                        "timestamp": "2026-03-01T10:00:01.000Z",
                        "message": {"role": "assistant", "content": [{"type": "text", "text": "agent reply"}],
                                    "timestamp": 2}}) + "\\n")
"""


def _msg(i: str, parent: str | None, role: str, text: str, n: int) -> dict[str, Any]:
    return {
        "type": "message",
        "id": i,
        "parentId": parent,
        "timestamp": f"2026-03-01T09:00:{n:02d}.000Z",
        "message": {"role": role, "content": [{"type": "text", "text": text}], "timestamp": n},
    }


@pytest.fixture
def session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    cwd = tmp_path / "project"
    cwd.mkdir()
    lines = [
        {"type": "session", "version": 3, "id": "sess-app", "timestamp": "2026-03-01T09:00:00.000Z", "cwd": str(cwd)},
        _msg("u1", None, "user", "first", 1),
        _msg("a1", "u1", "assistant", "first answer", 2),
        _msg("u2", "a1", "user", "ALPHA question", 3),
        _msg("a2", "u2", "assistant", "ALPHA answer", 4),
        _msg("u3", "a1", "user", "BETA question", 5),
        _msg("a3", "u3", "assistant", "BETA answer", 6),
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    script = tmp_path / "agent.py"
    script.write_text(AGENT)
    monkeypatch.setenv("FAKE_AGENT_LOG", str(tmp_path / "agent-log.json"))
    monkeypatch.setenv("LOOMTUI_PI", shlex.join([sys.executable, str(script)]))
    return path


async def _resume_at(pilot: Any, path: Path, entry_id: str) -> Any:
    screen = await browser(pilot)
    await select(pilot, screen, entry_id)
    await pilot.press("alt+w")
    await pilot.pause()
    dialog = pilot.app.screen
    assert isinstance(dialog, ConfirmDialog) and "Resume pi at a2" in dialog.title_text
    assert f"run: {sys.executable}" in dialog.body and f"--session {path}" in dialog.body
    await pilot.press("y")
    for _ in range(200):
        if any("Back from the agent" in n or "new entr" in n for n in notices(pilot.app)):
            break
        await pilot.pause(0.05)
    return screen


def _check_back(pilot: Any, screen: Any, path: Path) -> None:
    assert pilot.app.screen is screen and screen.path == str(path)  # the same session, reloaded
    sm = SessionManager.open(str(path))
    label, user, reply = sm.index.entries[-3:]
    assert label.type == "label" and label.parent_id == "a2"  # persisted as Ctrl+S does
    assert (user.id, user.parent_id, reply.id) == ("agentu01", label.id, "agenta01")
    assert "agenta01" in screen.controller.manager.index.by_id  # what the agent appended is shown
    assert screen.model.selected_id == "agenta01"
    assert any("2 new entries" in n for n in notices(pilot.app))  # what the agent appended


async def test_alt_w_runs_the_agent_and_comes_back_to_the_session_with_its_entries(
    session: Path, tmp_path: Path
) -> None:
    app = make_app(session)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await _resume_at(pilot, session, "a2")
        _check_back(pilot, screen, session)
    got = json.loads((tmp_path / "agent-log.json").read_text())
    assert got["argv"] == ["--session", str(session)] and got["cwd"] == str(tmp_path / "project")


async def test_the_agent_runs_inside_app_suspend(session: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    entered: list[bool] = []

    @contextmanager
    def suspend() -> Iterator[None]:
        entered.append(True)
        yield

    app = make_app(session)
    monkeypatch.setattr(app, "suspend", suspend)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await _resume_at(pilot, session, "a2")
        _check_back(pilot, screen, session)
    assert entered == [True]


async def test_a_missing_agent_is_said_as_the_dialog_opens(session: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The resume dialog offered Resume and said "not found" only once it was pressed: it checks
    for the program as it opens (as `resume --dry-run` does), names the command and offers no
    Resume to press."""
    from textual.widgets import Button, Static

    monkeypatch.setenv("LOOMTUI_PI", "loomtui-test-no-such-pi --flag")
    before = session.read_bytes()
    app = make_app(session)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "a2")
        await pilot.press("alt+w")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog) and dialog.title_text == "Cannot resume pi at a2"
        said = str(dialog.query_one("#unavailable", Static).render())
        assert "'loomtui-test-no-such-pi' is not found" in said and "--session" in said, said
        # no Resume button, disabled or not: only Close
        assert [str(b.label) for b in dialog.query(Button)] == ["Close"]
        assert dialog.body.startswith("Once pi can run, resuming here would:\nappend to ")
        assert "steps aside" not in dialog.body  # no promise of a run that cannot happen
        await pilot.press("y")  # nothing to confirm
        await pilot.pause()
        assert app.screen is dialog and not any("Back from the agent" in n for n in notices(app))
        await pilot.press("enter")  # on Close, which has the focus
        await pilot.pause()
        assert app.screen is screen
    assert session.read_bytes() == before


async def test_the_omp_sample_without_omp_says_so_as_the_dialog_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from textual.widgets import Button, Static

    from loomtui.session.locations import sample_dir

    monkeypatch.delenv("LOOMTUI_OMP", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    name = "2026-03-03T14-30-12-480Z_0196f2a4c1d87e3b.jsonl"
    path = tmp_path / name
    shutil.copyfile(Path(sample_dir()) / name, path)
    before = path.read_bytes()
    app = make_app(path)
    async with app.run_test(size=(140, 40)) as pilot:
        await browser(pilot)
        await pilot.press("alt+w")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog) and dialog.title_text.startswith("Cannot resume omp at ")
        said = str(dialog.query_one("#unavailable", Static).render())
        # nothing was tried yet: what will happen, not what did
        assert said.startswith("Cannot run omp: 'omp' is not found") and said.endswith("nothing will be written."), said
        assert "nothing was written" not in said
        assert [str(b.label) for b in dialog.query(Button)] == ["Close"]
    assert path.read_bytes() == before


async def test_alt_b_carries_the_marked_branch_as_a_branch_summary(session: Path) -> None:
    app = make_app(session)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "a3")
        await pilot.press("alt+m")
        await select(pilot, screen, "a2")
        await pilot.press("alt+s")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, SummaryDialog)
        text = dialog.query_one(TextArea).text
        assert "- BETA question" in text and "BETA answer" in text and "ALPHA" not in text  # the digest of A
        dialog.query_one(TextArea).text = "the other branch says: use the locale"
        await pilot.press("ctrl+s")
        await pilot.pause()
        sm = SessionManager.open(str(session))
        last = sm.index.entries[-1]
        entry = sm.get_entry(last.id)
        assert entry is not None and (entry["type"], entry["parentId"], entry["fromId"], entry["summary"]) == (
            "branch_summary",
            "a2",
            "a3",
            "the other branch says: use the locale",
        )
        assert screen.model.selected_id == last.id
        assert any("Branch summary" in n for n in notices(app))


async def test_the_carried_digest_reads_as_its_parts_in_the_detail_pane(session: Path) -> None:
    """The digest kept as it is prefilled: shown as Markdown, "Last answer:" and the totals are
    paragraphs of their own, not run into the prompt's bullet."""
    app = make_app(session)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "a3")
        await pilot.press("alt+m")
        await select(pilot, screen, "a2")
        await pilot.press("alt+s")
        await until(pilot, lambda: isinstance(app.screen, SummaryDialog), what="the summary dialog")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: any("Branch summary" in n for n in notices(app)), what="the carry")
        new_id = SessionManager.open(str(session)).index.entries[-1].id
        assert screen.model.selected_id == new_id
        screen._update_detail(immediate=True)
        await until(pilot, lambda: "Last answer:" in screen.detail.text, what="the summary's detail")
        lines = [line.strip() for line in screen.detail.text.splitlines() if line.strip()]
        start = lines.index("Prompts:")
        assert lines[start : start + 4] == ["Prompts:", "• BETA question", "Last answer:", "BETA answer"], lines
        assert lines[start + 4].startswith("Totals: 1 turn, 1 user message"), lines


async def test_a_marked_branch_already_on_the_selected_one_is_said_as_marked_and_selected(session: Path) -> None:
    before = session.read_bytes()
    app = make_app(session)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "a1")
        await pilot.press("alt+m")
        await select(pilot, screen, "a3")
        await pilot.press("alt+s")
        await until(pilot, lambda: notices(app), what="the carry's notice")
        assert notices(app)[-1] == (
            "The marked branch (ending at a1) is already part of the selected one (ending at a3): nothing to carry"
        )
        assert app.screen is screen
    assert session.read_bytes() == before


CLAUDE_FILE = (
    Path(__file__).resolve().parents[3]
    / "shared"
    / "fixtures"
    / "claude"
    / "claude-code-log__03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl"
)


@pytest.fixture
def claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[str]]:
    """A copy of a Claude Code session, the ids of the assistant entries on its main branch, and
    a stand-in ``claude`` that records its argv."""
    import shutil

    from loomtui.formats.opening import open_session

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    path = tmp_path / "projects" / "03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl"
    path.parent.mkdir()
    shutil.copyfile(CLAUDE_FILE, path)
    script = tmp_path / "claude.py"
    script.write_text("import json, os, sys\njson.dump(sys.argv[1:], open(os.environ['FAKE_AGENT_LOG'], 'w'))\n")
    monkeypatch.setenv("FAKE_AGENT_LOG", str(tmp_path / "agent-log.json"))
    monkeypatch.setenv("LOOMTUI_CLAUDE", shlex.join([sys.executable, str(script)]))
    sm = open_session(str(path))
    ids = [
        e.id
        for e in sm.index.path_to(sm.get_leaf_id())
        if e.type == "message" and e.role == "assistant" and sm.branch_entries(e.id)[0]
    ]
    return path, ids


async def test_alt_w_on_claude_code_resumes_an_export_and_opens_it(
    claude: tuple[Path, list[str]], tmp_path: Path
) -> None:
    path, ids = claude
    before = path.read_bytes()
    app = make_app(path)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await browser(pilot)
        ids = [i for i in ids if screen.model.row_of(i) is not None]  # shown in the default filter
        await select(pilot, screen, ids[1])
        await pilot.press("alt+w")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog) and "--resume" in app.screen.body
        await pilot.press("y")
        for _ in range(200):
            if app.screen is not screen and not isinstance(app.screen, ConfirmDialog):
                break
            await pilot.pause(0.05)
        argv = json.loads((tmp_path / "agent-log.json").read_text())
        assert argv[0] == "--resume"
        export = path.parent / f"{argv[1]}.jsonl"
        opened = await browser(pilot)
        assert opened is not screen and opened.path == str(export)  # the resumed session, on top
    assert path.read_bytes() == before  # the original is never written


async def test_alt_b_on_claude_code_offers_a_pi_copy(claude: tuple[Path, list[str]]) -> None:
    path, ids = claude
    before = path.read_bytes()
    app = make_app(path)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await browser(pilot)
        ids = [i for i in ids if screen.model.row_of(i) is not None]  # shown in the default filter
        await select(pilot, screen, ids[-1])
        await pilot.press("alt+m")
        await select(pilot, screen, ids[0])
        await pilot.press("alt+s")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog) and "pi copy" in app.screen.title_text
        await pilot.press("y")
        await pilot.pause()
        assert isinstance(app.screen, SummaryDialog)
        await pilot.press("ctrl+s")
        for _ in range(100):
            if app.screen is not screen and not isinstance(app.screen, SummaryDialog):
                break
            await pilot.pause(0.05)
        opened = await browser(pilot)
        assert opened is not screen
        copy = SessionManager.open(opened.path)
        last = copy.get_entry(copy.index.leaf_id)
        assert last is not None and last["type"] == "branch_summary" and last["parentId"] == ids[0]
        assert last["fromId"] == ids[-1]
    assert path.read_bytes() == before


async def test_a_source_no_agent_takes_up_offers_neither_key() -> None:
    loom = next(
        p
        for p in sorted((Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "loom").glob("*"))
        if p.suffix == ".json"
    )
    app = make_app(loom)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await browser(pilot)
        assert not screen.offered("resume_here") and not screen.offered("carry_branch")
        await pilot.press("alt+w")
        await pilot.pause()
        assert app.screen is screen and not isinstance(app.screen, ConfirmDialog)
        assert notices(app)[-1].startswith("No agent takes up ")  # the key says why, in one notice
