"""The loom map as a session: what the browser shows for Maitento loom configurations.

One ``custom_message`` entry per loom (``[loom]``), below it one per interaction that seeds from
it (``[seeds from it]``) and that reads it (``[reads it]``), then a group of the configurations
that name no loom (``[interactions]``) and one of the inputs that could not be read
(``[not read]``). An entry's content is its one-line summary (the tree row, and what search
matches); the source's ``describe`` gives the detail pane the configuration explained field by
field with its findings (Markdown). Enter does not move a leaf: the map has no conversation. Ids are stable across re-reads (the loom id, the file and the JSON path), so a reload
keeps the selection. docs/maitento-loom-config.md has the rules.
"""

from __future__ import annotations

import os
from typing import Any

from loomtui.formats.base.common import unique_id
from loomtui.formats.maitento.map import LoomNode, build_map, counts
from loomtui.formats.maitento.read import MAP_WALK_LIMIT, Config, Item, Problem, TooManyFiles, read_paths, walk
from loomtui.formats.maitento.rules import Finding
from loomtui.formats.maitento.words import MAP_WORDS
from loomtui.session.errors import WriteConflict
from loomtui.session.manager import SessionManager
from loomtui.session.source import LABEL, Source
from loomtui.view.words import counted

FORMAT = "maitento-loom-config"


def stamp(path: str) -> tuple[tuple[str, int, int], ...]:
    """What the map was read from: each file's path, size and modification time."""
    files = walk(path, MAP_WALK_LIMIT) if os.path.isdir(path) else [path]
    out = []
    for f in files:
        try:
            st = os.stat(f)
        except OSError:
            continue
        out.append((f, st.st_size, st.st_mtime_ns))
    return tuple(out)


class LoomConfigMap(SessionManager):
    """The map as a session. Nothing is appended to a configuration file, so ``refresh`` only
    says whether the files changed (WriteConflict makes the browser read them again)."""

    stamp: tuple[tuple[str, int, int], ...] = ()

    def refresh(self) -> list[Any]:
        if self.source_path is None:
            return []
        try:
            now = stamp(self.source_path)
        except TooManyFiles:
            now = ()  # grown past what a map looks through: read again, and say so then
        if now != self.stamp:
            raise WriteConflict("the loom configuration files changed")
        return []


def table_markdown(c: Config) -> str:
    """One configuration explained field by field (given → effective — why), then its findings."""
    e = c.explained
    lines = [
        f"**{_md(c.label)}** — {e.form} form at `{_code(c.at)}`",
        "",
        "Each field: given → **effective** — why.",
        "",
    ]
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
    return [f"- **{f.level}** `{_code(f.path)}`: {_md(f.message)} ({f.code})" for f in findings]


def _code(text: str) -> str:
    return text.replace("`", "'")


def _md(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("`", "'").replace("\n", " ")


def open_map(path: str) -> LoomConfigMap | None:
    """The configurations in ``path`` (a file or a directory) as a session; None when none."""
    files = stamp(path)  # TooManyFiles (one line) before any file is read
    items = read_paths([path], MAP_WALK_LIMIT)
    if not items:
        return None
    # rows name files relative to what was opened (the title says where that is)
    base = path if os.path.isdir(path) else os.path.dirname(path)
    for item in items:
        item.source = os.path.relpath(item.source, base) if base else item.source
    sm = map_session(items, path)
    sm.stamp = files
    return sm


class _Rows:
    """The map's entries (one line each) and the detail text of each, by entry id."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self.details: dict[str, str] = {}

    def add(self, eid: str, parent: str | None, kind: str, row: str, body: str) -> str:
        eid = unique_id(eid, self.details)
        self.entries.append(
            {
                "type": "custom_message",
                "id": eid,
                "parentId": parent,
                "timestamp": None,
                "customType": kind,
                "content": row,
                "display": True,
            }
        )
        self.details[eid] = body
        return eid

    def loom(self, n: LoomNode) -> None:
        """A loom, with the interactions seeding from it and those reading it below."""
        flags = "".join(f" ! {f}" for f in n.flags)
        body = [
            f"**loom `{_code(n.id)}`**",
            "",
            f"Seed of {counted(len(n.seeded_by), 'interaction')}, read by {len(n.read_by)}.",
            "",
        ]
        body += [f"- **{_md(f)}**" for f in n.flags]
        body += ["", "Seeds from it:" if n.seeded_by else ""] + [f"- {_md(c.label)}" for c in n.seeded_by]
        body += ["", "Reads it:" if n.read_by else ""] + [f"- {_md(c.label)}" for c in n.read_by]
        lid = self.add(
            f"loom:{n.id.lower()}",
            None,
            "loom",
            f"{n.id} · seed of {len(n.seeded_by)} · read by {len(n.read_by)}{flags}",
            "\n".join(body),
        )
        for how, tag, group in (("seeds from it", "seed", n.seeded_by), ("reads it", "read", n.read_by)):
            for c in group:
                self.add(
                    f"{tag}:{n.id.lower()}:{c.source}#{c.at}",
                    lid,
                    how,
                    f"{c.label} · {counts(c.findings)}",
                    table_markdown(c),
                )

    def unlinked(self, configs: list[Config]) -> None:
        gid = self.add(
            "interactions",
            None,
            "interactions",
            f"{len(configs)} with no seed or read-only loom",
            "Configurations that name no `seedFromLoomId` and no `readFromLoomIds`.",
        )
        for c in configs:
            self.add(
                f"config:{c.source}#{c.at}", gid, "interaction", f"{c.label} · {counts(c.findings)}", table_markdown(c)
            )

    def problems(self, problems: list[Problem]) -> None:
        gid = self.add(
            "problems",
            None,
            "not read",
            f"{counted(len(problems), 'input')} with no readable configuration",
            "Files or members that hold no readable configuration.",
        )
        for p in problems:
            first = p.findings[0] if p.findings else None
            self.add(
                f"problem:{p.source}#{first.path if first else ''}",
                gid,
                "problem",
                f"{p.label} · {first.message if first else ''}",
                f"**{_md(p.label)}**\n\n" + "\n".join(_findings_md(p.findings)),
            )


def map_session(items: list[Item], path: str) -> LoomConfigMap:
    """``items`` (from ``maitento/read.py``) as the map's session of ``path``: its name says what
    it is ("loom configurations"), the header says where (the path, once)."""
    m = build_map(items)
    rows = _Rows()
    for n in m.looms:
        rows.loom(n)
    if m.unlinked:
        rows.unlinked(m.unlinked)
    if m.problems:
        rows.problems(m.problems)
    entries, details = rows.entries, rows.details
    if not entries:
        rows.add("empty", None, "loom-config", "no loom configurations found", f"No loom configuration in `{path}`.")
    # the map has no conversation leaf (``leaf_moves`` False: the header names none, the tree marks
    # no path); the session's leaf is the first root, as an OCP run's is its run row, so that no
    # branch is moved first and the rows keep the map's order, the first one selected
    leaf = entries[0]["id"]
    header = {"type": "session", "version": 3, "id": "loom-config-map", "timestamp": None, "cwd": path}
    # the rows (and search) are the entries' one-line texts; the detail pane shows ``describe``
    source = Source(
        FORMAT,
        os.path.abspath(path),
        labels="memory",
        document=m,
        leaf_moves=False,
        describe=details.get,
        name="loom configuration map",
        keeps_times=False,
        keeps_usage=False,
        # labels only: pi's no-tools / user-only / labeled-only filters mean nothing on the map's
        # rows (all of them custom messages), so its filter bar has the default mode alone
        actions=frozenset((LABEL,)),
        entry_words=MAP_WORDS,
        id_word="",  # the map's id is made up here, not read from any file: `info` names none
        cwd_word="directory" if os.path.isdir(path) else "config file",  # what the map was opened on
        # the file a one-file map is made of (its page downloads it); a directory's map has none
        file_name="" if os.path.isdir(path) else "loom configuration file",
    )
    sm = LoomConfigMap.from_entries(header, entries, session_name="loom configurations", source=source, leaf=leaf)
    assert isinstance(sm, LoomConfigMap)
    return sm
