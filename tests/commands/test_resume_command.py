"""`loomtui resume` and `loomtui carry`: the plans, the command lines, the files the agents
open, the configuration, and every refusal (one line, exit 2, nothing written).

Claude Code and Codex are not installable here: their command lines and the exported files they
would open are checked, and a stand-in program records what it was started with.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from loomtui.cli import main
from loomtui.formats.carry_on.pi_editor import EXTENSION
from loomtui.formats.carry_on.resume import apply_plan, plan_resume
from loomtui.formats.opening import open_session
from loomtui.session.errors import LoomError
from loomtui.session.manager import SessionManager
from tests.shared_material import needs_shared

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures"
CLAUDE_FILE = SHARED / "claude" / "claude-code-log__03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl"
CODEX_FILE = SHARED / "codex" / "localpush__rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"

#: a stand-in agent: records its argv, directory and LOOMTUI_EDITOR_TEXT, exits with $FAKE_EXIT
FAKE_AGENT = """\
import json, os, sys
with open(os.environ["FAKE_AGENT_LOG"], "w") as f:
    json.dump({"argv": sys.argv[1:], "cwd": os.getcwd(), "editor": os.environ.get("LOOMTUI_EDITOR_TEXT")}, f)
sys.exit(int(os.environ.get("FAKE_EXIT", "0")))
"""


def _msg(i: str, parent: str | None, role: str, text: str, n: int) -> dict[str, Any]:
    return {
        "type": "message",
        "id": i,
        "parentId": parent,
        "timestamp": f"2026-03-01T09:00:{n:02d}.000Z",
        "message": {"role": role, "content": [{"type": "text", "text": text}], "timestamp": n},
    }


BRANCHED = [
    _msg("u1", None, "user", "first", 1),
    _msg("a1", "u1", "assistant", "first answer", 2),
    _msg("u2", "a1", "user", "ALPHA question", 3),
    _msg("a2", "u2", "assistant", "ALPHA answer", 4),
    _msg("u3", "a1", "user", "BETA question", 5),
    _msg("a3", "u3", "assistant", "BETA answer", 6),
]


@pytest.fixture(autouse=True)
def agents_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The agents' default programs (pi, omp, claude, codex) found on PATH as stand-ins that
    fail if run: a dry run finds them; a test that runs one names its own command. Returns
    their directory (a test removes one to have it missing)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    for name in ("LOOMTUI_PI", "LOOMTUI_OMP", "LOOMTUI_CLAUDE", "LOOMTUI_CODEX"):
        monkeypatch.delenv(name, raising=False)
    bin_dir = tmp_path / "agents-bin"
    bin_dir.mkdir()
    for program in ("pi", "omp", "claude", "codex"):
        stand_in = bin_dir / program
        stand_in.write_text("#!/bin/sh\nexit 99\n")
        stand_in.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    return bin_dir


@pytest.fixture
def session(tmp_path: Path) -> Path:
    cwd = tmp_path / "project"
    cwd.mkdir()
    header = {"type": "session", "version": 3, "id": "sess-1", "timestamp": "2026-03-01T09:00:00.000Z", "cwd": str(cwd)}
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in [header, *BRANCHED]))
    return path


@pytest.fixture
def fake_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    script = tmp_path / "fake_agent.py"
    script.write_text(FAKE_AGENT)
    log = tmp_path / "agent-log.json"
    monkeypatch.setenv("FAKE_AGENT_LOG", str(log))
    return log


def _fake(script_log: Path) -> str:
    return shlex.join([sys.executable, str(script_log.parent / "fake_agent.py")])


def run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def refused(capsys: Any, path: Path, *argv: str) -> str:
    before = sha(path)
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("loomtui: ")
    assert sha(path) == before  # nothing written
    return err


# pi ------------------------------------------------------------------------------------------
def test_dry_run_prints_the_command_and_the_label_entry_and_writes_nothing(capsys: Any, session: Path) -> None:
    before = sha(session)
    code, out, _ = run(capsys, "resume", str(session), "--at", "a2", "--dry-run")
    assert code == 0 and sha(session) == before
    lines = out.splitlines()
    assert lines[0] == f"append to {session}:"
    assert json.loads(lines[1]) == {
        "type": "label",
        "id": "<new id>",
        "parentId": "a2",
        "timestamp": "<now>",
        "targetId": "a2",
    }
    assert lines[2] == f"run: {shlex.join(['pi', '--session', str(session)])}"
    assert lines[3] == f"in: {session.parent / 'project'}"


def test_a_user_message_resumes_at_its_parent_with_its_text_for_the_editor(capsys: Any, session: Path) -> None:
    code, out, _ = run(capsys, "resume", str(session), "--at", "u3", "--dry-run")
    assert code == 0
    assert '"parentId":"a1"' in out and '"targetId":"a1"' in out
    assert (
        f"run: LOOMTUI_EDITOR_TEXT='BETA question' {shlex.join(['pi', '--session', str(session), '-e', EXTENSION])}"
        in out
    )
    assert "BETA question" in out and "resumes at its parent a1" in out


def test_the_file_already_ending_there_appends_nothing(capsys: Any, session: Path) -> None:
    code, out, _ = run(capsys, "resume", str(session), "--at", "a3", "--dry-run")
    assert code == 0 and out.startswith(f"append nothing: {session} already ends at a3")


def test_a_run_persists_the_point_as_ctrl_s_does_and_runs_the_agent_in_the_sessions_cwd(
    capsys: Any, session: Path, fake_agent: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOOMTUI_PI", _fake(fake_agent))
    monkeypatch.setenv("FAKE_EXIT", "7")
    code, _out, err = run(capsys, "resume", str(session), "--at", "u2")
    assert code == 7  # the agent's exit code
    got = json.loads(fake_agent.read_text())
    assert got["argv"] == ["--session", str(session), "-e", EXTENSION]
    assert got["cwd"] == str(session.parent / "project")
    assert got["editor"] == "ALPHA question"
    sm = SessionManager.open(str(session))
    last = sm.index.entries[-1]
    assert last.type == "label" and last.parent_id == "a1" and sm.get_entry(last.id)["targetId"] == "a1"
    assert f"appended {last.id}" in err


def test_config_file_and_environment_name_the_command(
    capsys: Any, session: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conf = tmp_path / "config" / "loomtui"
    conf.mkdir(parents=True)
    (conf / "config.toml").write_text(
        '[agents]\npi = "node /opt/pi/cli.js --offline"\nomp = ["omp", "--session", "{file}"]\n'
    )
    _code, out, _ = run(capsys, "resume", str(session), "--at", "a2", "--dry-run")
    assert f"run: node /opt/pi/cli.js --offline --session {session}" in out
    monkeypatch.setenv("LOOMTUI_PI", "mypi --id {id} --file {file}")  # the environment wins; a template
    _code, out, _ = run(capsys, "resume", str(session), "--at", "a2", "--dry-run")
    assert f"run: mypi --id sess-1 --file {session}" in out


def test_omp_sessions_resume_with_omps_command(capsys: Any, session: Path) -> None:
    with session.open("a") as f:  # an entry kind only omp writes
        f.write(
            json.dumps(
                {
                    "type": "mode_change",
                    "id": "m1",
                    "parentId": "a3",
                    "timestamp": "2026-03-01T09:00:07.000Z",
                    "mode": "plan",
                }
            )
            + "\n"
        )
    code, out, _ = run(capsys, "resume", str(session), "--at", "a2", "--dry-run")
    assert code == 0 and f"run: omp --resume {session}" in out


def test_refusals_are_one_line_exit_2_and_write_nothing(
    capsys: Any, session: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "no entry 'nope'" in refused(capsys, session, "resume", str(session), "--at", "nope")
    assert "first message" in refused(capsys, session, "resume", str(session), "--at", "u1")
    monkeypatch.setenv("LOOMTUI_PI", "loomtui-test-no-such-agent --x")
    err = refused(capsys, session, "resume", str(session), "--at", "a2")
    assert "'loomtui-test-no-such-agent' is not found" in err and "$LOOMTUI_PI" in err
    bad = tmp_path / "config" / "loomtui"
    bad.mkdir(parents=True)
    (bad / "config.toml").write_text("[agents]\npi = 3\n")
    monkeypatch.delenv("LOOMTUI_PI")
    assert "give a command as a string" in refused(capsys, session, "resume", str(session), "--at", "a2")
    v2 = tmp_path / "v2.jsonl"
    v2.write_text(
        json.dumps({"type": "session", "version": 2, "id": "x", "timestamp": "2026-03-01T09:00:00Z", "cwd": "/"})
        + "\n"
        + "".join(json.dumps(x) + "\n" for x in BRANCHED)
    )
    assert "migrate" in refused(capsys, v2, "resume", str(v2), "--at", "a2")


def test_a_dry_run_says_the_agent_is_missing_as_the_run_would(capsys: Any, session: Path, agents_on_path: Path) -> None:
    """It exited 0 and said nothing, and the run then failed: the plan is printed, then the
    run's refusal (one line on stderr, exit 2)."""
    (agents_on_path / "pi").unlink()
    before = sha(session)
    code, out, err = run(capsys, "resume", str(session), "--at", "a2", "--dry-run")
    assert code == 2 and sha(session) == before
    assert f"run: {shlex.join(['pi', '--session', str(session)])}" in out.splitlines()
    assert len(err.splitlines()) == 1 and "cannot run pi: 'pi' is not found" in err


@needs_shared()
def test_an_ocp_run_is_refused_in_its_own_words(capsys: Any, tmp_path: Path) -> None:
    """No agent resumes an OCP run, and it has no branch to export (Ctrl+E is not offered): the
    refusal points at what can be resumed, and export-branch refuses as the app does."""
    run_file = tmp_path / "minimal.ocp.json"
    shutil.copyfile(SHARED / "ocp" / "minimal.ocp.json", run_file)
    err = refused(capsys, run_file, "resume", str(run_file), "--at", "run", "--dry-run")
    assert "is an OCP run: no agent resumes it; resume the agent session an attempt names" in err
    assert "export" not in err
    err = refused(capsys, run_file, "export-branch", str(run_file), "--leaf", "a:T1.a1", "--dir", str(tmp_path))
    # the reason after the file's name, as a command line words it: no capital after the colon
    assert err.strip() == f"loomtui: {run_file}: an OCP run is not a conversation: it has no branch to export", err
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".jsonl") == []


@needs_shared()
def test_a_loom_is_resumed_through_its_pi_export(capsys: Any, tmp_path: Path) -> None:
    loom = tmp_path / "loom.json"
    shutil.copyfile(SHARED / "loom" / "socketteer-loom_demo.json", loom)
    err = refused(capsys, loom, "resume", str(loom), "--at", "af4931cc", "--dry-run")
    assert "export the branch as a pi session first (`loomtui export-branch FILE --leaf ID`, Ctrl+E)" in err


def test_a_file_changed_since_it_was_read_is_refused_with_nothing_written(session: Path) -> None:
    sm = open_session(str(session))
    plan = plan_resume(sm, "a2")
    data = b"".join(session.read_bytes().splitlines(keepends=True)[:-1])  # rewritten: the last line gone
    session.write_bytes(data)
    with pytest.raises(LoomError, match="changed|rewritten"):
        apply_plan(sm, plan)
    assert session.read_bytes() == data


# Claude Code and Codex -------------------------------------------------------------------------
def _copy(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "agent" / src.name.split("__", 1)[1]
    dst.parent.mkdir()
    shutil.copyfile(src, dst)
    return dst


def _middle_assistant(path: Path) -> str:
    sm = open_session(str(path))
    kept = [
        e
        for e in sm.index.path_to(sm.get_leaf_id())
        if e.type == "message" and e.role == "assistant" and sm.branch_entries(e.id)[0]
    ]
    return kept[len(kept) // 2].id


@pytest.mark.parametrize("tool,src", [("claude", CLAUDE_FILE), ("codex", CODEX_FILE)])
def test_claude_and_codex_export_the_branch_and_resume_the_new_id(
    capsys: Any, tmp_path: Path, fake_agent: Path, monkeypatch: pytest.MonkeyPatch, tool: str, src: Path
) -> None:
    path = _copy(src, tmp_path)
    before = sha(path)
    at = _middle_assistant(path)
    code, out, _ = run(capsys, "resume", str(path), "--at", at, "--dry-run")
    assert code == 0 and sha(path) == before and len(list(path.parent.iterdir())) == 1
    words = out.splitlines()[1].removeprefix("run: ").split()
    new_id = words[-1]
    assert words == (["claude", "--resume", new_id] if tool == "claude" else ["codex", "resume", new_id])

    monkeypatch.setenv(f"LOOMTUI_{tool.upper()}", _fake(fake_agent))
    code, _out, _err = run(capsys, "resume", str(path), "--at", at)
    assert code == 0 and sha(path) == before  # the original is never written
    got = json.loads(fake_agent.read_text())
    new_id = got["argv"][-1]
    assert got["argv"] == (["--resume", new_id] if tool == "claude" else ["resume", new_id])
    (export,) = [p for p in path.parent.iterdir() if p != path]
    assert export.name == f"{new_id}.jsonl" if tool == "claude" else export.name.endswith(f"-{new_id}.jsonl")
    back = open_session(str(export))
    assert back.agent.session_id == new_id
    original = open_session(str(path))
    assert [e.text for e in back.index.path_to(back.get_leaf_id())] == [e.text for e in original.index.path_to(at)]


def test_a_missing_claude_is_refused_before_the_export(capsys: Any, tmp_path: Path, agents_on_path: Path) -> None:
    (agents_on_path / "claude").unlink()
    path = _copy(CLAUDE_FILE, tmp_path)
    err = refused(capsys, path, "resume", str(path), "--at", _middle_assistant(path))
    assert "'claude' is not found" in err
    assert list(path.parent.iterdir()) == [path]


# carry ---------------------------------------------------------------------------------------
def test_carry_appends_pis_branch_summary_entry(capsys: Any, session: Path) -> None:
    code, out, _ = run(capsys, "carry", str(session), "--from", "a3", "--onto", "u2", "-m", "BETA said no")
    assert code == 0
    file, new_id = out.strip().split("\t")
    assert file == str(session)
    line = json.loads(session.read_text().splitlines()[-1])
    assert list(line) == ["type", "id", "parentId", "timestamp", "fromId", "summary"]  # pi's branchWithSummary
    assert (line["type"], line["id"], line["parentId"], line["fromId"], line["summary"]) == (
        "branch_summary",
        new_id,
        "a1",
        "a3",
        "BETA said no",
    )  # u2 is a user message: onto its parent


def test_carry_without_a_message_writes_the_digest_of_a(capsys: Any, session: Path) -> None:
    code, out, _ = run(capsys, "carry", str(session), "--from", "a3", "--onto", "a2", "--dry-run")
    assert code == 0
    summary = json.loads(out.splitlines()[1])["summary"]
    assert "- BETA question" in summary and "Last answer:\n\nBETA answer" in summary and "Totals:" in summary
    assert "ALPHA" not in summary


def test_carry_refusals(capsys: Any, session: Path, tmp_path: Path) -> None:
    assert "same entry" in refused(capsys, session, "carry", str(session), "--from", "a2", "--onto", "a2")
    contained = refused(capsys, session, "carry", str(session), "--from", "a1", "--onto", "a2")
    assert "A (a1) is already part of B (a2): nothing to carry" in contained  # as the arguments are named
    assert "no entry" in refused(capsys, session, "carry", str(session), "--from", "zz", "--onto", "a2")
    assert "empty" in refused(capsys, session, "carry", str(session), "--from", "a3", "--onto", "a2", "-m", "  ")
    claude = _copy(CLAUDE_FILE, tmp_path)
    sm = open_session(str(claude))
    leaves = [
        e.id
        for e in sm.index.path_to(sm.get_leaf_id())
        if e.type == "message" and e.role == "assistant" and sm.branch_entries(e.id)[0]
    ]
    err = refused(capsys, claude, "carry", str(claude), "--from", leaves[-1], "--onto", leaves[0])
    assert "never writes it" in err and "--export" in err


def test_carry_onto_a_pi_copy_of_a_read_only_session(capsys: Any, tmp_path: Path) -> None:
    claude = _copy(CLAUDE_FILE, tmp_path)
    before = sha(claude)
    sm = open_session(str(claude))
    leaves = [
        e.id
        for e in sm.index.path_to(sm.get_leaf_id())
        if e.type == "message" and e.role == "assistant" and sm.branch_entries(e.id)[0]
    ]
    out_dir = tmp_path / "copies"
    out_dir.mkdir()
    code, out, _ = run(
        capsys,
        "carry",
        str(claude),
        "--from",
        leaves[-1],
        "--onto",
        leaves[0],
        "--export",
        "--dir",
        str(out_dir),
        "-m",
        "later turns found it",
    )
    assert code == 0 and sha(claude) == before
    file, new_id = out.strip().split("\t")
    copy = SessionManager.open(file)
    assert copy.source.is_pi_file and Path(file).parent == out_dir
    entry = copy.get_entry(new_id)
    assert entry is not None and entry["type"] == "branch_summary" and entry["parentId"] == leaves[0]
    assert copy.index.leaf_id == new_id


def test_ctrl_c_while_the_agent_runs_is_the_agents(
    capsys: Any, session: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Ctrl+C on the terminal reaches loomtui and the agent alike: loomtui must not die of it
    (nor kill the agent); the agent decides (here it exits with 5)."""
    script = tmp_path / "interrupted_agent.py"
    script.write_text(
        "import os, signal, sys\n"
        "signal.signal(signal.SIGINT, lambda *a: sys.exit(5))\n"
        "os.kill(os.getppid(), signal.SIGINT)\n"
        "os.kill(os.getpid(), signal.SIGINT)\n"
        "signal.pause()\n"
    )
    monkeypatch.setenv("LOOMTUI_PI", shlex.join([sys.executable, str(script)]))
    code, _out, _err = run(capsys, "resume", str(session), "--at", "a2")
    assert code == 5


def test_a_carry_onto_a_file_changed_since_it_was_read_writes_nothing(session: Path) -> None:
    from loomtui.formats.carry_on.carry import apply_carry, plan_carry

    sm = open_session(str(session))
    plan = plan_carry(sm, "a3", "a2", "summary")
    data = b"".join(session.read_bytes().splitlines(keepends=True)[:-1])
    session.write_bytes(data)
    with pytest.raises(LoomError):
        apply_carry(sm, plan)
    assert session.read_bytes() == data


def test_the_dry_run_shows_the_editor_text_variable_on_the_command_line(capsys: Any, session: Path) -> None:
    _code, out, _ = run(capsys, "resume", str(session), "--at", "u2", "--dry-run")
    assert f"run: LOOMTUI_EDITOR_TEXT='ALPHA question' pi --session {session} -e {EXTENSION}" in out


def test_omp_gets_a_user_message_back_in_its_editor_too(capsys: Any, session: Path) -> None:
    with session.open("a") as f:
        f.write(
            json.dumps(
                {
                    "type": "mode_change",
                    "id": "m1",
                    "parentId": "a3",
                    "timestamp": "2026-03-01T09:00:07.000Z",
                    "mode": "plan",
                }
            )
            + "\n"
        )
    _code, out, _ = run(capsys, "resume", str(session), "--at", "u2", "--dry-run")
    assert f"run: LOOMTUI_EDITOR_TEXT='ALPHA question' omp --resume {session} -e {EXTENSION}" in out
