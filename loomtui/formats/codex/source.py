"""The source Codex session files make: recognised by their first real JSON line, opened
read-only (``read.py``; docs/agent-formats.md)."""

from __future__ import annotations

from typing import Any

from loomtui.formats.agent.kinds import CODEX
from loomtui.formats.base.document import Adapter
from loomtui.formats.codex.read import looks_like_codex, open_codex


def line_kind(obj: dict[str, Any]) -> str | None:
    return CODEX if looks_like_codex(obj) else None


ADAPTER = Adapter(
    "Codex sessions", line_kind=line_kind, file_kinds=(CODEX,), open_file=lambda path, _kind: open_codex(path)
)
