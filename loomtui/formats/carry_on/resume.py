"""Resume the agent at an entry: the plan (what is written, which file the agent opens, the
command line, the directory it runs in), then the writes. Running the agent is the caller's:
``commands/resume.py`` and the app (``app/screens/agent_tools.py``); nothing here starts a process.

* pi and oh-my-pi: the resume point (``session/resume_point.py``, pi's /tree rule) is persisted
  the way Ctrl+S persists the leaf (one label entry, unless the file already ends there: Ctrl+S's
  rule, ``view/file_end.py``), then
  ``pi --session FILE`` (omp: ``omp --resume FILE``, which omp 18.3.4 opens as a path when it holds
  a ``/`` or ends in ``.jsonl``) runs in the session's working directory. A user message resumes
  at its parent; its text goes back into the agent's editor (``pi_editor``).
* Claude Code and Codex: the branch is exported as a new session of the tool's own format under
  an id chosen here (``agent_resume``), and the tool's resume command runs on that id; the
  original file is never written.

Every refusal is a ``LoomError`` raised before anything is written.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from loomtui.formats.agent import resume as agent_resume
from loomtui.formats.agent.session import AgentSession
from loomtui.formats.carry_on import pi_editor
from loomtui.session.agent_commands import ENV_NAMES, OMP, PI, AgentCommand, agent_command, config_file
from loomtui.session.errors import LoomError
from loomtui.session.jsstr import js_json
from loomtui.session.manager import SessionManager
from loomtui.session.resume_point import persist_entry, persist_resume_point, resume_point, resume_words
from loomtui.session.source import EXPORT, Source
from loomtui.view.file_end import ends_words, file_ends_at
from loomtui.view.omp import is_omp_session


@dataclass
class ResumePlan:
    agent: str  # pi, omp, claude, codex
    entry_id: str  # the entry picked
    leaf: str  # where the agent resumes
    file: str  # the file the agent opens
    argv: list[str]
    cwd: str | None  # where it runs; None: the current directory
    command: AgentCommand
    #: pi / omp: the label entry appended to ``file`` (None: the file already ends at ``leaf``)
    append: dict[str, Any] | None = None
    #: pi / omp, nothing appended: what the file ends with after ``leaf``, in words ("" for nothing)
    ends_with: str = ""
    #: Claude Code / Codex: the original file; ``file`` is the export written first
    export_from: str | None = None
    new_id: str | None = None
    editor_text: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def command_line(self) -> str:
        """The argv shell-quoted, after the variables the plan sets (``NAME=value …``)."""
        env = [f"{k}={shlex.quote(v)}" for k, v in self.env.items()]
        return " ".join([*env, shlex.join(self.argv)])

    def describe(self) -> list[str]:
        """What a run would do, for ``--dry-run`` and the app's question."""
        out = []
        if self.append is not None:
            out.append(f"append to {self.file}:")
            out.append(f"  {js_json(self.append)}")
        elif self.export_from is not None:
            out.append(f"write {self.file} (the branch ending at {self.leaf}; {self.export_from} is not written)")
        else:
            out.append(f"append nothing: {self.file} already ends at {self.leaf}{self.ends_with}")
        out.append(f"run: {self.command_line()}")
        out.append(f"in: {self.cwd or os.getcwd()}")
        out.extend(self.notes)
        return out

    def missing_program(self, written: str = "nothing was written") -> str | None:
        """Why the agent cannot be started (its program is not found), or None; ``written``
        ends it: what happened to the file ("nothing will be written" where nothing was tried
        yet, as the resume dialog opens)."""
        program = self.argv[0]
        found = shutil.which(program) if os.sep not in program else (program if os.access(program, os.X_OK) else None)
        if found is not None:
            return None
        how = (
            f"set {self.command.origin}"
            if self.command.origin != "default"
            else (f"install it, or name its command in [agents] of {config_file()} or ${ENV_NAMES[self.agent]}")
        )
        return f"cannot run {self.agent}: {program!r} is not found ({self.command_line()}); {how}; {written}"


def resumable(manager: SessionManager) -> bool:
    """An agent can take this session up (a pi / omp file, a Claude Code or Codex session): the
    browser offers its resume and carry keys only then."""
    return isinstance(manager, AgentSession) or (manager.source.is_pi_file and manager.path is not None)


def pi_agent(manager: SessionManager) -> str:
    """``pi`` or ``omp``: which agent wrote this session."""
    return OMP if is_omp_session(manager.title, manager.path, manager.index.entries) else PI


def plan_resume(manager: SessionManager, entry_id: str, env: Mapping[str, str] | None = None) -> ResumePlan:
    """The plan for resuming at ``entry_id`` (a full id), or a LoomError saying why not."""
    src = manager.source
    if isinstance(manager, AgentSession):
        return _plan_agent(manager, entry_id, env)
    if not src.is_pi_file or manager.path is None:
        raise LoomError(f"{src.path or 'this session'} is {src.a_name}: no agent resumes it; {_instead(src)}")
    if not src.can_append:
        raise LoomError(str(src.read_only_reason))
    point = resume_point(manager, entry_id)
    if point.leaf is None:
        raise LoomError(
            f"entry {entry_id} is the first message: pi could resume before it only from an entry with "
            "parentId null, which loomtui never writes; pick an entry after it"
        )
    agent = pi_agent(manager)
    command = agent_command(agent, env)
    tail = resume_words(agent, manager.path)
    plan = ResumePlan(
        agent,
        entry_id,
        point.leaf,
        manager.path,
        command.argv(tail, manager.path, str(manager.header.get("id", ""))),
        _existing_dir(manager.header.get("cwd")),
        command,
        editor_text=point.editor_text,
    )
    ends = file_ends_at(manager, point.leaf)  # Ctrl+S's rule
    if ends is None:
        plan.append = persist_entry(manager, point.leaf)
    else:
        plan.ends_with = ends_words(ends)
    if point.leaf != entry_id:
        plan.notes.append(f"{entry_id} is a user message: {agent} resumes at its parent {point.leaf}")
    if point.editor_text is not None:
        pi_editor.hand_over(plan, point.editor_text)
    _note_cwd(plan, manager.header.get("cwd"))
    return plan


def _instead(src: Source) -> str:
    """What to resume instead, in the source's words: its branch exported as a pi session, or
    what the source says (an OCP run: an attempt's agent session)."""
    if src.resume_note:
        return src.resume_note
    if src.offers(EXPORT) and src.export_as == "a pi session":
        return (
            "export the branch as a pi session first (`loomtui export-branch FILE --leaf ID`, Ctrl+E) and resume that"
        )
    return "it is not a conversation"


def _plan_agent(sm: AgentSession, entry_id: str, env: Mapping[str, str] | None) -> ResumePlan:
    point = resume_point(sm, entry_id)
    if point.leaf is None:
        raise LoomError(f"entry {entry_id} is the first message: there is nothing before it to resume")
    kept, _labels = sm.branch_entries(point.leaf)
    if not kept:
        raise LoomError(
            f"entry {point.leaf} has no line of its own in {sm.agent.path} (a placeholder row); "
            "pick an entry of the conversation"
        )
    command = agent_resume.resume_command(sm, env)
    new_id = agent_resume.new_session_id()
    file = agent_resume.export_path(sm, new_id)
    argv = command.argv(agent_resume.resume_words(sm, new_id), file, new_id)
    cwd = agent_resume.session_cwd(sm)
    plan = ResumePlan(
        command.agent,
        entry_id,
        point.leaf,
        file,
        argv,
        _existing_dir(cwd),
        command,
        export_from=os.path.abspath(sm.agent.path),
        new_id=new_id,
        editor_text=point.editor_text,
    )
    if point.leaf != entry_id:
        plan.notes.append(f"{entry_id} is a user message: the branch ends at its parent {point.leaf}")
    if point.editor_text is not None:
        pi_editor.hand_over(plan, point.editor_text)
    _note_cwd(plan, cwd)
    return plan


def _existing_dir(cwd: object) -> str | None:
    return cwd if isinstance(cwd, str) and cwd and os.path.isdir(cwd) else None


def _note_cwd(plan: ResumePlan, cwd: object) -> None:
    if plan.cwd is None and isinstance(cwd, str) and cwd:
        plan.notes.append(f"the session's directory {cwd} is gone: {plan.agent} runs in the current directory")


def apply_plan(manager: SessionManager, plan: ResumePlan) -> str | None:
    """Write what the plan says (the resume point, or the export); returns the id of the entry
    appended (None: nothing appended). A file changed since it was read is a WriteConflict,
    with nothing written."""
    if plan.export_from is not None:
        from loomtui.formats.agent.export import export_native

        assert isinstance(manager, AgentSession) and plan.new_id is not None
        export_native(manager, plan.leaf, out=plan.file, new_id=plan.new_id)
        return None
    if plan.append is None:
        return None
    return persist_resume_point(manager, plan.leaf)
