"""Carry on from a branch in the browser: resume the agent at the selected entry (Alt+W), and
carry the marked branch onto the selected one as a pi branch summary (Alt+S).

Resuming plans with ``formats/carry_on/resume.py`` (what is appended, which file, the command line,
the directory), asks, writes, then hands the terminal to the agent inside Textual's
``App.suspend()`` and comes back to the same session, reloaded, the agent's new entries selected.
Where the app has no terminal to hand over (a headless run: ``SuspendNotSupported``) the agent
runs without one. Carrying plans with ``formats/carry_on/carry.py``; the summary is edited first in a
dialog (``summary_dialog.py``), prefilled with the digest of the marked branch.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
from typing import TYPE_CHECKING

from textual.app import SuspendNotSupported

from loomtui.session.errors import LoomError, PartialLastLine, WriteConflict
from loomtui.view.words import counted, sentence

if TYPE_CHECKING:
    from loomtui.app.screens.browser import BrowserScreen
    from loomtui.formats.carry_on.carry import CarryPlan
    from loomtui.formats.carry_on.resume import ResumePlan

    _Base = BrowserScreen
else:
    _Base = object


def _wait_ignoring_ctrl_c(proc: subprocess.Popen[bytes]) -> int:
    """Wait for the agent; Ctrl+C is the agent's meanwhile (the terminal is cooked again while
    the app is suspended, so it is a SIGINT to both): the app ignores it until the agent exits."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return proc.wait()
    finally:
        signal.signal(signal.SIGINT, previous)


class AgentTools(_Base):
    """Mixed into ``BrowserScreen``."""

    def _not_resumable(self, title: str) -> bool:
        """Alt+W and Alt+S on a session no agent takes up: one notice says why (and what does)."""
        from loomtui.formats.carry_on.resume import resumable
        from loomtui.session.source import EXPORT

        controller = self.controller
        if controller is None or resumable(controller.manager):
            return False
        src = controller.source
        export = (
            f" {self._keys('browser.export')} exports the branch as {src.export_as}, which pi takes up."
            if src.offers(EXPORT) and src.export_as == "a pi session"
            else ""
        )
        self.notify(f"No agent takes up {src.a_name}.{export}", title=title, severity="warning", timeout=6)
        return True

    # resume here ----------------------------------------------------------------------------------
    def action_resume_here(self) -> None:
        from loomtui.app.screens.dialogs import ConfirmDialog
        from loomtui.formats.carry_on.resume import plan_resume

        entry_id, controller = self._selected_id(), self.controller
        if controller is None or entry_id is None or self._not_resumable("Resume: not done"):
            return
        try:
            plan = plan_resume(controller.manager, entry_id)
        except LoomError as exc:
            self.notify(sentence(str(exc)), title="Resume: not done", severity="warning", timeout=8)
            return
        # the program is looked for as the dialog opens (as `resume --dry-run` does): a missing
        # one is said up front, the plan shown as what a run would do, with only Close to press
        missing = plan.missing_program("nothing will be written")  # nothing was tried yet
        body = "\n".join(plan.describe())
        if missing is not None:
            body = f"Once {plan.agent} can run, resuming here would:\n{body}"
        else:
            body += (
                f"\n\nloomtui steps aside while {plan.agent} runs in this terminal and "
                "comes back to this session when it exits."
            )

        def answered(yes: bool | None) -> None:
            if yes:
                self.resume_with(plan)

        dialog = ConfirmDialog(
            f"Resume {plan.agent} at {entry_id}?" if missing is None else f"Cannot resume {plan.agent} at {entry_id}",
            body,
            "Resume",
            unavailable=None if missing is None else sentence(missing),
        )
        self.app.push_screen(dialog, answered)

    def resume_with(self, plan: ResumePlan) -> None:
        """Write what ``plan`` says, run the agent, and show what it appended."""
        from loomtui.formats.carry_on.resume import apply_plan

        controller = self.controller
        if controller is None:
            return
        missing = plan.missing_program()
        if missing is not None:
            self.notify(missing, title="Resume: not done", severity="error", timeout=12)
            return
        try:
            apply_plan(controller.manager, plan)
        except PartialLastLine as exc:  # the agent is mid-line: nothing to reload
            self.notify(sentence(str(exc)), title="Resume: not done", severity="warning", timeout=10)
            return
        except WriteConflict as exc:
            self._apply(controller.reload(f"{exc}. Nothing was written; the file was reloaded, try again."))
            return
        except (LoomError, OSError) as exc:
            self.notify(str(exc), title="Resume: not done", severity="error", timeout=10)
            return
        known = {e.id for e in controller.manager.index.entries}
        result = self.run_agent(plan)
        if plan.export_from is not None:  # the tool wrote its new session, never the original
            self.notify(f"{plan.agent} {result}; its session is {plan.file}.", title="Back from the agent", timeout=10)
            self.loom_app.open_session_file(plan.file)
            return
        self._apply(controller.reload())
        fresh = [e for e in controller.manager.index.entries if e.id not in known]
        self.notify(
            f"{plan.agent} {result}; {counted(len(fresh), 'new entry', 'new entries')}.",
            title="Back from the agent",
            timeout=10,
        )
        if fresh:
            self.jump_to_id(fresh[-1].id)

    def run_agent(self, plan: ResumePlan) -> str:
        """Run the agent in this terminal (the app suspended); what became of it, in words."""
        env = {**os.environ, **plan.env}
        try:
            try:
                with self.app.suspend():
                    code = _wait_ignoring_ctrl_c(subprocess.Popen(plan.argv, cwd=plan.cwd, env=env))
            except SuspendNotSupported:  # no terminal to hand over (headless): run it without one
                code = subprocess.run(
                    plan.argv, cwd=plan.cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, check=False
                ).returncode
        except OSError as exc:
            return f"could not be started ({plan.command_line()}: {exc.strerror or exc})"
        return "exited" if code == 0 else f"exited with code {code}"

    # carry a branch ----------------------------------------------------------------------------------
    def action_carry_branch(self) -> None:
        from loomtui.app.screens.dialogs import ConfirmDialog
        from loomtui.formats.carry_on.carry import carries_onto_a_copy, carry_refusal

        controller, model = self.controller, self.model
        if controller is None or model is None or self._not_resumable("Carry: not done"):
            return
        a_id, b_id = model.marked_id, self._selected_id()
        if a_id is not None and a_id == b_id:
            self.notify(
                f"Select the branch to carry the marked one ({a_id}) onto: an entry other than the marked one.",
                title="Carry",
                timeout=6,
            )
            return
        if a_id is None or b_id is None:
            self.notify(
                f"Mark the branch that was tried ({self._keys('browser.mark')}), select the branch to carry it "
                f"onto, then {self._keys('browser.carry')}.",
                title="Carry",
                timeout=8,
            )
            return
        manager = controller.manager
        refusal = carry_refusal(manager)
        if refusal is not None and carries_onto_a_copy(manager):
            body = (
                f"loomtui never writes {manager.source.a_name}. Export the branch ending at {b_id} as a new pi "
                "session and carry the summary onto that copy?"
            )

            def answered(yes: bool | None) -> None:
                if yes:
                    self._ask_summary(a_id, b_id, export=True)

            self.app.push_screen(ConfirmDialog("Carry onto a pi copy?", body, "Export and carry"), answered)
            return
        if refusal is not None:
            self.notify(refusal, title="Carry: not done", severity="warning", timeout=8)
            return
        self._ask_summary(a_id, b_id, export=False)

    def _ask_summary(self, a_id: str, b_id: str, *, export: bool) -> None:
        from loomtui.app.screens.summary_dialog import SummaryDialog
        from loomtui.formats.carry_on.carry import CarryNames, plan_carry

        controller = self.controller
        if controller is None:
            return
        try:
            names = CarryNames(f"The marked branch (ending at {a_id})", f"the selected one (ending at {b_id})")
            plan = plan_carry(controller.manager, a_id, b_id, export=export, names=names)
        except LoomError as exc:
            self.notify(str(exc), title="Carry: not done", severity="warning", timeout=8)
            return
        heading = (
            f"From the branch ending at {a_id} onto {plan.onto}"
            + (" (a pi copy of that branch)" if export else "")
            + ": pi resumed there sends this to the model."
        )

        def done(text: str | None) -> None:
            if text is not None and not self.carry_with(dataclasses.replace(plan, summary=text)):
                # not written while the agent finishes a line: the summary as typed, to save again
                self.app.push_screen(SummaryDialog(heading, text), done)

        self.app.push_screen(SummaryDialog(heading, plan.summary), done)

    def carry_with(self, plan: CarryPlan) -> bool:
        """Write the carry; False only when the agent is mid-line (the summary is worth asking again)."""
        from loomtui.formats.carry_on.carry import apply_carry

        controller = self.controller
        if controller is None:
            return True
        if not plan.summary.strip():
            self.notify("The summary is empty; nothing was written.", title="Carry: not done", severity="warning")
            return True
        try:
            path, new_id = apply_carry(controller.manager, plan)
        except PartialLastLine as exc:
            self.notify(
                f"{sentence(str(exc))} The summary is kept in the dialog.",
                title="Carry: not done",
                severity="warning",
                timeout=10,
            )
            return False
        except WriteConflict as exc:
            self._apply(controller.reload(f"{exc}. Nothing was written; the file was reloaded, try again."))
            return True
        except (LoomError, OSError) as exc:
            self.notify(str(exc), title="Carry: not done", severity="error", timeout=10)
            return True
        resume = self._keys("browser.resume")
        if plan.export_dir is not None:
            self.notify(
                f"Wrote {path} with the summary {new_id}; {resume} there resumes pi with it.",
                title="Branch carried",
                timeout=10,
            )
            self.loom_app.open_session_file(path, select_id=new_id)
            return True
        self._apply(controller.apply_appended())
        self.jump_to_id(new_id)
        self.notify(
            f"Branch summary {new_id} appended onto {plan.onto}; {resume} on it resumes pi with it.",
            title="Branch carried",
            timeout=10,
        )
        return True
