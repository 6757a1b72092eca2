"""Subagents of a Claude Code session, each shown as one row under the tool call that started it.

* 1.0.x: sidechains inline in the file (``isSidechain``, their own root), matched to the
  ``Task`` call whose ``prompt`` they received; unmatched ones go after the line before them.
* 2.0.x ``agent-<id>.jsonl`` beside the session and 2.1.x ``<session>/subagents/agent-<id>.jsonl``
  (with ``agent-<id>.meta.json``): linked by the tool result's ``toolUseResult.agentId``.

``AgentSession.open_subagent`` opens the run behind a row as its own session; ``run_parent``
says which session such a run is part of (Ctrl+G opens it, at the run's row).
"""

from __future__ import annotations

import bisect
import os
import re
from collections import defaultdict
from typing import Any

import orjson

from loomtui.formats.agent.kinds import CLAUDE
from loomtui.formats.agent.session import AgentSource, Subagent
from loomtui.formats.claude.scan import Scan
from loomtui.session.entries import Entry
from loomtui.session.errors import Diagnostic, LoomError
from loomtui.session.fileio import contained, open_regular_file, read_regular
from loomtui.session.manager import entry_from_dict
from loomtui.session.source import ParentSession
from loomtui.view.words import counted


def _placeholder(src: AgentSource, sub: Subagent, parent: str | None, ts: Any) -> Entry:
    src.subagents[sub.entry_id] = sub
    d = {
        "type": "custom_message",
        "id": sub.entry_id,
        "parentId": parent,
        "timestamp": ts,
        "customType": "subagent",
        "content": f"{sub.description} · {counted(sub.entries, 'entry', 'entries')} · Enter opens it",
        "display": True,
        "agentSource": {"tool": CLAUDE, "kind": "subagent", "file": sub.path, "root": sub.root, "call": sub.call_id},
    }
    e = entry_from_dict(d)
    assert e is not None
    return e


def inline_subagents(src: AgentSource, sc: Scan, main: list[int], main_set: set[int]) -> list[Entry]:
    """1.0.x: sidechains inline in the file, matched to their Task call by the prompt they got."""
    if not sc.side_roots:
        return []
    kids = sc.kids
    by_prompt: dict[str, list[str]] = defaultdict(list)
    for cid, (i, inp) in sc.agent_calls.items():
        if i in main_set and isinstance(inp.get("prompt"), str):
            by_prompt[inp["prompt"].strip()].append(cid)
    used: set[str] = set()
    out = []
    main_lines = [sc.skels[i].line for i in main]
    for i, prompt in sc.side_roots.items():
        cid = next((c for c in by_prompt.get(prompt, ()) if c not in used), None)
        if cid is not None:
            used.add(cid)
            inp = sc.agent_calls[cid][1]
            host = sc.results.get(cid, sc.agent_calls[cid][0])
            if host not in main_set:
                host = sc.agent_calls[cid][0]
        else:
            inp = {}
            k = bisect.bisect_left(main_lines, sc.skels[i].line) - 1
            host = main[k] if k >= 0 else main[0]
        desc = inp.get("description") or " ".join(prompt.split())[:60] or "sidechain"
        sub = Subagent(
            f"agent:{sc.skels[i].id}",
            cid,
            f"{desc} ({inp.get('subagent_type') or 'sidechain'})",
            src.path,
            root=sc.skels[i].id,
            entries=len(_subtree(i, sc, kids)),
        )
        out.append(_placeholder(src, sub, sc.skels[host].id, sc.skels[i].timestamp))
    return out


def file_subagents(src: AgentSource, sc: Scan, in_main: Any) -> list[Entry]:
    """2.0.x ``agent-<id>.jsonl`` beside the session, 2.1.x ``<session>/subagents/agent-<id>.jsonl``:
    linked by the tool result's ``toolUseResult.agentId``."""
    out = []
    folder = os.path.dirname(src.path)
    stem = os.path.splitext(os.path.basename(src.path))[0]
    for i, agent, call in sc.agent_ids:
        if not in_main(i) or not re.fullmatch(r"[A-Za-z0-9_-]{1,80}", agent):
            continue
        found = _subagent_file(folder, (stem, src.session_id), agent, sc, i)
        if found is None or f"agent:{agent}" in src.subagents:
            continue
        desc = kind = None
        try:
            meta = orjson.loads(read_regular(found[: -len(".jsonl")] + ".meta.json"))
            if isinstance(meta, dict):
                desc, kind = meta.get("description"), meta.get("agentType")
        except (OSError, LoomError, orjson.JSONDecodeError):
            pass
        inp = sc.agent_calls.get(call, (0, {}))[1] if isinstance(call, str) else {}
        desc = desc or inp.get("description") or f"agent {agent}"
        try:
            with open_regular_file(found) as f:
                count = sum(1 for ln in f if b'"uuid"' in ln)
        except (OSError, LoomError):
            count = 0
        label = f"{desc} ({kind or inp.get('subagent_type') or 'subagent'})"
        sub = Subagent(f"agent:{agent}", call if isinstance(call, str) else None, label, found, entries=count)
        out.append(_placeholder(src, sub, sc.skels[i].id, sc.skels[i].timestamp))
    return out


def _subagent_file(folder: str, names: tuple[str, str], agent: str, sc: Scan, i: int) -> str | None:
    """Where ``agent-<agent>.jsonl`` is: under ``<folder>/<name>/subagents`` for the file's stem
    and its ``sessionId``, or beside the session; only inside ``folder`` (a ``sessionId`` such
    as ``../x`` or an absolute path is a diagnostic, not a read) and only a regular file."""
    for parts in ((names[0], "subagents"), (names[1], "subagents"), ()):
        cand = contained(folder, *parts, f"agent-{agent}.jsonl")
        if cand is None:
            sc.diags.append(
                Diagnostic(
                    sc.skels[i].line,
                    f"subagent {agent}: the folder {parts[0] if parts else '.'!r} "
                    "leaves the session's folder; not read",
                )
            )
            continue
        if os.path.isfile(cand):
            return cand
    return None


def _subtree(start: int, sc: Scan, kids: dict[Any, list[int]]) -> list[int]:
    out = []
    stack = [start]
    while stack:
        i = stack.pop()
        out.append(i)
        stack.extend(kids.get(sc.skels[i].id, ()))
    return out


def run_parent(path: str, sc: Scan, sidechain_root: str | None) -> ParentSession | None:
    """The session a subagent run is part of (``Source.parent``): for an inline sidechain
    (``sidechain_root``), the conversation of its own file; for a subagent file (every line a
    sidechain), the session file whose ``sessionId`` its lines carry, where Claude Code keeps it
    (``<session>.jsonl`` beside the ``<session>/subagents`` folder, or beside a 2.0.x
    ``agent-<id>.jsonl``), else found by that id in the session folders. Selected in it: the row
    the run hangs under (``agent:<root>``, ``agent:<id>``). None for a session's own file."""
    sid = sc.session_id
    if sidechain_root is not None:
        ref = sid or os.path.splitext(os.path.basename(path))[0]
        missing = f"This is a subagent run of the Claude Code session {ref}, whose file {path} is gone."
        return ParentSession(ref, lambda: path if os.path.isfile(path) else None, missing, f"agent:{sidechain_root}")
    if not sc.skels or len(sc.side) < len(sc.skels):
        return None  # a session's own conversation, not a run
    here = os.path.dirname(path)
    stem = os.path.splitext(os.path.basename(path))[0]
    agent = stem[len("agent-") :] if stem.startswith("agent-") else None
    if os.path.basename(here) == "subagents":  # 2.1.x: <project>/<session>/subagents/agent-<id>.jsonl
        folder = os.path.dirname(here)
        beside = os.path.join(os.path.dirname(folder), os.path.basename(folder) + ".jsonl")
        sid = sid or os.path.basename(folder)
    elif sid:  # 2.0.x: agent-<id>.jsonl beside <session>.jsonl
        beside = os.path.join(here, f"{sid}.jsonl")
    else:
        return None  # no line names its session
    ref = sid

    def find() -> str | None:
        if os.path.isfile(beside) and os.path.abspath(beside) != path:
            return beside
        from loomtui.session.lineage import find_session_file  # the session folders, by the id

        return find_session_file(ref, near=path)

    missing = (
        f"This is a subagent run of the Claude Code session {ref}, whose file was not found "
        f"(looked for {beside}, and for the session's id in the session folders loomtui lists)."
    )
    return ParentSession(ref, find, missing, f"agent:{agent}" if agent else None)
