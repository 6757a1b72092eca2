"""Media in OpenLoom content blocks: ``data:`` URIs and paths inside ZIP bundles (docs/formats.md §1.8).

The tree shows media as placeholders; these helpers say what a ref points to, how big it is,
whether its bytes match the declared ``mimeType``, and fetch the bytes for a detail pane or an
export. Nothing here decodes an image.
"""

from __future__ import annotations

import base64
import binascii
import posixpath
import urllib.parse
import zipfile
import zlib
from collections.abc import Callable, Container
from dataclasses import dataclass
from typing import Any, BinaryIO

from loomtui.formats.base.common import LoomSource, loom_source
from loomtui.session.errors import LoomError, SessionFormatError, cannot_open
from loomtui.session.fileio import open_regular_file
from loomtui.session.store import write_new_file_with

#: a bundle is preferred once embedded media passes about this many bytes (docs/formats.md, "OpenLoom")
BUNDLE_THRESHOLD = 1 << 20

_MAGIC: list[tuple[bytes, int, str]] = [
    (b"\x89PNG\r\n\x1a\n", 0, "image/png"),
    (b"\xff\xd8\xff", 0, "image/jpeg"),
    (b"GIF87a", 0, "image/gif"),
    (b"GIF89a", 0, "image/gif"),
    (b"WEBP", 8, "image/webp"),
    (b"WAVE", 8, "audio/wav"),
    (b"OggS", 0, "audio/ogg"),
    (b"fLaC", 0, "audio/flac"),
    (b"ID3", 0, "audio/mpeg"),
]
_ALIASES = {
    "image/jpg": "image/jpeg",
    "audio/x-wav": "audio/wav",
    "audio/wave": "audio/wav",
    "audio/vnd.wave": "audio/wav",
    "audio/mp3": "audio/mpeg",
    "audio/x-flac": "audio/flac",
    "audio/opus": "audio/ogg",
    "video/ogg": "audio/ogg",
}
_EXT = {
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/gif": "gif",
    "image/webp": "webp",
    "image/svg+xml": "svg",
    "audio/wav": "wav",
    "audio/ogg": "ogg",
    "audio/flac": "flac",
    "audio/mpeg": "mp3",
    "audio/mp4": "m4a",
    "audio/webm": "weba",
}


def sniff_mime(head: bytes) -> str | None:
    """The media type the first bytes show, for the common formats (None when unknown)."""
    for magic, at, mime in _MAGIC:
        if head[at : at + len(magic)] == magic:
            return mime
    if len(head) >= 2 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0:
        return "audio/mpeg"
    return None


def mime_mismatch(declared: Any, head: bytes) -> str | None:
    """What the bytes look like when that disagrees with ``declared`` (else None)."""
    seen = sniff_mime(head)
    if seen is None or not isinstance(declared, str):
        return None
    d = declared.split(";")[0].strip().lower()
    d = _ALIASES.get(d, d)
    return None if d == seen else seen


def extension_for(mime: Any) -> str:
    if isinstance(mime, str):
        m = mime.split(";")[0].strip().lower()
        m = _ALIASES.get(m, m)
        if m in _EXT:
            return _EXT[m]
        if "/" in m:
            sub = "".join(c for c in m.split("/", 1)[1] if c.isalnum())
            if sub:
                return sub[:8]
    return "bin"


@dataclass(frozen=True, slots=True)
class DataUri:
    mime: str
    is_base64: bool
    payload: str  # what follows the comma

    @property
    def size(self) -> int:
        """Decoded size (exact for base64 without whitespace, close otherwise)."""
        if self.is_base64:
            n = len(self.payload.rstrip("="))
            return n * 3 // 4
        return len(urllib.parse.unquote_to_bytes(self.payload))

    def head(self, n: int = 16) -> bytes:
        if self.is_base64:
            chunk = self.payload[: ((n + 2) // 3) * 4 + 4]
            try:
                return base64.b64decode(chunk + "=" * (-len(chunk) % 4), validate=False)[:n]
            except (binascii.Error, ValueError):
                return b""
        return urllib.parse.unquote_to_bytes(self.payload[: n * 3])[:n]

    def decode(self) -> bytes:
        if self.is_base64:
            return base64.b64decode(self.payload + "=" * (-len(self.payload) % 4), validate=False)
        return urllib.parse.unquote_to_bytes(self.payload)


def parse_data_uri(ref: Any) -> DataUri | None:
    if not isinstance(ref, str) or not ref[:5].lower() == "data:":
        return None
    comma = ref.find(",")
    if comma < 0:
        return None
    params = ref[5:comma].split(";")
    mime = params[0] or "text/plain"
    return DataUri(mime, any(p.strip().lower() == "base64" for p in params[1:]), ref[comma + 1 :])


def to_data_uri(data: bytes, mime: Any) -> str:
    m = mime if isinstance(mime, str) and mime else "application/octet-stream"
    return f"data:{m};base64,{base64.b64encode(data).decode('ascii')}"


def bundle_path(ref: Any) -> str | None:
    """A ref as a member name inside a bundle, or None when it cannot be one.

    Refs are relative paths; anything absolute, with a scheme, or climbing out with ``..`` is
    refused (members are only ever read by name, never extracted).
    """
    if not isinstance(ref, str) or not ref or ":" in ref.split("/", 1)[0]:
        return None
    if ref.startswith(("/", "\\")):
        return None
    norm = posixpath.normpath(ref.replace("\\", "/"))
    if norm.startswith("../") or norm == ".." or norm == ".":
        return None
    return norm


@dataclass(frozen=True, slots=True)
class MediaInfo:
    """Where a media block's bytes are and what we know of them, for the detail pane."""

    source: str  # "data" | "bundle" | "missing" | "invalid" | "none"
    size: int | None
    member: str | None = None
    mismatch: str | None = None  # the sniffed type when it disagrees with mimeType


def describe_ref(
    block: dict[str, Any], members: dict[str, int] | None, heads: dict[str, bytes] | None = None
) -> MediaInfo:
    ref = block.get("ref")
    if ref is None:
        return MediaInfo("none", None)
    uri = parse_data_uri(ref)
    if uri is not None:
        return MediaInfo("data", uri.size, None, mime_mismatch(block.get("mimeType"), uri.head()))
    member = bundle_path(ref)
    if member is None:
        return MediaInfo("invalid", None)
    if members is None or member not in members:
        return MediaInfo("missing", None, member)
    head = heads.get(member) if heads else None
    mismatch = mime_mismatch(block.get("mimeType"), head) if head else None
    return MediaInfo("bundle", members[member], member, mismatch)


#: the most a single media member may expand to when it is inlined or shown (in memory)
MAX_MEMBER_BYTES = 256 << 20
#: the most the members of one exported bundle may expand to (streamed to disk, not memory)
MAX_BUNDLE_MEDIA_BYTES = 4 << 30
_COPY_CHUNK = 1 << 20


def safe_member_name(name: str) -> bool:
    """Whether a ZIP member name is a plain relative path: no leading ``/``, no ``..`` or
    ``.`` part, no backslash, drive letter or NUL, nothing a normalisation would change.
    Other names are never read as media nor written into an export."""
    if not name or "\\" in name or "\x00" in name or name.startswith("/"):
        return False
    first = name.split("/", 1)[0]
    if ":" in first:
        return False
    parts = name.rstrip("/").split("/")
    return all(p not in ("", ".", "..") for p in parts)


#: what reading a ZIP member can raise besides OSError: damaged data, a compression method
#: Python lacks (deflate64, …), an encrypted member, a truncated archive
ZIP_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    NotImplementedError,
    RuntimeError,
    EOFError,
    zlib.error,
    ValueError,
)


def zip_problem(exc: BaseException) -> str:
    """One line on what went wrong reading a ZIP member."""
    if isinstance(exc, NotImplementedError):
        return f"uses a compression method loomtui cannot read ({exc})"
    if isinstance(exc, RuntimeError) and "encrypted" in str(exc):
        return "is encrypted"
    return f"is damaged ({exc})" if str(exc) else "is damaged"


def _zip_error(path: str, member: str, exc: BaseException) -> LoomError:
    return SessionFormatError(f"{path}: bundle member {member[:80]!r} {zip_problem(exc)}")


def read_member(path: str, member: str, limit: int = MAX_MEMBER_BYTES) -> bytes:
    """The bytes of one bundle member, read in chunks up to ``limit`` (SessionFormatError
    beyond it, for unsafe names, and for damaged, encrypted or unreadable members)."""
    if not safe_member_name(member):
        raise SessionFormatError(f"{path}: bundle member {member[:80]!r} has an unsafe name")
    try:
        with open_regular_file(path) as raw, zipfile.ZipFile(raw) as z:
            info = z.getinfo(member)
            if info.file_size > limit:
                raise SessionFormatError(
                    f"{path}: bundle member {member[:80]!r} is {info.file_size >> 20} MB (limit {limit >> 20} MB)"
                )
            chunks: list[bytes] = []
            got = 0
            with z.open(info) as f:
                while chunk := f.read(_COPY_CHUNK):
                    got += len(chunk)
                    if got > limit:
                        raise SessionFormatError(
                            f"{path}: bundle member {member[:80]!r} expands beyond {limit >> 20} MB"
                        )
                    chunks.append(chunk)
            return b"".join(chunks)
    except KeyError:
        raise SessionFormatError(f"{path}: no bundle member {member[:80]!r}") from None
    except ZIP_ERRORS as exc:
        raise _zip_error(path, member, exc) from None
    except OSError as exc:
        raise SessionFormatError(cannot_open(path, exc)) from None


def copy_members(
    path: str,
    names: list[str],
    zout: zipfile.ZipFile,
    stored: Callable[[str], bool],
    budget: int = MAX_BUNDLE_MEDIA_BYTES,
) -> None:
    """Stream the members ``names`` of the bundle at ``path`` into ``zout`` (chunk by chunk,
    never a whole member in memory), all together at most ``budget`` bytes expanded."""
    left = budget
    current = path
    try:
        with open_regular_file(path) as raw, zipfile.ZipFile(raw) as zin:
            for name in names:
                if not safe_member_name(name):
                    raise SessionFormatError(f"{path}: bundle member {name[:80]!r} has an unsafe name")
                current = name
                info = zin.getinfo(name)
                if info.file_size > left:
                    raise SessionFormatError(f"{path}: the bundle's media expand beyond {budget >> 20} MB")
                method = zipfile.ZIP_STORED if stored(name) else zipfile.ZIP_DEFLATED
                target = zipfile.ZipInfo(name, date_time=info.date_time)
                target.compress_type = method
                target.external_attr = 0o644 << 16
                with zin.open(info) as src, zout.open(target, "w", force_zip64=info.file_size > (1 << 30)) as dst:
                    while chunk := src.read(_COPY_CHUNK):
                        left -= len(chunk)
                        if left < 0:
                            raise SessionFormatError(f"{path}: the bundle's media expand beyond {budget >> 20} MB")
                        dst.write(chunk)
    except KeyError as exc:
        raise SessionFormatError(f"{path}: no bundle member {str(exc)[:80]}") from None
    except ZIP_ERRORS as exc:
        raise _zip_error(path, current, exc) from None


def write_bundle(
    out: str, document: bytes, members: dict[str, bytes | None], source: str | None, stored_extensions: Container[str]
) -> None:
    """Write a new bundle at ``out`` (atomically, never over a file): ``tree.openloom`` then the
    members — bytes as given, None streamed from the source bundle. Unsafe names are never
    written."""

    def stored(name: str) -> bool:
        return name.rsplit(".", 1)[-1].lower() in stored_extensions

    def fill(f: BinaryIO) -> None:
        with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("tree.openloom", document)
            for name, blob in members.items():
                if blob is not None and safe_member_name(name):
                    z.writestr(name, blob, compress_type=zipfile.ZIP_STORED if stored(name) else zipfile.ZIP_DEFLATED)
            copied = [n for n, blob in members.items() if blob is None and safe_member_name(n)]
            if copied and source is not None:
                copy_members(source, copied, z, stored)

    write_new_file_with(out, fill)


def member_head(path: str, member: str, n: int = 16) -> bytes:
    with open_regular_file(path) as raw, zipfile.ZipFile(raw) as z, z.open(member) as f:
        return f.read(n)


def media_bytes(manager: Any, block: dict[str, Any]) -> bytes | None:
    """The bytes of an image/audio block of a loom session (data URI or bundle member)."""
    uri = parse_data_uri(block.get("ref"))
    if uri is not None:
        try:
            return uri.decode()
        except (binascii.Error, ValueError):
            return None
    src: LoomSource | None = loom_source(manager)
    member = bundle_path(block.get("ref"))
    if src is None or member is None or not src.is_bundle or src.path is None:
        return None
    assert src.bundle_members is not None
    if member not in src.bundle_members:
        return None
    return read_member(src.path, member)
