"""Finding Maitento loom configurations in files and directories.

Where a configuration can be (docs/maitento-loom-config.md):

* a JSON document that is a LoomConfiguration itself (request or response form);
* any JSON document with a ``loom`` member at any depth (interaction create/update requests and
  versions; a list of them): each such member, with the line of its key;
* a definition text file holding ``loom = { … }``: the braced object (JSON, or the same with bare
  keys, ``=`` for ``:``, optional commas and ``#``/``//`` comments), with the line it starts on;
* a directory: every such file below it (hidden directories skipped).

Bad input never raises: an unreadable file, a document that is not JSON, a ``loom`` that is not an
object, nesting too deep to read, each becomes a :class:`Source` with an error finding.
"""

from __future__ import annotations

import json
import os
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

import orjson

from loomtui.formats.base.common import MAX_DOCUMENT_BYTES
from loomtui.formats.maitento.rules import (
    ALL_FIELDS,
    ERROR,
    WARNING,
    Explained,
    Finding,
    explain,
)
from loomtui.formats.maitento.values import exact_int, plain, show
from loomtui.session.errors import SessionFormatError, cannot_open
from loomtui.session.fileio import read_capped

#: files larger than this are not read (a definition or interaction file is a few KB)
MAX_FILE_BYTES = 64 << 20
#: deepest nesting the definition-file reader follows (two Python frames a level; JSON documents
#: stop at orjson's 1024)
MAX_DEPTH = 200

_DEFINITION = re.compile(rb"^[ \t]*loom[ \t]*=[ \t]*\{", re.MULTILINE)
_NAME = re.compile(rb"^[ \t]*(?:name|title)[ \t]*[=:][ \t]*\"([^\"\n]{1,200})\"", re.MULTILINE)
_LOOM_KEY = re.compile(rb'(?<!\\)"loom"\s*:')
_SKIP_DIRS = {"node_modules", "__pycache__"}
#: the most files and directories the browser, ``info`` and ``tree`` look through below a
#: directory for its loom map (``loom-config DIR`` walks it all): ``info /tmp`` is refused at
#: once instead of reading a whole machine's files
MAP_WALK_LIMIT = 5000


class TooManyFiles(SessionFormatError):
    """A directory holds more below it than a loom map looks through (``MAP_WALK_LIMIT``)."""

    def __init__(self, root: str, limit: int) -> None:
        super().__init__(
            f"{root} holds more than {limit:,} files and directories below it: too many to look through "
            f"for loom configurations; open one file, or a directory that holds them "
            f"(`loomtui loom-config {root}` reads every file below it)"
        )


@dataclass
class Config:
    """One configuration found: where, what it belongs to, and the rules applied."""

    source: str
    line: int
    #: JSON path of the object (``$.loom``, ``$[2].versions[0].loom``, ``loom`` in a definition)
    at: str
    explained: Explained
    #: the interaction's name (``name``/``title`` beside the ``loom`` member), if any
    name: str | None = None
    #: the id of the loom this interaction is known by (``loomId``/``id`` beside ``loom``), if any
    own_id: str | None = None

    @property
    def label(self) -> str:
        where = f"{self.source}:{self.line}"
        return f"{self.name} ({where})" if self.name else where

    @property
    def findings(self) -> list[Finding]:
        return self.explained.findings

    def as_json(self) -> dict[str, Any]:
        e = self.explained
        return {
            "source": self.source,
            "line": self.line,
            "form": e.form,
            "given": plain(e.given),
            "effective": e.effective,
            "findings": [f.as_json() for f in e.findings],
        }


@dataclass
class Problem:
    """Input that holds no readable configuration (not JSON, ``loom`` not an object, …)."""

    source: str
    line: int
    findings: list[Finding] = field(default_factory=list)
    #: a path given among several that was not read at all, and why ("a path that does not
    #: exist", "a pi session, not a loom configuration"): named, not a finding
    skipped: str | None = None

    @property
    def label(self) -> str:
        return self.source if self.skipped is not None else f"{self.source}:{self.line}"

    @property
    def message(self) -> str:
        """What is wrong, in one line: why it was not read, else its first finding."""
        if self.skipped is not None:
            return f"{self.skipped}: not read"
        return self.findings[0].message if self.findings else ""

    def as_json(self) -> dict[str, Any]:
        out = {
            "source": self.source,
            "line": self.line,
            "form": None,
            "given": None,
            "effective": None,
            "findings": [f.as_json() for f in self.findings],
        }
        if self.skipped is not None:
            out["notRead"] = self.skipped
        return out


Item = Config | Problem


def read_paths(paths: list[str], limit: int | None = None) -> list[Item]:
    """Every configuration (and problem) in ``paths``, in order; directories are walked (up to
    ``limit`` files and directories below each: ``TooManyFiles`` beyond)."""
    out: list[Item] = []
    for p in paths:
        if os.path.isdir(p):
            for f in walk(p, limit):
                out.extend(read_file(f, explicit=False))
        elif not os.path.exists(p):
            out.append(Problem(p, 0, [Finding(ERROR, "unreadable", "$", cannot_open(p))]))
        else:
            out.extend(read_file(p, explicit=True))
    return out


def walk(root: str, limit: int | None = None) -> list[str]:
    """Regular files below ``root`` in a stable order (sorted names; hidden entries skipped);
    ``limit``: raise ``TooManyFiles`` once more files and directories than that are met."""
    found: list[str] = []
    stack = [root]
    seen = 0
    while stack:
        d = stack.pop()
        try:
            with os.scandir(d) as it:
                items = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        subdirs = []
        for e in items:
            if e.name.startswith(".") or e.name in _SKIP_DIRS:
                continue
            seen += 1
            if limit is not None and seen > limit:
                raise TooManyFiles(root, limit)
            try:
                if e.is_dir(follow_symlinks=False):
                    subdirs.append(e.path)
                elif e.is_file():
                    found.append(e.path)
            except OSError:
                continue
        stack.extend(reversed(subdirs))
    return found


def read_file(path: str, explicit: bool = True) -> list[Item]:
    """The configurations in one file. ``explicit``: the user named it, so a file without any is
    reported; found by walking a directory, a file that is not about looms is passed over."""
    try:
        size = os.stat(path).st_size
        # a file named on its own is read up to the size of any document loomtui opens; files
        # met while walking a directory only up to MAX_FILE_BYTES (what is not a configuration
        # is not worth parsing)
        limit = MAX_DOCUMENT_BYTES if explicit else MAX_FILE_BYTES
        if size > limit:
            if not explicit:
                return []
            return [
                Problem(
                    path,
                    0,
                    [
                        Finding(
                            ERROR, "too-large", "$", f"{size:,} bytes is more than loomtui reads for a configuration"
                        )
                    ],
                )
            ]
        data = read_capped(path, limit)  # regular files only: a FIFO never blocks the walk
    except SessionFormatError as exc:
        return [Problem(path, 0, [Finding(ERROR, "unreadable", "$", str(exc))])] if explicit else []
    except OSError as exc:
        return [Problem(path, 0, [Finding(ERROR, "unreadable", "$", cannot_open(path, exc))])]
    return read_bytes(data, path, explicit)


def read_bytes(data: bytes, source: str, explicit: bool = True) -> list[Item]:
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    head = body.lstrip()[:1]
    if head in (b"{", b"["):
        # below a directory: JSON files, and other files only when they mention a loom
        if explicit or source.lower().endswith(".json") or b"loom" in data or b"Loom" in data:
            return _read_json(body, source, explicit)
        return []
    if not explicit and b"loom" not in data:
        return []
    if _DEFINITION.search(body):
        return _read_definition(body, source)
    if not explicit:
        return []
    what = "empty" if not head else "neither JSON nor a definition file with loom = { … }"
    return [Problem(source, 1, [Finding(ERROR, "no-configuration", "$", f"the file is {what}")])]


def is_definition(data: bytes) -> bool:
    """A definition text file: some line starts ``loom = {``."""
    return _DEFINITION.search(data) is not None


def has_configuration(doc: Any) -> bool:
    """A parsed JSON document holds a configuration (or a ``loom`` member to report on)."""
    if isinstance(doc, dict) and "loom" not in doc and looks_like_configuration(doc):
        return True
    if _is_config_list(doc):
        return True
    return bool(_loom_members(doc))


# JSON -------------------------------------------------------------------------------------------
#: a run of digits orjson would not read exactly (beyond 64 bits)
_LONG_DIGITS = re.compile(rb"[0-9]{19,}")


def parse_json(data: bytes) -> tuple[Any, str | None]:
    """(document, None) or (None, why it is not JSON)."""
    # orjson reads an integer beyond 64 bits as a float (1e+30): such a file goes to the stdlib,
    # which keeps every integer exact (``exact_int``)
    if _LONG_DIGITS.search(data) is None:
        try:
            return orjson.loads(data), None
        except orjson.JSONDecodeError as exc:
            first = str(exc)
    else:
        first = "not valid JSON"
    if "recursion" in first.lower() or "depth" in first.lower():
        return None, "nested more than 1024 levels deep"
    try:  # the stdlib reads what orjson refuses (integers beyond 64 bits)
        return json.loads(data.decode("utf-8"), parse_int=exact_int), None
    except RecursionError:
        return None, "nested too deeply to read"
    except (ValueError, UnicodeDecodeError):
        return None, first


def _lines_of(data: bytes) -> list[int]:
    return [m.start() for m in re.finditer(rb"\n", data)]


def _line_at(newlines: list[int], offset: int) -> int:
    return bisect_right(newlines, offset) + 1


def _read_json(data: bytes, source: str, explicit: bool) -> list[Item]:
    doc, error = parse_json(data)
    if error is not None:
        if not explicit and not _LOOM_KEY.search(data):
            return []
        return [Problem(source, 1, [Finding(ERROR, "not-json", "$", f"not valid JSON: {error}")])]
    found = _loom_members(doc)
    if not found:
        if isinstance(doc, dict) and looks_like_configuration(doc):
            return [Config(source, _first_line(data), "$", explain(doc, "$"))]
        if _is_config_list(doc):
            starts = _item_lines(data, len(doc))
            return [Config(source, starts[i], f"$[{i}]", explain(c, f"$[{i}]")) for i, c in enumerate(doc)]
        if not explicit:
            return []
        return [
            Problem(
                source,
                1,
                [
                    Finding(
                        ERROR,
                        "no-configuration",
                        "$",
                        "no LoomConfiguration and no `loom` member in this JSON document",
                    )
                ],
            )
        ]
    newlines = _lines_of(data)
    keys = [m.start() for m in _LOOM_KEY.finditer(data)]
    out: list[Item] = []
    for k, (path, holder, value, counted, outer) in enumerate(found):
        if not counted:
            continue
        line = _line_at(newlines, keys[k]) if len(keys) == len(found) else 1
        out.append(_member(value, f"{path}.loom", holder, outer, source, line))
    return out


def _is_config_list(doc: Any) -> bool:
    """A list of bare configurations (every item one)."""
    return isinstance(doc, list) and bool(doc) and all(isinstance(c, dict) and looks_like_configuration(c) for c in doc)


def _item_lines(data: bytes, n: int) -> list[int]:
    """The lines where the ``n`` objects of a top-level list of flat-ish objects start (1 when the
    text does not show them plainly, e.g. nested objects inside the items)."""
    starts = [m.start() for m in re.finditer(rb"\{", data)]
    depth_ok = data.count(b"{") == n
    newlines = _lines_of(data)
    return [_line_at(newlines, starts[i]) for i in range(n)] if depth_ok else [1] * n


def _first_line(data: bytes) -> int:
    stripped = data.lstrip()
    return data[: len(data) - len(stripped)].count(b"\n") + 1


def looks_like_configuration(doc: dict[str, Any]) -> bool:
    """A bare LoomConfiguration: at least half its keys are fields and one is not a plain word
    that other documents use too (``enabled``, ``shared``)."""
    known = [k for k in doc if k in ALL_FIELDS]
    distinctive = [k for k in known if k not in ("enabled", "shared")]
    return bool(distinctive) and 2 * len(known) >= len(doc)


def _loom_members(doc: Any) -> list[tuple[str, Any, Any, bool, str | None]]:
    """Every ``loom`` key in document order: (path of its holder, holder, value, is a
    configuration to read, name of the nearest named object around it). Keys inside a
    configuration are listed (to keep the count of ``"loom":`` in the text aligned) but not read.
    Iterative: nesting depth is no limit."""
    out: list[tuple[str, Any, Any, bool, str | None]] = []
    # (path, value, live, name around it, holder when this is the value of a ``loom`` key)
    none = object()
    stack: list[tuple[str, Any, bool, str | None, Any]] = [("$", doc, True, None, none)]
    while stack:
        path, node, live, outer, holder = stack.pop()
        if holder is not none:
            out.append((path.removesuffix(".loom"), holder, node, live, outer))
            live = False
        if isinstance(node, dict):
            name = _name_of(node) or outer
            pending: list[tuple[str, Any, bool, str | None, Any]] = []
            for k, v in node.items():
                if k == "loom":
                    pending.append((f"{path}.loom", v, live, name, node))
                elif isinstance(v, (dict, list)):
                    sub = f"{path}.{k}" if k.isidentifier() else f"{path}[{show(k)}]"
                    pending.append((sub, v, live, name, none))
            stack.extend(reversed(pending))
        elif isinstance(node, list):
            stack.extend(
                reversed(
                    [(f"{path}[{i}]", v, live, outer, none) for i, v in enumerate(node) if isinstance(v, (dict, list))]
                )
            )
    return out


def _name_of(node: dict[str, Any]) -> str | None:
    for k in ("name", "title"):
        v = node.get(k)
        if isinstance(v, str) and v.strip():
            return v.strip()[:80]
    return None


def _holder_info(holder: Any, outer: str | None) -> tuple[str | None, str | None]:
    """The interaction's name (its own, or the named object around it with the holder's id or
    version) and the loom id it is known by (``loomId``, else ``id``)."""
    if not isinstance(holder, dict):
        return outer, None
    own = next((holder[k] for k in ("loomId", "id") if isinstance(holder.get(k), str)), None)
    name = _name_of(holder)
    if name is None:
        tag = next(
            (
                holder[k]
                for k in ("version", "id")
                if isinstance(holder.get(k), (str, int)) and not isinstance(holder.get(k), bool)
            ),
            None,
        )
        if outer and tag is not None:
            name = f"{outer} {'v' if isinstance(tag, int) else ''}{str(tag)[:40]}"
        else:
            name = outer or (str(tag)[:40] if tag is not None else None)
    return name, own


def _member(value: Any, at: str, holder: Any, outer: str | None, source: str, line: int) -> Item:
    if value is None:
        return Problem(
            source, line, [Finding(WARNING, "loom-null", at, "loom is null: this interaction has no memory settings")]
        )
    if not isinstance(value, dict):
        return Problem(source, line, [Finding(ERROR, "loom-not-object", at, f"loom is {show(value)}, not an object")])
    name, own = _holder_info(holder, outer)
    return Config(source, line, at, explain(value, at), name, own)


# definition files ---------------------------------------------------------------------------------
class _SyntaxError(Exception):
    def __init__(self, message: str, pos: int) -> None:
        super().__init__(message)
        self.pos = pos


def _read_definition(data: bytes, source: str) -> list[Item]:
    text = data.decode("utf-8", errors="replace")
    newlines = _lines_of(data)
    names = [(m.start(), m.group(1).decode("utf-8", errors="replace")) for m in _NAME.finditer(data)]
    out: list[Item] = []
    for m in _DEFINITION.finditer(data):
        line = _line_at(newlines, m.start())
        brace = len(data[: m.end() - 1].decode("utf-8", errors="replace"))
        name = next((n for start, n in reversed(names) if start < m.start()), None)
        try:
            value, _end = _Lenient(text).parse(brace)
        except RecursionError:  # a caller already deep in the stack: say so rather than crash
            exc = _SyntaxError("nested too deeply", brace)
            where = line
            out.append(
                Problem(
                    source,
                    line,
                    [Finding(ERROR, "not-readable", "loom", f"the braced object cannot be read: {exc} (line {where})")],
                )
            )
            continue
        except _SyntaxError as exc:
            where = _line_at(newlines, len(text[: exc.pos].encode("utf-8", errors="replace")))
            out.append(
                Problem(
                    source,
                    line,
                    [Finding(ERROR, "not-readable", "loom", f"the braced object cannot be read: {exc} (line {where})")],
                )
            )
            continue
        out.append(Config(source, line, "loom", explain(value, "loom"), name, None))
    return out


_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
_SCAN = json.decoder.scanstring  # type: ignore[attr-defined]


class _Lenient:
    """JSON, plus bare keys, ``=`` for ``:``, optional and trailing commas, single quotes and
    ``#``, ``//``, ``/* */`` comments: the object of a ``loom = { … }`` definition."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.n = len(text)

    def parse(self, pos: int) -> tuple[Any, int]:
        return self.value(pos, 0)

    def ws(self, i: int) -> int:
        s, n = self.s, self.n
        while i < n:
            c = s[i]
            if c in " \t\r\n,":
                i += 1
            elif c == "#" or s.startswith("//", i):
                j = s.find("\n", i)
                i = n if j < 0 else j + 1
            elif s.startswith("/*", i):
                j = s.find("*/", i + 2)
                if j < 0:
                    raise _SyntaxError("unterminated comment", i)
                i = j + 2
            else:
                break
        return i

    def value(self, i: int, depth: int) -> tuple[Any, int]:
        if depth > MAX_DEPTH:
            raise _SyntaxError(f"nested more than {MAX_DEPTH} levels deep", i)
        i = self.ws(i)
        if i >= self.n:
            raise _SyntaxError("unexpected end of file", i)
        c = self.s[i]
        if c == "{":
            return self.obj(i + 1, depth + 1)
        if c == "[":
            return self.arr(i + 1, depth + 1)
        if c == '"' or c == "'":
            return self.string(i)
        m = _NUMBER.match(self.s, i)
        if m:
            t = m.group()
            return (exact_int(t) if t.lstrip("-").isdigit() else float(t)), m.end()
        m = _BARE.match(self.s, i)
        if m and m.group() in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[m.group()], m.end()
        raise _SyntaxError(f"unexpected {self.s[i : i + 12]!r}", i)

    def string(self, i: int) -> tuple[str, int]:
        q = self.s[i]
        if q == '"':
            try:
                text, end = _SCAN(self.s, i + 1, False)
            except ValueError as exc:
                raise _SyntaxError(f"bad string ({exc.args[0].split(':')[0]})", i) from None
            return str(text), int(end)
        j = self.s.find("'", i + 1)
        if j < 0:
            raise _SyntaxError("unterminated string", i)
        return self.s[i + 1 : j], j + 1

    def obj(self, i: int, depth: int) -> tuple[dict[str, Any], int]:
        out: dict[str, Any] = {}
        while True:
            i = self.ws(i)
            if i >= self.n:
                raise _SyntaxError("unclosed {", i)
            if self.s[i] == "}":
                return out, i + 1
            if self.s[i] in "\"'":
                key, i = self.string(i)
            else:
                m = _BARE.match(self.s, i)
                if not m:
                    raise _SyntaxError(f"expected a key, found {self.s[i : i + 12]!r}", i)
                key, i = m.group(), m.end()
            while i < self.n and self.s[i] in " \t":
                i += 1
            if i >= self.n or self.s[i] not in ":=":
                raise _SyntaxError(f"expected = or : after {key!r}", i)
            out[key], i = self.value(i + 1, depth)

    def arr(self, i: int, depth: int) -> tuple[list[Any], int]:
        out: list[Any] = []
        while True:
            i = self.ws(i)
            if i >= self.n:
                raise _SyntaxError("unclosed [", i)
            if self.s[i] == "]":
                return out, i + 1
            v, i = self.value(i, depth)
            out.append(v)
