"""Carry what one branch learned onto another: one pi ``branch_summary`` entry.

``loomtui carry FILE --from A --onto B`` and the browser's carry key append to B's branch the
entry pi itself writes when /tree leaves a branch with a summary (pi's branchWithSummary):
``{"type": "branch_summary", "fromId": A, "summary": TEXT}`` parented on B's resume point (pi's
/tree rule: a user message B stands for its parent). pi builds the model's context from the
path to its leaf and turns that entry into a summary message, so pi resumed on B sends the
summary to the model with B's branch, and nothing else of A.

Only pi and oh-my-pi sessions are written. A Claude Code or Codex session is never written: with
``export`` the branch ending at B is first exported as a pi session (what ``export-branch --as
pi`` writes) and the summary goes onto that copy. The summary defaults to a digest of A
(``view/carry_digest.py``). Every refusal is a ``LoomError`` before anything is written.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, NamedTuple

from loomtui.formats.agent.session import AgentSession
from loomtui.session.errors import LoomError
from loomtui.session.manager import SessionManager
from loomtui.session.resume_point import resume_point
from loomtui.view.carry_digest import branch_digest
from loomtui.view.compare import split_paths


@dataclass(frozen=True, slots=True)
class CarryPlan:
    a_id: str
    b_id: str
    #: the entry the summary is parented on (B's resume point)
    onto: str
    summary: str
    #: the session written: the open file, or (``export_dir`` set) a pi copy made first
    file: str | None
    export_dir: str | None = None

    def entry(self) -> dict[str, Any]:
        """The line appended (its id and time are made when it is written)."""
        return {
            "type": "branch_summary",
            "id": "<new id>",
            "parentId": self.onto,
            "timestamp": "<now>",
            "fromId": self.a_id,
            "summary": self.summary,
        }


class CarryNames(NamedTuple):
    """How the words of a carry name the branch tried (A) and the one it goes onto (B): the CLI
    by its arguments, the app by what was marked and selected."""

    tried: str
    onto: str

    @classmethod
    def of_ids(cls, a_id: str, b_id: str) -> CarryNames:
        return cls(f"the branch ending at {a_id}", f"the branch of {b_id}")


def nothing_to_carry(names: CarryNames) -> str:
    """The refusal when everything of the branch tried is on the other one already."""
    return f"{names.tried} is already part of {names.onto}: nothing to carry"


def carry_refusal(manager: SessionManager, export: bool = False) -> str | None:
    """Why nothing can be carried onto this session (None: it can be)."""
    src = manager.source
    if isinstance(manager, AgentSession):
        if export:
            return None
        return (
            f"{src.path} is {src.a_name}: loomtui never writes it; carry onto a pi copy of B's branch instead "
            "(--export)"
        )
    if not src.is_pi_file:
        return f"{src.path or 'this session'} is {src.a_name}: a branch summary is written only to pi and omp sessions"
    if not src.can_append:
        return str(src.read_only_reason)
    return None


def carries_onto_a_copy(manager: SessionManager) -> bool:
    """A read-only agent session (Claude Code, Codex): a carry goes onto a pi copy of B's branch."""
    return isinstance(manager, AgentSession)


def default_summary(manager: SessionManager, a_id: str, b_id: str) -> str:
    return branch_digest(manager, a_id, b_id)


def plan_carry(
    manager: SessionManager,
    a_id: str,
    b_id: str,
    summary: str | None = None,
    *,
    export: bool = False,
    dest: str | None = None,
    names: CarryNames | None = None,
) -> CarryPlan:
    """``a_id`` and ``b_id`` are full ids; ``summary`` None: the digest of A; ``names``: how a
    refusal names A and B (default: by their ids)."""
    refusal = carry_refusal(manager, export)
    if refusal is not None:
        raise LoomError(refusal)
    if a_id == b_id:
        raise LoomError("--from and --onto name the same entry: carry one branch onto another")
    _ancestor, only_a, _only_b = split_paths(manager, a_id, b_id)
    if not [e for e in only_a if e.type != "label"]:
        raise LoomError(nothing_to_carry(names or CarryNames.of_ids(a_id, b_id)))
    point = resume_point(manager, b_id)
    if point.leaf is None:
        raise LoomError(
            f"entry {b_id} is the first message: a summary cannot be parented before it; pick an entry after it"
        )
    text = default_summary(manager, a_id, b_id) if summary is None else summary
    if not text.strip():
        raise LoomError("the summary is empty; nothing was written")
    if isinstance(manager, AgentSession):
        where = dest or manager.pi_copy_dir()
        if dest is not None and not os.path.isdir(where):
            raise LoomError(f"{where} is not a directory")
        return CarryPlan(a_id, point.leaf, point.leaf, text, None, where)
    return CarryPlan(a_id, b_id, point.leaf, text, manager.path)


def apply_carry(manager: SessionManager, plan: CarryPlan) -> tuple[str, str]:
    """Write the summary (and first the pi copy, for a read-only source): (the file written,
    the new entry's id). A file changed since it was read is a WriteConflict, nothing written."""
    target = manager
    if plan.export_dir is not None:
        assert isinstance(manager, AgentSession)
        os.makedirs(plan.export_dir, exist_ok=True)  # pi's session folder for the cwd, maybe new
        copy = manager.export_pi(plan.onto, dir=plan.export_dir)
        target = SessionManager.open(copy)
    new_id = target.branch_with_summary(plan.onto, plan.summary, plan.a_id)
    assert target.path is not None
    return target.path, new_id
