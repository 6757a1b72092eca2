"""OpenLoom bundles: a ZIP whose root holds ``tree.openloom`` and the media it refers to.

Reading one gives the document's bytes and what the session needs of the other members (their
sizes, their first bytes); the opener (``formats/detect.py``) reads the document as any other.
Members whose names are unsafe (absolute, ``..``, drive letters, backslashes) are left out with
a note: nothing refers to them and no export carries them on.
"""

from __future__ import annotations

import hashlib
import zipfile
from dataclasses import dataclass
from typing import Any

from loomtui.formats.base.common import MAX_DOCUMENT_BYTES
from loomtui.formats.looms.media import ZIP_ERRORS, safe_member_name, zip_problem
from loomtui.session.errors import SessionFormatError, cannot_open
from loomtui.session.fileio import open_regular_file

BUNDLE_MEMBER = "tree.openloom"


def read_bundle(path: str) -> tuple[Bundle, str]:
    """The bundle at ``path`` and the digest of the whole file (SessionFormatError when it is
    not a readable ZIP or holds no document)."""
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
        raise SessionFormatError(cannot_open(path, exc)) from None
    return b, sha


@dataclass
class Bundle:
    member: str
    data: bytes
    #: the safe members' sizes by name
    members: dict[str, int]
    #: the first bytes of each media member (to check its declared type)
    heads: dict[str, bytes]
    notes: list[str]


def _read_bundle(path: str, z: zipfile.ZipFile) -> Bundle:
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
    return Bundle(member, data, members, heads, notes)


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
