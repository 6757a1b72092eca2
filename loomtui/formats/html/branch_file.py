"""The page's branch download: the pi session file `loomtui export-branch` writes for the shown
branch (for a Claude Code or Codex session, ``--as pi``), made in the browser from facts read here.

A branch's lines do not depend on which leaf it ends at: an entry's copy is re-linked to the
entry before it on its own path (its ancestors), so each entry's line as written is worked out
once, here, and rides in its record (``line_as_written``: None where it is the record's own line,
``0`` for an entry the export leaves out, a string, or a pair around the export's time for a
source whose entries have no time of their own). What does depend on the leaf, the header's new
id and time, the re-created labels and the name entry, the page makes when the button is pressed
from ``facts`` (docs/formats.md §7.5 for pi's rules).
"""

from __future__ import annotations

import os
import secrets
from typing import Any

from loomtui.session import branch_copy
from loomtui.session.entries import Entry
from loomtui.session.jsstr import js_json
from loomtui.session.manager import SessionManager
from loomtui.session.reader import decode_line

#: the button's words: what the file is
WORDS = "download branch as a pi session (.jsonl)"
#: the keys an entry of an adapted session carries for loomtui alone (left out of a pi copy)
_AGENT_ONLY = ("agentSource", "hidden")


class BranchFile:
    """How each entry of ``manager`` is written into a branch export."""

    def __init__(self, manager: SessionManager) -> None:
        from loomtui.formats.agent.session import AgentSession

        self.manager = manager
        self.agent = isinstance(manager, AgentSession)
        #: an adapted session's file: the pi copy's parent session
        self.agent_path = manager.agent.path if isinstance(manager, AgentSession) else None
        self.own_times = manager.source.keeps_times
        #: stands for the export's time while a line is made (random: no entry holds it)
        self.marker = "@" + secrets.token_hex(12) + "@"
        self._by_id = manager.index.by_id
        self._parent_of = manager.index.parent_of  # the linked parent, as the tree draws it

    # an entry's line -----------------------------------------------------------------------
    def line_as_written(self, e: Entry, line: bytes) -> Any:
        """``e``'s line in the export, from its record ``line`` (see the module's docstring)."""
        if self.agent:
            written = self._agent_line(e, line)
        elif e.type == "label":
            return 0  # pi re-creates the labels after the path
        else:
            relink = self._relink(e, line)
            written = branch_copy.line_as_written(line, e, relink)
            if not self.own_times:
                written = branch_copy.with_own_time(written, self.marker)
        if written == line:
            return None
        text = written.decode("utf-8", errors="replace")
        before, marked, after = text.partition(self.marker)
        return [before, after] if marked else text

    def _agent_line(self, e: Entry, line: bytes) -> bytes:
        """``export_pi``'s line: the entry as loomtui reads it, without loomtui's own keys, on the
        entry before it."""
        obj = decode_line(line)
        if not isinstance(obj, dict):
            return line
        obj = {k: v for k, v in obj.items() if k not in _AGENT_ONLY}
        parent = self._parent_of(e)
        obj["parentId"] = parent.id if parent is not None else None
        return js_json(obj).encode()

    def _relink(self, e: Entry, line: bytes) -> branch_copy.Relink:
        """Where ``e``'s copy goes on any branch through it: after its nearest ancestor that is
        not a label entry; a compaction keeping from a label entry above it keeps from the entry
        that follows that label on its path (``branch_copy.relinks``, without walking every
        path: only that label is looked for)."""
        parent = self._kept_above(e)
        relink = branch_copy.Relink(parent.id if parent is not None else None, parent is None, 0)
        if e.type != "compaction":
            return relink
        obj = decode_line(line)
        first = obj.get("firstKeptEntryId") if isinstance(obj, dict) else None
        label = self._by_id.get(first) if isinstance(first, str) else None
        stands: dict[str, tuple[str, int]] = {}
        if label is not None and label.type == "label":
            after, cur = e, self._parent_of(e)
            seen: set[str] = set()
            while cur is not None and cur.id not in seen and cur.id != label.id:
                seen.add(cur.id)
                if cur.type != "label":
                    after = cur
                cur = self._parent_of(cur)
            if cur is not None and cur.id == label.id:
                stands[label.id] = (after.id, 0)
        return branch_copy.Relink(relink.parent, relink.first, 0, stands)

    def _kept_above(self, e: Entry) -> Entry | None:
        """``e``'s nearest ancestor that is not a label entry."""
        parent = self._parent_of(e)
        seen: set[str] = set()
        while parent is not None and parent.type == "label" and parent.id not in seen:
            seen.add(parent.id)
            parent = self._parent_of(parent)
        return parent

    # what the page makes when asked ----------------------------------------------------------
    def facts(self, pos: dict[str, int]) -> dict[str, Any]:
        """The header's cwd and parent, the entries written after the branch, in order (each
        ``[target, members]``: the position of the entry a label names, -1 for the name entry;
        members as ``[key, value]`` pairs, whose ``id`` and ``parentId`` the page fills, and a
        ``timestamp`` of null the export's time), and the session_info entries on a branch that
        already name the session (1) or not (0) for pi, whose name entry is then left out."""
        m = self.manager
        header = m.header if isinstance(m.header, dict) else {}
        cwd = header.get("cwd")
        if self.agent:  # ``AgentSession.export_pi``: the name, then the labels
            return {
                "cwd": cwd or os.getcwd(),
                "parent": self.agent_path or None,
                "tail": self._agent_tail(pos),
                "infos": {},
            }
        tail, infos = self._pi_tail(pos)
        return {
            "cwd": cwd if isinstance(cwd, str) else os.getcwd(),
            "parent": m.source.path or None,
            "tail": tail,
            "infos": infos,
        }

    def _agent_tail(self, pos: dict[str, int]) -> list[list[Any]]:
        index = self.manager.index
        tail: list[list[Any]] = []
        if index.session_name:
            tail.append([-1, _name_members(index.session_name, None)])
        for target, (label, ts) in index.labels.items():
            if target in pos:
                tail.append([pos[target], _label_members(target, label, ts or None, True)])
        return tail

    def _pi_tail(self, pos: dict[str, int]) -> tuple[list[list[Any]], dict[int, int]]:
        """``branch_entries``: the labels, then the name (``_name_entry``); a source that keeps
        no times dates them at the export (``branch_copy.dated_at``)."""
        index = self.manager.index
        tail: list[list[Any]] = []
        for target, (label, ts) in index.labels.items():
            e = index.by_id.get(target)
            if target not in pos or e is None or e.type == "label":
                continue
            members = _label_members(target, label, ts, ts is not None)
            if not self.own_times and ts is None:
                members.append(["timestamp", None])
            elif not self.own_times and (not isinstance(ts, str) or ts.startswith("1970-")):
                members[3][1] = None
            tail.append([pos[target], members])
        name = index.session_name
        infos: dict[int, int] = {}
        if name is not None:
            named = next((e for e in reversed(index.entries) if e.type == "session_info"), None)
            ts = named.timestamp if named is not None and named.timestamp and self.own_times else None
            tail.append([-1, _name_members(name, ts)])
            for e in index.entries:
                if e.type == "session_info" and e.id in pos:
                    infos[pos[e.id]] = int(isinstance(e.text, str) and e.text.strip() == name)
        return tail, infos


def _label_members(target: str, label: str, ts: str | None, timed: bool) -> list[list[Any]]:
    members: list[list[Any]] = [["type", "label"], ["id", None], ["parentId", None]]
    if timed:
        members.append(["timestamp", ts])
    return [*members, ["targetId", target], ["label", label]]


def _name_members(name: str, ts: str | None) -> list[list[Any]]:
    return [["type", "session_info"], ["id", None], ["parentId", None], ["timestamp", ts], ["name", name]]
