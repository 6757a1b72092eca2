"""A user message's text back in pi's editor when pi resumes at its parent (pi's /tree does so).

pi's command line has no option for the editor's text, so loomtui hands pi a small extension of
its own (``pi_editor_text.js``, loaded with ``-e``) that sets the editor's text from
``LOOMTUI_EDITOR_TEXT`` when the session starts. oh-my-pi takes the same extension: its 18.3.4
source has ``-e``, ``session_start`` and ``ctx.ui.setEditorText`` as pi does (omp runs only under
bun, so this was read, not run). Other agents are told the text instead.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from loomtui.session.agent_commands import OMP, PI

if TYPE_CHECKING:
    from loomtui.formats.carry_on.resume import ResumePlan

EXTENSION = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pi_editor_text.js")
ENV_NAME = "LOOMTUI_EDITOR_TEXT"


def hand_over(plan: ResumePlan, text: str) -> None:
    """Add what puts ``text`` into the editor to ``plan`` (pi, omp), or a note with the text."""
    if plan.agent in (PI, OMP):
        plan.argv += ["-e", EXTENSION]
        plan.env[ENV_NAME] = text
        plan.notes.append(f"the message goes back into {plan.agent}'s editor (unsent): {_short(text)}")
    else:
        plan.notes.append(f"type the message again in {plan.agent} (it is not sent): {_short(text)}")


def _short(text: str, limit: int = 120) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"
