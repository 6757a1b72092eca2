"""Where loomtui's cache lives and how big it may grow: the folder (``LOOMTUI_CACHE_DIR``, else
the XDG cache), its files' suffixes, the size bounds, and removing the least recently used files
past the bound. What goes in the files is ``session/indexcache.py``'s."""

from __future__ import annotations

import os

SUFFIX = ".lti"
#: entries appended since the base file was written, tied to it by its checksum
DELTA_SUFFIX = ".ltd"
#: other files kept per session file beside the index (``formats/opening/tree_memo.py``: printed rows;
#: ``formats/opening/flat_cache.py``: the flattened tree),
#: counted in the LRU bound and removed with the index
SIDE_SUFFIXES = (".ltr", ".ltf", ".ltx")
DEFAULT_MAX = 1 << 30
DEFAULT_MIN = 1 << 20


def enabled() -> bool:
    return os.environ.get("LOOMTUI_NO_CACHE", "").strip() not in ("1", "true", "yes", "on")


def cache_dir() -> str:
    explicit = os.environ.get("LOOMTUI_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "loomtui")


def _int_env(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


def min_bytes() -> int:
    return _int_env("LOOMTUI_CACHE_MIN_BYTES", DEFAULT_MIN)


def max_bytes() -> int:
    return _int_env("LOOMTUI_CACHE_MAX", DEFAULT_MAX)


def prune(directory: str, limit: int, keep: str | None = None) -> None:
    """Remove least recently used cache files until they total at most ``limit`` bytes."""
    try:
        names = [n for n in os.listdir(directory) if n.endswith(SUFFIX) or n.endswith(SIDE_SUFFIXES)]
    except OSError:
        return
    files: list[tuple[int, int, str]] = []
    total = 0
    for n in names:
        p = os.path.join(directory, n)
        try:
            st = os.stat(p)
        except OSError:
            continue
        files.append((st.st_mtime_ns, st.st_size, p))
        total += st.st_size
    files.sort()
    for _mtime, size, p in files:
        if total <= limit:
            break
        if p == keep:
            continue
        try:
            os.unlink(p)
        except OSError:
            continue
        total -= size
        if p.endswith(SUFFIX):
            for other in (DELTA_SUFFIX, *SIDE_SUFFIXES):
                try:
                    os.unlink(p[: -len(SUFFIX)] + other)
                except OSError:
                    pass
