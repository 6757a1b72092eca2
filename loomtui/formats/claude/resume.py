"""How Claude Code resumes a session: ``claude --resume ID``, run in the session's working
directory; it finds ``ID.jsonl`` in its project directory, where the original lives and where
loomtui's export of the branch is written (``formats/agent/resume.py``)."""

from __future__ import annotations


def resume_words(session_id: str) -> list[str]:
    """The words after the program that resume ``session_id``."""
    return ["--resume", session_id]


def export_name(session_id: str) -> str:
    """The file name a native export under ``session_id`` gets (``agent/export.py``)."""
    return f"{session_id}.jsonl"
