"""What the browser's header bar says of an open session, and what is said once when it opens.

Pure: the controller (``view/controller.py``) hands in the manager, its source and the leaf it shows."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from loomtui.view.printable import printable
from loomtui.view.width import text_width, truncate_to_width
from loomtui.view.words import clip, counted

if TYPE_CHECKING:  # the app's first screen draws a kept ``Header`` before any session is read
    from loomtui.session.manager import SessionManager
    from loomtui.session.source import Source
    from loomtui.view.outcomes import Notice


@dataclass(frozen=True)
class Header:
    """The header bar's parts, each made printable; ``fit`` lays them out in a width, keeping
    the most useful ones whole (the name, the leaf, what is wrong with the file, read-only) and
    giving up the others first (the path, the token figure, the entry count)."""

    name: str
    where: str
    entries: str
    read_only: str = ""
    diagnostics: str = ""
    usage: str = ""
    leaf: str = ""

    def parts(self) -> list[str]:
        """Every part, in the bar's order (what a wide bar shows)."""
        texts = (self.name, self.where, self.entries, self.read_only, self.diagnostics, self.usage, self.leaf)
        return [t for t in texts if t]

    def fit(self, width: int) -> str:
        """The bar's text in ``width`` columns: the path shortened from its left end, then left
        out; the token figure, then the entry count left out; read-only said in one word; the
        name shortened with "…" (to 30 columns, then 12); only then the end cut."""
        text = SEP.join(self.parts())
        if text_width(text) <= width:
            return text
        over = text_width(text) - width
        if self.where and text_width(self.where) - over - 1 >= 12:
            return SEP.join(replace(self, where="…" + _tail(self.where, text_width(self.where) - over - 1)).parts())
        steps: list[Header] = [replace(self, where="")]
        steps.append(replace(steps[-1], usage=""))
        steps.append(replace(steps[-1], entries=""))
        steps.append(replace(steps[-1], read_only="read-only" if self.read_only else ""))
        steps.append(steps[-1]._name_in(width, 30))
        steps.append(steps[-1]._name_in(width, 12))
        for step in steps:
            text = SEP.join(step.parts())
            if text_width(text) <= width:
                return text
        return truncate_to_width(text, width, "…")

    def _name_in(self, width: int, least: int) -> Header:
        """The name shortened (with "…") so the bar fits, but to no fewer than ``least`` columns."""
        over = text_width(SEP.join(self.parts())) - width
        room = max(least, text_width(self.name) - over)
        return self if room >= text_width(self.name) else replace(self, name=clip(self.name, room))


#: what the header's parts are joined with
SEP = "  ·  "


def _tail(text: str, width: int) -> str:
    """The end of a path in ``width`` columns, from a "/" where one is near."""
    tail = text
    while text_width(tail) > width:
        tail = tail[1:]
    cut = tail.find("/")
    return tail[cut:] if 0 <= cut < len(tail) - 8 else tail


def header(
    manager: SessionManager,
    src: Source,
    shown_path: str,
    leaf: str | None,
    leaf_moved: bool,
    file_leaf: str | None = None,
) -> Header:
    """The header bar: name, where, size, read-only, diagnostics, tokens, the leaf (where pi
    resumes, in every filter: ``SessionController.shown_leaf``, which the palette and Ctrl+S name
    too; none where the source has no conversation leaf, ``Source.has_leaf``). ``file_leaf``: the
    leaf itself; where the header names another entry (the leaf is a label or settings entry the
    default filter does not show) and the leaf is the file's last entry, the bar names that last
    entry too: where pi resumes, the commands' default leaf (``loomtui info`` says both)."""
    from loomtui.view.usage_totals import header_usage

    name = manager.get_session_name()
    title = manager.title.get("title") if isinstance(manager.title, dict) else None
    base = os.path.basename(shown_path)
    label = name or title or base
    read_only = ""
    if src.is_pi_file and not src.can_append:
        read_only = f"v{manager.version}, read-only"
    elif src.read_only_reason:
        read_only = f"{src.display_name}, read-only"
    n = len(manager.diagnostics)
    usage = header_usage(manager)
    ends = ""
    if not leaf_moved and file_leaf is not None and file_leaf != leaf and file_leaf == manager.index.leaf_id:
        ends = f" (last entry {_short(file_leaf)})"
    leaf = _short(leaf)
    entries = _entries(manager)
    return Header(
        printable(label),
        printable(shown_path if label != base else os.path.dirname(shown_path)),
        entries,
        read_only,
        counted(n, "diagnostic") if n else "",
        usage.figure if usage is not None and (usage.tokens or usage.cost) else "",  # as pi's footer counts
        # a source without a conversation leaf (an OCP run, the loom map) names none
        printable(f"leaf {leaf or '(none)'}{' (moved)' if leaf_moved else ends}") if src.has_leaf else "",
    )


def _entries(manager: SessionManager) -> str:
    """The entry count; where there are more entries than rows (another tool's inline subagent
    runs, one row each), the rows beside it, as ``info`` says both."""
    n_entries, rows = manager.entry_count, len(manager.index.entries)
    entries = counted(n_entries, "entry", "entries")
    return entries + f" ({counted(rows, 'row')})" if n_entries > rows else entries


def _short(entry_id: str | None) -> str | None:
    """A uuid (Claude Code, OCP) as its prefix, so the file's name keeps its room."""
    return entry_id[:8] + "…" if entry_id is not None and len(entry_id) > 12 else entry_id


def title_parts(manager: SessionManager, src: Source, shown_path: str, leaf: str | None, leaf_moved: bool) -> list[str]:
    """The header bar's parts, in order (``header``)."""
    return header(manager, src, shown_path, leaf, leaf_moved).parts()


def opening_notices(manager: SessionManager, src: Source, diagnostics_key: str = "") -> list[Notice]:
    """The notices shown once when a session opens: its repaired lines, why it is read-only."""
    from loomtui.view.outcomes import Notice

    out = []
    diags = manager.diagnostics
    if diags:
        more = f" (and {len(diags) - 1} more)" if len(diags) > 1 else ""
        lists = f" {diagnostics_key} lists them." if diagnostics_key else ""
        out.append(
            Notice(
                f"{src.diagnostics_said(len(diags))}: {diags[0]}{more}.{lists}",
                "Session opened with diagnostics",
                "warning",
                12,
            )
        )
    if src.is_pi_file and not src.can_append:
        out.append(
            Notice(
                f"A version {manager.version} session: browsing and branch exports work, writes to it "
                f"(labels, persisting the leaf) need `loomtui migrate {src.path}` first.",
                "Old session format",
                "information",
                8,
            )
        )
    elif src.read_only_reason:
        out.append(Notice(src.read_only_reason, "Read-only", "information", 8))
    return out
