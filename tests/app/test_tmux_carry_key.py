"""The carry key reaches the app from a real terminal: tmux writes the bytes a terminal sends for
Alt+S (ESC s) and the summary dialog opens. Alt+B was the key before, and a terminal's ESC b is
read by Textual as Ctrl+← (iTerm's natural editing), so carrying never happened from the
keyboard; that key is bound to nothing now."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import FIXTURES
from tmux_helpers import Tmux, clean_env, loomtui_command

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def test_the_carry_key_s_escape_bytes_open_the_summary_dialog(tmp_path: Path) -> None:
    session = tmp_path / "kinds.jsonl"
    shutil.copyfile(FIXTURES / "kinds.jsonl", session)
    data = session.read_bytes()
    tmux = Tmux(f"loomtui-carry-{os.getpid()}")
    command = loomtui_command(clean_env(tmp_path), session, cd=tmp_path)
    tmux.run("new-session", "-d", "-s", "smoke", "-x", "120", "-y", "40", command)
    try:
        tmux.wait_for("(13/16)")
        tmux.run("send-keys", "-t", "smoke", "-H", "1b", "6d")  # ESC m: Alt+M marks the leaf
        tmux.wait_for("Marked a1000005")
        tmux.keys("Up", "Up", "Up", "Up", "Up")
        tmux.wait_for("(8/16)")
        tmux.run("send-keys", "-t", "smoke", "-H", "1b", "73")  # ESC s: Alt+S, as a terminal sends it
        screen = tmux.wait_for("Carry a branch summary")
        assert "From the branch ending at a1000005" in screen
        tmux.keys("Escape")
        tmux.wait_for("(8/16)")
        tmux.keys("C-q")
        tmux.wait_for("EXITED rc=0")
    finally:
        subprocess.run(["tmux", "-L", tmux.socket, "kill-server"], capture_output=True, timeout=20)
    assert session.read_bytes() == data  # the dialog was left with Esc: nothing written
