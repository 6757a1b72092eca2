"""The source Claude Code session files make: recognised by their first real JSON line, opened
read-only (``read.py``; docs/agent-formats.md)."""

from __future__ import annotations

from typing import Any

from loomtui.formats.agent.kinds import CLAUDE
from loomtui.formats.base.document import Adapter
from loomtui.formats.claude.lines import looks_like_claude
from loomtui.formats.claude.read import open_claude


def line_kind(obj: dict[str, Any]) -> str | None:
    return CLAUDE if looks_like_claude(obj) else None


ADAPTER = Adapter(
    "Claude Code sessions", line_kind=line_kind, file_kinds=(CLAUDE,), open_file=lambda path, _kind: open_claude(path)
)
