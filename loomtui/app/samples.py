"""The bundled sample sessions as the app shows them: the user's own copies, never the package's
files.

On a machine without sessions the picker lists the samples, and they are there to be tried:
labelled (Alt+L), the leaf persisted (Ctrl+S), branches archived (Alt+A), exported. Each of
those appends to the file or writes beside it, and the bundled files are part of the package
(the clone's tracked files, or an installed tool's directory), which must never change. So the
samples are copied once into the user's data directory (``$XDG_DATA_HOME/loomtui/samples``,
default ``~/.local/share/loomtui/samples``) and the copies are listed and opened: everything
works on them as on any session, and what was done stays there from one run to the next (a copy
is made only where there is none). Opening a bundled file by its path opens the copy instead.
Where the data directory cannot be written, the copies go into a temporary directory and the
picker says so.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass

from loomtui.session.locations import in_bundled_samples, sample_dir


@dataclass(frozen=True)
class Samples:
    """Where the copies are, and why they are not in the data directory (None: they are)."""

    where: str
    problem: str | None = None


def copies_dir() -> str:
    """The user's copies of the samples (``$XDG_DATA_HOME/loomtui/samples``)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "loomtui", "samples")


def bundled_names() -> list[str]:
    try:
        return sorted(n for n in os.listdir(sample_dir()) if n.endswith(".jsonl") and not n.startswith("."))
    except OSError:
        return []


def is_bundled(path: str) -> bool:
    """Whether ``path`` is one of the package's own sample files."""
    return in_bundled_samples(path) and os.path.basename(path) in bundled_names()


def user_samples() -> Samples:
    """Every bundled sample copied where the user may write (those already copied are kept as
    the user left them); the directory to list."""
    where = copies_dir()
    try:
        _copy_missing(where)
        return Samples(where)
    except OSError as exc:
        fallback = tempfile.mkdtemp(prefix="loomtui-samples-")
        _copy_missing(fallback)
        return Samples(fallback, f"{where} could not be written ({exc.strerror or exc})")


def user_copy(path: str) -> str:
    """The user's copy of the bundled sample ``path`` (made now if there is none)."""
    return os.path.join(user_samples().where, os.path.basename(path))


def _copy_missing(where: str) -> None:
    os.makedirs(where, exist_ok=True)
    for name in bundled_names():
        target = os.path.join(where, name)
        if not os.path.exists(target):
            part = os.path.join(where, f".{name}.{os.getpid()}.part")
            shutil.copyfile(os.path.join(sample_dir(), name), part)
            os.chmod(part, 0o644)  # an installed package's files may be read-only
            os.replace(part, target)  # whole or not at all: never a half-copied sample


def note(tools: str, places: str, samples: Samples) -> str:
    """What the picker says above the samples."""
    text = (
        f"No {tools} sessions found in {places}. These are copies of loomtui's sample sessions, in "
        f"{samples.where}: labels, archives and exports go there, never into loomtui itself."
    )
    return text + (f" ({samples.problem}.)" if samples.problem else "")
