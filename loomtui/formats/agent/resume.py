"""Resuming a Claude Code or Codex session at an entry: which command, which file.

loomtui never writes a Claude Code or Codex file. Resuming at an entry exports the branch ending
there as a new session of the tool's own format, next to the original (``agent/export.py``, what
``export-branch`` writes), under a session id chosen first, then runs the tool's resume command
on that id in the session's working directory. What each tool's command and file name are lives
with the tool (``claude/resume.py``, ``codex/resume.py``).

Neither tool is installed where loomtui is tested: these command lines and the files they open
are tested, the tools' reading of them is not (README, "Carry on from a branch").
"""

from __future__ import annotations

import os
import uuid
from typing import TYPE_CHECKING, Protocol

from loomtui.formats.agent.kinds import CLAUDE, CODEX
from loomtui.session.agent_commands import AgentCommand, agent_command

if TYPE_CHECKING:
    from collections.abc import Mapping

    from loomtui.formats.agent.session import AgentSession

#: the tool's name in loomtui's sources -> its ``[agents]`` key
AGENT_OF_TOOL = {CLAUDE: "claude", CODEX: "codex"}


class ToolResume(Protocol):
    """What a tool's package says of resuming (its ``resume`` module, handed to ``AgentSource``
    by the tool's reader)."""

    def resume_words(self, session_id: str) -> list[str]: ...

    def session_dir(self, path: str) -> str: ...

    def export_name(self, session_id: str) -> str: ...


def _resumer(sm: AgentSession) -> ToolResume:
    resumer = sm.agent.resumer
    if resumer is None:
        raise ValueError(f"no agent resumes {sm.agent.path}")
    return resumer


def resume_command(sm: AgentSession, env: Mapping[str, str] | None = None) -> AgentCommand:
    return agent_command(AGENT_OF_TOOL[sm.agent.tool], env)


def new_session_id() -> str:
    return str(uuid.uuid4())


def resume_words(sm: AgentSession, session_id: str) -> list[str]:
    """The words after the program that resume ``session_id``."""
    return _resumer(sm).resume_words(session_id)


def export_path(sm: AgentSession, session_id: str) -> str:
    """Where the export under ``session_id`` goes: next to the original, named as the tool names
    its sessions."""
    src = sm.agent
    return os.path.join(_resumer(sm).session_dir(src.path), _resumer(sm).export_name(session_id))


def session_cwd(sm: AgentSession) -> str | None:
    """The working directory the session was recorded in (None: the file names none)."""
    cwd = sm.header.get("cwd") if isinstance(sm.header, dict) else None
    return cwd if isinstance(cwd, str) and cwd else None
