"""Open any file loomtui can browse, whatever its name: detection is by content.

``open_any(path)`` is what the browser, ``loomtui tree`` and ``loomtui info`` call instead of
``SessionManager.open``:

* pi / oh-my-pi JSONL (first line is a ``session`` header) → ``SessionManager.open``;
* a ZIP starting ``PK`` → an OpenLoom bundle (``tree.openloom`` at its root plus media);
* JSON with ``format: "open-loom"`` → an OpenLoom v2 container (first tree, or ``tree_id``);
* JSON with ``nodes`` and ``edges``/``rootNodeIds`` → a bare OpenLoom v2 Tree;
* JSON with a ``nodes`` map and ``rootNodeId`` → OpenLoom v1 (Loom Swift);
* JSON with a nested ``root`` (or a bare node / list of nodes) → socketteer loom;
* a Maitento loom configuration (JSON with a ``loom`` member or a bare LoomConfiguration, a
  definition file with ``loom = { … }``, a directory of them) → the loom map
  (``maitento/session.py``);
* JSON with an ``ocp`` key → an OCP orchestration run (``tree_id`` ``lineage`` for its second view);
* JSON lines written by Claude Code (``uuid``/``parentUuid`` lines, summaries, snapshots) or
  Codex CLI (``{"type", "payload"}`` envelopes) → ``claude/source.py`` / ``codex/source.py``
  (read-only sessions).

Anything else raises SessionFormatError naming what the file looked like.

What a document or a file of JSON lines is, and who opens it, the sources say (their adapters,
in the order ``formats/sources.py`` lists them); this module reads the bytes, asks them, and
keeps only what is no source's own: pi files, the loom configurations of a directory or a
definition file, the one bundle member a ZIP holds.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from loomtui.formats.base.common import MAX_DOCUMENT_BYTES, load_json, loom_source, sha256
from loomtui.formats.base.document import Document
from loomtui.formats.looms.bundle import read_bundle
from loomtui.formats.looms.source import KINDS as LOOM_KINDS
from loomtui.formats.maitento import read as maitento_read
from loomtui.formats.maitento import session as maitento_session
from loomtui.formats.ocp import run as ocp
from loomtui.formats.ocp import split as ocp_split
from loomtui.formats.ocp.split import FileId, file_id
from loomtui.formats.sources import adapters
from loomtui.session.errors import Diagnostic, SessionFormatError, cannot_open
from loomtui.session.fileio import open_regular_file, read_capped
from loomtui.session.manager import SessionManager
from loomtui.session.memory import bulk_allocation
from loomtui.session.reader import BOM, first_line, is_pi_header, line_value

PI = "pi"


def classify(doc: Any) -> str | None:
    """The format of a parsed JSON document (None when loomtui cannot read it): the first source
    that claims it (``formats/sources.py``), else a pi session header."""
    for adapter in adapters():
        kind = adapter.kind_of(doc) if adapter.kind_of is not None else None
        if kind is not None:
            return kind or None  # REFUSED: a look-alike no source reads
    if isinstance(doc, dict) and doc.get("type") == "session":
        return PI
    return None


def _opener(kind: str) -> Callable[[Document], SessionManager] | None:
    if kind == PI:
        return _open_pi
    return next((a.openers[kind] for a in adapters() if kind in a.openers), None)


def _none_of_them() -> str:
    """What a file loomtui cannot read is not: every kind of file it reads, each source named in
    its own words (``Adapter.name``)."""
    kinds = ["pi and oh-my-pi sessions", *(a.name for a in adapters()), "Maitento loom configurations"]
    return f"none of the files loomtui reads ({', '.join(kinds)})"


def _unsupported(doc: Any) -> str:
    """What an unreadable document looks like, for the error message."""
    if isinstance(doc, dict):
        if "format" in doc:
            return f'its format is {doc.get("format")!r}, not "open-loom"'
        if doc.get("loomType") == "Exoloom":
            return "it looks like an Exoloom export, which loomtui cannot read yet"
        tree = doc.get("loomTree")
        if isinstance(tree, dict) and "nodeStore" in tree:
            return "it looks like a MiniLoom file, which loomtui cannot read yet"
        if isinstance(doc.get("state"), dict) or ("nodes" in doc and "current" in doc):
            return "it looks like a Loomsidian file, which loomtui cannot read yet"
        keys = ", ".join(list(map(str, doc))[:8])
        return f"a JSON object with keys {keys}"
    return f"a JSON {type(doc).__name__}"


def open_any(path: str, tree_id: str | None = None) -> SessionManager:
    """Open ``path`` as a session, whatever loom format it holds (see the module doc)."""
    if os.path.isdir(path):
        from loomtui.session.locations import discover

        sessions = discover([path])
        if sessions:  # as the browser takes it (its picker on them), never a map of something below
            n = len(sessions)
            raise SessionFormatError(
                f"{path} is a directory of sessions ({n} session file{'s' if n != 1 else ''}): give one of them "
                f"(`loomtui {path}` lists them to pick from)"
            )
        found = maitento_session.open_map(path)
        if found is None:
            raise SessionFormatError(f"{path} is a directory without loom configurations, not a session or loom file")
        return found
    pre = ocp_split.parsed_before(path)
    if pre is not None and not is_pi_header(pre.doc):
        # read and parsed before the app started: an OCP run (formats/ocp/split.py), not a pi,
        # Claude Code or Codex file; the file is not looked at again
        return open_document(pre.doc, path, _digest(pre.doc, pre.data), tree_id, file_id=pre.fid)
    first, size, fid = _sniff(path)
    if first is None:
        return open_bundle(path, tree_id)
    with bulk_allocation(freeze=False):  # a one-line document is all parsed here: nothing to collect
        first_obj = line_value(first)
    if is_pi_header(first_obj):
        return SessionManager.open(path)  # pi/omp JSONL (the reader explains v4 files)
    agent = agent_format(path)
    if agent is not None:
        return open_agent(path, agent)
    if size == 0 or not first.strip().removeprefix(BOM):
        raise SessionFormatError(f"{path} is empty")
    if size > MAX_DOCUMENT_BYTES:
        if isinstance(first_obj, dict):
            return SessionManager.open(path)
        raise SessionFormatError(f"{path} is {size} bytes, more than loomtui reads as one JSON document")
    if first_obj is not None and len(first) == size:
        # a one-line document: the first line was the whole file, already parsed (a loom
        # configuration, a list of them, a document holding them: as when laid out on lines)
        if classify(first_obj) is None and maitento_read.has_configuration(first_obj):
            return _loom_config_map(path)
        return open_document(first_obj, path, _digest(first_obj, first), tree_id, file_id=fid)
    return _open_json(path, first_obj, tree_id, fid)


def _sniff(path: str) -> tuple[bytes | None, int, FileId | None]:
    """The file's first line, size and identity (``ocp/split.file_id``, taken after the line
    was read); ``(None, 0, None)`` for a ZIP. A FIFO or device is refused before a byte is
    read, a Tapestry weave by its magic."""
    try:
        with open_regular_file(path) as f:
            head = f.read(4)
            if head[:2] == b"PK":
                return None, 0, None
            if head.startswith(b"Vers"):
                f.seek(0)
                if f.read(24) == b"VersionedTapestryWeave__":
                    raise SessionFormatError(f"{path} is a Tapestry Loom weave (binary), which loomtui cannot read")
            f.seek(0)
            line = first_line(f)
            st = os.fstat(f.fileno())
            return line, st.st_size, file_id(st)
    except OSError as exc:
        raise SessionFormatError(cannot_open(path, exc)) from None


def _open_json(path: str, first_obj: Any, tree_id: str | None, fid: FileId | None = None) -> SessionManager:
    """A file of at most ``MAX_DOCUMENT_BYTES`` read whole: a JSON document, a loom definition
    file, or JSON lines without a session header (the pi reader says what is wrong). ``fid``:
    the file's identity when it was sniffed (kept only if this read saw the same file)."""
    try:
        data = read_capped(path, MAX_DOCUMENT_BYTES)
        if fid is not None and file_id(os.stat(path)) != fid:
            fid = None
    except OSError as exc:
        raise SessionFormatError(cannot_open(path, exc)) from None
    try:
        doc = load_json(data, path)
    except SessionFormatError:
        if maitento_read.is_definition(data):
            return _loom_config_map(path)
        if isinstance(first_obj, dict):
            return SessionManager.open(path)
        raise SessionFormatError(f"{path} is {_none_of_them()} (neither JSON nor JSONL)") from None
    if classify(doc) is None and maitento_read.has_configuration(doc):
        return _loom_config_map(path)
    return open_document(doc, path, _digest(doc, data), tree_id, file_id=fid)


def _digest(doc: Any, data: bytes) -> str | None:
    """The digest a save compares with the file; an OCP run is never saved (read-only)."""
    return None if ocp.looks_like_ocp(doc) else sha256(data)


def agent_format(path: str) -> str | None:
    """The kind of an agent's session file (``claude-code``, ``codex``) when its first JSON lines
    are that tool's, else None."""
    try:
        with open_regular_file(path) as f:
            head = f.read(256 * 1024)
    except (OSError, SessionFormatError):
        return None
    for raw in head.split(b"\n")[:40]:
        obj = line_value(raw)
        if not isinstance(obj, dict):
            continue
        for adapter in adapters():
            kind = adapter.line_kind(obj) if adapter.line_kind is not None else None
            if kind is not None:
                return kind
        if obj:
            return None  # the first real line decides
    return None


def open_agent(path: str, tool: str) -> SessionManager:
    """An agent's session file of kind ``tool`` (``agent_format``), opened by its source."""
    for adapter in adapters():
        if tool in adapter.file_kinds and adapter.open_file is not None:
            return adapter.open_file(path, tool)
    raise SessionFormatError(f"{path}: loomtui has no reader for {tool} files")


def _loom_config_map(path: str) -> SessionManager:
    found = maitento_session.open_map(path)
    if found is None:  # the file changed between the sniff and the read
        raise SessionFormatError(f"{path} holds no loom configuration")
    return found


def _open_pi(o: Document) -> SessionManager:
    if o.path is None or o.bundle_members is not None:
        raise SessionFormatError(f"{o.where}: a pi session header inside a bundle is not supported")
    return SessionManager.open(o.path)


@bulk_allocation()  # like SessionManager.open: a load allocates many objects and frees none
def open_document(
    doc: Any,
    path: str | None,
    sha: str | None = None,
    tree_id: str | None = None,
    bundle_members: dict[str, int] | None = None,
    bundle_heads: dict[str, bytes] | None = None,
    file_id: FileId | None = None,
) -> SessionManager:
    """A parsed loom document as a session (``path`` names it in messages and for saves;
    ``file_id``: the identity of the file it was parsed from, ``ocp/split.file_id``)."""
    kind = classify(doc)
    opener = _opener(kind) if kind is not None else None
    if opener is None:
        raise SessionFormatError(f"{path or 'document'} is {_none_of_them()}: {_unsupported(doc)}")
    return opener(Document(doc, path, sha, tree_id, bundle_members, bundle_heads, file_id=file_id))


def open_bundle(path: str, tree_id: str | None = None) -> SessionManager:
    """An OpenLoom bundle: a ZIP whose root holds ``tree.openloom`` and the media it refers to.

    Members whose names are unsafe (absolute, ``..``, drive letters, backslashes) are left
    out with a diagnostic: nothing refers to them and no export carries them on.
    """
    b, sha = read_bundle(path)
    doc = load_json(b.data, f"{path}:{b.member}")
    kind = classify(doc)
    if kind not in LOOM_KINDS:
        raise SessionFormatError(f"{path}: {b.member} is not an OpenLoom document: {_unsupported(doc)}")
    sm = open_document(doc, path, sha, tree_id, bundle_members=b.members, bundle_heads=b.heads)
    sm.diagnostics[:0] = [Diagnostic(0, n) for n in b.notes]
    src = loom_source(sm)
    assert src is not None
    src.bundle_member = b.member
    return sm
