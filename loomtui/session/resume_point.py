"""Where pi resumes, and how that point is written: the one code path of Ctrl+S and of
``loomtui resume`` on a pi / oh-my-pi session.

pi 1.6.0 opens a session at its file's last entry (its SessionManager takes the last line as
the leaf). To make pi resume at an earlier entry, loomtui appends one ``label`` entry parented
on it (re-stating the entry's label, or with none): pi leaves label entries out of the model's
context and its /tree hides them, so pi resumes there and nothing else changes.

Which entry that is follows pi's /tree (navigateTree): a user message or a ``custom_message``
resumes at its parent, its text going back into the editor; any other entry at itself.
Whether pi already resumes there (nothing to append) is ``view/file_end.py``'s rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from loomtui.session.entries import content_text
from loomtui.session.errors import LoomError

if TYPE_CHECKING:
    from loomtui.session.manager import SessionManager


@dataclass(frozen=True, slots=True)
class ResumePoint:
    """What pi's /tree makes of a selected entry."""

    entry_id: str
    #: where the agent resumes (None: before the first entry, a root user message)
    leaf: str | None
    #: a user message's text, which pi puts back into the editor
    editor_text: str | None


def resume_point(manager: SessionManager, entry_id: str) -> ResumePoint:
    e = manager.index.by_id.get(entry_id)
    if e is None:
        raise LoomError(f"entry {entry_id} not found")
    if (e.type == "message" and e.role == "user") or e.type == "custom_message":
        parent = manager.index.parent_of(e)
        full = manager.get_entry(e.id) or {}
        msg = full.get("message") if e.type == "message" else full
        content = msg.get("content") if isinstance(msg, dict) else None
        return ResumePoint(e.id, parent.id if parent is not None else None, content_text(content, None) or None)
    return ResumePoint(e.id, e.id, None)


def resume_words(agent: str, path: str) -> list[str]:
    """The words after the agent's program that open ``path``: pi 1.6.0's ``--session FILE``;
    oh-my-pi's ``--resume FILE`` (omp 18.3.4 opens a value holding a ``/`` as a path)."""
    return ["--resume", path] if agent == "omp" else ["--session", path]


def persist_entry(manager: SessionManager, leaf: str) -> dict[str, Any]:
    """The label entry persisting ``leaf`` would append (its id and time are made again when it
    is written): for ``--dry-run`` and the questions the app asks."""
    entry: dict[str, Any] = {
        "type": "label",
        "id": "<new id>",
        "parentId": leaf,
        "timestamp": "<now>",
        "targetId": leaf,
    }
    label = manager.get_label(leaf)
    if label is not None:
        entry["label"] = str(label)
    return entry


def persist_resume_point(manager: SessionManager, leaf: str) -> str:
    """Append the label entry that makes pi resume at ``leaf``; returns its id. The manager's
    leaf is then that entry (the file ends there)."""
    label = manager.get_label(leaf)
    manager.branch(leaf)
    new_id = manager.append_label_change(leaf, None if label is None else str(label))
    manager.branch(new_id)
    return new_id
