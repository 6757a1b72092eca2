"""The loom map: across many configurations, which looms seed and feed which interactions.

Each loom id named by a ``seedFromLoomId`` or in a ``readFromLoomIds`` becomes a node with the
interactions that seed from it and those that read it. A loom is flagged when it seeds from
itself (an interaction known by that loom id — ``loomId`` or ``id`` beside its ``loom`` member —
names it as its own seed) or is both read-only and seeded (read by one interaction while it is
the seed of one, or while it was itself seeded). docs/maitento-loom-config.md has the rules.

:func:`map_session` lays the map out as a session (one entry per loom, per link and per
configuration) so that the browser shows it like any other loom: the tree is the map, the detail
pane the explained table, and search finds looms, interactions and files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from loomtui.formats.maitento import ERROR, WARNING, Finding, is_uuid
from loomtui.formats.maitento_read import Config, Item, Problem


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
            "looms": [{"id": n.id, "seededBy": [who(c) for c in n.seeded_by], "readBy": [who(c) for c in n.read_by],
                       "flags": n.flags} for n in self.looms],
            "unlinked": [who(c) for c in self.unlinked],
            "problems": [p.as_json() for p in self.problems],
        }


def _seed(c: Config) -> str | None:
    v = c.explained.given.get("seedFromLoomId")
    return v if isinstance(v, str) and v else None


def _reads(c: Config) -> list[str]:
    v = c.explained.given.get("readFromLoomIds")
    return [x for x in v if isinstance(x, str) and x] if isinstance(v, list) else []


def build_map(items: list[Item]) -> LoomMap:
    nodes: dict[str, LoomNode] = {}
    unlinked: list[Config] = []
    problems: list[Problem] = []
    configs = [i for i in items if isinstance(i, Config)]

    def node(loom_id: str) -> LoomNode:
        key = loom_id.lower()
        if key not in nodes:
            nodes[key] = LoomNode(loom_id)
        return nodes[key]

    for item in items:
        if isinstance(item, Problem):
            problems.append(item)
            continue
        seed, reads = _seed(item), _reads(item)
        if seed is None and not reads:
            unlinked.append(item)
            continue
        if seed is not None:
            node(seed).seeded_by.append(item)
        done: set[str] = set()
        for r in reads:
            if r.lower() not in done:
                done.add(r.lower())
                node(r).read_by.append(item)
    # a loom an interaction is known by, and the seed that interaction gives its looms
    seeded_looms: dict[str, list[Config]] = {}
    for c in configs:
        if c.own_id and _seed(c):
            seeded_looms.setdefault(c.own_id.lower(), []).append(c)
    for key, n in nodes.items():
        if not is_uuid(n.id):
            n.flags.append("not a UUID")
        for c in n.seeded_by:
            if c.own_id and c.own_id.lower() == key:
                n.flags.append(f"seeds from itself: {c.label}")
        if n.read_by and (n.seeded_by or key in seeded_looms):
            readers = ", ".join(c.label for c in n.read_by[:3]) + (" …" if len(n.read_by) > 3 else "")
            if n.seeded_by:
                seeders = ", ".join(c.label for c in n.seeded_by[:3]) + (" …" if len(n.seeded_by) > 3 else "")
                what = f"seed of {seeders}"
            else:
                what = "seeded from " + ", ".join(str(_seed(c)) for c in seeded_looms[key][:3])
            n.flags.append(f"both read-only and seeded: read by {readers}; {what}")
    return LoomMap(list(nodes.values()), unlinked, problems)


def counts(findings: list[Finding]) -> str:
    e = sum(1 for f in findings if f.level == ERROR)
    w = sum(1 for f in findings if f.level == WARNING)
    parts = ([f"{e} error{'s' if e != 1 else ''}"] if e else []) + ([f"{w} warning{'s' if w != 1 else ''}"] if w else [])
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
            out.append(f"  {glyph} {p.label}  {p.findings[0].message if p.findings else ''}")
    return out


# the map as a session ---------------------------------------------------------------------------
def table_markdown(c: Config) -> str:
    """The explained table and the findings of one configuration, as Markdown."""
    e = c.explained
    lines = [f"**{_md(c.label)}** — {e.form} form at `{_code(c.at)}`", "",
             "Each field: given → **effective** — why.", ""]
    # one item per field rather than a Markdown table: a pane 60 columns wide cannot hold four
    # columns with UUIDs in two of them without cutting the field names
    for r in e.rows:
        lines.append(f"- `{r.field}`: `{_code(r.given)}` → **{_md(r.effective)}** — {_md(r.why)}")
    lines += ["", "**Findings**", ""]
    lines.extend(_findings_md(e.findings))
    return "\n".join(lines)


def _findings_md(findings: list[Finding]) -> list[str]:
    if not findings:
        return ["No findings."]
    return [f"- **{f.level}** `{_md(f.path)}`: {_md(f.message)} ({f.code})" for f in findings]


def _code(text: str) -> str:
    return text.replace("`", "'")


def _md(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("`", "'").replace("\n", " ")


def map_session(items: list[Item], path: str) -> Any:
    """The map as an in-memory session (SessionManager): the browser's view of loom configs."""
    from loomtui.formats.common import synthetic_time
    from loomtui.session.manager import SessionManager

    m = build_map(items)
    base = datetime(2000, 1, 1, tzinfo=UTC)
    entries: list[dict[str, Any]] = []
    rows: dict[str, str] = {}

    def add(eid: str, parent: str | None, kind: str, row: str, body: str) -> None:
        entries.append({"type": "custom_message", "id": eid, "parentId": parent,
                        "timestamp": synthetic_time(base, len(entries)), "customType": kind,
                        "content": body, "display": True})
        rows[eid] = row

    for k, n in enumerate(m.looms):
        lid = f"loom-{k}"
        flags = "".join(f" ! {f}" for f in n.flags)
        row = f"{n.id} · seed of {len(n.seeded_by)} · read by {len(n.read_by)}{flags}"
        body = [f"**loom `{n.id}`**", "", f"Seed of {len(n.seeded_by)} interaction(s), read by {len(n.read_by)}.", ""]
        body += [f"- **{_md(f)}**" for f in n.flags]
        body += ["", "Seeds from it:" if n.seeded_by else ""] + [f"- {_md(c.label)}" for c in n.seeded_by]
        body += ["", "Reads it:" if n.read_by else ""] + [f"- {_md(c.label)}" for c in n.read_by]
        add(lid, None, "loom", row, "\n".join(body))
        for how, group in (("seeds from it", n.seeded_by), ("reads it", n.read_by)):
            for j, c in enumerate(group):
                add(f"{lid}-{how.split()[0]}-{j}", lid, how, f"{c.label} · {counts(c.findings)}", table_markdown(c))
    if m.unlinked:
        add("unlinked", None, "interactions", f"{len(m.unlinked)} with no seed or read-only loom",
            "Configurations that name no `seedFromLoomId` and no `readFromLoomIds`.")
        for j, c in enumerate(m.unlinked):
            add(f"unlinked-{j}", "unlinked", "interaction", f"{c.label} · {counts(c.findings)}", table_markdown(c))
    if m.problems:
        add("problems", None, "not read", f"{len(m.problems)} input(s) with no readable configuration",
            "Files or members that hold no readable configuration.")
        for j, p in enumerate(m.problems):
            first = p.findings[0].message if p.findings else ""
            add(f"problem-{j}", "problems", "problem", f"{p.label} · {first}",
                f"**{_md(p.label)}**\n\n" + "\n".join(_findings_md(p.findings)))
    if not entries:
        add("empty", None, "loom-config", "no loom configurations found", f"No loom configuration below `{path}`.")
    # the leaf: the first root's first child (so the first root's branch, shown first, is the map's
    # natural order); its entry goes last because the last entry is the session leaf
    leaf = next((i for i, e in enumerate(entries) if e["parentId"] == entries[0]["id"]), 0)
    entries.append(entries.pop(leaf))
    header = {"type": "session", "version": 3, "id": "loom-config-map", "timestamp": synthetic_time(base, 0),
              "cwd": path}
    sm = SessionManager.from_entries(header, entries, source_path=path, source_format="maitento-loom-config",
                                     session_name=f"loom configurations: {path}")
    for e in sm.index.entries:
        # the row shows the one-line summary; the detail pane shows the content (the table)
        e.text = rows.get(e.id, e.text)
    return sm
