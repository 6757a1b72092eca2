"""Where pi's own code, the judge of the oracle tests, is installed, and how to run it.

``../shared/oracle/ensure_peer.sh`` installs into ``$PI_PEER`` (default ``/tmp/peer``) pi's
current release (``PI_CURRENT``, 1.6.0, the reference), the last release under the old npm name
(``PI_OLD``, 0.73.1, kept to prove that the files it wrote still open the same way) and Node 22
(``$PI_PEER/bin/node``: pi 1.6.0 needs Node >= 22.19). The shared oracle scripts pick the
package from ``PI_PKG``; ``oracle_env`` sets it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.shared_material import absent, needs

PEER = Path(os.environ.get("PI_PEER", "/tmp/peer"))
#: pi 1.6.0: the release every rule follows (docs/pi-releases.md)
PI_CURRENT = "@earendil-works/pi-coding-agent"
#: pi 0.73.1: the files it wrote must still open the same way
PI_OLD = "@mariozechner/pi-coding-agent"
#: Node 22 from ensure_peer.sh; the machine's own node (20) runs only 0.73.1
_PEER_NODE = PEER / "bin" / "node"
NODE: str | None = str(_PEER_NODE) if _PEER_NODE.exists() else shutil.which("node")


def package_dir(package: str = PI_CURRENT) -> Path:
    """The installed package's directory (``…/node_modules/<package>``)."""
    return PEER / "node_modules" / package


def session_manager_js(package: str = PI_CURRENT) -> Path:
    """pi's SessionManager module in ``package``."""
    return package_dir(package) / "dist" / "core" / "session-manager.js"


def available(package: str = PI_CURRENT) -> bool:
    """Whether ``package`` and a node able to run it are installed."""
    if NODE is None or not session_manager_js(package).exists():
        return False
    return package != PI_CURRENT or _PEER_NODE.exists()


def missing(*packages: str) -> str | None:
    """What is missing to run ``packages`` (None: all there)."""
    gone = [p for p in packages if not available(p)]
    if not gone:
        return None
    return f"pi's code ({', '.join(gone)} and Node 22 in {PEER}: run ../shared/oracle/ensure_peer.sh)"


def needs_pi(*packages: str) -> pytest.MarkDecorator:
    """A mark: skip (saying why; fail on CI) when a package (default ``PI_CURRENT``) or its node
    is missing."""
    return needs(missing(*(packages or (PI_CURRENT,))))


def require_pi(*packages: str) -> None:
    """Inside a test: skip (fail on CI) when a package (default ``PI_CURRENT``) is missing."""
    why = missing(*(packages or (PI_CURRENT,)))
    if why is not None:
        absent(why)


def oracle_env(package: str = PI_CURRENT, **extra: str) -> dict[str, str]:
    """The environment the shared oracle scripts run in: ``PI_PKG`` names the package, HOME is
    the fixed ``/home/user`` their tool-call rows are shortened against."""
    return {**os.environ, "PI_PEER": str(PEER), "PI_PKG": package, "HOME": "/home/user", **extra}
