"""Which command starts each agent: ``[agents]`` in ``~/.config/loomtui/config.toml``, and
``LOOMTUI_PI`` / ``LOOMTUI_OMP`` / ``LOOMTUI_CLAUDE`` / ``LOOMTUI_CODEX`` for one run.

A value is the agent's program with any leading words (a string is split like a shell line,
or a list of words)::

    [agents]
    pi = "node /opt/pi/dist/cli.js"
    omp = ["omp"]
    claude = "claude --model sonnet"

loomtui adds the words that open the session (``--session FILE`` for pi, …); a value holding
``{file}`` or ``{id}`` is the whole command line instead, those words replaced by the file the
agent opens or its session id (``omp = "omp --session {file}"``). The environment wins over the
file. A malformed file or value is a ``LoomError`` (one line for the user).
"""

from __future__ import annotations

import os
import shlex
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass

from loomtui.session.errors import LoomError
from loomtui.session.fileio import read_regular

PI, OMP, CLAUDE, CODEX = "pi", "omp", "claude", "codex"
AGENTS = (PI, OMP, CLAUDE, CODEX)
ENV_NAMES = {PI: "LOOMTUI_PI", OMP: "LOOMTUI_OMP", CLAUDE: "LOOMTUI_CLAUDE", CODEX: "LOOMTUI_CODEX"}
PLACEHOLDERS = ("{file}", "{id}")


@dataclass(frozen=True, slots=True)
class AgentCommand:
    """The words that start one agent, and where they came from (for messages)."""

    agent: str
    words: tuple[str, ...]
    origin: str  # "default", "$LOOMTUI_PI", "<config file>"

    @property
    def is_template(self) -> bool:
        """The words are the whole command line (they hold ``{file}`` or ``{id}``)."""
        return any(p in w for w in self.words for p in PLACEHOLDERS)

    def argv(self, tail: list[str], file: str, session_id: str) -> list[str]:
        """The command line: the words and ``tail`` (the agent's own resume words), or the
        template with its placeholders filled."""
        if self.is_template:
            return [w.replace("{file}", file).replace("{id}", session_id) for w in self.words]
        return [*self.words, *tail]


def config_file(env: Mapping[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".config")
    return os.path.join(base, "loomtui", "config.toml")


def _words(value: object, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        try:
            words = shlex.split(value)
        except ValueError as exc:
            raise LoomError(f"{where}: cannot split {value!r} into words ({exc})") from None
    elif isinstance(value, list) and all(isinstance(w, str) for w in value):
        words = list(value)
    else:
        raise LoomError(f"{where}: give a command as a string or a list of strings")
    if not words or not words[0]:
        raise LoomError(f"{where}: the command is empty")
    return tuple(words)


def _configured(env: Mapping[str, str]) -> dict[str, object]:
    path = config_file(env)
    if not os.path.exists(path):
        return {}
    try:
        table = tomllib.loads(read_regular(path).decode("utf-8", "replace"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise LoomError(f"cannot read {path}: {exc}") from None
    agents = table.get("agents", {})
    if not isinstance(agents, dict):
        raise LoomError(f"{path}: [agents] must be a table")
    unknown = sorted(set(agents) - set(AGENTS))
    if unknown:
        raise LoomError(f"{path}: unknown agent {unknown[0]!r} in [agents] (known: {', '.join(AGENTS)})")
    return agents


def agent_command(agent: str, env: Mapping[str, str] | None = None) -> AgentCommand:
    """The command for ``agent`` (one of ``AGENTS``): the environment, else the config file,
    else the agent's own name."""
    env = os.environ if env is None else env
    name = ENV_NAMES[agent]
    given = env.get(name)
    if given:
        return AgentCommand(agent, _words(given, f"${name}"), f"${name}")
    configured = _configured(env)
    if agent in configured:
        path = config_file(env)
        return AgentCommand(agent, _words(configured[agent], f"{path} [agents] {agent}"), path)
    return AgentCommand(agent, (agent,), "default")
