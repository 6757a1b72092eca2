"""`loomtui loom-config PATH… [--json] [--map]`: read, check and explain Maitento loom settings.

For each configuration found (a LoomConfiguration JSON, any JSON with a ``loom`` member, a
definition file with ``loom = { … }``, every such file below a directory): a table of
field | given | effective | why, then the findings, one line each with its JSON path. ``--map``
prints which looms seed and feed which interactions instead. Exit status 1 when any finding is an
error (docs/maitento-loom-config.md); a PATH that does not exist is refused first (one line, exit
2), as by every command, and so is a file named that holds no configuration and that loomtui
reads as something else (a pi or Claude Code session, an OCP run…), named in its own words as
``check`` names a file that is not an OCP run.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TextIO

from loomtui.commands._args import file_kind, require_existing
from loomtui.formats.maitento.map import build_map, counts, map_lines
from loomtui.formats.maitento.read import Config, Item, read_paths
from loomtui.formats.maitento.rules import ERROR
from loomtui.formats.maitento.session import FORMAT
from loomtui.formats.maitento.values import HugeInt
from loomtui.session.errors import LoomError
from loomtui.session.jsonvalue import dumps_bytes
from loomtui.view.printable import printable
from loomtui.view.words import counted


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "paths", nargs="+", metavar="PATH", help="a JSON or definition file, or a directory (every such file below it)"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object per configuration")
    p.add_argument(
        "--map",
        action="store_true",
        help="print the loom map: each loom with the interactions that seed from it and read it",
    )


def run(args: argparse.Namespace) -> int:
    require_existing(args.paths)
    items = read_paths(args.paths)
    refuse_other_kinds(args.paths, items)
    out = sys.stdout
    if args.map:
        m = build_map(items)
        if args.json:
            out.write(json_text(m.as_json()) + "\n")
        else:
            text = [printable(line) for line in map_lines(m)]  # names from the files
            out.write("\n".join(text) + "\n" if text else "no loom configurations found\n")
            findings = [f for i in items for f in i.findings]
            if findings:
                out.flush()
                print(
                    f"{counted(sum(isinstance(i, Config) for i in items), 'configuration')}, "
                    f"{len(m.problems)} not read: "
                    f"{counts(findings)} (`loomtui loom-config` without --map lists them)",
                    file=sys.stderr,
                )
    elif args.json:
        doc = [i.as_json() for i in items]
        out.write(json_text(doc) + "\n")
    else:
        write_tables(items, out)
    return 1 if any(f.level == ERROR for i in items for f in i.findings) else 0


def refuse_other_kinds(paths: list[str], items: list[Item]) -> None:
    """A file named on the command line without a configuration that loomtui reads as another
    kind (a session, an OCP run) is the wrong argument: refused in one line (exit 2), not
    reported as broken JSON."""
    found = {i.source for i in items if isinstance(i, Config)}
    for path in paths:
        if path in found or not os.path.isfile(path):
            continue
        what = file_kind(path, lambda manager: manager.source.kind == FORMAT)
        if what is not None:
            raise LoomError(
                f"{path} is {what}, not a loom configuration; `loom-config` reads Maitento loom "
                "configurations (JSON, definition files, directories of them)"
            )


def json_text(value: object) -> str:
    """``value`` as indented JSON, every number as the file wrote it (integers of any size;
    one too long for Python, ``HugeInt``, written with its own digits)."""
    huge: list[str] = []

    def marked(v: object) -> object:
        if isinstance(v, HugeInt):
            huge.append(v.text)
            return f"\x00huge{len(huge) - 1}\x00"
        if isinstance(v, dict):
            return {k: marked(x) for k, x in v.items()}
        if isinstance(v, list):
            return [marked(x) for x in v]
        return v

    text = dumps_bytes(marked(value), indent=True).decode()
    for n, digits in enumerate(huge):
        text = text.replace(f'"\\u0000huge{n}\\u0000"', digits)
    return text


def write_tables(items: list[Item], out: TextIO) -> None:
    if not items:
        out.write("no loom configurations found\n")
        return
    for n, item in enumerate(items):
        # every value comes from a file: shown with its control characters as pictures
        lines = [("\n" if n else "") + printable(item.label)]
        if isinstance(item, Config):
            e = item.explained
            lines[0] += f"  {printable(str(e.form))}  {printable(str(item.at))}"
            table = [("field", "given", "effective", "why")] + [
                (printable(r.field), printable(r.given), printable(r.effective), printable(r.why)) for r in e.rows
            ]
            widths = [max(len(row[k]) for row in table) for k in range(3)]
            for row in table:
                lines.append("  " + "  ".join(row[k].ljust(widths[k]) for k in range(3)) + "  " + row[3])
        for f in item.findings:
            lines.append("  " + printable(f.line()))
        if isinstance(item, Config) and not item.findings:
            lines.append("  no findings")
        out.write("\n".join(lines) + "\n")  # one configuration at a time: memory stays flat
