"""OCP runs for the picker, and the agent sessions their attempts name.

``list_runs(dirs)`` finds OCP documents (``*.json`` whose content has an ``ocp`` key) directly
in each directory given with ``--sessions-dir``/``--runs-dir`` and one level below, and
summarises each as a picker row: run id, task, status counts, cost. Summaries are cached by
path, size, mtime and inode like the session summaries (a separate cache file).
``find_session(ref, …)`` finds the session an ``attempt.session`` names: a path (absolute or
next to the run file), else a session in the catalogue with that id or file name.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

from loomtui.formats.base.common import load_json, parse_iso
from loomtui.formats.ocp import text as T
from loomtui.session.catalog import SessionSummary, SummaryCache, cache_path, list_sessions
from loomtui.session.errors import SessionFormatError
from loomtui.session.fileio import open_regular_file, referenced_path
from loomtui.session.locations import default_session_dirs
from loomtui.view.words import counted

if TYPE_CHECKING:
    from loomtui.formats.ocp.run import OcpRun

#: a larger file must name its ``ocp`` version near the top to be read as a run
SNIFF_BYTES = 65536
SMALL_FILE = 4 << 20
MAX_RUN_BYTES = 512 << 20
RUNS_PROJECT = "OCP runs"


def discover_runs(dirs: Iterable[str]) -> list[str]:
    """``*.json`` files directly in ``dirs`` and one level down, each once."""
    out: list[str] = []
    seen: set[str] = set()
    for root in dirs:
        root = os.path.abspath(os.path.expanduser(root))
        stack = [(root, 0)]
        while stack:
            d, depth = stack.pop()
            try:
                with os.scandir(d) as it:
                    items = sorted(it, key=lambda x: x.name)
            except OSError:
                continue
            for item in items:
                if item.name.startswith("."):
                    continue
                try:
                    if item.name.endswith(".json") and item.is_file():
                        real = os.path.realpath(item.path)
                        if real not in seen:
                            seen.add(real)
                            out.append(item.path)
                    elif depth == 0 and item.is_dir():
                        stack.append((item.path, 1))
                except OSError:
                    continue
    return out


def summarize_run(path: str) -> SessionSummary | None:
    """A picker row for an OCP run file (None when the file is not one)."""
    try:
        with open_regular_file(path) as f:
            head = f.read(SNIFF_BYTES)
            size = os.fstat(f.fileno()).st_size
            if not head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{") or size > MAX_RUN_BYTES:
                return None
            if b'"ocp"' not in head and size > SMALL_FILE:
                return None
            data = head + f.read()
            mtime = os.fstat(f.fileno()).st_mtime
    except (OSError, SessionFormatError):
        return None
    try:
        doc = load_json(data, path)
    except SessionFormatError:
        return None
    if not isinstance(doc, dict) or "ocp" not in doc:
        return None
    from loomtui.formats.ocp.run import read_run

    run = read_run(doc, path)
    t = T.run_totals(run)
    name, figures = _run_words(run, t)
    r = run.run
    started = parse_iso(r.get("started_at"))
    ended = parse_iso(r.get("ended_at"))
    created = started.timestamp() if started else mtime
    if ended:
        modified = ended.timestamp()
    else:  # the last attempt's end, when any has one
        last_end = T.run_timing(run).last_end
        modified = last_end if last_end > 0 else created
    workspace = r.get("workspace")
    return SessionSummary(
        path=os.path.abspath(path),
        id=str(r.get("id") or ""),
        cwd=f"{RUNS_PROJECT}: {workspace}" if isinstance(workspace, str) and workspace else RUNS_PROJECT,
        name=name,
        first_message=T._s(r.get("title"), 200) or "(OCP run)",
        created=created,
        modified=modified,
        message_count=t.attempts,
        branch_count=0,
        parent_session=None,
        version=3,
        entry_count=len(run.nodes) + len(run.attempts),
        size=len(data),
        tool="ocp",
        noun="run",
        figures=figures,
    )


def _run_words(run: OcpRun, t: T.Totals) -> tuple[str, str]:
    """A run's row: its name (run id and title, task, nodes, tokens), and its figures, the
    status counts and the cost, which stand in the picker's count columns where a session has
    its message and branch point counts."""
    parts = [f"run {T.run_name(run)}"]
    task = T.task_of(run)
    if task:
        parts.append(f"task {task}")
    parts.append(counted(len(run.nodes), "node"))
    if t.tokens:
        parts.append(T.tokens_text(t.tokens) + " tok")
    figures = [t.counts_text() if t.attempts else "no attempts"]
    if t.priced:
        figures.append(t.usd_text())
    return " · ".join(parts), "  ".join(figures)


def list_runs(dirs: Iterable[str], cache: SummaryCache | bool = True) -> list[SessionSummary]:
    """Picker rows for the OCP runs under ``dirs``, newest first."""
    roots = [os.path.abspath(os.path.expanduser(d)) for d in dirs]
    if not roots:
        return []
    store = (
        SummaryCache(os.path.join(os.path.dirname(cache_path()), "ocp-runs.json")) if cache is True else (cache or None)
    )
    out: list[SessionSummary] = []
    for path in discover_runs(roots):
        path = os.path.abspath(path)
        try:
            st = os.stat(path)
        except OSError:
            continue
        if store is not None:
            hit, summary = store.get(path, st)
            if hit:
                if summary is not None:
                    out.append(summary)
                continue
        try:
            summary = summarize_run(path)
        except (RecursionError, MemoryError):
            summary = None
        if summary is not None:
            out.append(summary)
        if store is not None:
            store.put(path, st, summary)
    if store is not None:
        store.save()
    out.sort(key=lambda s: (-s.modified, s.path))
    return out


def find_session(ref: str, near: str | None = None, dirs: Iterable[str] = ()) -> str | None:
    """The session file ``attempt.session`` names: a path (absolute, or relative to the run
    file ``near``), else a session in pi's and omp's directories, ``dirs`` and ``near``'s
    directory whose id or file name (with or without ``.jsonl``) is ``ref``."""
    ref = ref.strip()
    if not ref:
        return None
    p = referenced_path(ref, near)
    if p is not None and os.path.isfile(p):
        return os.path.abspath(p)
    roots = default_session_dirs() + [os.path.abspath(os.path.expanduser(d)) for d in dirs]
    if near:
        roots.append(os.path.dirname(os.path.abspath(near)))
    base = os.path.basename(ref)
    for s in list_sessions(roots):
        name = os.path.basename(s.path)
        stem = name[:-6] if name.endswith(".jsonl") else name
        if s.id == ref or name == base or stem == base or stem.endswith("_" + ref):
            return s.path
    return None
