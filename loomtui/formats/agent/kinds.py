"""The two agents' kinds: ``Source.kind`` of their sessions, ``SessionSummary.tool`` of their
picker rows (``claude/lister.py``, ``codex/lister.py``), and what the user calls each tool."""

from __future__ import annotations

CLAUDE = "claude-code"
CODEX = "codex"
TOOL_NAMES = {CLAUDE: "Claude Code", CODEX: "Codex"}
