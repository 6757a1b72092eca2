"""Paths built from a file's contents stay inside the folder they belong to, and every file
named by data or by configuration is opened only when it is a regular file.

* a Claude Code session whose ``sessionId`` climbs out of the project folder (``../x``, an
  absolute path, ``a/../../x``) never makes loomtui read subagent files from outside it: a
  diagnostic instead;
* a subagent's transcript or meta file, the label store, a key map, a theme, being a FIFO, a
  link to one or ``/dev/zero`` never hangs or fills memory: the session opens all the same;
* a relative ``parentSession`` or OCP ``session`` reference never leaves the referring file's folder.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loomtui.formats.agent.session import AgentSession
from loomtui.formats.detect import open_any
from loomtui.formats.ocp.catalog import find_session
from loomtui.session.fileio import contained
from loomtui.session.lineage import resolve_parent

#: a child that has not finished by then is waiting on a FIFO or reading /dev/zero
TIMEOUT = 60
SID = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
AGENT = "a4ca7529859c158c2"


def fixture(shared_dir: Path) -> Path:
    return shared_dir / "fixtures" / "claude" / f"claude-code-log__{SID}.jsonl"


def project_with(shared_dir: Path, root: Path, session_id: str) -> tuple[Path, Path]:
    """A project folder holding the session (its ``sessionId`` set to ``session_id``) and,
    outside it, a folder where that id points, holding a subagent with a telling meta file."""
    proj = root / "projects" / "p"
    proj.mkdir(parents=True)
    outside = root / "outside"
    (outside / "subagents").mkdir(parents=True, exist_ok=True)
    src = fixture(shared_dir)
    shutil.copyfile(
        src.parent / src.stem / "subagents" / f"agent-{AGENT}.jsonl", outside / "subagents" / f"agent-{AGENT}.jsonl"
    )
    (outside / "subagents" / f"agent-{AGENT}.meta.json").write_text('{"description": "OUTSIDE SECRET"}')
    data = src.read_bytes().replace(f'"sessionId":"{SID}"'.encode(), f'"sessionId":"{session_id}"'.encode())
    path = proj / "session.jsonl"
    path.write_bytes(data)
    return proj, path


def assert_inside(sm: AgentSession, proj: Path) -> None:
    real = os.path.realpath(proj)
    for sub in sm.agent.subagents.values():
        assert os.path.realpath(sub.path).startswith(real + os.sep), sub.path
        assert "OUTSIDE SECRET" not in sub.description


@pytest.mark.parametrize("kind", ["relative", "absolute", "nested"])
def test_a_session_id_leaving_the_project_reads_nothing_outside(
    shared_dir: Path, tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    sid = {"relative": "../../outside", "absolute": str(tmp_path / "outside"), "nested": "a/../../../outside"}[kind]
    proj, path = project_with(shared_dir, tmp_path, sid)
    sm = open_any(str(path))
    assert isinstance(sm, AgentSession)
    assert_inside(sm, proj)
    assert any("leaves the session's folder" in d.reason for d in sm.diagnostics)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.sampled_from(["..", ".", "a", "outside", "/", "subagents", "~"]), min_size=1, max_size=6))
def test_contained_never_leaves_its_folder(tmp_path: Path, parts: list[str]) -> None:
    base = tmp_path / "base"
    base.mkdir(exist_ok=True)
    got = contained(str(base), *parts)
    real = os.path.realpath(base)
    if got is not None:
        assert got == real or got.startswith(real + os.sep)
    if not any(p in ("..", "/") for p in parts):
        assert got is not None  # what stays inside is kept


def test_a_relative_reference_stays_in_its_folder(tmp_path: Path) -> None:
    (tmp_path / "secret.jsonl").write_text('{"type":"session","version":3,"id":"s"}\n')
    near = tmp_path / "runs" / "run.json"
    near.parent.mkdir()
    near.write_text("{}")
    assert resolve_parent("../secret.jsonl", str(near), ()) is None
    assert find_session("../secret.jsonl", near=str(near)) is None
    (near.parent / "child.jsonl").write_text('{"type":"session","version":3,"id":"c"}\n')
    assert resolve_parent("child.jsonl", str(near), ()) == str(near.parent / "child.jsonl")
    assert find_session("child.jsonl", near=str(near)) == str(near.parent / "child.jsonl")


def run_info(path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    """`loomtui info FILE` in a child with a deadline: a hang fails the test instead of the run."""
    return subprocess.run(
        [sys.executable, "-m", "loomtui", "info", str(path)], capture_output=True, env=env, timeout=TIMEOUT
    )


@pytest.mark.parametrize("special", ["fifo", "link-to-fifo", "dev-zero"])
@pytest.mark.parametrize("where", ["transcript", "meta", "label-store", "label-store-link"])
def test_special_files_named_by_data_are_refused_not_waited_on(
    shared_dir: Path, tmp_path: Path, special: str, where: str
) -> None:
    proj = tmp_path / "projects" / "p"
    proj.mkdir(parents=True)
    src = fixture(shared_dir)
    path = proj / src.name
    shutil.copyfile(src, path)
    subs = proj / src.stem / "subagents"
    subs.mkdir(parents=True)
    shutil.copyfile(src.parent / src.stem / "subagents" / f"agent-{AGENT}.jsonl", subs / f"agent-{AGENT}.jsonl")
    shutil.copyfile(src.parent / src.stem / "subagents" / f"agent-{AGENT}.meta.json", subs / f"agent-{AGENT}.meta.json")
    labels = tmp_path / "data" / "loomtui" / "labels"
    labels.mkdir(parents=True)
    target = {
        "transcript": subs / f"agent-{AGENT}.jsonl",
        "meta": subs / f"agent-{AGENT}.meta.json",
        "label-store": labels / f"{SID}.jsonl",
        "label-store-link": labels / f"{SID}.jsonl",
    }[where]
    target.unlink(missing_ok=True)
    fifo = tmp_path / "pipe"
    if special == "fifo" and where != "label-store-link":
        os.mkfifo(target)
    elif special == "dev-zero":
        os.symlink("/dev/zero", target)
    else:
        os.mkfifo(fifo)
        os.symlink(fifo, target)
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "LOOMTUI_NO_CACHE": "1", "NO_COLOR": "1"}
    got = run_info(path, env)
    assert got.returncode == 0, got.stderr
    assert b"Claude Code" in got.stdout


@pytest.mark.parametrize("name", ["keymap.toml", "ui.json", "theme"])
def test_configuration_files_that_are_fifos_are_refused(tmp_path: Path, name: str) -> None:
    """Read in a child with a deadline: a read that waits on the FIFO fails the test."""
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    path = {
        "keymap.toml": tmp_path / "config" / "loomtui" / "keymap.toml",
        "ui.json": tmp_path / "state" / "loomtui" / "ui.json",
        "theme": tmp_path / "config" / "loomtui" / "themes" / "x.toml",
    }[name]
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    code = {
        "keymap.toml": "from loomtui.app import keymap_file; o, p = keymap_file.load_user_keymap(); "
        "assert o == {} and 'FIFO' in p[0], p",
        "ui.json": "from loomtui.app import ui_state; assert ui_state.load() == {}",
        "theme": "from loomtui.formats.html import theme as t; t.load_themes()\n"
        "from pathlib import Path; from loomtui.app.themes import load_theme_file, ThemeError\n"
        f"try:\n    load_theme_file(Path({str(path)!r}))\nexcept ThemeError as e:\n    assert 'FIFO' in str(e)",
    }[name]
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, timeout=TIMEOUT)
    assert got.returncode == 0, got.stderr
