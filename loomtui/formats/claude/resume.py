"""How Claude Code resumes a session: ``claude --resume ID``, run in the session's working
directory; it finds ``ID.jsonl`` in its project directory, where the original lives and where
loomtui's export of the branch is written (``formats/agent/resume.py``)."""

from __future__ import annotations

import os


def resume_words(session_id: str) -> list[str]:
    """The words after the program that resume ``session_id``."""
    return ["--resume", session_id]


def session_dir(path: str) -> str:
    """The folder Claude Code lists the session at ``path`` in and resumes it from: the file's
    own folder, but a 2.1.x subagent run (``<project>/<session>/subagents/agent-<id>.jsonl``)
    belongs to its session's project folder."""
    here = os.path.dirname(os.path.abspath(path))
    if os.path.basename(here) == "subagents":
        return os.path.dirname(os.path.dirname(here))
    return here


def export_name(session_id: str) -> str:
    """The file name a native export under ``session_id`` gets (``agent/export.py``)."""
    return f"{session_id}.jsonl"
