"""The browser's few OCP-specific actions: the filter bar's modes and Enter on an attempt that
names an agent session (the run's data and rules live in ``loomtui.formats.ocp*``)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from loomtui.formats.ocp import ocp_run
from loomtui.formats.ocp_text import RunFilters
from loomtui.view.flat import FILTER_MODES
from loomtui.view.model import TreeModel

if TYPE_CHECKING:
    from loomtui.app.screens.browser import BrowserScreen


def bar_modes(model: TreeModel) -> tuple[str, ...]:
    """The modes the filter bar shows: pi's five, or a run's own (per-model and per-harness
    modes only while chosen: Ctrl+O cycles through them all)."""
    filters = model.extra_filters
    if not filters:
        return FILTER_MODES
    # a run's fixed modes, without making its per-model ones (a pass over every attempt)
    fixed = filters.fixed() if isinstance(filters, RunFilters) else tuple(m for m in filters if ":" not in m)
    out = ("default",) + fixed
    return out if model.mode in out else out + (model.mode,)


def session_ref(manager: Any, entry_id: str) -> str | None:
    """The ``session`` an attempt row names (a node row: its only attempt's, or its last one's)."""
    run = ocp_run(manager)
    if run is None:
        return None
    aid = None
    if entry_id.startswith("a:"):
        aid = entry_id[2:]
    elif entry_id.startswith("n:"):
        named = [a for a in run.attempts_of.get(entry_id[2:], ()) if isinstance(run.attempts[a].get("session"), str)]
        aid = named[-1] if named else None
    a = run.attempts.get(aid) if aid else None
    ref = a.get("session") if a is not None else None
    return ref.strip() if isinstance(ref, str) and ref.strip() else None


def open_attempt_session(screen: "BrowserScreen", entry_id: str) -> None:
    """Enter on an attempt: open the session it names at its leaf, on top (Esc returns)."""
    run = ocp_run(screen.manager)
    ref = session_ref(screen.manager, entry_id)
    if run is None or ref is None:
        screen.notify("Enter opens the agent session an attempt names; this row names none.",
                      title="Open session", timeout=4)
        return
    app = screen.loom_app
    dirs = list(app.sessions_dirs)

    def find() -> None:
        from loomtui.formats.ocp_catalog import find_session

        try:
            found = find_session(ref, near=run.path, dirs=dirs)
        except Exception as exc:  # a broken sessions directory must not take the app down
            app.call_from_thread(app.log_error, exc)
            found = None
        screen.app.call_from_thread(found_it, found)

    def found_it(path: str | None) -> None:
        run.session_paths[ref] = path
        if not screen.is_attached:
            return
        if path is None:
            screen.notify(f"The session {ref} is not on this machine (looked next to the run and in the pi, omp "
                          "and --sessions-dir directories).", title="Open session", severity="warning", timeout=8)
            return
        if os.path.abspath(path) == screen.path:
            screen.notify("The attempt names this file itself.", title="Open session", timeout=5)
            return
        app.open_session_file(path)

    known = run.session_paths.get(ref, "")
    if known != "":
        found_it(known)
        return
    screen.notify(f"Looking for the session {ref}…", timeout=2)
    screen.run_worker(find, thread=True, exclusive=True, group="open-attempt-session", exit_on_error=False,
                      description="Find the attempt's session")


def toggle_view(screen: "BrowserScreen") -> None:
    """Open the run's other view (dependency tree ↔ spawn/launch lineage) on top; Esc returns."""
    run = ocp_run(screen.manager)
    if run is None:
        return
    from loomtui.app.screens.browser import BrowserScreen
    from loomtui.formats.ocp import build_session

    other = "lineage" if run.view == "dag" else "dag"
    findings = [(level, code, path, message) for fs in run.findings.values() for level, code, path, message in fs]

    def build() -> None:
        try:
            manager = build_session(run.doc, run.path, view=other, findings=findings, checked_with=run.checked)
        except Exception as exc:  # never a traceback for a view switch
            screen.loom_app.call_from_thread(screen.loom_app.log_error, exc)
            return
        screen.app.call_from_thread(show, manager)

    def show(manager: Any) -> None:
        if screen.is_attached:
            screen.app.push_screen(BrowserScreen(screen.path, manager))

    screen.run_worker(build, thread=True, exclusive=True, group="ocp-view", exit_on_error=False,
                      description="Build the other view")


def palette_commands(screen: "BrowserScreen") -> list[tuple[str, Any, str]]:
    """The palette's OCP commands (none for other sessions)."""
    run = ocp_run(screen.manager)
    if run is None or screen.model is None:
        return []
    other = "spawn/launch lineage" if run.view == "dag" else "dependency tree"
    out = [(f"OCP: open the run's {other} view", lambda: toggle_view(screen), "Esc returns")]
    sel = screen.model.selected_entry
    if sel is not None and session_ref(screen.manager, sel.id):
        out.append(("OCP: open the agent session of the selected attempt", lambda: open_attempt_session(screen, sel.id),
                    "Enter"))
    return out
