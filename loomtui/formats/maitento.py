"""Maitento loom configurations: the rules that turn a ``loom`` object into the memory in use.

An interaction's ``loom`` member (``LoomConfiguration``; ``LoomConfigurationInput`` in a request)
says whose loom each agent wakes up with and how memories are recalled and made. Fields left null
take their defaults; a response also carries the ``effective…`` values the server computed.
:func:`explain` applies the reference rules (docs/maitento-loom-config.md) to one object: the
effective values, one explained row per field and every finding. Nothing here reads files
(``maitento_read``) or knows about the app.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import orjson

ERROR = "error"
WARNING = "warning"

#: tapestry length: default and the range the server keeps it in
TAPESTRY_DEFAULT = 1500
TAPESTRY_MIN = 200
TAPESTRY_MAX = 20_000

#: the enum values the reference shows
SCOPES = ("Process", "Input")
RECALLS = ("Suggest", "Off")
WEAVES = ("Suggest", "Manual")
ENUMS = {"scope": ("LoomScope", SCOPES), "recall": ("LoomRecallMode", RECALLS), "weave": ("LoomWeaveMode", WEAVES)}

#: request fields in the reference's order, with their type
REQUEST_FIELDS: dict[str, str] = {
    "enabled": "bool",
    "scope": "scope?",
    "scopeInput": "str?",
    "shared": "bool?",
    "recall": "recall?",
    "weave": "weave?",
    "tapestryTokens": "int?",
    "subjectInputs": "str[]?",
    "nightWeaving": "bool?",
    "quietMinutes": "int?",
    "weaverModel": "str?",
    "vetModel": "str?",
    "vetRecall": "bool?",
    "seedFromLoomId": "uuid?",
    "readFromLoomIds": "uuid[]?",
}

#: what only a response carries: field -> (type, key inside ``effective``)
RESPONSE_FIELDS: dict[str, tuple[str, str]] = {
    "effectiveScope": ("scope", "scope"),
    "effectiveShared": ("bool", "shared"),
    "effectiveRecall": ("recall", "recall"),
    "effectiveWeave": ("weave", "weave"),
    "effectiveTapestryTokens": ("int", "tapestryTokens"),
    "effectiveSubjectInputs": ("str[]", "subjectInputs"),
    "effectiveReadFromLoomIds": ("uuid[]", "readFromLoomIds"),
    "vets": ("bool", "vets"),
    "effectiveVetRecall": ("bool", "vetRecall"),
}

ALL_FIELDS = {**REQUEST_FIELDS, **{k: t for k, (t, _e) in RESPONSE_FIELDS.items()}}
_FOLDED = {k.lower(): k for k in ALL_FIELDS}

#: the keys of ``effective`` (the reference's names without the ``effective`` prefix)
EFFECTIVE_KEYS = ("scope", "shared", "recall", "weave", "tapestryTokens", "subjectInputs", "readFromLoomIds",
                  "vets", "vetRecall")

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z")

_TYPE_NAMES = {
    "bool": "a boolean", "int": "an integer", "str": "a string", "str[]": "a list of strings",
    "uuid": "a UUID string", "uuid[]": "a list of UUID strings", "scope": "a LoomScope string",
    "recall": "a LoomRecallMode string", "weave": "a LoomWeaveMode string",
}

#: longest string shown in a message or a table cell
SHOW_CHARS = 60
#: longest list or object shown (a few UUIDs)
LIST_CHARS = 200


@dataclass(frozen=True, slots=True)
class Finding:
    level: str  # ERROR or WARNING
    code: str
    path: str
    message: str

    def as_json(self) -> dict[str, str]:
        return {"level": self.level, "code": self.code, "path": self.path, "message": self.message}

    def line(self) -> str:
        return f"{self.level}: {self.path}: {self.message} [{self.code}]"


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the explained table: field | given | effective | why."""

    field: str
    given: str
    effective: str
    why: str


@dataclass
class Explained:
    """One configuration with the rules applied."""

    form: str  # "request" or "response"
    given: dict[str, Any]
    effective: dict[str, Any]
    rows: list[Row]
    findings: list[Finding] = field(default_factory=list)


def is_uuid(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 36 and _UUID.match(value) is not None


def show(value: Any) -> str:
    """A value as compact JSON, cut to SHOW_CHARS characters (a 1 MB string prints as its head)."""
    if isinstance(value, str):
        if len(value) > SHOW_CHARS:
            return _dumps(value[:SHOW_CHARS])[:-1] + f"…\" ({len(value):,} chars)"
        return _dumps(value)
    if isinstance(value, (dict, list)):
        text = _dumps(_shallow(value, 3))
        return text if len(text) <= LIST_CHARS else text[: LIST_CHARS - 1] + "…"
    return _dumps(value)


def _dumps(value: Any) -> str:
    try:
        return orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):
        return repr(value)


def _shallow(value: Any, depth: int) -> Any:
    """``value`` with containers below ``depth`` levels replaced by "…" (safe to serialise)."""
    if isinstance(value, dict):
        if depth <= 0:
            return "…"
        return {str(k): _shallow(v, depth - 1) for k, v in list(value.items())[:20]}
    if isinstance(value, list):
        if depth <= 0:
            return "…"
        return [_shallow(v, depth - 1) for v in value[:20]]
    return value


def plain(value: Any, depth: int = 64) -> Any:
    """``value`` made safe to serialise: containers deeper than ``depth`` become a marker string."""
    if isinstance(value, dict):
        if depth <= 0:
            return "(nested too deeply)"
        return {str(k): plain(v, depth - 1) for k, v in value.items()}
    if isinstance(value, list):
        if depth <= 0:
            return "(nested too deeply)"
        return [plain(v, depth - 1) for v in value]
    return value


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


class _Rules:
    """Applies the rules to one object; ``at`` is the JSON path of the object (``$.loom``)."""

    def __init__(self, obj: dict[str, Any], at: str) -> None:
        self.obj = obj
        self.at = at
        self.findings: list[Finding] = []
        #: fields whose value has the wrong type (taken as null by the rules)
        self.bad: set[str] = set()

    def path(self, name: str, index: int | None = None) -> str:
        p = f"{self.at}.{name}" if self.at else name
        return p if index is None else f"{p}[{index}]"

    def add(self, level: str, code: str, path: str, message: str) -> None:
        self.findings.append(Finding(level, code, path, message))

    # types ----------------------------------------------------------------------------------------
    def check_type(self, name: str, kind: str) -> None:
        """Wrong types are errors; a wrong field is taken as null by the rules."""
        if name not in self.obj:
            return
        v = self.obj[name]
        nullable = kind.endswith("?")
        base = kind.rstrip("?")
        if v is None:
            if not nullable:
                self.bad.add(name)
                self.add(ERROR, "wrong-type", self.path(name), f"{name} is null, but must be {_TYPE_NAMES[base]}")
            return
        ok = True
        if base == "bool":
            ok = isinstance(v, bool)
        elif base == "int":
            ok = _is_int(v)
        elif base in ("str", "uuid", "scope", "recall", "weave"):
            ok = isinstance(v, str)
        elif base in ("str[]", "uuid[]"):
            ok = isinstance(v, list)
            if ok:
                for i, item in enumerate(v):
                    if not isinstance(item, str):
                        ok = False
                        self.add(ERROR, "wrong-type", self.path(name, i),
                                 f"{name}[{i}] is {show(item)}, but must be a string")
                if not ok:
                    self.bad.add(name)
                    return
        if not ok:
            self.bad.add(name)
            self.add(ERROR, "wrong-type", self.path(name), f"{name} is {show(v)}, but must be {_TYPE_NAMES[base]}")
            return
        if base in ENUMS:
            enum_name, allowed = ENUMS[base]
            if v not in allowed:
                hint = next((a for a in allowed if a.lower() == v.strip().lower()), None)
                more = f"; did you mean {hint}?" if hint else ""
                self.add(WARNING, "enum-not-in-reference", self.path(name),
                         f"{name} {show(v)} is not in the reference ({enum_name}: {', '.join(allowed)}){more}")
        elif base == "uuid" and not is_uuid(v):
            self.bad.add(name)
            self.add(ERROR, "malformed-uuid", self.path(name), f"{name} {show(v)} is not a UUID")
        elif base == "uuid[]":
            for i, item in enumerate(v):
                if not is_uuid(item):
                    self.add(ERROR, "malformed-uuid", self.path(name, i), f"{name}[{i}] {show(item)} is not a UUID")

    def value(self, name: str) -> Any:
        """The value the rules use: None when missing, null or of the wrong type."""
        return None if name in self.bad else self.obj.get(name)


def _given_cell(obj: dict[str, Any], name: str) -> str:
    return show(obj[name]) if name in obj else "—"


def _enum_cell(value: str, allowed: tuple[str, ...]) -> str:
    """A value of the reference as a bare word; anything else quoted (and cut)."""
    return value if value in allowed else show(value)


def explain(obj: dict[str, Any], at: str = "$") -> Explained:
    """The rules of the reference applied to one configuration object (request or response form)."""
    r = _Rules(obj, at)
    form = "response" if any(k in obj for k in RESPONSE_FIELDS) else "request"
    for name in obj:
        if name in ALL_FIELDS:
            continue
        key = str(name)
        folded = _FOLDED.get(key.lower())
        hint = f"; did you mean {folded}?" if folded else ""
        r.add(WARNING, "unknown-field", r.path(key), f"{show(key)} is not a field of LoomConfiguration{hint}")
    for name, kind in ALL_FIELDS.items():
        r.check_type(name, kind)
    if form == "response":
        missing = [k for k in ALL_FIELDS if k not in obj]
        if missing:
            r.add(WARNING, "missing-in-response", at,
                  f"a response carries every field; missing: {', '.join(missing)}")

    rows: list[Row] = []

    def why_given(name: str, default_text: str) -> str:
        if name in r.bad:
            return f"{name} has the wrong type (see findings), taken as null: {default_text}"
        if name not in obj:
            return f"not given: {default_text}"
        if obj[name] is None:
            return f"null: {default_text}"
        return "as given"

    enabled = r.value("enabled")
    if isinstance(enabled, bool):
        rows.append(Row("enabled", show(enabled), show(enabled), "as given" + ("" if enabled else ": memory is off")))
    else:
        rows.append(Row("enabled", _given_cell(obj, "enabled"), "—",
                        why_given("enabled", "the reference gives no default")))

    scope = r.value("scope")
    eff_scope = scope if isinstance(scope, str) else "Process"
    rows.append(Row("scope", _given_cell(obj, "scope"), _enum_cell(eff_scope, SCOPES),
                    why_given("scope", "Process") if scope is None else
                    ("as given" if scope in SCOPES else "as given (not in the reference)")))

    scope_input = r.value("scopeInput")
    if eff_scope == "Input":
        if not isinstance(scope_input, str) or not scope_input.strip():
            r.add(ERROR, "scope-input-missing", r.path("scope") if "scope" in obj else at,
                  "the Input scope needs scopeInput (the run input whose value picks the loom)"
                  + (", which is blank" if isinstance(scope_input, str) else ""))
            rows.append(Row("scopeInput", _given_cell(obj, "scopeInput"), "—",
                            "missing: the Input scope has no run input to pick the loom"))
        else:
            rows.append(Row("scopeInput", show(scope_input), show(scope_input), "as given: picks the loom"))
    else:
        if scope_input is not None:
            r.add(WARNING, "scope-input-unused", r.path("scopeInput"),
                  f"scopeInput is given but the scope is {eff_scope}, not Input: it has no effect")
        rows.append(Row("scopeInput", _given_cell(obj, "scopeInput"), "—",
                        f"unused: the scope is {eff_scope}" if scope_input is not None else
                        why_given("scopeInput", f"unused with the {eff_scope} scope")))

    shared = r.value("shared")
    eff_shared = shared is True
    rows.append(Row("shared", _given_cell(obj, "shared"), show(eff_shared),
                    why_given("shared", "false") if shared is None else "as given"))

    effective: dict[str, Any] = {"scope": eff_scope, "shared": eff_shared}
    for name, default in (("recall", "Suggest"), ("weave", "Suggest")):
        v = r.value(name)
        eff = v if isinstance(v, str) else default
        allowed = ENUMS[name][1]
        rows.append(Row(name, _given_cell(obj, name), _enum_cell(eff, allowed),
                        why_given(name, default) if v is None else
                        ("as given" if v in allowed else "as given (not in the reference)")))
        effective[name] = eff

    tokens = r.value("tapestryTokens")
    base_tokens = tokens if _is_int(tokens) else TAPESTRY_DEFAULT
    eff_tokens = min(max(base_tokens, TAPESTRY_MIN), TAPESTRY_MAX)
    if tokens is None:
        why = why_given("tapestryTokens", f"{TAPESTRY_DEFAULT:,}")
    elif eff_tokens != tokens:
        side = "below" if tokens < TAPESTRY_MIN else "above"
        r.add(WARNING, "tapestry-clamped", r.path("tapestryTokens"),
              f"tapestryTokens {tokens:,} is {side} the range {TAPESTRY_MIN:,}–{TAPESTRY_MAX:,}: "
              f"it will be clamped to {eff_tokens:,}")
        why = f"{tokens:,} is {side} {TAPESTRY_MIN:,}–{TAPESTRY_MAX:,}: clamped to {eff_tokens:,}"
    else:
        why = f"as given (within {TAPESTRY_MIN:,}–{TAPESTRY_MAX:,})"
    rows.append(Row("tapestryTokens", _given_cell(obj, "tapestryTokens"), show(eff_tokens), why))
    effective["tapestryTokens"] = eff_tokens

    subjects = r.value("subjectInputs")
    eff_subjects = list(subjects) if isinstance(subjects, list) else []
    rows.append(Row("subjectInputs", _given_cell(obj, "subjectInputs"), show(eff_subjects),
                    why_given("subjectInputs", "none") if subjects is None else "as given"))
    effective["subjectInputs"] = eff_subjects

    for name in ("nightWeaving", "quietMinutes"):
        v = r.value(name)
        if v is not None and enabled is False:
            r.add(WARNING, "memory-disabled", r.path(name),
                  f"{name} is set while memory is disabled (enabled is false): it has no effect until memory is on")
        if name == "quietMinutes" and _is_int(v) and v < 0:
            r.add(WARNING, "negative-minutes", r.path(name), f"quietMinutes is {v}: minutes cannot be negative")
        if v is None:
            why = why_given(name, "the reference gives no default")
        else:
            why = "as given" + (" (memory is off)" if enabled is False else "")
        rows.append(Row(name, _given_cell(obj, name), show(v) if v is not None else "—", why))

    weaver = r.value("weaverModel")
    rows.append(Row("weaverModel", _given_cell(obj, "weaverModel"),
                    show(weaver) if weaver is not None else "(the agent's own model)",
                    why_given("weaverModel", "the agent's own model") if weaver is None else "as given"))

    vet = r.value("vetModel")
    vets = isinstance(vet, str)
    if vets and not vet.strip():
        r.add(WARNING, "blank-vet-model", r.path("vetModel"), "vetModel is blank: it names no catalogue model")
    rows.append(Row("vetModel", _given_cell(obj, "vetModel"), show(vet) if vets else "(nothing is checked)",
                    why_given("vetModel", "nothing is checked") if vet is None else "as given"))
    rows.append(Row("vets", _given_cell(obj, "vets"), show(vets),
                    "a vetModel is set" if vets else "no vetModel is set"))

    vet_recall = r.value("vetRecall")
    eff_vet_recall = vet_recall is True and vets
    if vet_recall is True and not vets:
        r.add(WARNING, "vet-recall-without-vet-model", r.path("vetRecall"),
              "vetRecall is true but no vetModel is set: it has no effect")
        why = "true, but no vetModel is set: false"
    elif vet_recall is None:
        why = why_given("vetRecall", "false")
    else:
        why = "as given" + (", with a vetModel" if vet_recall else "")
    rows.append(Row("vetRecall", _given_cell(obj, "vetRecall"), show(eff_vet_recall), why))

    seed = r.value("seedFromLoomId")
    rows.append(Row("seedFromLoomId", _given_cell(obj, "seedFromLoomId"), show(seed) if seed is not None else "(none)",
                    why_given("seedFromLoomId", "new looms start empty") if seed is None else
                    "as given: every loom this interaction creates starts from it"))

    reads = r.value("readFromLoomIds")
    eff_reads = list(reads) if isinstance(reads, list) else []
    seen: dict[str, int] = {}
    for i, item in enumerate(eff_reads):
        key = item.lower()
        if key in seen:
            r.add(WARNING, "duplicate-loom-id", r.path("readFromLoomIds", i),
                  f"readFromLoomIds[{i}] repeats readFromLoomIds[{seen[key]}] ({show(item)})")
        else:
            seen[key] = i
    if isinstance(seed, str) and seed.lower() in seen:
        r.add(WARNING, "seed-also-read", r.path("readFromLoomIds", seen[seed.lower()]),
              "the seed loom is also read-only here: its threads come back twice (inherited and read)")
    rows.append(Row("readFromLoomIds", _given_cell(obj, "readFromLoomIds"), show(eff_reads),
                    why_given("readFromLoomIds", "none") if reads is None else "as given"))
    effective["readFromLoomIds"] = eff_reads
    effective["vets"] = vets
    effective["vetRecall"] = eff_vet_recall
    effective = {k: effective[k] for k in EFFECTIVE_KEYS}

    if form == "response":
        rows = _compare_with_server(r, obj, effective, rows)
    return Explained(form, obj, effective, rows, r.findings)


def _same(server: Any, rules: Any, kind: str) -> bool:
    if kind == "uuid[]" and isinstance(server, list) and isinstance(rules, list):
        return [s.lower() if isinstance(s, str) else s for s in server] == [x.lower() for x in rules]
    if type(server) is not type(rules):
        return False
    return bool(server == rules)


def _compare_with_server(r: _Rules, obj: dict[str, Any], effective: dict[str, Any], rows: list[Row]) -> list[Row]:
    """Each ``effective…`` value (and ``vets``) the response carries, against the rules."""
    said: dict[str, str] = {}
    for name, (kind, key) in RESPONSE_FIELDS.items():
        if name not in obj:
            continue
        server, rules = obj[name], effective[key]
        if _same(server, rules, kind):
            said[key] = "; the server agrees"
        else:
            r.add(ERROR, "server-disagrees", r.path(name),
                  f"{name}: server says {show(server)}, the rules give {show(rules)}")
            said[key] = f"; but the server says {show(server)}"
    if not said:
        return rows
    return [Row(x.field, x.given, x.effective, x.why + said[x.field]) if x.field in said else x for x in rows]
