"""What every loom adapter shares: the source record, ids, times and JSON in and out.

Adapters for other looms (OpenLoom v2/v1, socketteer) turn a document into pi-style entries for
``SessionManager.from_entries``. What the session model cannot hold — the document around the
tree, the import-time bookmarks, the bundle's members — is kept in a :class:`LoomSource`, the
``document`` of the manager's typed source (``session/source.py``), so that exports and bookmark
saves can go back to the original.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from loomtui.session.errors import SessionFormatError, WriteRefused
from loomtui.session.jsonvalue import deep_call, escape_surrogates, exact_ints, exact_loads, stdlib_loads
from loomtui.session.manager import SessionManager

#: the label an OpenLoom/socketteer bookmark without a label text gets in the tree
DEFAULT_LABEL = "bookmark"

#: the ``format`` names a LoomSource can carry
OPENLOOM_V2 = "openloom-v2"  # container document (``format: "open-loom"``)
OPENLOOM_V2_TREE = "openloom-v2-tree"  # a bare Tree object
OPENLOOM_V1 = "openloom-v1"
SOCKETTEER = "socketteer"

#: largest document or bundle member loomtui reads (importers limit sizes; docs/formats.md, "OpenLoom")
MAX_DOCUMENT_BYTES = 512 << 20


@dataclass
class LoomSource:
    """The document a loom session came from, beside the entries made of it."""

    format: str
    path: str | None
    sha256: str | None
    #: the tree as an OpenLoom v2 Tree (converted for v1/socketteer) with ``nodes``/``edges``
    #: set to None: everything else of the tree, in its key order
    tree: dict[str, Any]
    #: the v2 container with ``trees`` set to None (None for other formats)
    container: dict[str, Any] | None = None
    #: the container's ``trees`` as read (the other trees are written back untouched)
    container_trees: list[Any] = field(default_factory=list)
    tree_index: int = 0
    tree_ids: list[str] = field(default_factory=list)
    mode: str = "dialogue"
    #: agent registry as the tree sees it (document agents, then tree agents on top)
    agents: dict[str, Any] = field(default_factory=dict)
    #: node id -> label, as derived from the document's bookmarks when it was read
    labels: dict[str, str] = field(default_factory=dict)
    #: node ids in document order
    node_ids: list[str] = field(default_factory=list)
    #: the node chosen as leaf on import (currentNodeId or its fallback)
    leaf: str | None = None
    #: ``rootNodeIds`` as the document had it, when it was right (kept on re-export)
    root_ids: list[str] | None = None
    #: a ZIP bundle: member name -> size
    bundle_members: dict[str, int] | None = None
    #: the bundle member holding the document
    bundle_member: str = "tree.openloom"
    #: edges the importer could not use, with why: written to ``extensions.loomtui`` on export
    repairs: list[dict[str, Any]] = field(default_factory=list)
    #: node id -> the labels bookmark saves wrote for it, in order (a reader that makes a node's
    #: entry when asked, ``formats/looms/socketteer_read.py``, applies them as the saves did)
    saved_labels: dict[str, list[str | None]] = field(default_factory=dict)

    @property
    def is_bundle(self) -> bool:
        return self.bundle_members is not None


def loom_source(manager: SessionManager) -> LoomSource | None:
    """The LoomSource of a manager made by an OpenLoom / socketteer adapter (None otherwise)."""
    doc = manager.source.document
    return doc if isinstance(doc, LoomSource) else None


# ids ----------------------------------------------------------------------------------------
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def new_ulid() -> str:
    """A ULID (OpenLoom recommends them for new ids)."""
    ms = int(datetime.now(UTC).timestamp() * 1000) & ((1 << 48) - 1)
    value = (ms << 80) | int.from_bytes(os.urandom(10), "big")
    out = []
    for _ in range(26):
        out.append(_CROCKFORD[value & 31])
        value >>= 5
    return "".join(reversed(out))


def stable_id(seed: str, taken: Any, prefix: str = "") -> str:
    """A deterministic id from ``seed`` that is not in ``taken`` (same file, same ids)."""
    k = 0
    while True:
        digest = hashlib.blake2b(f"{seed}\x00{k}".encode(), digest_size=4).hexdigest()
        candidate = prefix + digest
        if candidate not in taken:
            return candidate
        k += 1


def unique_id(base: str, taken: Any) -> str:
    """``base``, or ``base-2``, ``base-3``… whichever is free."""
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


_SOCKETTEER_NS = uuid.NAMESPACE_URL.bytes + b"loomtui:"


def socketteer_uuid(seed: str) -> str:
    """``uuid5(NAMESPACE_URL, "loomtui:" + seed)`` as text, made without a UUID object (a loom
    of a million nodes without ids asks for a million of them). A seed holding a lone surrogate
    (an id JSON escaped as half a pair) is hashed as written, never refused."""
    h = bytearray(hashlib.sha1(_SOCKETTEER_NS + seed.encode("utf-8", "surrogatepass")).digest()[:16])
    h[6] = (h[6] & 0x0F) | 0x50  # version 5
    h[8] = (h[8] & 0x3F) | 0x80  # RFC 4122 variant
    x = h.hex()
    return f"{x[:8]}-{x[8:12]}-{x[12:16]}-{x[16:20]}-{x[20:]}"


#: how a loom's leaf is chosen (OpenLoom and socketteer alike; ``info`` prints it beside the leaf)
LOOM_LEAF_RULE = "the loom's current node, else the end of its first branch"
#: what a loom document's diagnostics are (a JSON document has no lines to repair)
DOCUMENT_REPAIRS = ("part repaired or skipped", "parts repaired or skipped")


# times --------------------------------------------------------------------------------------
SWIFT_EPOCH = datetime(2001, 1, 1, tzinfo=UTC)
UNIX_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def iso_ms(dt: datetime) -> str:
    return dt.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_iso(value: Any) -> datetime | None:
    """An ISO-8601 time with zone, or None (times without a zone are not guessed)."""
    if not isinstance(value, str) or not value.strip():
        return None
    s = value.strip()
    if s[-1] in "zZ":
        s = s[:-1] + "+00:00"
    try:
        dt = datetime.fromisoformat(s)
    except ValueError:
        return None
    return dt if dt.tzinfo is not None else None


def swift_time(value: Any) -> datetime | None:
    """OpenLoom v1 dates: seconds since 2001-01-01T00:00:00Z."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return SWIFT_EPOCH + timedelta(seconds=float(value))
    except (OverflowError, ValueError):
        return None


def epoch_ms(dt: datetime) -> int:
    return int(round(dt.timestamp() * 1000))


def order_time(n: int) -> str:
    """The ``n``-th entry's ordering key for a format that keeps no times (the Unix epoch + n
    ms): pi's sort by timestamp then keeps the document's order. Not a time: such a source
    says ``keeps_times=False`` and nothing shows it."""
    if 0 <= n < _DAY_MS:  # the usual case, written directly (a loom asks once per node)
        s, ms = divmod(n, 1000)
        m, s = divmod(s, 60)
        return f"1970-01-01T{m // 60:02d}:{m % 60:02d}:{s:02d}.{ms:03d}Z"
    return iso_ms(UNIX_EPOCH + timedelta(milliseconds=n))


_DAY_MS = 86_400_000


# JSON ---------------------------------------------------------------------------------------
def load_json(data: bytes, what: str) -> Any:
    """Parse a whole JSON document (orjson; stdlib with a higher limit for very deep trees)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        pass  # deep, lone surrogates, huge numbers: what JSON.parse still reads
    try:
        return stdlib_loads(data.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError) as exc:
        raise SessionFormatError(f"{what}: not valid JSON ({str(exc)[:200]})") from None


def load_exact(data: bytes, what: str) -> Any:
    """A document to rewrite (bookmark saves): integers exact, floats finite, any depth; raises
    WriteRefused when a value could not be written back as it was."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return exact_loads(data.decode("utf-8", errors="strict"))
    except UnicodeDecodeError:
        raise WriteRefused(f"{what} is not valid UTF-8; it cannot be rewritten without changing it") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise WriteRefused(f"{what}: cannot be rewritten without changing it ({str(exc)[:200]})") from None


def dump_json(obj: Any, indent: bool = True) -> bytes:
    """Serialise a document we write ourselves (2-space indent, UTF-8, final newline)."""
    try:
        opts = orjson.OPT_INDENT_2 if indent else 0
        return orjson.dumps(obj, option=opts) + b"\n"
    except (TypeError, orjson.JSONEncodeError):
        text = _stdlib_dump(obj, 2 if indent else None, False, (",", ": ") if indent else (",", ":"))
        return escape_surrogates(text).encode() + b"\n"


def _stdlib_dump(obj: Any, indent: int | None, ensure_ascii: bool, separators: tuple[str, str]) -> str:
    return _deep(json.dumps, obj, indent=indent, ensure_ascii=ensure_ascii, separators=separators)  # type: ignore[no-any-return]


def _deep(fn: Any, *args: Any, **kwargs: Any) -> Any:
    return deep_call(fn, *args, **kwargs)


def dump_like(original: bytes, obj: Any) -> bytes:
    """Serialise ``obj`` in the style of ``original`` (indent, ASCII escapes, ``\\/``, newline).

    Rewriting a file we did not create (bookmark saves) should change only what changed:
    socketteer writes ``json.dump(indent=4)``, Swift's encoder writes compact JSON with ``\\/``.
    """
    text = original.decode("utf-8", errors="replace")
    indent: int | None = None
    stripped = text.lstrip("\ufeff")
    if stripped.startswith(("{", "[")) and len(stripped) > 1 and stripped[1] in "\r\n":
        rest = stripped[1:].lstrip("\r\n")
        width = len(rest) - len(rest.lstrip(" "))
        if width == 0 and rest.startswith("\t"):
            width = 1
        indent = width or None
    has_non_ascii = any(ord(c) > 127 for c in text)
    ensure_ascii = not has_non_ascii and "\\u" in text
    if indent is None:
        compact = '":' in text and '": ' not in text
        separators = (",", ":") if compact else (", ", ": ")
    else:
        separators = (",", ": ")
    with exact_ints():
        out = _stdlib_dump(obj, indent, ensure_ascii, separators)
    if "\\/" in text:
        out = out.replace("/", "\\/")
    if text.endswith("\n"):
        out += "\r\n" if text.endswith("\r\n") else "\n"
    return escape_surrogates(out).encode("utf-8")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
