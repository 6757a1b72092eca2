"""The source an OCP run makes: the run read, checked and placed (``run.py``, ``check.py``,
``tree.py``) as a session, and what the browser does with it through ``Source`` alone: a row's
detail (``detail.py``), Enter on an attempt (the agent session it names, found by
``catalog.py``), the palette's other view of the run, the run's filter modes (``text.py``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from loomtui.formats.base.common import iso_ms, parse_iso
from loomtui.formats.base.document import Adapter, Document
from loomtui.formats.ocp import check as ocp_check
from loomtui.formats.ocp import filters as ocp_filters
from loomtui.formats.ocp import split as ocp_split
from loomtui.formats.ocp import text as T
from loomtui.formats.ocp.detail import describe
from loomtui.formats.ocp.run import OCP, RUN_ID, VIEWS, OcpRun, looks_like_ocp, read_run
from loomtui.formats.ocp.tree import made_rows, make_rows, preorder_ends, row_order
from loomtui.formats.ocp.words import OCP_WORDS
from loomtui.session.entries import Entry
from loomtui.session.errors import Diagnostic, SessionFormatError
from loomtui.session.manager import SessionManager
from loomtui.session.source import LABEL, Lookup, Source, SourceCommand

#: an OCP run in the browser: rows of a run, not a conversation (no leaf to persist, no branch to
#: export, the run's own filters instead of pi's); labels stay in memory; Enter opens what an
#: attempt names
RUN_SOURCE: dict[str, Any] = {
    "name": "OCP run",
    "actions": frozenset((LABEL,)),
    "keeps_times": False,
    "keeps_usage": False,  # the run's own totals (tokens, USD) are its rows in `info`
    "diagnostics_are": ("finding about the run", "findings about the run"),  # conformance, structure
    "entry_words": OCP_WORDS,  # `info` counts nodes and attempts, not custom_message rows
    "enter_note": "Enter opens the agent session an attempt names; this row names none.",
    "resume_note": "resume the agent session an attempt names (Enter on the attempt opens it in the browser)",
    "cwd_word": "workspace",  # the run's ``workspace`` (the header's cwd): not necessarily a path
    "id_word": "run",  # the header's id is the run's id
}


def build_session(
    doc: dict[str, Any],
    path: str | None,
    sha: str | None = None,
    view: str = "dag",
    diagnostics: list[Diagnostic] | None = None,
    check: bool = True,
    findings: list[Any] | None = None,
    checked_with: str = "",
    placed: tuple[OcpRun, Any, list[int]] | None = None,
) -> SessionManager:
    """A SessionManager for one OCP run (``view``: ``dag`` or ``lineage``); ``findings``: the
    conformance findings already known (another view of the same run), else checked now;
    ``placed``: what ``place_run`` would return and the rows' subtree ends, made elsewhere
    (``ocp/split.placed_run``)."""
    if placed is not None:
        run, order, ends = placed
        return session_of(run, make_rows(run, order), diagnostics, ends)
    run, order = place_run(doc, path, view, check, findings, checked_with)
    rows = make_rows(run, order)
    return session_of(run, rows, diagnostics, preorder_ends(rows))


def place_run(
    doc: dict[str, Any],
    path: str | None,
    view: str = "dag",
    check: bool = True,
    findings: list[Any] | None = None,
    checked_with: str = "",
    lazy_facts: bool = False,
) -> tuple[OcpRun, list[Any]]:
    """The run read, checked and placed, and its rows in order (``ocp/tree.row_order``);
    ``lazy_facts``: as ``read_run`` takes it."""
    if view not in VIEWS:
        raise SessionFormatError(f"OCP runs have two views, {' and '.join(VIEWS)}; not {view!r}")
    run = read_run(doc, path, view, lazy_facts)
    if findings is not None:
        ocp_check.attach_findings(run, [ocp_check.Finding(*f) for f in findings])
        run.checked = checked_with
    elif check:
        ocp_check.attach_findings(run)
    return run, row_order(run)


def session_of(
    run: OcpRun, rows: list[Entry], diagnostics: list[Diagnostic] | None = None, ends: list[int] | None = None
) -> SessionManager:
    """The session of a placed run and its rows; ``ends``: the rows' subtree ends (they come in
    pre-order, ``ocp/tree.row_order``: the tree view takes that order as it is)."""
    diag = diagnostics if diagnostics is not None else []
    run.filters = ocp_filters.RunFilters(run)
    for p in run.problems:
        diag.append(Diagnostic(0, p))
    for eid, fs in run.findings.items():
        for level, code, where, message in fs:
            diag.append(Diagnostic(0, f"{code} ({level}) {where} [{eid}]: {message}"))
    r = run.run
    title = r.get("title") if isinstance(r.get("title"), str) else None
    started = parse_iso(r.get("started_at"))
    header: dict[str, Any] = {
        "type": "session",
        "version": 3,
        "id": str(r.get("id") or ""),
        "timestamp": iso_ms(started) if started is not None else None,
        "cwd": str(r.get("workspace") or ""),
        "loom": {
            "format": OCP,
            "title": title or "",
            "view": run.view,
            "ocp": run.version,
            "nodes": len(run.nodes),
            "attempts": len(run.attempts),
        },
    }
    path = run.path
    source = Source(
        OCP,
        os.path.abspath(path) if path else None,
        labels="memory",
        document=run,
        leaf_moves=False,
        filters=run.filters,
        missing_filter=run.filters.missing,
        describe=lambda eid: describe_row(run, eid),
        opens=lambda eid: attempt_lookup(run, eid),
        bar_filters=run.filters.fixed(),
        commands=lambda selected: run_commands(run, selected),
        entry_time=lambda eid: row_time(run, eid),
        **RUN_SOURCE,
    )
    # the leaf is the run root: sibling order stays the dependency order
    return SessionManager.from_skeletons(
        header, rows, diag, session_name=T.run_name(run), source=source, leaf=RUN_ID, preorder_ends=ends
    )


def first_screen_session(
    path: str | None, rows: list[tuple[str, str | None, str, str]], ts: str | None
) -> SessionManager:
    """A session of a run's first rows with their texts made already (``ocp/tree.first_screen``,
    ``ocp/split.first_screen``): what the app paints while the whole run is rebuilt. Its
    rows are laid out as the whole run's first rows are; nothing else in it is the run's."""
    entries = made_rows(rows, ts)
    header = {"type": "session", "version": 3, "id": "", "timestamp": ts, "cwd": ""}
    source = Source(OCP, os.path.abspath(path) if path else None, labels="memory", leaf_moves=False, **RUN_SOURCE)
    return SessionManager.from_skeletons(
        header, entries, [], source=source, leaf=RUN_ID, preorder_ends=preorder_ends(entries)
    )


def row_time(run: OcpRun, eid: str) -> str | None:
    """When a row's run or attempt started (its ``started_at``, as pi writes times), or None: a
    node or group keeps no time of its own."""
    record = run.run if eid == RUN_ID else (run.attempts.get(eid[2:]) if eid.startswith("a:") else None)
    started = parse_iso(record.get("started_at")) if isinstance(record, dict) else None
    return iso_ms(started) if started is not None else None


def describe_row(run: OcpRun, eid: str) -> str | None:
    """The Markdown detail of a row (what every renderer shows: the pane, the HTML export)."""
    details = run.attempts.get(eid[2:]) if eid.startswith("a:") else None
    session = details.get("session") if details is not None else None
    return describe(run, eid, run.session_paths.get(session) if isinstance(session, str) else None)


def session_ref(run: OcpRun, entry_id: str) -> str | None:
    """The ``session`` an attempt row names (a node row: its only attempt's, or its last one's)."""
    aid = None
    if entry_id.startswith("a:"):
        aid = entry_id[2:]
    elif entry_id.startswith("n:"):
        named = [a for a in run.attempts_of.get(entry_id[2:], ()) if isinstance(run.attempts[a].get("session"), str)]
        aid = named[-1] if named else None
    a = run.attempts.get(aid) if aid else None
    ref = a.get("session") if a is not None else None
    return ref.strip() if isinstance(ref, str) and ref.strip() else None


def attempt_lookup(run: OcpRun, entry_id: str) -> Lookup | None:
    """Enter on an attempt: the session it names, found next to the run or in the session
    directories (remembered in ``run.session_paths``, which the detail shows); None for a row
    that names none."""
    ref = session_ref(run, entry_id)
    if ref is None:
        return None

    def find(dirs: Sequence[str]) -> str | None:
        from loomtui.formats.ocp.catalog import find_session  # the catalog only once Enter asks

        return find_session(ref, near=run.path, dirs=dirs)

    def found(path: str | None) -> None:
        run.session_paths[ref] = path

    known = run.session_paths.get(ref, "")
    return Lookup(
        find,
        found,
        looking=f"Looking for the session {ref}…",
        missing=(
            f"The session {ref} is not on this machine (looked next to the run and in the pi, omp "
            "and --sessions-dir directories)."
        ),
        itself="The attempt names this file itself.",
        known=known or None,
        looked=known != "",
    )


def other_view(run: OcpRun) -> SessionManager:
    """The run's other view (dependency tree <-> spawn/launch lineage), its findings carried over."""
    other = "lineage" if run.view == "dag" else "dag"
    findings = [(level, code, path, message) for fs in run.findings.values() for level, code, path, message in fs]
    return build_session(run.doc, run.path, view=other, findings=findings, checked_with=run.checked)


def run_commands(run: OcpRun, selected: str | None) -> list[SourceCommand]:
    """The palette's OCP commands: the other view; the session of the selected attempt."""
    other = "spawn/launch lineage" if run.view == "dag" else "dependency tree"
    out = [SourceCommand(f"OCP: open the run's {other} view", "Esc returns", build=lambda: other_view(run))]
    if selected is not None and session_ref(run, selected):
        out.append(SourceCommand("OCP: open the agent session of the selected attempt", "Enter", enter=selected))
    return out


def _open(o: Document) -> SessionManager:
    if o.bundle_members is not None:
        raise SessionFormatError(f"{o.where}: an OCP run inside a bundle is not supported")
    view = o.tree_id or "dag"
    # placed already by a child started before the app (formats/ocp/split.py), if any
    placed = ocp_split.placed_run(o.doc, o.path, view, o.file_id) if o.path is not None else None
    return build_session(o.doc, o.path, o.sha, view=view, diagnostics=o.diag, placed=placed)


def _picker_rows(dirs: Sequence[str]) -> list[Any]:
    from loomtui.formats.ocp.catalog import list_runs  # the catalog only for the picker

    return list_runs(dirs)


ADAPTER = Adapter(
    "OCP runs", kind_of=lambda doc: OCP if looks_like_ocp(doc) else None, openers={OCP: _open}, picker_rows=_picker_rows
)
