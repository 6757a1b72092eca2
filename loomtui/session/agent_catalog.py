"""Other agents' sessions in the picker, whatever the tool: the lister each one provides, the
walk of its folders and the row it reads of one file.

What a tool's files look like is its own package's knowledge (``formats/<tool>/lister.py``, one
``AgentLister`` each); this layer may not import those packages, so the layer above hands it
their listers (``formats/sources.py``, ``LISTERS``) through ``use_listers``. The catalog lists
their folders beside pi's and summarises their files with them (``catalog.py``), full-text
search reads their lines with them (``fulltext.py``), and the picker tags their rows.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: how far into a file, and how many lines, the first real JSON line is looked for
SNIFF_BYTES = 256 * 1024
SNIFF_LINES = 40


@dataclass(frozen=True, slots=True)
class AgentRow:
    """What a lister reads of one file for the picker. The times are as the file writes them
    (ISO strings or numbers: ``catalog.agent_summary`` turns them into seconds); a row without
    an ``id`` is no session."""

    id: str | None
    cwd: str | None
    name: str | None
    first_message: str | None
    created: Any
    modified: Any
    message_count: int
    branch_count: int
    parent: str | None
    entry_count: int


@dataclass(frozen=True, slots=True)
class Layout:
    """Where a tool's session files sit under each of its folders."""

    #: whether a file of this name holds a session
    is_session: Callable[[str], bool]
    #: the depths of the folders whose files are listed (the root is 0); deeper ones are not walked
    depths: tuple[int, int]
    #: whether folders whose name starts with a dot are walked
    hidden_folders: bool = True
    #: whether folders that are symbolic links are walked
    linked_folders: bool = True


@dataclass(frozen=True, slots=True)
class AgentLister:
    """How the picker lists one tool's sessions, given by the tool's package."""

    #: ``SessionSummary.tool`` of its rows (the kind its files open as)
    tool: str
    #: the word its rows start with in the picker
    tag: str
    #: what the user calls the tool ("… sessions found in" names it)
    name: str
    #: the folders where the tool keeps sessions (existing or not), from the environment
    roots: Callable[[Mapping[str, str]], list[str]]
    layout: Layout
    #: whether a file whose first JSON line (an object) is this one is the tool's
    claims: Callable[[dict[str, Any]], bool]
    #: the picker's row of one file (its path, its bytes)
    row: Callable[[str, bytes], AgentRow]
    #: (kind, searchable text, entry id as loomtui's reader gives it) of one decoded line and its
    #: 1-based number ('' when the line has nothing to search)
    search_text: Callable[[dict[str, Any], int], tuple[str, str, str | None]]


#: what gives the listers: none until the layer above names them (``use_listers``)
_provider: list[Callable[[], Sequence[AgentLister]]] = []


def use_listers(provider: Callable[[], Sequence[AgentLister]]) -> None:
    """Have the catalog, full-text search and the picker ask ``provider`` for the listers (it is
    called at each listing: it may import them when first asked)."""
    _provider[:] = [provider]


def listers() -> Sequence[AgentLister]:
    """The listers of the tools whose folders are listed beside pi's, in the order they are."""
    return _provider[0]() if _provider else ()


def home_from_env(env: Mapping[str, str], name: str, default: str) -> str:
    """The folder the environment variable ``name`` names, else ``default`` (``~`` expanded)."""
    value = env.get(name)
    return os.path.expanduser(value) if value else os.path.expanduser(default)


def agent_roots(env: Mapping[str, str] | None = None) -> list[tuple[AgentLister, str]]:
    """(lister, folder) of every place a listed tool keeps sessions (existing or not)."""
    env = os.environ if env is None else env
    return [(lister, root) for lister in listers() for root in lister.roots(env)]


def session_files(root: str, layout: Layout) -> list[str]:
    """The session files under ``root`` as ``layout`` places them: each folder's sorted, the
    folders walked in sorted order, depth first; unreadable folders are skipped."""
    low, high = layout.depths
    out: list[str] = []
    stack = [(root, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        if depth >= low:
            out += [e.path for e in entries if layout.is_session(e.name) and e.is_file()]
        if depth < high:
            stack += [
                (e.path, depth + 1)
                for e in reversed(entries)
                if e.is_dir(follow_symlinks=layout.linked_folders)
                and (layout.hidden_folders or not e.name.startswith("."))
            ]
    return out


def json_lines(buf: bytes) -> Iterator[tuple[int, dict[str, Any]]]:
    """(1-based line, decoded object) of every line of ``buf`` that is a JSON object."""
    import orjson  # imported when first used: the app's start reads no other agent's file

    for n, raw in enumerate(buf.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            yield n, obj


def lister_of(buf: bytes) -> AgentLister | None:
    """The lister of the tool whose file ``buf`` is: the first that claims its first JSON line."""
    import orjson

    for raw in buf[:SNIFF_BYTES].split(b"\n")[:SNIFF_LINES]:
        if not raw.strip():
            continue
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(obj, dict):
            return None
        return next((lister for lister in listers() if lister.claims(obj)), None)
    return None


def joined_text(content: Any) -> str:
    """A message's text: a string, or its text blocks (``text``, ``input_text``,
    ``output_text``) joined with spaces."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            b["text"]
            for b in content
            if isinstance(b, dict)
            and isinstance(b.get("text"), str)
            and b.get("type") in ("text", "input_text", "output_text")
        )
    return ""
