"""One argument check for every command: the files named, entry ids, ``--filter``, ``--view`` and
``--width``, a new session's ``-o``.

Entry ids are resolved by the one resolver (``view.jumps.resolve_prefix``: an exact id, else the
only id starting with what was given); every command that takes an id (``--leaf``, ``--target``,
``ENTRY_ID``, diff's ``A`` and ``B``, export-branch's ``--fork``) goes through ``check``, so a prefix ``diff`` accepts is
accepted everywhere. A mistake is a ``LoomError``: one line on stderr, exit 2, nothing written
(the checks run before any write).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from loomtui.session.errors import LoomError, cannot_open
from loomtui.view.filter_modes import FILTER_MODES

if TYPE_CHECKING:  # the checks that need an opened file run after the read has imported these
    from loomtui.session.manager import SessionManager

#: the help of a FILE argument that takes anything loomtui opens (the list of what it opens, once)
ANY_FILE = (
    "any file loomtui opens: a pi/omp, Claude Code or Codex session, an OpenLoom document or bundle, "
    "a socketteer loom, an OCP run"
)

#: what ``--filter`` takes beside pi's modes, in every command's help (``check_filter_name``'s too)
RUN_FILTERS = (
    "an OCP run also has failed, gates, in-flight, model:NAME, harness:NAME, and findings (only a run with findings)"
)

#: the argument names that hold an entry id, in every command
ID_ARGUMENTS = ("leaf", "target", "entry_id", "a", "b", "fork")


def require_existing(paths: Iterable[str]) -> None:
    """Refuse a path that does not exist, as every command refuses a missing FILE (one line,
    exit 2): the commands that report per file (``check``, ``loom-config``) report only on files
    that are there."""
    for path in paths:
        if not os.path.exists(path):
            raise LoomError(cannot_open(path))


def file_kind(path: str, is_read_here: Callable[[SessionManager], bool]) -> str | None:
    """What ``path`` is, in its source's words ("a pi session", "a Claude Code session"), when
    loomtui opens it as something the command does not read (``is_read_here`` False): the one way
    ``check`` and ``loom-config`` name a file given to the wrong command. None for what the
    command reads and for a file loomtui opens as nothing (the command's findings speak)."""
    from loomtui.formats.opening import open_session

    try:
        manager = open_session(path)
    except Exception:  # nothing loomtui opens (or not now): the findings speak
        return None
    return None if is_read_here(manager) else manager.source.a_name


#: the narrowest ``tree --width`` that still shows a row: the marker, a connector and some text
#: (below it pi's rows are blank, or panned into fragments)
MIN_WIDTH = 20


def check_width(width: int | None) -> None:
    """Refuse a ``--width`` too narrow to show a row."""
    if width is not None and width < MIN_WIDTH:
        raise LoomError(f"--width {width} is too narrow to show a row; give at least {MIN_WIDTH} columns")


def check_context(lines: int) -> None:
    """Refuse a negative ``diff --context``."""
    if lines < 0:
        raise LoomError(f"--context {lines}: give the number of lines of context, 0 or more")


def check_session_output(out: str | None) -> None:
    """Refuse an ``-o`` that is not a ``.jsonl`` file, as the app's export dialog does: pi (and
    Claude Code, Codex) list only ``.jsonl`` files, so another name would be a session nobody finds."""
    if out is not None and not out.endswith(".jsonl"):
        raise LoomError(f"-o {out}: a session file's name ends in .jsonl (the agents list no other files)")


#: the names an OpenLoom export is written under: a document (the spec's bundle holds
#: ``tree.openloom``), or a ZIP bundle with its media
OPENLOOM_NAMES = (".json", ".openloom", ".zip")


def check_openloom_output(out: str) -> None:
    """Refuse an ``export-openloom -o`` that is a directory, or a name no OpenLoom file has."""
    if os.path.isdir(out):
        raise LoomError(
            f"-o {out} is a directory; give the name of the file to write (ending in .json, or .zip for a bundle)"
        )
    if not out.lower().endswith(OPENLOOM_NAMES):
        raise LoomError(
            f"-o {out}: an OpenLoom document's name ends in .json or .openloom (.zip writes a bundle with its media)"
        )


def resolve_id(manager: SessionManager, given: str, file: str) -> str:
    """The full id ``given`` names in ``file`` (an exact id or a unique prefix)."""
    from loomtui.view.jumps import AmbiguousPrefix, resolve_prefix

    try:
        return resolve_prefix(manager.index, given).id
    except AmbiguousPrefix as exc:
        raise LoomError(f"{exc} in {file}; give more of the id") from None
    except KeyError:
        where = manager.elsewhere(given)
        if where is not None:
            raise LoomError(f"{given!r} {where} ({file})") from None
        raise LoomError(f"no entry {given!r} in {file}") from None


def check(args: argparse.Namespace, manager: SessionManager) -> None:
    """Resolve every entry id argument in place; refuse a ``--filter`` or ``--view`` the opened
    file does not have, and a ``--leaf`` on a file that has no conversation leaf (an OCP run, the
    loom map: ``Source.has_leaf``), whose rows keep the source's order."""
    if getattr(args, "leaf", None) is not None and not manager.source.has_leaf:
        raise LoomError(f"--leaf: {args.file} is {manager.source.a_name}, which has no conversation leaf")
    for name in ID_ARGUMENTS:
        given = getattr(args, name, None)
        if isinstance(given, str):
            setattr(args, name, resolve_id(manager, given, args.file))
    mode = getattr(args, "filter", None)
    if isinstance(mode, str):
        check_filter(manager, mode, args.file)
    from loomtui.formats.ocp.run import ocp_run

    if getattr(args, "view", None) is not None and ocp_run(manager) is None:
        raise LoomError(f"--view is for OCP runs (dag or lineage); {args.file} is {manager.source.a_name}")


def filter_modes(manager: SessionManager) -> tuple[str, ...]:
    """The filter modes of what was opened (``TreeModel.modes`` without building a model)."""
    from loomtui.session.source import PI_FILTERS

    source = manager.source
    return (FILTER_MODES if source.offers(PI_FILTERS) else ("default",)) + tuple(source.filters or ())


def check_filter(manager: SessionManager, mode: str, file: str) -> None:
    """Refuse a ``--filter`` the opened file does not have: why, where its source says (an OCP
    run without findings has no ``findings`` mode: ``Source.missing_filter``), naming its modes."""
    modes = filter_modes(manager)
    if mode in modes:
        return
    missing = manager.source.missing_filter
    why = missing(mode) if missing is not None else None
    if why is not None:
        raise LoomError(f"{file}: {why}; use one of {', '.join(modes)}")
    raise LoomError(f"unknown filter mode {mode!r} for {file}; use one of {', '.join(modes)}")


def check_filter_name(mode: str) -> None:
    """Before a file is read (the browser): ``mode`` is a filter some file can have."""
    if mode in FILTER_MODES:
        return
    from loomtui.formats.ocp.run import FIXED_MODES, NAMED_MODE_PREFIXES

    if mode in FIXED_MODES or (mode.startswith(NAMED_MODE_PREFIXES) and mode.split(":", 1)[1]):
        return
    raise LoomError(f"unknown filter mode {mode!r}; use one of {', '.join(FILTER_MODES)}; {RUN_FILTERS}")
