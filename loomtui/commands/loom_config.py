"""`loomtui loom-config PATH… [--json] [--map]`: read, check and explain Maitento loom settings.

For each configuration found (a LoomConfiguration JSON, any JSON with a ``loom`` member, a
definition file with ``loom = { … }``, every such file below a directory): a table of
field | given | effective | why, then the findings, one line each with its JSON path. ``--map``
prints which looms seed and feed which interactions instead. Exit status 1 when any finding is an
error (docs/maitento-loom-config.md).
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

import orjson

from loomtui.formats.maitento import ERROR
from loomtui.formats.maitento_map import build_map, counts, map_lines
from loomtui.formats.maitento_read import Config, Item, read_paths


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="a JSON or definition file, or a directory (every such file below it)")
    p.add_argument("--json", action="store_true", help="print one JSON object per configuration")
    p.add_argument("--map", action="store_true",
                   help="print the loom map: each loom with the interactions that seed from it and read it")


def run(args: argparse.Namespace) -> int:
    items = read_paths(args.paths)
    out = sys.stdout
    if args.map:
        m = build_map(items)
        if args.json:
            out.write(orjson.dumps(m.as_json(), option=orjson.OPT_INDENT_2).decode() + "\n")
        else:
            text = map_lines(m)
            out.write("\n".join(text) + "\n" if text else "no loom configurations found\n")
            findings = [f for i in items for f in i.findings]
            if findings:
                out.flush()
                print(f"{sum(isinstance(i, Config) for i in items)} configuration(s), {len(m.problems)} not read: "
                      f"{counts(findings)} (`loomtui loom-config` without --map lists them)", file=sys.stderr)
    elif args.json:
        doc = [i.as_json() for i in items]
        out.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        write_tables(items, out)
    return 1 if any(f.level == ERROR for i in items for f in i.findings) else 0


def write_tables(items: list[Item], out: TextIO) -> None:
    if not items:
        out.write("no loom configurations found\n")
        return
    for n, item in enumerate(items):
        lines = [("\n" if n else "") + item.label]
        if isinstance(item, Config):
            e = item.explained
            lines[0] += f"  {e.form}  {item.at}"
            table = [("field", "given", "effective", "why")] + [(r.field, r.given, r.effective, r.why) for r in e.rows]
            widths = [max(len(row[k]) for row in table) for k in range(3)]
            for row in table:
                lines.append("  " + "  ".join(row[k].ljust(widths[k]) for k in range(3)) + "  " + row[3])
        for f in item.findings:
            lines.append("  " + f.line())
        if isinstance(item, Config) and not item.findings:
            lines.append("  no findings")
        out.write("\n".join(lines) + "\n")  # one configuration at a time: memory stays flat
