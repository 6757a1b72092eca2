"""Open any file loomtui understands: pi/omp sessions and other looms (detected by content)."""

from __future__ import annotations

from loomtui.formats.detect import open_any
from loomtui.session.manager import SessionManager


def open_session(path: str) -> SessionManager:
    return open_any(path)
