"""`loomtui check FILE...`: OCP conformance findings (``E…`` errors, ``W…`` warnings).

The files are checked together, so the reference checker's cross-file rules (members of one
slate share their task and base commit) apply. Each file prints ``PASS`` or ``FAIL`` with its
counts, then one line per finding: level, code, JSON path, message. Exit 1 when any error is
found (warnings do not fail), 0 otherwise; a FILE that does not exist is refused first (one
line, exit 2), as by every command, and so is a file loomtui reads as something else (a pi
session, an OpenLoom document…), named in its own words, and a directory. Without the reference checker
(``pip install 'loomtui[ocp]'``) one line on stderr says so and the JSON Schema findings are
still reported.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from loomtui.commands._args import require_existing
from loomtui.formats.base.common import MAX_DOCUMENT_BYTES, load_json
from loomtui.formats.ocp import check as ocp_check
from loomtui.session.errors import LoomError, SessionFormatError, cannot_open
from loomtui.session.fileio import read_capped
from loomtui.view.words import counted


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="OCP run documents (v0.1, v0.2, v0.3)")
    p.add_argument("--json", action="store_true", help="print the findings as JSON")
    p.add_argument("-q", "--quiet", action="store_true", help="print only files with findings")


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
    from loomtui.formats.opening import open_session

    try:
        manager = open_session(path)
    except Exception:  # nothing loomtui opens (or not now): the findings speak
        return None
    return None if ocp_run(manager) is not None else manager.source.a_name


def refuse_other_kinds(paths: list[str], read: list[tuple[Any, ocp_check.Finding | None]]) -> None:
    """The wrong file given (a pi session, an OpenLoom document…, a directory): a usage error,
    not a finding about a run."""
    for path, (doc, err) in zip(paths, read):
        if os.path.isdir(path):  # `loomtui DIR` opens one (its loom configurations); check takes files
            raise LoomError(
                f"{path} is a directory, not an OCP run document; `check` checks OCP run files "
                "(`loom-config` checks a directory's loom configurations)"
            )
        what = not_a_run(path, doc, err)
        if what is not None:
            raise LoomError(f"{path} is {what}, not an OCP run document; `check` checks OCP runs")


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


def run(args: argparse.Namespace) -> int:
    require_existing(args.files)
    read = [_read(p) for p in args.files]
    refuse_other_kinds(args.files, read)
    name = ocp_check.checker_name()
    if name != "loopmath":
        print(f"loomtui: {ocp_check.INSTALL_HINT}", file=sys.stderr)
        if name == "none":
            print(f"loomtui: {ocp_check.NO_SCHEMA_HINT}", file=sys.stderr)
    results = check_files(list(args.files), read)
    failed = any(f.level == "error" for fs in results for f in fs)
    if args.json:
        doc = {
            "checker": name,
            "files": [
                {
                    "file": p,
                    "errors": sum(f.level == "error" for f in fs),
                    "warnings": sum(f.level != "error" for f in fs),
                    "findings": [f._asdict() for f in fs],
                }
                for p, fs in zip(args.files, results)
            ],
        }
        sys.stdout.write(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
        return 1 if failed else 0
    lines: list[str] = []
    for path, fs in zip(args.files, results):
        if args.quiet and not fs:
            continue
        errors = sum(f.level == "error" for f in fs)
        counts = f"{counted(errors, 'error')}, {counted(len(fs) - errors, 'warning')}"
        lines.append(f"{'FAIL' if errors else 'PASS'}  {path}  ({counts})")
        lines.extend(f"  {f.level} {f.code} {f.path}: {f.message}" for f in fs)
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")
    return 1 if failed else 0
