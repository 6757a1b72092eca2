"""Open any file loomtui understands: pi/omp sessions and other looms (detected by content)."""

from __future__ import annotations

from loomtui.session.manager import SessionManager
from loomtui.session.reader import is_pi_session_file


def open_session(path: str) -> SessionManager:
    if is_pi_session_file(path):
        return SessionManager.open(path)  # the usual case, without importing the loom adapters
    from loomtui.formats.detect import open_any

    return open_any(path)
