"""Where sessions live: pi's and omp's session roots, the bundled samples, pi's directory for a
project, where a branch export goes, and the session files under a set of directories.

docs/formats.md §1 (locations). No Textual here.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import Any


def home_dir() -> str:
    """The home directory paths are shortened under (``~/…``), as pi takes it."""
    return os.environ.get("HOME") or os.environ.get("USERPROFILE") or ""


def _agent_dir(env_name: str, default: str, env: dict[str, str] | os._Environ[str]) -> str:
    """``$<APP>_CODING_AGENT_DIR`` with a leading ``~`` expanded, else ``default`` (docs/formats.md §1.1)."""
    value = env.get(env_name)
    if value:
        return os.path.expanduser(value) if value.startswith("~") else value
    return os.path.expanduser(default)


def default_session_dirs(env: dict[str, str] | os._Environ[str] | None = None) -> list[str]:
    """pi's and omp's sessions roots (whether or not they exist)."""
    env = os.environ if env is None else env
    return [
        os.path.join(_agent_dir("PI_CODING_AGENT_DIR", "~/.pi/agent", env), "sessions"),
        os.path.join(_agent_dir("OMP_CODING_AGENT_DIR", "~/.omp/agent", env), "sessions"),
    ]


def sample_dir() -> str:
    """The bundled ``sample_sessions/`` directory (what the app shows on a machine without any)."""
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (
        os.path.join(os.path.dirname(here), "sample_sessions"),  # inside an installed wheel
        os.path.join(os.path.dirname(os.path.dirname(here)), "sample_sessions"),  # source tree
    ):
        if os.path.isdir(candidate):
            return candidate
    return os.path.join(os.path.dirname(os.path.dirname(here)), "sample_sessions")


def in_bundled_samples(path: str) -> bool:
    """Whether ``path`` lies in the bundled ``sample_sessions/`` (part of loomtui itself: never
    written; the app works on the user's copies)."""
    try:
        return os.path.realpath(os.path.dirname(os.path.abspath(path))) == os.path.realpath(sample_dir())
    except (OSError, ValueError):
        return False


def pi_session_dir(cwd: str, env: dict[str, str] | os._Environ[str] | None = None) -> str:
    """pi's session directory for a project (``getDefaultSessionDir``): ``--<cwd>--`` under
    its sessions root, the leading separator dropped and the others turned into ``-``."""
    env = os.environ if env is None else env
    body = cwd[1:] if cwd[:1] in ("/", "\\") else cwd
    safe = "--" + re.sub(r"[/\\:]", "-", body) + "--"
    return os.path.join(_agent_dir("PI_CODING_AGENT_DIR", "~/.pi/agent", env), "sessions", safe)


def export_dir(source: str | None, cwd: Any, home: str | None = None) -> str:
    """Where a branch export goes unless the user says otherwise: next to its source (or in
    ``home``, the folder its tool lists it in), but never into the bundled samples (the install)
    nor a directory that cannot be written: there pi's session directory for the session's cwd
    (pi lists it with the project), else the current directory."""
    if source:
        here = home or os.path.dirname(os.path.abspath(source))
        inside_samples = os.path.realpath(here) == os.path.realpath(sample_dir())
        if not inside_samples and os.access(here, os.W_OK):
            return here
    if isinstance(cwd, str) and cwd.strip():
        return pi_session_dir(cwd)
    return os.getcwd()


def discover(dirs: Iterable[str]) -> list[str]:
    """Session files in ``dirs``: ``*.jsonl`` directly inside each, and one level of bucket dirs.

    pi's ``listAll`` reads ``<root>/--<cwd>--/*.jsonl``; omp's newer buckets are named
    ``-<rel>`` or ``-tmp-<rel>`` (docs/formats.md §1.2), and a directory given with ``--sessions-dir`` may
    hold files directly. An omp session's artifacts directory (the session path without
    ``.jsonl``, holding subagent transcripts) is not a bucket and is skipped. Each file is
    listed once, however many of ``dirs`` reach it.
    """
    seen: set[str] = set()
    out: list[str] = []

    def add(real_dir: str, path: str) -> None:
        # resolving the directory, not each file, keeps this to one realpath per bucket
        key = os.path.join(real_dir, os.path.basename(path))
        if key not in seen:
            seen.add(key)
            out.append(path)

    for root in dirs:
        root = os.path.abspath(os.path.expanduser(root))
        try:
            with os.scandir(root) as it:
                items = sorted(it, key=lambda d: d.name)
        except OSError:
            continue
        real_root = os.path.realpath(root)
        names = {d.name for d in items}
        for d in items:
            if d.name.startswith("."):
                continue
            if d.name.endswith(".jsonl"):
                if d.is_file():
                    add(real_root, d.path)
            elif d.is_dir() and d.name + ".jsonl" not in names:
                try:
                    with os.scandir(d.path) as inner:
                        files = sorted(
                            f.path
                            for f in inner
                            if f.name.endswith(".jsonl") and not f.name.startswith(".") and f.is_file()
                        )
                except OSError:
                    continue
                real_dir = os.path.realpath(d.path)
                for f in files:
                    add(real_dir, f)
    return out
