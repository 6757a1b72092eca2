"""Typing is searching in a real terminal: tmux sends a word in one write (as a paste without
bracketed paste, or a slow link, delivers it) and a bracketed paste; the search line shows
exactly what was sent."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import FIXTURES
from tmux_helpers import Tmux, clean_env, loomtui_command

from tests.waits import wait_until

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def test_words_sent_at_once_and_pastes_are_searched_as_sent(tmp_path: Path) -> None:
    session = tmp_path / "kinds.jsonl"
    shutil.copyfile(FIXTURES / "kinds.jsonl", session)
    data = session.read_bytes()
    tmux = Tmux(f"loomtui-typing-{os.getpid()}")
    env = clean_env(tmp_path)
    command = loomtui_command(env, session, cd=tmp_path)
    tmux.run("new-session", "-d", "-s", "smoke", "-x", "120", "-y", "40", command)
    try:
        tmux.wait_for("(13/16)")
        for word in ("summary", "cache", " make", "Edit the hoist"):
            tmux.run("send-keys", "-t", "smoke", "-l", word)
            tmux.wait_for(f"Search: {word}▏")
            tmux.keys("Escape")
            tmux.wait_for("type to search")
        # a bracketed paste (tmux -p: the app asked for it), its line break as a space
        buffer = tmp_path / "paste.txt"
        buffer.write_text("Try a\ndifferent")
        tmux.run("load-buffer", str(buffer))
        tmux.run("paste-buffer", "-p", "-t", "smoke")
        screen = tmux.wait_for("Search: Try a different▏")
        assert "user: Try a different approach instead: rewrite split." in screen
        # nothing ran: no HTML page, no new line in the session, no dialog
        assert not any(name.endswith(".html") for name in os.listdir(tmp_path))
        assert session.read_bytes() == data
        # the tool keys reach the app from a real terminal (Alt sends ESC + letter)
        tmux.keys("Escape", "M-h")
        tmux.wait_for("hoisted:")
        tmux.keys("M-u")
        wait_until(lambda: "hoisted:" not in tmux.screen(), 20, "Alt+U to unhoist")
        tmux.keys("M-m")
        tmux.wait_for("✦")
        tmux.keys("C-q")
        tmux.wait_for("EXITED rc=0")
    finally:
        subprocess.run(["tmux", "-L", tmux.socket, "kill-server"], capture_output=True, timeout=20)
