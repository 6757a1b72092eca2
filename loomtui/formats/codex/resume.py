"""How Codex resumes a session: ``codex resume ID``, run in the session's working directory; it
finds ``rollout-…-ID.jsonl`` under its sessions tree, where the original lives and where loomtui's
export of the branch is written (``formats/agent/resume.py``)."""

from __future__ import annotations

import os
from datetime import datetime


def resume_words(session_id: str) -> list[str]:
    """The words after the program that resume ``session_id``."""
    return ["resume", session_id]


def session_dir(path: str) -> str:
    """The folder Codex finds the session at ``path`` in: the file's own."""
    return os.path.dirname(os.path.abspath(path))


def export_name(session_id: str) -> str:
    """The file name a native export under ``session_id`` gets (``agent/export.py``)."""
    return f"rollout-{datetime.now().strftime('%Y-%m-%dT%H-%M-%S')}-{session_id}.jsonl"
