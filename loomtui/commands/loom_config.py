"""`loomtui loom-config PATH… [--json] [--map]`: read, check and explain Maitento loom settings.

For each configuration found (a LoomConfiguration JSON, any JSON with a ``loom`` member, a
definition file with ``loom = { … }``, every such file below a directory): a table of
field | given | effective | why, then the findings, one line each with its JSON path. ``--map``
prints which looms seed and feed which interactions instead. Exit status 1 when any finding is an
error (docs/maitento-loom-config.md). A PATH that is not read, as ``check`` treats a file that is
not an OCP run: one that does not exist, a file loomtui reads as something else (a pi or Claude
Code session, an OCP run…, named in its own words) and a file that holds nothing of a loom
configuration (``{"hello": 1}``, notes). Given alone it is refused in one line (exit 2); among
several it gets a ``SKIP`` line (``notRead`` in ``--json``; listed under "not read" in the map)
and the others are read: exit 1 if a finding is an error, else 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TextIO

from loomtui.commands._args import file_kind, require_existing
from loomtui.formats.maitento.map import build_map, counts, map_lines
from loomtui.formats.maitento.read import Config, Item, Problem, read_paths
from loomtui.formats.maitento.rules import ERROR
from loomtui.formats.maitento.session import FORMAT
from loomtui.formats.maitento.values import HugeInt
from loomtui.session.errors import LoomError, cannot_open
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
    p.epilog = (
        "exit 1 if a finding is an error; else 2 if a PATH is not read (it does not exist, is a session or "
        "another kind of file, or holds no loom configuration): alone it is refused, among several it gets "
        "a SKIP line and the others are read; else 0"
    )


def run(args: argparse.Namespace) -> int:
    """Exit 1 when a finding is an error; else 2 when a path was not read (alone it is refused
    in one line; among several it is named in its line and the others are read); else 0."""
    paths = list(args.paths)
    if len(paths) == 1:
        require_existing(paths)  # among several, a missing one is named in its line instead
    items = [item for path in paths for item in read_path(path)]
    skipped = [i for i in items if isinstance(i, Problem) and i.skipped is not None]
    if len(paths) == 1 and skipped:
        raise LoomError(refusal(paths[0], skipped[0].skipped or ""))
    out = sys.stdout
    if args.map:
        write_map(items, args.json, out)
    elif args.json:
        doc = [i.as_json() for i in items]
        out.write(json_text(doc) + "\n")
    else:
        write_tables(items, out)
    return 1 if any(f.level == ERROR for i in items for f in i.findings) else 2 if skipped else 0


#: a PATH among several that is not there (alone it is refused, as by every command)
MISSING = "a path that does not exist"
#: what a JSON document named on the command line is when it holds nothing of a loom configuration
NO_CONFIGURATION = "a JSON document without a LoomConfiguration or a `loom` member"
_WHAT_IS_READ = "`loom-config` reads Maitento loom configurations (JSON, definition files, directories of them)"


def read_path(path: str) -> list[Item]:
    """The configurations (and problems) of one PATH; a path that is not there, a file loomtui
    reads as another kind (a session, an OCP run) and a file that holds nothing of a loom
    configuration (``{"hello": 1}``, notes) are one ``Problem`` each, ``skipped`` saying what
    they are: the wrong argument (exit 2), as ``check`` skips what is not an OCP run, not an
    error in a configuration (exit 1)."""
    if not os.path.lexists(path):
        return [Problem(path, 0, skipped=MISSING)]
    items = read_paths([path])
    if not os.path.isfile(path) or any(isinstance(i, Config) for i in items):
        return items
    what = file_kind(path, lambda manager: manager.source.kind == FORMAT)
    if what is not None:
        return [Problem(path, 0, skipped=f"{what}, not a loom configuration")]
    if len(items) == 1 and _holds_none(items[0]):
        return [Problem(path, 0, skipped=_none_in(items[0].findings[0].message))]
    return items


def _holds_none(item: Item) -> bool:
    return isinstance(item, Problem) and [f.code for f in item.findings] == ["no-configuration"]


def _none_in(message: str) -> str:
    """What a file without any configuration is, from its ``no-configuration`` finding ("the
    file is empty", "… in this JSON document")."""
    if message.startswith("the file is "):
        rest = message.removeprefix("the file is ")
        return "an empty file" if rest == "empty" else rest
    return NO_CONFIGURATION


def refusal(path: str, skipped: str) -> str:
    """The one line ``loom-config`` given one PATH that it does not read says (exit 2)."""
    if skipped == MISSING:
        return cannot_open(path)
    return f"{path} is {skipped}; {_WHAT_IS_READ}"


def write_map(items: list[Item], as_json: bool, out: TextIO) -> None:
    """The loom map of ``items`` (every path not read listed under "not read"), and on stderr
    what was read and what was found."""
    m = build_map(items)
    if as_json:
        out.write(json_text(m.as_json()) + "\n")
        return
    text = [printable(line) for line in map_lines(m)]  # names from the files
    out.write("\n".join(text) + "\n" if text else "no loom configurations found\n")
    findings = [f for i in items for f in i.findings]
    if findings or m.problems:
        out.flush()
        said = f"{counts(findings)} (`loomtui loom-config` without --map lists them)" if findings else "no findings"
        print(
            f"{counted(sum(isinstance(i, Config) for i in items), 'configuration')}, {len(m.problems)} not read: {said}",
            file=sys.stderr,
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
        if isinstance(item, Problem) and item.skipped is not None:  # one line: what it is
            lines = [("\n" if n else "") + printable(f"SKIP  {item.source}  ({item.skipped}: not read)")]
            out.write("\n".join(lines) + "\n")
            continue
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
