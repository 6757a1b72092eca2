"""A Claude Code subagent run's branch export and resume go where Claude Code lists sessions.

Opened from its row (Enter), a 2.1.x subagent run is the file
``<project>/<session>/subagents/agent-<id>.jsonl``. Ctrl+E offered, `export-branch` wrote and
Alt+W / `resume` exported into that ``subagents`` folder, where neither Claude Code (its
`--resume ID` looks in the project folder) nor loomtui's picker finds a session: the resume
could not work and the export was lost from view. They go to the project folder now."""

from __future__ import annotations

import shutil
from pathlib import Path

from loomtui.formats.carry_on.resume import plan_resume
from loomtui.formats.detect import open_any
from loomtui.view.controller import SessionController
from tests.shared_material import FIXTURES, needs_shared

NAME = "claude-code-log__ef958aa1-0e93-49f0-bb71-150f63befcd1"


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "projects" / "-Users-x-proj"
    project.mkdir(parents=True)
    shutil.copyfile(FIXTURES / "claude" / f"{NAME}.jsonl", project / f"{NAME}.jsonl")
    shutil.copytree(FIXTURES / "claude" / NAME, project / NAME)
    return project


@needs_shared()
def test_a_subagent_runs_exports_go_to_its_project_folder(tmp_path: Path) -> None:
    project = _project(tmp_path)
    main = open_any(str(project / f"{NAME}.jsonl"))
    (row,) = [e.id for e in main.index.entries if e.id.startswith("agent:")]
    sub = main.source.opens(row)
    assert sub is not None and "subagents" in str(sub.source.path)
    controller = SessionController(sub)
    plan = controller.export_plan(sub.get_leaf_id())
    assert plan.default_dir == str(project)
    written = sub.create_branched_session(sub.get_leaf_id())
    assert Path(written).parent == project
    resume = plan_resume(sub, sub.get_leaf_id())
    assert Path(resume.file).parent == project
    # the main session's exports stay beside it, as before
    assert Path(main.create_branched_session(main.get_leaf_id())).parent == project


@needs_shared()
def test_a_pi_copy_of_a_claude_branch_goes_where_pi_lists_sessions(tmp_path: Path, monkeypatch) -> None:
    """`export-branch --as pi` and `carry --export` wrote the pi session next to the Claude Code
    file, inside ~/.claude/projects/…, where pi does not list it (and Claude Code lists a file
    that is not its own). The pi copy goes to pi's session folder for the session's cwd."""
    from loomtui.cli import main
    from loomtui.formats.carry_on.carry import plan_carry
    from loomtui.session.locations import pi_session_dir

    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "pi-agent"))
    project = _project(tmp_path)
    path = project / f"{NAME}.jsonl"
    before = sorted(p.name for p in project.iterdir())
    main_session = open_any(str(path))
    pi_dir = Path(pi_session_dir(main_session.header["cwd"]))
    assert main(["export-branch", str(path), "--clone", "--as", "pi"]) == 0
    assert sorted(p.name for p in project.iterdir()) == before
    (copy,) = pi_dir.glob("*.jsonl")
    assert '"type":"session"' in copy.read_text().splitlines()[0]
    assert main_session.pi_copy_dir() == str(pi_dir)
    stray_end = "e1091181-fead-4c0e-b90d-6060a892f85d"  # a parallel tool call's end, off the leaf's branch
    plan = plan_carry(main_session, stray_end, main_session.get_leaf_id(), export=True)
    assert plan.export_dir == str(pi_dir)
