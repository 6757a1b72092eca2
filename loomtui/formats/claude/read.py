"""Reading a Claude Code file: the scan (``claude/scan.py``; a big file's tail on a second CPU
when the app started a child for it: ``claude/split.py``), then the file's own tree, tokens and
subagents as one read-only session.
"""

from __future__ import annotations

import os
from typing import Any

from loomtui.formats.agent.kinds import CLAUDE
from loomtui.formats.agent.session import AgentSession, AgentSource, header_for
from loomtui.formats.claude import resume as claude_resume
from loomtui.formats.claude.background import Replay, is_bg_line, replay_of
from loomtui.formats.claude.lines import open_claude_fd, to_pi
from loomtui.formats.claude.scan import Scan
from loomtui.formats.claude.split import scan_file
from loomtui.formats.claude.subagents import file_subagents, inline_subagents, run_parent
from loomtui.formats.claude.tree import (
    Shown,
    deferred_books,
    deferred_usage,
    find_leaf,
    mark_stray,
    names_from_books,
    one_usage,
    session_id_of,
    stats_of,
)
from loomtui.formats.claude.words import CLAUDE_WORDS
from loomtui.session.errors import SessionFormatError
from loomtui.session.memory import bulk_allocation


def _parent_session(sc: Scan, replay: Replay | None) -> dict[str, Any]:
    """The header's ``parentSession``: the session a /branch file or a background fork came from."""
    if replay is not None:
        return {"parentSession": replay.session_id or replay.path}
    return {"parentSession": sc.forked_from} if sc.forked_from else {}


def _replayed(path: str, sc: Scan, src: AgentSource, main: list[int]) -> Replay | None:
    """A background fork (its first line says ``"sessionKind": "bg"``) and the parent beside it:
    the lines it replays from the parent are marked ``from-parent`` (shown in the all filter
    only), so the fork shows what it added, once. None for every other file, and for a fork
    that has added nothing yet (then its replay is all there is to show)."""
    if not sc.skels:
        return None
    first = sc.skels[0]
    try:
        with open(path, "rb") as f:
            f.seek(first.offset)
            raw = f.read(first.size)
    except OSError:
        return None
    if not is_bg_line(raw):
        return None
    replay = replay_of(path, first.id)
    if replay is None or all(sc.skels[i].id in replay.uuids for i in main):
        return None
    for e in sc.skels:
        if e.id in replay.uuids:
            e.hidden = "from-parent"
    src.extra["replayed"] = replay.uuids  # to_pi marks the same lines
    return replay


@bulk_allocation()
def read_claude(path: str, sidechain_root: str | None = None, label_dir: str | None = None) -> AgentSession:
    path = os.path.abspath(path)
    fd = open_claude_fd(path)
    try:
        sc = scan_file(fd, path)
    finally:
        os.close(fd)
    if not sc.skels and not sc.book_lines:
        raise SessionFormatError(f"{path}: no Claude Code lines")
    src = AgentSource(
        CLAUDE,
        path,
        session_id_of(sc, path),
        label_dir=label_dir,
        subagent_opener=open_claude,
        resumer=claude_resume,
        entry_words=CLAUDE_WORDS,
        parent=run_parent(path, sc, sidechain_root),
    )
    src.extra["lines"] = sc.lines
    src.stats = stats_of(sc)
    shown = Shown(sc, sidechain_root, path)
    shown.relink(src)
    skels = sc.skels
    leaf = find_leaf(sc, shown, sc.by_id, sidechain_root is None and len(shown.main) < len(skels))
    if sidechain_root is not None or (shown.main_set is None and sc.side):
        sc.tail_leads = None  # a merged tail's marks are for the non-sidechain lines
    mark_stray(src, sc, shown, leaf, sc.by_id)
    replay = _replayed(path, sc, src, shown.main) if sidechain_root is None else None
    src.deferred = lambda: deferred_usage(src, sc, shown, sidechain_root is not None)
    src.deferred_attached = lambda: deferred_books(src, sc, shown, sidechain_root is not None)
    src.usage_one = one_usage(sc, shown, sidechain_root is not None)
    title = names_from_books(src, sc, shown)
    main = shown.main
    src.span_entries = [skels[i] for i in main] if shown.main_set is not None else skels
    header = header_for(
        src,
        sc.cwd or "",
        skels[main[0]].timestamp if main else None,
        {"tool": CLAUDE, "version": sc.version} | _parent_session(sc, replay),
    )
    names = sc.tool_names
    sm = AgentSession(header, src, lambda m, e, obj: to_pi(src, e.id, e.parent_id, obj, names))
    skeletons = [skels[i] for i in main] if shown.main_set is not None else list(skels)
    if sidechain_root is None and shown.main_set is not None:
        skeletons += inline_subagents(src, sc, main, shown.main_set)
    skeletons += file_subagents(src, sc, shown.has)
    sm.index.build(skeletons)
    sm.index.diagnostics[:0] = sc.diags
    leaf_id = skels[leaf].id if leaf is not None else (skeletons[-1].id if skeletons else None)
    sm.index.leaf_id = leaf_id
    sm._leaf = leaf_id
    if title:
        sm.index.session_name = title
    sm.load_stored_labels()
    return sm


def open_claude(path: str, sidechain_root: str | None = None, label_dir: str | None = None) -> AgentSession:
    """Read a Claude Code session file (``sidechain_root``: only that inline sidechain)."""
    return read_claude(path, sidechain_root, label_dir)
