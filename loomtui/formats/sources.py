"""The one place the sources loomtui reads beside pi's own sessions are listed.

Each source is a package of ``formats/`` whose ``source.py`` gives one ``ADAPTER``
(``formats/base/document.py``): the opener asks them in this order what a document or a file of
JSON lines is and has the one that claims it open it (``formats/detect.py``); the picker asks
them for rows under the directories the user named. A source whose tool keeps its sessions in
folders of its own (another agent) also gives a ``LISTER`` in its ``lister.py``
(``session/agent_catalog.py``): the picker lists those folders beside pi's, tags the rows with
the tool's word and searches their text. Adding a source is adding its package and one line
here (docs/architecture.md, "Adding a source").
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from loomtui.formats.base.document import Adapter

if TYPE_CHECKING:
    from loomtui.session.agent_catalog import AgentLister
    from loomtui.session.catalog import SessionSummary

#: the sources, in the order detection asks them (the first that claims a document opens it)
SOURCES = (
    "loomtui.formats.ocp.source",
    "loomtui.formats.looms.source",
    "loomtui.formats.codex.source",
    "loomtui.formats.claude.source",
)

#: the listers of the sources whose tools keep sessions in folders of their own, in the order the
#: picker lists (and names) those folders and asks them whose a file is
LISTERS = (
    "loomtui.formats.claude.lister",
    "loomtui.formats.codex.lister",
)


#: each source's early start, tried in this order before Textual starts (and starts threads)
#: for a big file that is not a pi session: ``early_start(path, fraction) -> bool`` of the
#: module, True when it started a child that reads the file (the source's reader takes it)
EARLY_STARTS = {
    "ocp": "loomtui.formats.ocp.split",
    "claude": "loomtui.formats.claude.split",
}


#: the smallest file any of them takes (an OCP run's; a Claude Code file's is 16 MB)
EARLY_MIN_BYTES = 4 << 20


def early_start(path: str, fraction: float, wanted: Callable[[str], bool]) -> bool:
    """The first source whose early start takes ``path`` (only those ``wanted`` by name); a
    file under ``EARLY_MIN_BYTES`` imports none of them."""
    try:
        if os.path.getsize(path) < EARLY_MIN_BYTES:
            return False
    except OSError:
        return False
    for name, module in EARLY_STARTS.items():
        if wanted(name) and importlib.import_module(module).early_start(path, fraction):
            return True
    return False


@functools.cache
def adapters() -> tuple[Adapter, ...]:
    """The adapters of ``SOURCES`` (their modules are imported when first asked for: a pi file
    opens without them)."""
    return tuple(importlib.import_module(name).ADAPTER for name in SOURCES)


def picker_rows(dirs: Sequence[str]) -> list[SessionSummary]:
    """Every source's picker rows for the files under ``dirs`` (an OCP run, …)."""
    out: list[SessionSummary] = []
    for adapter in adapters():
        if adapter.picker_rows is not None:
            out += adapter.picker_rows(dirs)
    return out


@functools.cache
def listers() -> tuple[AgentLister, ...]:
    """The listers of ``LISTERS`` (light modules: listing imports no reader)."""
    return tuple(importlib.import_module(name).LISTER for name in LISTERS)


def picker_tags() -> dict[str, str]:
    """The word the picker starts a row with, by the row's tool, where a lister names one
    (pi, omp and the other sources' rows show their tool itself)."""
    return {lister.tool: lister.tag for lister in listers()}
