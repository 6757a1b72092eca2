"""The real app in a real terminal: tmux runs ``loomtui FILE``; we send keys and read the screen."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES
from tmux_helpers import Tmux, clean_env, loomtui_command

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def test_real_terminal_smoke(tmp_path: Path) -> None:
    session = tmp_path / "kinds.jsonl"
    shutil.copyfile(FIXTURES / "kinds.jsonl", session)
    tmux = Tmux(f"loomtui-smoke-{os.getpid()}")
    env = clean_env(tmp_path)
    command = loomtui_command(env, session)
    tmux.run("new-session", "-d", "-s", "smoke", "-x", "120", "-y", "40", command)
    try:
        screen = tmux.wait_for("(13/16)")
        assert "Parser fix" in screen
        assert "• [start] user: Fix the failing test in `parser.py`, please." in screen
        assert "› │     • assistant: overloaded_error: the server is busy" in screen
        tmux.keys("C-t")
        tmux.wait_for("[no-tools]")
        tmux.keys("f", "i", "x")
        screen = tmux.wait_for("Search: fix")
        assert "assistant: Fixed. All tests pass now." in screen
        tmux.keys("Escape")
        tmux.wait_for("type to search")
        tmux.keys("C-d", "Home")
        tmux.wait_for("(1/16)")
        tmux.keys("F1")
        tmux.wait_for("browser.label-times")
        tmux.keys("Escape")
        tmux.keys("M-l")
        tmux.wait_for("Label (empty to remove):")
        tmux.keys("s", "m", "o", "k", "e", "Enter")
        tmux.wait_for("[smoke] user:")
        last = json.loads(session.read_text().splitlines()[-1])
        assert last["type"] == "label" and last["targetId"] == "u1000001" and last["label"] == "smoke"
        assert last["parentId"] == "s1000001"
        tmux.keys("C-q")
        tmux.wait_for("EXITED rc=0")
        assert "Traceback" not in tmux.screen()
    finally:
        tmux.run("kill-server")


@pytest.mark.parametrize(
    "extra",
    [{"NO_COLOR": "1"}, {"TERM": "dumb"}, {"TERM": "xterm"}, {"TERM": "dumb", "NO_COLOR": "1"}],
    ids=["no-color", "dumb", "16-colours", "dumb-no-color"],
)
def test_real_terminal_without_colours(tmp_path: Path, extra: dict[str, str]) -> None:
    """NO_COLOR, TERM=dumb and a 16-colour terminal: the app runs (monochrome), keys work."""
    session = tmp_path / "kinds.jsonl"
    shutil.copyfile(FIXTURES / "kinds.jsonl", session)
    tmux = Tmux(f"loomtui-mono-{os.getpid()}")
    env = clean_env(tmp_path, **extra)
    command = loomtui_command(env, session)
    tmux.run("new-session", "-d", "-s", "smoke", "-x", "100", "-y", "30", command)
    try:
        tmux.wait_for("(13/16)")
        tmux.wait_for("  parent ")  # the detail pane drawn too: Tab has a pane to go to
        tmux.keys("Up", "Tab", "PageDown", "Tab", "F1")
        tmux.wait_for("loomtui keys")
        tmux.keys("Escape")
        screen = tmux.wait_for("(12/16)")
        assert "EXITED" not in screen and "internal error" not in screen
        assert "›" in screen and "•" in screen  # cursor row and active path, without colour
        tmux.keys("C-q")
        tmux.wait_for("EXITED rc=0")
        assert not (tmp_path / "state" / "loomtui" / "errors.log").exists()
    finally:
        tmux.run("kill-server")
