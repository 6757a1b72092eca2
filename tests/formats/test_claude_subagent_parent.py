"""Ctrl+G inside a Claude Code subagent run opens the session the run belongs to (the main
session file whose ``sessionId`` its lines carry), at the row the run hangs under; where that
file is not found it says so in Claude Code's words, not "not a fork". The Claude Code package
knows the parent (``Source.parent``); the controller asks only the source."""

from __future__ import annotations

from pathlib import Path

import pytest

from loomtui.formats.detect import open_any
from loomtui.view.controller import SessionController
from tests.claude_subagent_files import AGENT, SID, session_with_inline_sidechain, session_with_subagent_file


@pytest.fixture(autouse=True)
def _no_user_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The label store and every session folder the parent is looked for in: the test's own."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR", "OMP_CODING_AGENT_DIR"):
        monkeypatch.setenv(var, str(tmp_path / "none" / var))


def test_a_subagent_file_s_parent_is_its_session_at_the_run_s_row(tmp_path: Path) -> None:
    main, run = session_with_subagent_file(tmp_path / "projects" / "-home-user-proj")
    sub = open_any(str(main)).source.opens(f"agent:{AGENT}")
    assert sub is not None and sub.source.path == str(run)
    controller = SessionController(sub)
    assert controller.parent_ref() == SID
    found = controller.find_parent()
    assert (found.path, found.select, found.notices) == (str(main), f"agent:{AGENT}", [])
    # opened by its path, not from the row, it is the same run
    assert SessionController(open_any(str(run))).find_parent().path == str(main)


def test_a_subagent_run_whose_session_is_gone_says_so_in_claude_code_s_words(tmp_path: Path) -> None:
    main, run = session_with_subagent_file(tmp_path / "projects" / "-home-user-proj")
    main.unlink()
    outcome = SessionController(open_any(str(run))).find_parent()
    assert outcome.path is None
    (notice,) = outcome.notices
    assert notice.text.startswith(f"This is a subagent run of the Claude Code session {SID}, whose file was not found")
    assert str(main) in notice.text and "not a fork" not in notice.text


def test_an_inline_sidechain_s_parent_is_the_conversation_of_its_own_file(tmp_path: Path) -> None:
    main = session_with_inline_sidechain(tmp_path / "projects" / "-home-user-proj")
    sub = open_any(str(main)).source.opens("agent:s1")
    assert sub is not None and [e.id for e in sub.index.entries] == ["s1", "s2"]
    controller = SessionController(sub)
    assert controller.parent_ref() == SID
    found = controller.find_parent()
    assert (found.path, found.select, found.notices) == (str(main), "agent:s1", [])


def test_the_main_session_is_still_no_fork(tmp_path: Path) -> None:
    main, _run = session_with_subagent_file(tmp_path / "projects" / "-home-user-proj")
    controller = SessionController(open_any(str(main)))
    assert controller.parent_ref() is None
    assert [n.text for n in controller.find_parent().notices] == [controller.not_a_fork]
    assert "not a fork" in controller.not_a_fork
