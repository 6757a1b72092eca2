"""The loom map: across many configurations, which looms seed and feed which interactions.

Each loom id named by a ``seedFromLoomId`` or in a ``readFromLoomIds`` becomes a node with the
interactions that seed from it and those that read it. Sharing a loom is what looms are for (one
interaction seeds from it while others read it): only a conflict is flagged, a loom that seeds
from itself (an interaction known by that loom id — ``loomId`` or ``id`` beside its ``loom``
member — names it as its own seed) or that one interaction both seeds from and reads (its
threads come back twice: that configuration's ``seed-also-read`` warning), and an id that is not
a UUID. docs/maitento-loom-config.md has the rules.

``maitento/session.py`` lays the map out as a session for the browser.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from loomtui.formats.maitento.read import Config, Item, Problem
from loomtui.formats.maitento.rules import ERROR, WARNING, Finding, is_uuid


@dataclass
class LoomNode:
    id: str
    seeded_by: list[Config] = field(default_factory=list)
    read_by: list[Config] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)


@dataclass
class LoomMap:
    looms: list[LoomNode]
    #: configurations that name no seed and no read-only loom
    unlinked: list[Config]
    problems: list[Problem]

    def as_json(self) -> dict[str, Any]:
        def who(c: Config) -> dict[str, Any]:
            return {"source": c.source, "line": c.line, "name": c.name}

        return {
            "looms": [
                {
                    "id": n.id,
                    "seededBy": [who(c) for c in n.seeded_by],
                    "readBy": [who(c) for c in n.read_by],
                    "flags": n.flags,
                }
                for n in self.looms
            ],
            "unlinked": [who(c) for c in self.unlinked],
            "problems": [p.as_json() for p in self.problems],
        }


def _seed(c: Config) -> str | None:
    v = c.explained.given.get("seedFromLoomId")
    return v if isinstance(v, str) and v else None


def _reads(c: Config) -> list[str]:
    v = c.explained.given.get("readFromLoomIds")
    return [x for x in v if isinstance(x, str) and x] if isinstance(v, list) else []


def _first(configs: list[Config]) -> str:
    """The labels of the first three configurations (``…`` when there are more)."""
    return ", ".join(c.label for c in configs[:3]) + (" …" if len(configs) > 3 else "")


class _Looms(dict[str, LoomNode]):
    """The loom nodes by lower-cased id (loom ids are UUIDs: case does not matter)."""

    def node(self, loom_id: str) -> LoomNode:
        key = loom_id.lower()
        found = self.get(key)
        if found is None:
            found = self[key] = LoomNode(loom_id)
        return found

    def link(self, c: Config) -> bool:
        """Adds ``c`` to the looms it seeds from and reads; False when it names none."""
        seed, reads = _seed(c), _reads(c)
        if seed is None and not reads:
            return False
        if seed is not None:
            self.node(seed).seeded_by.append(c)
        done: set[str] = set()
        for r in reads:
            if r.lower() not in done:
                done.add(r.lower())
                self.node(r).read_by.append(c)
        return True


def _flags(key: str, n: LoomNode) -> list[str]:
    """What is wrong with one loom: not a UUID, seeding from itself, seeded from and read by one
    interaction. Seeded by some while others read it is ordinary sharing, not flagged."""
    flags: list[str] = []
    if not is_uuid(n.id):
        flags.append("not a UUID")
    for c in n.seeded_by:
        if c.own_id and c.own_id.lower() == key:
            flags.append(f"seeds from itself: {c.label}")
    for c in n.seeded_by:
        if any(c is r for r in n.read_by):
            flags.append(f"seeded from and read by the same interaction: {c.label} (its threads come back twice)")
    return flags


def build_map(items: list[Item]) -> LoomMap:
    looms = _Looms()
    unlinked: list[Config] = []
    problems: list[Problem] = []
    for item in items:
        if isinstance(item, Problem):
            problems.append(item)
        elif not looms.link(item):
            unlinked.append(item)
    for key, n in looms.items():
        n.flags.extend(_flags(key, n))
    return LoomMap(list(looms.values()), unlinked, problems)


def counts(findings: list[Finding]) -> str:
    e = sum(1 for f in findings if f.level == ERROR)
    w = sum(1 for f in findings if f.level == WARNING)
    parts = ([f"{e} error{'s' if e != 1 else ''}"] if e else []) + (
        [f"{w} warning{'s' if w != 1 else ''}"] if w else []
    )
    return ", ".join(parts) if parts else "ok"


def map_lines(m: LoomMap) -> list[str]:
    """The map as text (``loomtui loom-config --map``)."""
    out: list[str] = []
    for n in m.looms:
        out.append(f"loom {n.id}  (seed of {len(n.seeded_by)}, read by {len(n.read_by)})")
        links = [("seeds from it", c) for c in n.seeded_by] + [("reads it", c) for c in n.read_by]
        for i, (how, c) in enumerate(links):
            glyph = "└─" if i == len(links) - 1 and not n.flags else "├─"
            out.append(f"  {glyph} {how:<14} {c.label}  [{counts(c.findings)}]")
        for i, flag in enumerate(n.flags):
            glyph = "└─" if i == len(n.flags) - 1 else "├─"
            out.append(f"  {glyph} ! {flag}")
    if m.unlinked:
        out.append(f"no seed or read-only loom ({len(m.unlinked)})")
        for i, c in enumerate(m.unlinked):
            glyph = "└─" if i == len(m.unlinked) - 1 else "├─"
            out.append(f"  {glyph} {c.label}  [{counts(c.findings)}]")
    if m.problems:
        out.append(f"not read ({len(m.problems)})")
        for i, p in enumerate(m.problems):
            glyph = "└─" if i == len(m.problems) - 1 else "├─"
            out.append(f"  {glyph} {p.label}  {p.message}")
    return out
