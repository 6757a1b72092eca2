"""What the app remembers between runs about its own layout (``$XDG_STATE_HOME/loomtui/ui.json``).

A small JSON object, written atomically; a missing or broken file is an empty state.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from loomtui.session.errors import LoomError
from loomtui.session.fileio import read_regular


def state_path() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "loomtui" / "ui.json"


def load() -> dict[str, Any]:
    try:
        data = json.loads(read_regular(str(state_path())).decode("utf-8"))
    except (OSError, ValueError, LoomError):
        return {}
    return data if isinstance(data, dict) else {}


def save(**values: Any) -> None:
    """Merge ``values`` into the state file (atomic rewrite); errors are ignored (it is a nicety)."""
    path = state_path()
    data = load()
    data.update(values)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".ui.", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f)
        os.replace(tmp, path)
    except OSError:
        pass
