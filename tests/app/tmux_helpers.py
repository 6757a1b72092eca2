"""The real app in a real terminal, for the tmux tests: a tmux server of the test's own, the
app's command line in a clean environment, and the screen read back until it shows a text."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

from tests.waits import wait_until


class Tmux:
    def __init__(self, socket: str) -> None:
        self.socket = socket

    def run(self, *args: str) -> str:
        out = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=20)
        return out.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "smoke")

    def wait_for(self, text: str, timeout: float = 60.0) -> str:
        """The screen once ``text`` is on it (a real app's start on a loaded CI machine has taken
        over 20 s: the wait ends as soon as the text shows)."""
        shown = [""]

        def on_screen() -> bool:
            shown[0] = self.screen()
            return text in shown[0]

        try:
            wait_until(on_screen, timeout)
        except AssertionError:
            raise AssertionError(f"{text!r} not on screen after {timeout}s:\n{shown[0]}") from None
        return shown[0]

    def keys(self, *keys: str) -> None:
        for key in keys:
            self.run("send-keys", "-t", "smoke", key)
            time.sleep(0.15)  # one key per read of the terminal (an Alt key is ESC + letter)


def clean_env(tmp_path: Path, **overrides: str) -> dict[str, str]:
    """An environment with nothing of the machine's but PATH: a fixed HOME, terminal and zone,
    every XDG folder under ``tmp_path``."""
    return {
        "HOME": "/home/user",
        "TERM": "xterm-256color",
        "TZ": "UTC",
        "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "PATH": os.environ.get("PATH", ""),
        **overrides,
    }


def loomtui_command(env: dict[str, str], session: Path, cd: Path | None = None) -> str:
    """The shell line tmux runs: ``loomtui SESSION --no-follow`` in ``env`` only (in ``cd`` when
    given), then the exit code, kept on screen for a while."""
    words = ["cd", shlex.quote(str(cd)), ";"] if cd is not None else []
    words += ["env", "-i", *(f"{k}={shlex.quote(v)}" for k, v in env.items())]
    words += [shlex.quote(sys.executable), "-m", "loomtui", shlex.quote(str(session)), "--no-follow"]
    return " ".join([*words, "; echo EXITED rc=$?; sleep 10"])
