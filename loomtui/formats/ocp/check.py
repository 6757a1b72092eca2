"""OCP conformance: the reference checker when it is installed, the JSON Schema alone otherwise.

The numbered rules (``E…``/``W…``) belong to the spec's reference checker,
``loopmath.ocp.conformance`` (the optional extra ``loomtui[ocp]``); loomtui never re-implements
them. Without it, the document is still validated against the bundled JSON Schema of its
version (Draft 2020-12, with ``jsonschema``), reported with the reference checker's codes for
schema findings (``E010``) and unknown versions (``E003``). Findings are mapped to the row
they concern (``$['attempts'][3]…`` → that attempt) for the app's findings view.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from loomtui.formats.ocp.run import OcpRun

INSTALL_HINT = "the OCP reference checker is not installed: pip install 'loomtui[ocp]' (or: uv pip install loopmath)"
NO_SCHEMA_HINT = "jsonschema is not installed either: only documents that are not JSON are reported"
SCHEMA_DIR = Path(__file__).resolve().parent / "schema"
SCHEMA_FILES = {"0.1": "ocp-v0.schema.json", "0.2": "ocp-v0.2.schema.json", "0.3": "ocp-v0.3.schema.json"}
#: documents larger than this (nodes + attempts) are not checked while the app opens them
OPEN_CHECK_LIMIT = 20_000


class Finding(NamedTuple):
    level: str  # "error" or "warning"
    code: str
    path: str
    message: str


def reference_checker() -> Any | None:
    """``loopmath.ocp.conformance``, or None when loopmath is not installed."""
    try:
        from loopmath.ocp import conformance
    except ImportError:
        return None
    return conformance


def checker_name() -> str:
    if reference_checker() is not None:
        return "loopmath"
    return "jsonschema" if _jsonschema() is not None else "none"


def checked_words(checked: str) -> tuple[bool, str]:
    """How a run checked with ``checked`` (``checker_name()``) says so: whether it was checked at
    all, and with what (a missing checker is said as such, never as a finding about the run)."""
    hint = "the OCP reference checker is not installed: pip install 'loomtui[ocp]'"
    if checked == "none":
        return False, "neither the OCP reference checker (pip install 'loomtui[ocp]') nor jsonschema is installed"
    if checked == "jsonschema":
        return True, f"the JSON Schema only, {hint}"
    return True, checked


def _jsonschema() -> Any | None:
    try:
        import jsonschema
    except ImportError:
        return None
    return jsonschema


@lru_cache(maxsize=4)
def _validator(version: str) -> Any:
    js = _jsonschema()
    assert js is not None
    schema = json.loads((SCHEMA_DIR / SCHEMA_FILES[version]).read_text())
    return js.Draft202012Validator(schema)


def _schema_only(doc: Any) -> list[Finding]:
    if not isinstance(doc, dict):
        return [Finding("error", "E002", "$", "top-level JSON value is not an object")]
    version = doc.get("ocp")
    if not isinstance(version, str) or version not in SCHEMA_FILES:
        what = "no 'ocp' version field" if "ocp" not in doc else f"unknown OCP version {version!r}"
        return [Finding("error", "E003", "$['ocp']", f"{what}; known: {', '.join(SCHEMA_FILES)}")]
    if _jsonschema() is None:
        return []
    out = []
    for error in sorted(_validator(version).iter_errors(doc), key=str):
        loc = "$" + "".join(f"[{p!r}]" if isinstance(p, str) else f"[{p}]" for p in error.absolute_path)
        out.append(Finding("error", "E010", loc, f"schema: {error.message}"))
    return out


def _as_findings(raw: list[Any]) -> list[Finding]:
    return [Finding(str(f.level), str(f.code), str(f.path), str(f.message)) for f in raw]


def check_docs(docs: list[Any]) -> list[list[Finding]]:
    """Findings per document, checked together (the reference checker's cross-file rules)."""
    ref = reference_checker()
    if ref is not None:
        return [_as_findings(fs) for fs in ref.validate_many(docs)]
    return [_schema_only(d) for d in docs]


def check_doc(doc: Any) -> list[Finding]:
    ref = reference_checker()
    if ref is not None:
        return _as_findings(ref.validate_doc(doc))
    return _schema_only(doc)


# findings on rows ---------------------------------------------------------------------------
_PATH = re.compile(r"^\$\[(?:'([^']*)'|\"([^\"]*)\")\](?:\[(\d+)\])?")


def row_of(run: OcpRun, path: str) -> str:
    """The entry id a finding's JSON path concerns (the run row when nothing closer)."""
    m = _PATH.match(path or "")
    if not m:
        return "run"
    key = m.group(1) if m.group(1) is not None else m.group(2)
    index = int(m.group(3)) if m.group(3) is not None else None
    doc = run.doc
    items = doc.get(key) if isinstance(doc, dict) else None
    item = items[index] if isinstance(items, list) and index is not None and 0 <= index < len(items) else None
    return _row_of_record(run, key, item) if isinstance(item, dict) else "run"


def _row_of_record(run: OcpRun, key: str, item: dict[str, Any]) -> str:
    """The row of ``doc[key][i]``: the record's own row, else the row it points at (only ids
    that are strings name a row: any other JSON value there is the finding itself)."""

    def ref(name: str) -> str | None:
        v = item.get(name)
        return v if isinstance(v, str) else None

    ident = ref("id")
    if key == "attempts" and ident in run.attempts:
        return "a:" + ident
    if key == "nodes" and ident in run.nodes:
        return "n:" + ident
    if key == "groups" and ident in run.groups:
        return "g:" + ident
    if key == "edges":
        to = ref("to")
        return "n:" + to if to in run.nodes else "run"
    if key == "artifacts":
        p = ref("producer")
        return "a:" + p if p in run.attempts else "run"
    if key == "events":
        attempt, node = ref("attempt"), ref("node")
        if attempt in run.attempts:
            return "a:" + attempt
        if node in run.nodes:
            return "n:" + node
    return "run"


def attach_findings(run: OcpRun, findings: list[Finding] | None = None) -> None:
    """Put findings on their rows (``run.findings``); checks now unless given, and skips a
    document too big to check while it opens (``loomtui check`` still does)."""
    if findings is None:
        if len(run.nodes) + len(run.attempts) > OPEN_CHECK_LIMIT:
            run.note(
                f"conformance not checked on open ({len(run.nodes) + len(run.attempts)} records); "
                "run `loomtui check FILE`"
            )
            return
        findings = check_doc(run.doc)
        run.checked = checker_name()
    for f in findings:
        run.findings.setdefault(row_of(run, f.path), []).append((f.level, f.code, f.path, f.message))
