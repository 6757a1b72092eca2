"""Open any file loomtui understands: pi/omp sessions, and other looms when formats can."""

from __future__ import annotations

from loomtui.session.manager import SessionManager


def open_session(path: str) -> SessionManager:
    try:
        from loomtui.formats.detect import open_any
    except ImportError:
        return SessionManager.open(path)
    return open_any(path)
