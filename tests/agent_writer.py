"""A stand-in for the coding agent writing its session file while loomtui has it open.

Lines in pi's format (``type``, ``id``, ``parentId``, ``timestamp`` first), appended with
``O_APPEND``, each parented on the agent's own leaf (the file's last entry when it starts).
loomtui writes only labels, archive records and branch files; it takes the agent's lines the
way it does for a running agent (``SessionManager.refresh``).
"""

from __future__ import annotations

import json
import os
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


class AgentWriter:
    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self.ids: list[str] = []
        with open(self.path, encoding="utf-8") as f:
            for line in f:
                obj = json.loads(line) if line.strip() else None
                if isinstance(obj, dict) and obj.get("type") not in ("session", "title") and "id" in obj:
                    self.ids.append(obj["id"])
        self.leaf: str | None = self.ids[-1] if self.ids else None

    def append(self, entry_type: str, **fields: Any) -> str:
        eid = uuid.uuid4().hex[:8]
        ts = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        obj = {"type": entry_type, "id": eid, "parentId": self.leaf, "timestamp": ts, **fields}
        line = (json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n").encode()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
        self.leaf = eid
        self.ids.append(eid)
        return eid

    def append_message(self, message: dict[str, Any]) -> str:
        return self.append("message", message=message)

    def append_model_change(self, provider: str, model_id: str) -> str:
        return self.append("model_change", provider=provider, modelId=model_id)

    def branch(self, entry_id: str) -> None:
        """Continue from an earlier entry (pi's /tree, then a new prompt)."""
        self.leaf = entry_id
