"""`loomtui check FILE...`: OCP conformance findings (``E…`` errors, ``W…`` warnings).

The files are checked together, so the reference checker's cross-file rules (members of one
slate share their task and base commit) apply. Each file prints ``PASS`` or ``FAIL`` with its
counts, then one line per finding: level, code, JSON path, message. Exit 1 when any error is
found (warnings do not fail), 0 otherwise; a FILE that does not exist is refused first (one
line, exit 2), as by every command. A file loomtui reads as something else (a pi session, an
OpenLoom document…, named in its own words) or a directory is not checked: given alone it is
refused in one line (exit 2); among several it gets a ``SKIP`` line (``"checked": false`` in
``--json``), the others are checked, and the exit is 1 if a checked file has an error, else 2. Without the reference checker
(``pip install 'loomtui[ocp]'``) one line on stderr says so and the JSON Schema findings are
still reported.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from loomtui.commands._args import file_kind, require_existing
from loomtui.formats.base.common import MAX_DOCUMENT_BYTES, load_json
from loomtui.formats.ocp import check as ocp_check
from loomtui.session.errors import LoomError, SessionFormatError, cannot_open
from loomtui.session.fileio import read_capped
from loomtui.view.words import counted


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="OCP run documents (v0.1, v0.2, v0.3)")
    p.add_argument("--json", action="store_true", help="print the findings as JSON")
    p.add_argument("-q", "--quiet", action="store_true", help="print only files with findings")
    p.epilog = (
        "exit 1 if a checked file has an error; else 2 if a FILE is not an OCP run (a pi session, a "
        "directory…) or does not exist: alone it is refused, among several it gets a SKIP line and is "
        "not checked; else 0"
    )


def _read(path: str) -> tuple[Any, ocp_check.Finding | None]:
    try:
        data = read_capped(path, MAX_DOCUMENT_BYTES)  # a FIFO or device is refused, not read
    except OSError as exc:
        return None, ocp_check.Finding("error", "E001", "$", cannot_open(path, exc))
    except SessionFormatError as exc:
        return None, ocp_check.Finding("error", "E001", "$", str(exc))
    try:
        return load_json(data, path), None
    except SessionFormatError as exc:
        return None, ocp_check.Finding("error", "E001", "$", str(exc))


def not_a_run(path: str, doc: Any, err: ocp_check.Finding | None) -> str | None:
    """What a file that is not an OCP run document is, in its source's words ("a pi
    session"); None for an OCP run (a broken one too) and for a file loomtui reads as nothing
    else: the check's own findings say what is wrong with those."""
    if (err is None and isinstance(doc, dict) and "ocp" in doc) or not os.path.isfile(path):
        return None
    from loomtui.formats.ocp.run import ocp_run

    return file_kind(path, lambda manager: ocp_run(manager) is not None)


#: what ``check DIR`` says of a directory (``loomtui DIR`` opens one, its loom configurations)
DIRECTORY = "a directory"
#: a FILE among several that is not there (alone it is refused, as by every command)
MISSING = "a path that does not exist"
DIRECTORY_HINT = "`check` checks OCP run files (`loom-config` checks a directory's loom configurations)"


def other_kind(path: str, doc: Any, err: ocp_check.Finding | None) -> str | None:
    """What ``path`` is when it is not an OCP run document, in its source's words ("a pi
    session", "a directory"); None for a file the check speaks about (an OCP run, a broken one)."""
    if not os.path.lexists(path):
        return MISSING
    if os.path.isdir(path):
        return DIRECTORY
    return not_a_run(path, doc, err)


def refusal(path: str, what: str) -> str:
    """The one line ``check`` of a single file that is not an OCP run says (exit 2)."""
    hint = DIRECTORY_HINT if what == DIRECTORY else "`check` checks OCP runs"
    return f"{path} is {what}, not an OCP run document; {hint}"


def check_files(
    paths: list[str], read: list[tuple[Any, ocp_check.Finding | None]] | None = None
) -> list[list[ocp_check.Finding]]:
    """Findings per path (``read``: the paths read already), the readable documents checked together."""
    read = [_read(p) for p in paths] if read is None else read
    ok = [i for i, (_doc, err) in enumerate(read) if err is None]
    checked = ocp_check.check_docs([read[i][0] for i in ok])
    out: list[list[ocp_check.Finding]] = [[err] if err is not None else [] for _doc, err in read]
    for i, findings in zip(ok, checked):
        out[i] = findings
    return out


Results = list[list[ocp_check.Finding] | None]  # per file; None: not checked (``others`` says why)


def _json(name: str, paths: list[str], results: Results, others: dict[int, str]) -> str:
    files: list[dict[str, Any]] = []
    for i, (p, fs) in enumerate(zip(paths, results)):
        if fs is None:
            files.append({"file": p, "checked": False, "is": others[i], "errors": 0, "warnings": 0, "findings": []})
            continue
        files.append(
            {
                "file": p,
                "checked": True,
                "errors": sum(f.level == "error" for f in fs),
                "warnings": sum(f.level != "error" for f in fs),
                "findings": [f._asdict() for f in fs],
            }
        )
    return json.dumps({"checker": name, "files": files}, indent=1, ensure_ascii=False) + "\n"


def _lines(paths: list[str], results: Results, others: dict[int, str], quiet: bool) -> list[str]:
    lines: list[str] = []
    for i, (path, fs) in enumerate(zip(paths, results)):
        if fs is None:  # named even with -q: it was not checked
            why = others[i] if others[i] == MISSING else f"{others[i]}, not an OCP run document"
            lines.append(f"SKIP  {path}  ({why}: not checked)")
            continue
        if quiet and not fs:
            continue
        errors = sum(f.level == "error" for f in fs)
        counts = f"{counted(errors, 'error')}, {counted(len(fs) - errors, 'warning')}"
        lines.append(f"{'FAIL' if errors else 'PASS'}  {path}  ({counts})")
        lines.extend(f"  {f.level} {f.code} {f.path}: {f.message}" for f in fs)
    return lines


def run(args: argparse.Namespace) -> int:
    """Exit 1 when a checked file has an error; else 2 when a file was not an OCP run (alone it
    is refused in one line; among several it is named in its line, not checked); else 0."""
    paths = list(args.files)
    if len(paths) == 1:
        require_existing(paths)  # among several, a missing one is named in its line instead
    read = [_read(p) for p in paths]
    others = {i: what for i, (p, (doc, err)) in enumerate(zip(paths, read)) if (what := other_kind(p, doc, err))}
    if len(paths) == 1 and others:
        raise LoomError(refusal(paths[0], others[0]))
    name = ocp_check.checker_name()
    if name != "loopmath":
        print(f"loomtui: {ocp_check.INSTALL_HINT}", file=sys.stderr)
        if name == "none":
            print(f"loomtui: {ocp_check.NO_SCHEMA_HINT}", file=sys.stderr)
    runs = [i for i in range(len(paths)) if i not in others]  # checked together (cross-file rules)
    checked = check_files([paths[i] for i in runs], [read[i] for i in runs])
    results: Results = [None] * len(paths)
    for i, findings in zip(runs, checked):
        results[i] = findings
    failed = any(f.level == "error" for fs in checked for f in fs)
    if args.json:
        sys.stdout.write(_json(name, paths, results, others))
    elif lines := _lines(paths, results, others, args.quiet):
        sys.stdout.write("\n".join(lines) + "\n")
    return 1 if failed else 2 if others else 0
