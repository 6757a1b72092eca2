"""Labels for sessions loomtui must not write: kept in loomtui's own data directory.

Claude Code and Codex files belong to their tools; loomtui never writes them. A label set on
one of their entries goes to ``$XDG_DATA_HOME/loomtui/labels/<session id>.jsonl`` (default
``~/.local/share/loomtui/labels``), one appended line per change::

    {"entryId": "...", "label": "text" | null, "timestamp": "...", "file": "/abs/path"}

keyed by the file's session id and the entry id, so a label survives restarts, renames of the
file, and re-reads. The last line for an entry wins (``null`` clears). Any read-only source can
use the store; a broken line is skipped, never fatal.
"""

from __future__ import annotations

import os
import re
from typing import Any

import orjson

from loomtui.session import store
from loomtui.session.errors import LoomError, WriteRefused
from loomtui.session.fileio import open_regular_file
from loomtui.session.ids import now_iso

_SAFE = re.compile(r"[^A-Za-z0-9._-]")


def labels_dir(env: dict[str, str] | os._Environ[str] | None = None) -> str:
    env = os.environ if env is None else env
    base = env.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "loomtui", "labels")


def store_file(session_id: str, directory: str | None = None) -> str:
    """The store file of one session id (characters outside ``[A-Za-z0-9._-]`` become ``_``)."""
    name = _SAFE.sub("_", session_id)[:200] or "_"
    return os.path.join(directory or labels_dir(), name + ".jsonl")


def read_labels(session_id: str, directory: str | None = None) -> dict[str, tuple[str, Any]]:
    """entry id -> (label, timestamp) as the store has them now (cleared labels are absent)."""
    out: dict[str, tuple[str, Any]] = {}
    try:
        with open_regular_file(store_file(session_id, directory)) as f:
            data = f.read()
    except (OSError, LoomError):  # missing, or not a regular file (never waited on)
        return out
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get("entryId"), str):
            continue
        label = obj.get("label")
        if isinstance(label, str) and label.strip():
            out[obj["entryId"]] = (label.strip(), obj.get("timestamp"))
        else:
            out.pop(obj["entryId"], None)
    return out


def write_label(
    session_id: str, entry_id: str, label: str | None, source_file: str | None = None, directory: str | None = None
) -> str:
    """Append one change to the store; returns its timestamp."""
    path = store_file(session_id, directory)
    ts = now_iso()
    obj: dict[str, Any] = {"entryId": entry_id, "label": label.strip() if label else None, "timestamp": ts}
    if source_file:
        obj["file"] = source_file
    line = orjson.dumps(obj) + b"\n"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if not os.path.exists(path):
            try:
                store.write_new_file(path, b"")
            except WriteRefused:
                pass  # created meanwhile by another loomtui
        store.append_line(path, line, own_file=True)  # loomtui's own file: a crash's torn line is ended
    except OSError as exc:
        raise WriteRefused(f"cannot write the label store {path}: {exc.strerror or exc}") from None
    return ts
