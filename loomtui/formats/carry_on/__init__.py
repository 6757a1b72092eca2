"""Carry on from a branch: resume a session's agent at an entry (``resume``), carry what one branch
did onto another as a pi branch summary (``carry``), and a resumed user message back in pi's
editor (``pi_editor``). What each source contributes lives with the source: pi's resume point in
``session/resume_point.py``, Claude Code's and Codex's commands in ``formats/claude/resume.py``
and ``formats/codex/resume.py`` (``formats/agent/resume.py`` joins them)."""
