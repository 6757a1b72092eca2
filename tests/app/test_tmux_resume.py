"""Alt+W in a real terminal: tmux runs ``loomtui FILE``; the app suspends (Textual's
``App.suspend()``), the agent gets the terminal (it reads a line typed into it), and when it
exits the app comes back to the same session with the agent's entries.

The agent is a stand-in for pi (``LOOMTUI_PI``): it says it runs, reads a line from its
terminal, appends a user message holding that line and a reply under the file's last entry, and
exits.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from pathlib import Path

import pytest
from tmux_helpers import Tmux, clean_env, loomtui_command

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

AGENT = """\
import json, os, sys
argv = sys.argv[1:]
path = argv[argv.index("--session") + 1]
print("STAND-IN AGENT RUNNING, tty:", os.isatty(0), "- type a line", flush=True)
line = sys.stdin.readline().strip()
last = [json.loads(l) for l in open(path) if l.strip()][-1]["id"]
with open(path, "a") as f:
    f.write(json.dumps({"type": "message", "id": "agentu01", "parentId": last, "timestamp": "2026-03-01T10:00:00.000Z",
                        "message": {"role": "user", "content": "typed: " + line, "timestamp": 1}}) + "\\n")
    f.write(json.dumps({"type": "message", "id": "agenta01", "parentId": "agentu01",
                        "timestamp": "2026-03-01T10:00:01.000Z",
                        "message": {"role": "assistant", "content": [{"type": "text", "text": "stand-in reply"}],
                                    "timestamp": 2}}) + "\\n")
"""


def _msg(i: str, parent: str | None, role: str, text: str, n: int) -> dict[str, object]:
    return {
        "type": "message",
        "id": i,
        "parentId": parent,
        "timestamp": f"2026-03-01T09:00:{n:02d}.000Z",
        "message": {"role": role, "content": [{"type": "text", "text": text}], "timestamp": n},
    }


def test_alt_w_hands_the_terminal_to_the_agent_and_comes_back(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    session = tmp_path / "s.jsonl"
    lines = [
        {
            "type": "session",
            "version": 3,
            "id": "sess-tmux",
            "timestamp": "2026-03-01T09:00:00.000Z",
            "cwd": str(project),
        },
        _msg("u1000001", None, "user", "first question", 1),
        _msg("a1000001", "u1000001", "assistant", "first", 2),
        _msg("u2000002", "a1000001", "user", "ALPHA question", 3),
        _msg("a2000002", "u2000002", "assistant", "ALPHA answer", 4),
        _msg("u3000003", "a1000001", "user", "BETA question", 5),
        _msg("a3000003", "u3000003", "assistant", "BETA answer", 6),
    ]
    session.write_text("".join(json.dumps(x) + "\n" for x in lines))
    agent = tmp_path / "agent.py"
    agent.write_text(AGENT)
    tmux = Tmux(f"loomtui-resume-{os.getpid()}")
    env = clean_env(tmp_path, HOME=str(tmp_path / "home"), LOOMTUI_PI=shlex.join([sys.executable, str(agent)]))
    command = loomtui_command(env, session)
    tmux.run("new-session", "-d", "-s", "smoke", "-x", "120", "-y", "40", command)
    try:
        tmux.wait_for("BETA answer")
        tmux.keys("M-g")
        tmux.wait_for("id")
        tmux.keys("a", "2", "Enter")
        tmux.wait_for("ALPHA answer")
        tmux.keys("M-w")
        tmux.wait_for("Resume pi at a2000002?")
        tmux.keys("y")
        screen = tmux.wait_for("STAND-IN AGENT RUNNING")
        assert "tty: True" in screen  # the agent has the terminal
        tmux.keys("h", "e", "l", "l", "o", "Enter")
        screen = tmux.wait_for("2 new entries")
        assert "typed: hello" in screen and "EXITED" not in screen
        label, user, reply = [json.loads(x) for x in session.read_text().splitlines()[-3:]]
        assert label["type"] == "label" and label["parentId"] == "a2000002"
        assert (user["parentId"], reply["parentId"]) == (label["id"], "agentu01")
        tmux.keys("C-q")
        tmux.wait_for("EXITED rc=0")
        assert "Traceback" not in tmux.screen()
    finally:
        tmux.run("kill-server")
