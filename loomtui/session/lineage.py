"""Projects and forks: sessions grouped by working directory with forks threaded under their
parents, and the one resolver of a ``parentSession`` reference (docs/formats.md §3, §16 item 6).
No Textual here.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from loomtui.session import agent_catalog, resume_search
from loomtui.session.catalog import SessionSummary, list_sessions
from loomtui.session.fileio import referenced_path


@dataclass(frozen=True, slots=True)
class ProjectGroup:
    """The sessions of one working directory, threaded: each item is (summary, fork depth)."""

    cwd: str
    items: tuple[tuple[SessionSummary, int], ...]

    @property
    def newest(self) -> float:
        return max(s.modified for s, _d in self.items)

    @property
    def noun(self) -> str:
        """What its items are called ("session"; "run" for a group of OCP runs)."""
        nouns = {s.noun for s, _d in self.items}
        return nouns.pop() if len(nouns) == 1 else "session"


class Lineage:
    """Finds a session's parent among listed sessions: by path, by id (omp stores the parent's
    id), else by file name (pi's ``<ts>_<id>.jsonl`` is unique, so a parent path recorded on
    another machine or before a move still resolves)."""

    def __init__(self, sessions: Iterable[SessionSummary]) -> None:
        self.by_path: dict[str, SessionSummary] = {}
        self.by_id: dict[str, SessionSummary] = {}
        self.by_name: dict[str, SessionSummary] = {}
        for s in sessions:
            self.by_path.setdefault(os.path.normpath(s.path), s)
            self.by_id.setdefault(s.id, s)
            self.by_name.setdefault(os.path.basename(s.path), s)

    def parent_of(self, s: SessionSummary) -> SessionSummary | None:
        ref = s.parent_session
        if not ref:
            return None
        hit = (
            self.by_path.get(os.path.normpath(os.path.expanduser(ref)))
            or self.by_id.get(ref)
            or (self.by_name.get(os.path.basename(ref)) if ref.endswith(".jsonl") else None)
        )
        return hit if hit is not None and hit is not s else None


def resolve_parent(ref: str | None, near: str | None, sessions: Iterable[SessionSummary]) -> str | None:
    """The one parent resolver: the file a ``parentSession`` reference means (docs/formats.md §3, §16 item
    6). The path itself when it exists (a relative one next to ``near``), else one of
    ``sessions`` with that path, that id (omp) or that file name (a pi path from before a move);
    never ``near`` itself."""
    if not ref:
        return None
    p = referenced_path(ref, near)
    if p is not None and p.endswith(".jsonl") and os.path.isfile(p):
        return os.path.abspath(p)
    probe = SessionSummary(near or "", "", "", None, "", 0.0, 0.0, 0, 0, ref, 3, 0, 0)
    hit = Lineage(sessions).parent_of(probe)
    if hit is None or (near and os.path.normpath(hit.path) == os.path.normpath(near)):
        return None
    return hit.path


def parent_path(s: SessionSummary, sessions: Iterable[SessionSummary]) -> str | None:
    """The file of ``s``'s parent session, among the listed ``sessions`` or on disk."""
    return resolve_parent(s.parent_session, s.path, sessions)


def find_session_file(ref: str, near: str | None = None, dirs: Iterable[str] | None = None) -> str | None:
    """``resolve_parent`` over the sessions in ``dirs`` (default: pi's and omp's roots and the
    other agents' folders, ``agent_catalog.agent_roots``, where a fork another agent wrote names
    its parent by id) and ``near``'s directory, read only when the reference is not an existing
    path. For a browser's "open parent session"."""
    direct = resolve_parent(ref, near, ())
    if direct is not None or not ref:
        return direct
    extra = [os.path.dirname(os.path.abspath(near))] if near else []
    return resolve_parent(ref, near, list_sessions(None if dirs is None else list(dirs), extra=extra))


def searched_folders() -> str:
    """Where ``find_session_file`` looks by default, in words ("the session folders of pi, omp,
    Claude Code and Codex")."""
    tools = ["pi", "omp", *(lister.name for lister in agent_catalog.listers())]
    return f"the session folders of {', '.join(tools[:-1])} and {tools[-1]}"


def group_sessions(sessions: Iterable[SessionSummary]) -> list[ProjectGroup]:
    """Sessions grouped by the header's cwd (never the bucket name, docs/formats.md §1.1), the project with
    the newest session first; in a project, newest first with forks threaded under their parent
    session (pi's /resume "threaded" view) when the parent is in the same project."""
    sessions = list(sessions)
    lineage = Lineage(sessions)
    by_cwd: dict[str, list[SessionSummary]] = {}
    for s in sessions:
        by_cwd.setdefault(s.cwd, []).append(s)
    groups: list[ProjectGroup] = []
    for cwd, members in by_cwd.items():
        member_paths = {s.path for s in members}
        kids: dict[str, list[SessionSummary]] = {}
        roots: list[SessionSummary] = []
        for s in members:
            p = lineage.parent_of(s)
            if p is not None and p.path in member_paths and not _forks_back(s, lineage):
                kids.setdefault(p.path, []).append(s)
            else:
                roots.append(s)
        newest: dict[str, float] = {}

        def thread_newest(s: SessionSummary, depth: int = 0) -> float:
            """A thread is as recent as its newest session (forks keep a thread on top)."""
            hit = newest.get(s.path)  # noqa: B023 (called within this iteration)
            if hit is None:
                hit = s.modified
                if depth < 1000:
                    for k in kids.get(s.path, ()):  # noqa: B023 (called within this iteration)
                        hit = max(hit, thread_newest(k, depth + 1))
                newest[s.path] = hit  # noqa: B023 (called within this iteration)
            return hit

        def order(s: SessionSummary) -> tuple[float, float, str]:
            return (-thread_newest(s), -s.modified, s.path)

        items: list[tuple[SessionSummary, int]] = []
        stack = [(s, 0) for s in sorted(roots, key=order, reverse=True)]
        while stack:
            s, depth = stack.pop()
            items.append((s, depth))
            stack.extend((k, depth + 1) for k in sorted(kids.get(s.path, ()), key=order, reverse=True))
        groups.append(ProjectGroup(cwd, tuple(items)))
    groups.sort(key=lambda g: (-g.newest, g.cwd))
    return groups


def _forks_back(s: SessionSummary, lineage: Lineage) -> bool:
    """True when following parents from ``s`` comes back to ``s`` (a lineage cycle)."""
    seen = {s.path}
    cur = lineage.parent_of(s)
    while cur is not None:
        if cur.path in seen:
            return cur.path == s.path
        seen.add(cur.path)
        cur = lineage.parent_of(cur)
    return False


def matches_filter(s: SessionSummary, tokens: list[str]) -> bool:
    """True when every token matches the session by pi's ``/resume`` rules (session/resume_search.py)."""
    return resume_search.match_score(search_fields(s), resume_search.parse_query(" ".join(tokens))) is not None


def search_fields(s: SessionSummary, texts: Mapping[str, str] | None = None) -> resume_search.SearchFields:
    """What the picker's filter searches: the name, id, project and message text (``texts`` by
    path, session/picker_texts.py; the first message where it is not known)."""
    text = texts.get(s.path) if texts is not None else None
    return resume_search.SearchFields(s.name or "", s.id, s.cwd, s.first_message if text is None else text)


def filtered_groups(
    groups: Iterable[ProjectGroup], query: str, texts: Mapping[str, str] | None = None
) -> list[ProjectGroup]:
    """The picker's type-to-filter (pi's ``/resume`` search, session/resume_search.py): a blank
    query keeps the threads; otherwise each project lists its matching sessions unthreaded, best
    match first then newest, and the project with the best match comes first."""
    groups = list(groups)
    if resume_search.parse_query(query).empty:
        return groups
    found: list[tuple[float, int, ProjectGroup]] = []
    for n, group in enumerate(groups):
        ranked = resume_search.rank(
            (s for s, _d in group.items), query, lambda s: search_fields(s, texts), lambda s: s.modified
        )
        if ranked:
            found.append((ranked[0][1], n, ProjectGroup(group.cwd, tuple((s, 0) for s, _score in ranked))))
    found.sort(key=lambda f: (f[0], f[1]))
    return [g for _score, _n, g in found]
