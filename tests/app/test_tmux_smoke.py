"""The real app in a real terminal: tmux runs ``loomtui FILE``; we send keys and read the screen."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import FIXTURES

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Tmux:
    def __init__(self, socket: str) -> None:
        self.socket = socket

    def run(self, *args: str) -> str:
        out = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=20)
        return out.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "smoke")

    def wait_for(self, text: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} not on screen after {timeout}s:\n{screen}")

    def keys(self, *keys: str) -> None:
        for key in keys:
            self.run("send-keys", "-t", "smoke", key)
            time.sleep(0.15)


def test_real_terminal_smoke(tmp_path: Path) -> None:
    session = tmp_path / "kinds.jsonl"
    shutil.copyfile(FIXTURES / "kinds.jsonl", session)
    tmux = Tmux(f"loomtui-smoke-{os.getpid()}")
    env = {"HOME": "/home/user", "TERM": "xterm-256color", "TZ": "UTC", "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
           "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "XDG_DATA_HOME": str(tmp_path / "data"), "PATH": os.environ.get("PATH", "")}
    command = " ".join(
        ["env", "-i", *(f"{k}={shlex.quote(v)}" for k, v in env.items()), shlex.quote(sys.executable), "-m", "loomtui",
         shlex.quote(str(session)), "--no-follow", "; echo EXITED rc=$?; sleep 10"]
    )
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
        tmux.keys("L")
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


@pytest.mark.parametrize("extra", [{"NO_COLOR": "1"}, {"TERM": "dumb"}, {"TERM": "xterm"},
                                   {"TERM": "dumb", "NO_COLOR": "1"}], ids=["no-color", "dumb", "16-colours",
                                                                            "dumb-no-color"])
def test_real_terminal_without_colours(tmp_path: Path, extra: dict[str, str]) -> None:
    """NO_COLOR, TERM=dumb and a 16-colour terminal: the app runs (monochrome), keys work."""
    session = tmp_path / "kinds.jsonl"
    shutil.copyfile(FIXTURES / "kinds.jsonl", session)
    tmux = Tmux(f"loomtui-mono-{os.getpid()}")
    env = {"HOME": "/home/user", "TERM": "xterm-256color", "TZ": "UTC", "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
           "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "XDG_DATA_HOME": str(tmp_path / "data"), "PATH": os.environ.get("PATH", ""), **extra}
    command = " ".join(
        ["env", "-i", *(f"{k}={shlex.quote(v)}" for k, v in env.items()), shlex.quote(sys.executable), "-m", "loomtui",
         shlex.quote(str(session)), "--no-follow", "; echo EXITED rc=$?; sleep 10"]
    )
    tmux.run("new-session", "-d", "-s", "smoke", "-x", "100", "-y", "30", command)
    try:
        tmux.wait_for("(13/16)")
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
