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
  (``maitento_session``);
* JSON with an ``ocp`` key → an OCP orchestration run (``tree_id`` ``lineage`` for its second view);
* JSON lines written by Claude Code (``uuid``/``parentUuid`` lines, summaries, snapshots) or
  Codex CLI (``{"type", "payload"}`` envelopes) → ``formats.claude`` / ``formats.codex``
  (read-only sessions).

Anything else raises SessionFormatError naming what the file looked like.
"""

from __future__ import annotations

import hashlib
import os
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from loomtui.formats import maitento_read, maitento_session, ocp, ocp_split, openloom, socketteer
from loomtui.formats.common import (
    MAX_DOCUMENT_BYTES,
    OPENLOOM_V1,
    OPENLOOM_V2,
    OPENLOOM_V2_TREE,
    SOCKETTEER,
    load_json,
    loom_source,
    sha256,
)
from loomtui.formats.media import safe_member_name
from loomtui.formats.ocp_split import FileId, file_id
from loomtui.session.errors import Diagnostic, SessionFormatError
from loomtui.session.fileio import open_regular_file, read_capped
from loomtui.session.memory import bulk_allocation
from loomtui.session.manager import SessionManager
from loomtui.session.reader import BOM, first_line, is_pi_header, line_value

PI = "pi"
BUNDLE_MEMBER = "tree.openloom"


def classify(doc: Any) -> str | None:
    """The format of a parsed JSON document (None when loomtui cannot read it)."""
    if isinstance(doc, dict):
        if ocp.looks_like_ocp(doc):
            return ocp.OCP
        if "format" in doc:
            return OPENLOOM_V2 if doc.get("format") == "open-loom" else None
        if doc.get("type") == "session":
            return PI
        if isinstance(doc.get("trees"), list):
            return OPENLOOM_V2
        if "nodes" in doc and ("edges" in doc or "rootNodeIds" in doc):
            return OPENLOOM_V2_TREE
        if isinstance(doc.get("nodes"), dict) and "rootNodeId" in doc:
            return OPENLOOM_V1
    if socketteer.looks_like_socketteer(doc):
        return SOCKETTEER
    return None


def _unsupported(doc: Any) -> str:
    """What an unreadable document looks like, for the error message."""
    if isinstance(doc, dict):
        if "format" in doc:
            return f"its format is {doc.get('format')!r}, not \"open-loom\""
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
        found = maitento_session.open_map(path)
        if found is None:
            raise SessionFormatError(f"{path} is a directory without loom configurations, not a session or loom file")
        return found
    pre = ocp_split.parsed_before(path)
    if pre is not None and not is_pi_header(pre.doc):
        # read and parsed before the app started: an OCP run (formats/ocp_split.py), not a pi,
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
        # a one-line document: the first line was the whole file, already parsed
        return open_document(first_obj, path, _digest(first_obj, first), tree_id, file_id=fid)
    return _open_json(path, first_obj, tree_id, fid)


def _sniff(path: str) -> tuple[bytes | None, int, FileId | None]:
    """The file's first line, size and identity (``ocp_split.file_id``, taken after the line
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
        raise SessionFormatError(f"cannot open {path}: {exc.strerror}") from None


def _open_json(path: str, first_obj: Any, tree_id: str | None, fid: FileId | None = None) -> SessionManager:
    """A file of at most ``MAX_DOCUMENT_BYTES`` read whole: a JSON document, a loom definition
    file, or JSON lines without a session header (the pi reader says what is wrong). ``fid``:
    the file's identity when it was sniffed (kept only if this read saw the same file)."""
    try:
        data = read_capped(path, MAX_DOCUMENT_BYTES)
        if fid is not None and file_id(os.stat(path)) != fid:
            fid = None
    except OSError as exc:
        raise SessionFormatError(f"cannot open {path}: {exc.strerror}") from None
    try:
        doc = load_json(data, path)
    except SessionFormatError:
        if maitento_read.is_definition(data):
            return _loom_config_map(path)
        if isinstance(first_obj, dict):
            return SessionManager.open(path)
        raise SessionFormatError(
            f"{path} is not a pi session, OpenLoom or socketteer loom file (neither JSON nor JSONL)"
        ) from None
    if classify(doc) is None and maitento_read.has_configuration(doc):
        return _loom_config_map(path)
    return open_document(doc, path, _digest(doc, data), tree_id, file_id=fid)


def _digest(doc: Any, data: bytes) -> str | None:
    """The digest a save compares with the file; an OCP run is never saved (read-only)."""
    return None if ocp.looks_like_ocp(doc) else sha256(data)


def agent_format(path: str) -> str | None:
    """``claude-code`` or ``codex`` when the file's first JSON lines are that tool's, else None."""
    from loomtui.formats import claude, codex

    try:
        with open_regular_file(path) as f:
            head = f.read(256 * 1024)
    except (OSError, SessionFormatError):
        return None
    for raw in head.split(b"\n")[:40]:
        obj = line_value(raw)
        if not isinstance(obj, dict):
            continue
        if codex.looks_like_codex(obj):
            return codex.CODEX
        if claude.looks_like_claude(obj):
            return claude.CLAUDE
        if obj:
            return None  # the first real line decides
    return None


def open_agent(path: str, tool: str) -> SessionManager:
    from loomtui.formats import claude, codex

    return codex.open_codex(path) if tool == codex.CODEX else claude.open_claude(path)


def _loom_config_map(path: str) -> SessionManager:
    found = maitento_session.open_map(path)
    if found is None:  # the file changed between the sniff and the read
        raise SessionFormatError(f"{path} holds no loom configuration")
    return found


@dataclass
class _Opening:
    """One parsed document being opened, and what its opener needs besides the document."""

    doc: Any
    path: str | None
    sha: str | None
    tree_id: str | None
    bundle_members: dict[str, int] | None
    bundle_heads: dict[str, bytes] | None
    diag: list[Diagnostic] = field(default_factory=list)
    #: the identity of the file the document was parsed from (``ocp_split.file_id``)
    file_id: FileId | None = None

    @property
    def where(self) -> str:
        return self.path or "document"

    def build(self, tree: dict[str, Any], fmt: str, **more: Any) -> SessionManager:
        return openloom.build_session(tree, fmt, path=self.path, sha=self.sha, bundle_members=self.bundle_members,
                                      bundle_heads=self.bundle_heads, diagnostics=self.diag, **more)


def _open_pi(o: _Opening) -> SessionManager:
    if o.path is None or o.bundle_members is not None:
        raise SessionFormatError(f"{o.where}: a pi session header inside a bundle is not supported")
    return SessionManager.open(o.path)


def _open_ocp(o: _Opening) -> SessionManager:
    if o.bundle_members is not None:
        raise SessionFormatError(f"{o.where}: an OCP run inside a bundle is not supported")
    view = o.tree_id or "dag"
    # placed already by a child started before the app (formats/ocp_split.py), if any
    placed = ocp_split.placed_run(o.doc, o.path, view, o.file_id) if o.path is not None else None
    return ocp.build_session(o.doc, o.path, o.sha, view=view, diagnostics=o.diag, placed=placed)


def _open_v2(o: _Opening) -> SessionManager:
    doc = o.doc
    _check_version(doc, o.where, o.diag)
    trees = doc.get("trees")
    if not isinstance(trees, list) or not trees:
        raise SessionFormatError(f"{o.where}: OpenLoom document without trees")
    if "format" not in doc:
        o.diag.append(Diagnostic(0, "document has trees but no format field; read as OpenLoom 2.0"))
    ids = [t.get("id") if isinstance(t, dict) else None for t in trees]
    index = _tree_index(o, trees, ids)
    return o.build(trees[index], OPENLOOM_V2, container=doc, tree_index=index, tree_ids=[str(i) for i in ids])


def _tree_index(o: _Opening, trees: list[Any], ids: list[Any]) -> int:
    """The tree to show: the one ``tree_id`` names, else the first (noted when there are more)."""
    if o.tree_id is not None:
        if o.tree_id not in ids:
            shown = ", ".join(str(i) for i in ids)
            raise SessionFormatError(f"{o.where}: no tree with id {o.tree_id!r} (trees: {shown})")
        return ids.index(o.tree_id)
    index = next((i for i, t in enumerate(trees) if isinstance(t, dict)), -1)
    if index < 0:
        raise SessionFormatError(f"{o.where}: none of the document's trees is an object")
    if len(trees) > 1:
        o.diag.append(Diagnostic(0, f"document holds {len(trees)} trees; showing the first ({ids[index]}); "
                                    "open another by its tree id"))
    return index


def _open_v2_tree(o: _Opening) -> SessionManager:
    if o.tree_id is not None and o.doc.get("id") != o.tree_id:
        raise SessionFormatError(f"{o.where}: the tree's id is {o.doc.get('id')!r}, not {o.tree_id!r}")
    return o.build(o.doc, OPENLOOM_V2_TREE)


def _open_v1(o: _Opening) -> SessionManager:
    tree, extras = openloom.v1_to_tree(o.doc, o.diag)
    return o.build(tree, OPENLOOM_V1, extras=extras)


def _open_socketteer(o: _Opening) -> SessionManager:
    tree, extras = socketteer.to_tree(o.doc, socketteer.title_for(o.path), o.diag)
    return o.build(tree, SOCKETTEER, extras=extras)


#: the opener of each kind ``classify`` names
OPENERS: dict[str, Callable[[_Opening], SessionManager]] = {
    PI: _open_pi,
    ocp.OCP: _open_ocp,
    OPENLOOM_V2: _open_v2,
    OPENLOOM_V2_TREE: _open_v2_tree,
    OPENLOOM_V1: _open_v1,
    SOCKETTEER: _open_socketteer,
}


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
    ``file_id``: the identity of the file it was parsed from, ``ocp_split.file_id``)."""
    kind = classify(doc)
    opener = OPENERS.get(kind) if kind is not None else None
    if opener is None:
        raise SessionFormatError(
            f"{path or 'document'} is not a pi session, OpenLoom or socketteer loom file: {_unsupported(doc)}"
        )
    return opener(_Opening(doc, path, sha, tree_id, bundle_members, bundle_heads, file_id=file_id))


def _check_version(doc: dict[str, Any], where: str, diag: list[Diagnostic]) -> None:
    version = doc.get("version")
    if isinstance(version, (int, float)) and not isinstance(version, bool):
        version = str(version)
    if not isinstance(version, str) or not version.strip():
        diag.append(Diagnostic(0, "OpenLoom document without a version; read as 2.0"))
        return
    major = version.strip().split(".")[0]
    if major != "2":
        raise SessionFormatError(
            f"{where}: OpenLoom version {version} is not supported (loomtui reads 2.x); "
            "a newer loomtui may read it"
        )


#: what reading a ZIP member can raise besides OSError: damaged data, a compression method
#: Python lacks (deflate64, …), an encrypted member, a truncated archive
ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError, EOFError, zlib.error,
              ValueError)


def zip_problem(exc: BaseException) -> str:
    """One line on what went wrong reading a ZIP member."""
    if isinstance(exc, NotImplementedError):
        return f"uses a compression method loomtui cannot read ({exc})"
    if isinstance(exc, RuntimeError) and "encrypted" in str(exc):
        return "is encrypted"
    return f"is damaged ({exc})" if str(exc) else "is damaged"


def open_bundle(path: str, tree_id: str | None = None) -> SessionManager:
    """An OpenLoom bundle: a ZIP whose root holds ``tree.openloom`` and the media it refers to.

    Members whose names are unsafe (absolute, ``..``, drive letters, backslashes) are left
    out with a diagnostic: nothing refers to them and no export carries them on.
    """
    try:
        with open_regular_file(path) as raw, zipfile.ZipFile(raw) as z:
            b = _read_bundle(path, z)
            raw.seek(0)
            sha = _sha256_file(raw)
    except zipfile.BadZipFile as exc:
        raise SessionFormatError(f"{path} starts like a ZIP but cannot be read as one ({exc})") from None
    except ZIP_ERRORS as exc:
        raise SessionFormatError(f"{path}: the ZIP {zip_problem(exc)}") from None
    except OSError as exc:
        raise SessionFormatError(f"cannot open {path}: {exc.strerror or exc}") from None
    doc = load_json(b.data, f"{path}:{b.member}")
    kind = classify(doc)
    if kind not in (OPENLOOM_V2, OPENLOOM_V2_TREE, OPENLOOM_V1, SOCKETTEER):
        raise SessionFormatError(f"{path}: {b.member} is not an OpenLoom document: {_unsupported(doc)}")
    sm = open_document(doc, path, sha, tree_id, bundle_members=b.members, bundle_heads=b.heads)
    sm.diagnostics[:0] = [Diagnostic(0, n) for n in b.notes]
    src = loom_source(sm)
    assert src is not None
    src.bundle_member = b.member
    return sm


@dataclass
class _Bundle:
    member: str
    data: bytes
    #: the safe members' sizes by name
    members: dict[str, int]
    #: the first bytes of each media member (to check its declared type)
    heads: dict[str, bytes]
    notes: list[str]


def _read_bundle(path: str, z: zipfile.ZipFile) -> _Bundle:
    infos = [i for i in z.infolist() if not i.is_dir()]
    unsafe = [i.filename for i in infos if not safe_member_name(i.filename)]
    infos = [i for i in infos if safe_member_name(i.filename)]
    member, note = _bundle_member(path, [i.filename for i in infos])
    info = z.getinfo(member)
    if info.file_size > MAX_DOCUMENT_BYTES:
        raise SessionFormatError(f"{path}: {member} is {info.file_size} bytes, more than loomtui reads")
    try:
        data = z.read(info)
    except ZIP_ERRORS as exc:
        raise SessionFormatError(f"{path}: {member} {zip_problem(exc)}") from None
    members = {i.filename: i.file_size for i in infos}
    notes: list[str] = [f"bundle member {n[:80]!r} has an unsafe name; ignored" for n in unsafe]
    heads: dict[str, bytes] = {}
    for i in infos:
        if i.filename == member:
            continue
        try:
            with z.open(i) as m:
                heads[i.filename] = m.read(16)
        except ZIP_ERRORS as exc:
            del members[i.filename]
            notes.append(f"bundle member {i.filename[:80]!r} {zip_problem(exc)}; ignored")
    if note:
        notes.append(note)
    return _Bundle(member, data, members, heads, notes)


def _bundle_member(path: str, names: list[str]) -> tuple[str, str | None]:
    """The member holding the document (and a note when it is not ``tree.openloom``)."""
    if BUNDLE_MEMBER in names:
        return BUNDLE_MEMBER, None
    candidates = [n for n in names if n.endswith(".openloom") and "/" not in n]
    if len(candidates) != 1:
        raise SessionFormatError(f"{path} is a ZIP without {BUNDLE_MEMBER} at its root, so not an OpenLoom bundle")
    return candidates[0], f"bundle has no {BUNDLE_MEMBER}; read {candidates[0]}"


def _sha256_file(f: Any) -> str:
    h = hashlib.sha256()
    for chunk in iter(lambda: f.read(1 << 20), b""):
        h.update(chunk)
    return h.hexdigest()
