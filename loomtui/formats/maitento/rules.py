"""Maitento loom configurations: the rules that turn a ``loom`` object into the memory in use.

An interaction's ``loom`` member (``LoomConfiguration``; ``LoomConfigurationInput`` in a request)
says whose loom each agent wakes up with and how memories are recalled and made. Fields left null
take their defaults; a response also carries the ``effective…`` values the server computed.
:func:`explain` applies the reference rules (docs/maitento-loom-config.md) to one object: the
effective values, one explained row per field and every finding. Nothing here reads files
(``maitento/read.py``) or knows about the app.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from loomtui.formats.maitento.values import show

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
EFFECTIVE_KEYS = (
    "scope",
    "shared",
    "recall",
    "weave",
    "tapestryTokens",
    "subjectInputs",
    "readFromLoomIds",
    "vets",
    "vetRecall",
)

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z")

_TYPE_NAMES = {
    "bool": "a boolean",
    "int": "an integer",
    "str": "a string",
    "str[]": "a list of strings",
    "uuid": "a UUID string",
    "uuid[]": "a list of UUID strings",
    "scope": "a LoomScope string",
    "recall": "a LoomRecallMode string",
    "weave": "a LoomWeaveMode string",
}


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


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_str(v: Any) -> bool:
    return isinstance(v, str)


def _is_list(v: Any) -> bool:
    return isinstance(v, list)


#: the type test of each base type (the part of a kind before ``?``)
_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "bool": lambda v: isinstance(v, bool),
    "int": _is_int,
    "str": _is_str,
    "uuid": _is_str,
    "scope": _is_str,
    "recall": _is_str,
    "weave": _is_str,
    "str[]": _is_list,
    "uuid[]": _is_list,
}


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
        base = kind.rstrip("?")
        if v is None:
            if not kind.endswith("?"):
                self.bad.add(name)
                self.add(ERROR, "wrong-type", self.path(name), f"{name} is null, but must be {_TYPE_NAMES[base]}")
            return
        if not _TYPE_CHECKS[base](v):
            self.bad.add(name)
            self.add(ERROR, "wrong-type", self.path(name), f"{name} is {show(v)}, but must be {_TYPE_NAMES[base]}")
            return
        if base in ("str[]", "uuid[]") and not self.check_strings(name, v):
            self.bad.add(name)
            return
        self.check_value(name, base, v)

    def check_strings(self, name: str, items: list[Any]) -> bool:
        """True when every item of a list field is a string; each other item is an error."""
        ok = True
        for i, item in enumerate(items):
            if not isinstance(item, str):
                ok = False
                self.add(ERROR, "wrong-type", self.path(name, i), f"{name}[{i}] is {show(item)}, but must be a string")
        return ok

    def check_value(self, name: str, base: str, v: Any) -> None:
        """A value of the right type: enum values outside the reference, malformed UUIDs."""
        if base in ENUMS:
            enum_name, allowed = ENUMS[base]
            if v not in allowed:
                hint = next((a for a in allowed if a.lower() == v.strip().lower()), None)
                more = f"; did you mean {hint}?" if hint else ""
                self.add(
                    WARNING,
                    "enum-not-in-reference",
                    self.path(name),
                    f"{name} {show(v)} is not in the reference ({enum_name}: {', '.join(allowed)}){more}",
                )
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


class _Explainer(_Rules):
    """The rows of the explained table, one method per field (in the reference's order), with
    the effective values; each rule's finding is added where its row is made."""

    def __init__(self, obj: dict[str, Any], at: str) -> None:
        super().__init__(obj, at)
        self.rows: list[Row] = []
        self.effective: dict[str, Any] = {}

    def row(self, name: str, effective: str, why: str) -> None:
        self.rows.append(Row(name, _given_cell(self.obj, name), effective, why))

    def why_given(self, name: str, default_text: str) -> str:
        if name in self.bad:
            return f"{name} has the wrong type (see findings), taken as null: {default_text}"
        if name not in self.obj:
            return f"not given: {default_text}"
        if self.obj[name] is None:
            return f"null: {default_text}"
        return "as given"

    def fields(self) -> str:
        """Unknown fields and wrong types; returns the form (``request`` or ``response``)."""
        obj = self.obj
        form = "response" if any(k in obj for k in RESPONSE_FIELDS) else "request"
        for name in obj:
            if name in ALL_FIELDS:
                continue
            key = str(name)
            folded = _FOLDED.get(key.lower())
            hint = f"; did you mean {folded}?" if folded else ""
            self.add(WARNING, "unknown-field", self.path(key), f"{show(key)} is not a field of LoomConfiguration{hint}")
        for name, kind in ALL_FIELDS.items():
            self.check_type(name, kind)
        if form == "response":
            missing = [k for k in ALL_FIELDS if k not in obj]
            if missing:
                self.add(
                    WARNING,
                    "missing-in-response",
                    self.at,
                    f"a response carries every field; missing: {', '.join(missing)}",
                )
        return form

    def enabled(self) -> None:
        enabled = self.value("enabled")
        if isinstance(enabled, bool):
            self.rows.append(
                Row("enabled", show(enabled), show(enabled), "as given" + ("" if enabled else ": memory is off"))
            )
        else:
            self.row("enabled", "—", self.why_given("enabled", "the reference gives no default"))

    def scope(self) -> None:
        scope = self.value("scope")
        eff = self.effective["scope"] = scope if isinstance(scope, str) else "Process"
        self.row(
            "scope",
            _enum_cell(eff, SCOPES),
            self.why_given("scope", "Process")
            if scope is None
            else ("as given" if scope in SCOPES else "as given (not in the reference)"),
        )

    def scope_input(self) -> None:
        scope_input = self.value("scopeInput")
        eff_scope = self.effective["scope"]
        if eff_scope != "Input":
            if scope_input is not None:
                self.add(
                    WARNING,
                    "scope-input-unused",
                    self.path("scopeInput"),
                    f"scopeInput is given but the scope is {eff_scope}, not Input: it has no effect",
                )
            self.row(
                "scopeInput",
                "—",
                f"unused: the scope is {eff_scope}"
                if scope_input is not None
                else self.why_given("scopeInput", f"unused with the {eff_scope} scope"),
            )
        elif not isinstance(scope_input, str) or not scope_input.strip():
            self.add(
                ERROR,
                "scope-input-missing",
                self.path("scope") if "scope" in self.obj else self.at,
                "the Input scope needs scopeInput (the run input whose value picks the loom)"
                + (", which is blank" if isinstance(scope_input, str) else ""),
            )
            self.row("scopeInput", "—", "missing: the Input scope has no run input to pick the loom")
        else:
            self.rows.append(Row("scopeInput", show(scope_input), show(scope_input), "as given: picks the loom"))

    def shared(self) -> None:
        shared = self.value("shared")
        eff = self.effective["shared"] = shared is True
        self.row("shared", show(eff), self.why_given("shared", "false") if shared is None else "as given")

    def modes(self) -> None:
        for name, default in (("recall", "Suggest"), ("weave", "Suggest")):
            v = self.value(name)
            eff = v if isinstance(v, str) else default
            allowed = ENUMS[name][1]
            self.row(
                name,
                _enum_cell(eff, allowed),
                self.why_given(name, default)
                if v is None
                else ("as given" if v in allowed else "as given (not in the reference)"),
            )
            self.effective[name] = eff

    def tapestry(self) -> None:
        tokens = self.value("tapestryTokens")
        base_tokens = tokens if _is_int(tokens) else TAPESTRY_DEFAULT
        eff = min(max(base_tokens, TAPESTRY_MIN), TAPESTRY_MAX)
        if tokens is None:
            why = self.why_given("tapestryTokens", f"{TAPESTRY_DEFAULT:,}")
        elif eff != tokens:
            side = "below" if tokens < TAPESTRY_MIN else "above"
            self.add(
                WARNING,
                "tapestry-clamped",
                self.path("tapestryTokens"),
                f"tapestryTokens {tokens:,} is {side} the range {TAPESTRY_MIN:,}–{TAPESTRY_MAX:,}: "
                f"it will be clamped to {eff:,}",
            )
            why = f"{tokens:,} is {side} {TAPESTRY_MIN:,}–{TAPESTRY_MAX:,}: clamped to {eff:,}"
        else:
            why = f"as given (within {TAPESTRY_MIN:,}–{TAPESTRY_MAX:,})"
        self.row("tapestryTokens", show(eff), why)
        self.effective["tapestryTokens"] = eff

    def subjects(self) -> None:
        subjects = self.value("subjectInputs")
        eff = list(subjects) if isinstance(subjects, list) else []
        self.row(
            "subjectInputs", show(eff), self.why_given("subjectInputs", "none") if subjects is None else "as given"
        )
        self.effective["subjectInputs"] = eff

    def weaving(self) -> None:
        enabled = self.value("enabled")
        for name in ("nightWeaving", "quietMinutes"):
            v = self.value(name)
            if v is not None and enabled is False:
                self.add(
                    WARNING,
                    "memory-disabled",
                    self.path(name),
                    f"{name} is set while memory is disabled (enabled is false): it has no effect until memory is on",
                )
            if name == "quietMinutes" and _is_int(v) and v < 0:
                self.add(
                    WARNING, "negative-minutes", self.path(name), f"quietMinutes is {v}: minutes cannot be negative"
                )
            if v is None:
                why = self.why_given(name, "the reference gives no default")
            else:
                why = "as given" + (" (memory is off)" if enabled is False else "")
            self.row(name, show(v) if v is not None else "—", why)

    def weaver(self) -> None:
        weaver = self.value("weaverModel")
        self.row(
            "weaverModel",
            show(weaver) if weaver is not None else "(the agent's own model)",
            self.why_given("weaverModel", "the agent's own model") if weaver is None else "as given",
        )

    def vet(self) -> None:
        vet = self.value("vetModel")
        vets = self.effective["vets"] = isinstance(vet, str)
        if vets and not vet.strip():
            self.add(
                WARNING, "blank-vet-model", self.path("vetModel"), "vetModel is blank: it names no catalogue model"
            )
        self.row(
            "vetModel",
            show(vet) if vets else "(nothing is checked)",
            self.why_given("vetModel", "nothing is checked") if vet is None else "as given",
        )
        self.row("vets", show(vets), "a vetModel is set" if vets else "no vetModel is set")

    def vet_recall(self) -> None:
        vet_recall = self.value("vetRecall")
        vets = self.effective["vets"]
        eff = self.effective["vetRecall"] = vet_recall is True and vets
        if vet_recall is True and not vets:
            self.add(
                WARNING,
                "vet-recall-without-vet-model",
                self.path("vetRecall"),
                "vetRecall is true but no vetModel is set: it has no effect",
            )
            why = "true, but no vetModel is set: false"
        elif vet_recall is None:
            why = self.why_given("vetRecall", "false")
        else:
            why = "as given" + (", with a vetModel" if vet_recall else "")
        self.row("vetRecall", show(eff), why)

    def seed(self) -> None:
        seed = self.value("seedFromLoomId")
        self.row(
            "seedFromLoomId",
            show(seed) if seed is not None else "(none)",
            self.why_given("seedFromLoomId", "new looms start empty")
            if seed is None
            else "as given: every loom this interaction creates starts from it",
        )

    def reads(self) -> None:
        reads = self.value("readFromLoomIds")
        eff = list(reads) if isinstance(reads, list) else []
        seen: dict[str, int] = {}
        for i, item in enumerate(eff):
            key = item.lower()
            if key in seen:
                self.add(
                    WARNING,
                    "duplicate-loom-id",
                    self.path("readFromLoomIds", i),
                    f"readFromLoomIds[{i}] repeats readFromLoomIds[{seen[key]}] ({show(item)})",
                )
            else:
                seen[key] = i
        seed = self.value("seedFromLoomId")
        if isinstance(seed, str) and seed.lower() in seen:
            self.add(
                WARNING,
                "seed-also-read",
                self.path("readFromLoomIds", seen[seed.lower()]),
                "the seed loom is also read-only here: its threads come back twice (inherited and read)",
            )
        self.row(
            "readFromLoomIds", show(eff), self.why_given("readFromLoomIds", "none") if reads is None else "as given"
        )
        self.effective["readFromLoomIds"] = eff


#: the explained table's rows, in the reference's field order
_ROW_STEPS = (
    _Explainer.enabled,
    _Explainer.scope,
    _Explainer.scope_input,
    _Explainer.shared,
    _Explainer.modes,
    _Explainer.tapestry,
    _Explainer.subjects,
    _Explainer.weaving,
    _Explainer.weaver,
    _Explainer.vet,
    _Explainer.vet_recall,
    _Explainer.seed,
    _Explainer.reads,
)


def explain(obj: dict[str, Any], at: str = "$") -> Explained:
    """The rules of the reference applied to one configuration object (request or response form)."""
    x = _Explainer(obj, at)
    form = x.fields()
    for step in _ROW_STEPS:
        step(x)
    effective = {k: x.effective[k] for k in EFFECTIVE_KEYS}
    rows = x.rows
    if form == "response":
        rows = _compare_with_server(x, obj, effective, rows)
    return Explained(form, obj, effective, rows, x.findings)


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
            r.add(
                ERROR,
                "server-disagrees",
                r.path(name),
                f"{name}: server says {show(server)}, the rules give {show(rules)}",
            )
            said[key] = f"; but the server says {show(server)}"
    if not said:
        return rows
    return [Row(x.field, x.given, x.effective, x.why + said[x.field]) if x.field in said else x for x in rows]
