"""Maitento loom configurations: the reference's two examples and one fixture per rule, each
asserting the exact effective values and findings (docs/maitento-loom-config.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from loomtui.formats.maitento.read import Config, Problem, read_bytes, read_paths
from loomtui.formats.maitento.rules import explain
from loomtui.session.source import PI_FILTERS

HERE = Path(__file__).parent / "maitento"
LOOM = "3f2b8c1e-5d4a-4e6b-9c7d-2a1b0c9d8e7f"
A = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
S = "11111111-2222-4333-8444-555555555555"

DEFAULTS = {
    "scope": "Process",
    "shared": False,
    "recall": "Suggest",
    "weave": "Suggest",
    "tapestryTokens": 1500,
    "subjectInputs": [],
    "readFromLoomIds": [],
    "vets": False,
    "vetRecall": False,
}


def codes(findings: Any) -> list[tuple[str, str, str]]:
    return [(f.level, f.code, f.path) for f in findings]


def one(obj: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str, str]], list[str]]:
    e = explain(obj)
    return e.effective, codes(e.findings), [f.message for f in e.findings]


# the reference's examples ------------------------------------------------------------------------
def test_reference_request_example() -> None:
    [c] = read_paths([str(HERE / "reference-request.json")])
    assert isinstance(c, Config)
    assert (c.line, c.at, c.explained.form) == (1, "$", "request")
    assert c.explained.effective == {
        "scope": "Process",
        "shared": False,
        "recall": "Off",
        "weave": "Manual",
        "tapestryTokens": 200,
        "subjectInputs": ["..."],
        "readFromLoomIds": [LOOM],
        "vets": True,
        "vetRecall": False,
    }
    assert [f.line() for f in c.findings] == [
        "warning: $.scopeInput: scopeInput is given but the scope is Process, not Input: it has no effect "
        "[scope-input-unused]",
        "warning: $.tapestryTokens: tapestryTokens 0 is below the range 200–20,000: it will be clamped to 200 "
        "[tapestry-clamped]",
        "warning: $.nightWeaving: nightWeaving is set while memory is disabled (enabled is false): it has no effect "
        "until memory is on [memory-disabled]",
        "warning: $.quietMinutes: quietMinutes is set while memory is disabled (enabled is false): it has no effect "
        "until memory is on [memory-disabled]",
        "warning: $.readFromLoomIds[0]: the seed loom is also read-only here: its threads come back twice "
        "(inherited and read) [seed-also-read]",
    ]
    rows = {r.field: (r.given, r.effective, r.why) for r in c.explained.rows}
    assert rows["tapestryTokens"] == ("0", "200", "0 is below 200–20,000: clamped to 200")
    assert rows["vets"] == ("—", "true", "a vetModel is set")
    assert rows["scope"] == ('"Process"', "Process", "as given")
    assert list(rows) == [
        "enabled",
        "scope",
        "scopeInput",
        "shared",
        "recall",
        "weave",
        "tapestryTokens",
        "subjectInputs",
        "nightWeaving",
        "quietMinutes",
        "weaverModel",
        "vetModel",
        "vets",
        "vetRecall",
        "seedFromLoomId",
        "readFromLoomIds",
    ]


def test_reference_response_example_server_values_checked_against_the_rules() -> None:
    [c] = read_paths([str(HERE / "reference-response.json")])
    assert isinstance(c, Config) and c.explained.form == "response"
    # the rules, not the server's values: the example's placeholders contradict them twice
    assert c.explained.effective == {
        "scope": "Process",
        "shared": False,
        "recall": "Off",
        "weave": "Manual",
        "tapestryTokens": 200,
        "subjectInputs": ["..."],
        "readFromLoomIds": [LOOM],
        "vets": True,
        "vetRecall": False,
    }
    assert codes(c.findings) == [
        ("warning", "scope-input-unused", "$.scopeInput"),
        ("warning", "tapestry-clamped", "$.tapestryTokens"),
        ("warning", "memory-disabled", "$.nightWeaving"),
        ("warning", "memory-disabled", "$.quietMinutes"),
        ("warning", "seed-also-read", "$.readFromLoomIds[0]"),
        ("error", "server-disagrees", "$.effectiveTapestryTokens"),
        ("error", "server-disagrees", "$.vets"),
    ]
    assert c.findings[-2].message == "effectiveTapestryTokens: server says 0, the rules give 200"
    assert c.findings[-1].message == "vets: server says false, the rules give true"
    rows = {r.field: r.why for r in c.explained.rows}
    assert rows["scope"] == "as given; the server agrees"
    assert rows["vets"] == "a vetModel is set; but the server says false"


# one fixture per rule ----------------------------------------------------------------------------
def test_defaults_for_every_null_or_missing_field() -> None:
    nulls = {
        k: None
        for k in (
            "scope",
            "scopeInput",
            "shared",
            "recall",
            "weave",
            "tapestryTokens",
            "subjectInputs",
            "nightWeaving",
            "quietMinutes",
            "weaverModel",
            "vetModel",
            "vetRecall",
            "seedFromLoomId",
            "readFromLoomIds",
        )
    }
    assert one({"enabled": True}) == (DEFAULTS, [], [])
    assert one({"enabled": True, **nulls}) == (DEFAULTS, [], [])
    rows = {r.field: (r.effective, r.why) for r in explain({"enabled": True, "scope": None}).rows}
    assert rows["scope"] == ("Process", "null: Process")
    assert rows["tapestryTokens"] == ("1500", "not given: 1,500")
    assert rows["weaverModel"] == ("(the agent's own model)", "not given: the agent's own model")
    assert rows["vetModel"] == ("(nothing is checked)", "not given: nothing is checked")


def test_given_values_are_used() -> None:
    eff, found, _ = one(
        {
            "enabled": True,
            "scope": "Input",
            "scopeInput": "userName",
            "shared": True,
            "recall": "Off",
            "weave": "Manual",
            "tapestryTokens": 20_000,
            "subjectInputs": ["userName"],
            "vetModel": "vet-mini",
            "vetRecall": True,
            "readFromLoomIds": [A, S],
        }
    )
    assert eff == {
        "scope": "Input",
        "shared": True,
        "recall": "Off",
        "weave": "Manual",
        "tapestryTokens": 20_000,
        "subjectInputs": ["userName"],
        "readFromLoomIds": [A, S],
        "vets": True,
        "vetRecall": True,
    }
    assert found == []


def test_wrong_types_are_errors_and_taken_as_null() -> None:
    eff, found, messages = one(
        {
            "enabled": "yes",
            "scope": 5,
            "shared": "no",
            "recall": True,
            "weave": [],
            "tapestryTokens": "big",
            "subjectInputs": ["a", 3],
            "nightWeaving": 1,
            "quietMinutes": 1.5,
            "weaverModel": {},
            "vetModel": 7,
            "vetRecall": "true",
            "seedFromLoomId": 12,
            "readFromLoomIds": A,
        }
    )
    assert eff == DEFAULTS
    assert found == [
        ("error", "wrong-type", p)
        for p in (
            "$.enabled",
            "$.scope",
            "$.shared",
            "$.recall",
            "$.weave",
            "$.tapestryTokens",
            "$.subjectInputs[1]",
            "$.nightWeaving",
            "$.quietMinutes",
            "$.weaverModel",
            "$.vetModel",
            "$.vetRecall",
            "$.seedFromLoomId",
            "$.readFromLoomIds",
        )
    ]
    assert messages[0] == 'enabled is "yes", but must be a boolean'
    assert messages[6] == "subjectInputs[1] is 3, but must be a string"
    assert messages[8] == "quietMinutes is 1.5, but must be an integer"
    assert messages[-1] == f'readFromLoomIds is "{A}", but must be a list of UUID strings'
    assert one({"enabled": None})[1] == [("error", "wrong-type", "$.enabled")]
    assert one({"enabled": True, "tapestryTokens": True})[0]["tapestryTokens"] == 1500


@pytest.mark.parametrize(
    ("given", "effective", "message"),
    [
        (199, 200, "tapestryTokens 199 is below the range 200–20,000: it will be clamped to 200"),
        (-5, 200, "tapestryTokens -5 is below the range 200–20,000: it will be clamped to 200"),
        (20_001, 20_000, "tapestryTokens 20,001 is above the range 200–20,000: it will be clamped to 20,000"),
        (10**30, 20_000, f"tapestryTokens {10**30:,} is above the range 200–20,000: it will be clamped to 20,000"),
        (200, 200, None),
        (1500, 1500, None),
    ],
)
def test_tapestry_tokens_are_clamped(given: int, effective: int, message: str | None) -> None:
    eff, found, messages = one({"enabled": True, "tapestryTokens": given})
    assert eff == {**DEFAULTS, "tapestryTokens": effective}
    if message is None:
        assert found == []
    else:
        assert found == [("warning", "tapestry-clamped", "$.tapestryTokens")]
        assert messages == [message]


def test_scope_input_rules() -> None:
    assert one({"enabled": True, "scopeInput": "userName"}) == (
        DEFAULTS,
        [("warning", "scope-input-unused", "$.scopeInput")],
        ["scopeInput is given but the scope is Process, not Input: it has no effect"],
    )
    assert one({"enabled": True, "scope": "Input"}) == (
        {**DEFAULTS, "scope": "Input"},
        [("error", "scope-input-missing", "$.scope")],
        ["the Input scope needs scopeInput (the run input whose value picks the loom)"],
    )
    assert one({"enabled": True, "scope": "Process", "scopeInput": "userName"})[1] == [
        ("warning", "scope-input-unused", "$.scopeInput")
    ]
    # a scope that is not in the reference is not Input either
    assert one({"enabled": True, "scope": "Global", "scopeInput": "userName"})[1] == [
        ("warning", "enum-not-in-reference", "$.scope"),
        ("warning", "scope-input-unused", "$.scopeInput"),
    ]
    assert one({"enabled": True, "scope": "Input", "scopeInput": "  "})[1:] == (
        [("error", "scope-input-missing", "$.scope")],
        ["the Input scope needs scopeInput (the run input whose value picks the loom), which is blank"],
    )
    assert one({"enabled": True, "scope": "Input", "scopeInput": "userName"})[1] == []
    rows = {r.field: (r.effective, r.why) for r in explain({"scope": "Input", "scopeInput": "userName"}).rows}
    assert rows["scopeInput"] == ('"userName"', "as given: picks the loom")


def test_vet_recall_needs_a_vet_model() -> None:
    eff, found, messages = one({"enabled": True, "vetRecall": True})
    assert eff == DEFAULTS
    assert found == [("warning", "vet-recall-without-vet-model", "$.vetRecall")]
    assert messages == ["vetRecall is true but no vetModel is set: it has no effect"]
    assert one({"enabled": True, "vetModel": "vet-mini"})[:2] == ({**DEFAULTS, "vets": True}, [])
    assert one({"enabled": True, "vetModel": "vet-mini", "vetRecall": True})[:2] == (
        {**DEFAULTS, "vets": True, "vetRecall": True},
        [],
    )
    assert one({"enabled": True, "vetModel": "vet-mini", "vetRecall": False})[:2] == ({**DEFAULTS, "vets": True}, [])
    # a vetModel of the wrong type is no vetModel
    assert one({"enabled": True, "vetModel": 7, "vetRecall": True})[:2] == (
        DEFAULTS,
        [("error", "wrong-type", "$.vetModel"), ("warning", "vet-recall-without-vet-model", "$.vetRecall")],
    )


def test_night_weaving_settings_while_memory_is_disabled() -> None:
    eff, found, messages = one({"enabled": False, "nightWeaving": True, "quietMinutes": 30})
    assert eff == DEFAULTS
    assert found == [("warning", "memory-disabled", "$.nightWeaving"), ("warning", "memory-disabled", "$.quietMinutes")]
    assert messages[1] == (
        "quietMinutes is set while memory is disabled (enabled is false): it has no effect until memory is on"
    )
    assert one({"enabled": True, "nightWeaving": True, "quietMinutes": 30})[1] == []
    assert one({"enabled": False, "nightWeaving": None})[1] == []


def test_malformed_uuids() -> None:
    eff, found, messages = one(
        {
            "enabled": True,
            "seedFromLoomId": "3f2b8c1e5d4a4e6b9c7d2a1b0c9d8e7f",
            "readFromLoomIds": [A, "{" + S + "}", "zzzzzzzz-bbbb-4ccc-8ddd-eeeeeeeeeeee"],
        }
    )
    assert found == [
        ("error", "malformed-uuid", "$.seedFromLoomId"),
        ("error", "malformed-uuid", "$.readFromLoomIds[1]"),
        ("error", "malformed-uuid", "$.readFromLoomIds[2]"),
    ]
    assert messages[0] == 'seedFromLoomId "3f2b8c1e5d4a4e6b9c7d2a1b0c9d8e7f" is not a UUID'
    assert eff == {**DEFAULTS, "readFromLoomIds": [A, "{" + S + "}", "zzzzzzzz-bbbb-4ccc-8ddd-eeeeeeeeeeee"]}


def test_duplicate_read_from_loom_ids() -> None:
    eff, found, messages = one({"enabled": True, "readFromLoomIds": [A, S, A.upper()]})
    assert eff == {**DEFAULTS, "readFromLoomIds": [A, S, A.upper()]}
    assert found == [("warning", "duplicate-loom-id", "$.readFromLoomIds[2]")]
    assert messages == [f'readFromLoomIds[2] repeats readFromLoomIds[0] ("{A.upper()}")']


def test_unknown_fields() -> None:
    eff, found, messages = one({"enabled": True, "Scope": "Input", "colour": "blue"})
    assert eff == DEFAULTS
    assert found == [("warning", "unknown-field", "$.Scope"), ("warning", "unknown-field", "$.colour")]
    assert messages == [
        '"Scope" is not a field of LoomConfiguration; did you mean scope?',
        '"colour" is not a field of LoomConfiguration',
    ]


def test_enum_values_not_in_the_reference_are_warnings() -> None:
    eff, found, messages = one({"enabled": True, "scope": "Global", "recall": "suggest", "weave": "Auto"})
    assert eff == {**DEFAULTS, "scope": "Global", "recall": "suggest", "weave": "Auto"}
    assert found == [
        ("warning", "enum-not-in-reference", "$.scope"),
        ("warning", "enum-not-in-reference", "$.recall"),
        ("warning", "enum-not-in-reference", "$.weave"),
    ]
    assert messages == [
        'scope "Global" is not in the reference (LoomScope: Process, Input)',
        'recall "suggest" is not in the reference (LoomRecallMode: Suggest, Off); did you mean Suggest?',
        'weave "Auto" is not in the reference (LoomWeaveMode: Suggest, Manual)',
    ]


def _response(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "enabled": True,
        "scope": None,
        "scopeInput": None,
        "shared": None,
        "recall": None,
        "weave": None,
        "tapestryTokens": 50,
        "subjectInputs": None,
        "nightWeaving": None,
        "quietMinutes": None,
        "weaverModel": None,
        "vetModel": None,
        "vetRecall": True,
        "seedFromLoomId": None,
        "readFromLoomIds": [S],
        "effectiveScope": "Process",
        "effectiveShared": False,
        "effectiveRecall": "Suggest",
        "effectiveWeave": "Suggest",
        "effectiveTapestryTokens": 200,
        "effectiveSubjectInputs": [],
        "effectiveReadFromLoomIds": [S],
        "vets": False,
        "effectiveVetRecall": False,
    }
    base.update(over)
    return base


def test_response_that_agrees_with_the_rules() -> None:
    e = explain(_response())
    assert e.form == "response"
    assert codes(e.findings) == [
        ("warning", "tapestry-clamped", "$.tapestryTokens"),
        ("warning", "vet-recall-without-vet-model", "$.vetRecall"),
    ]


def test_response_effective_values_that_disagree() -> None:
    e = explain(
        _response(
            effectiveScope="Input",
            effectiveShared=True,
            effectiveRecall="Off",
            effectiveWeave="Manual",
            effectiveTapestryTokens=50,
            effectiveSubjectInputs=["userName"],
            effectiveReadFromLoomIds=[],
            vets=True,
            effectiveVetRecall=True,
        )
    )
    disagreements = [f.message for f in e.findings if f.code == "server-disagrees"]
    assert disagreements == [
        'effectiveScope: server says "Input", the rules give "Process"',
        "effectiveShared: server says true, the rules give false",
        'effectiveRecall: server says "Off", the rules give "Suggest"',
        'effectiveWeave: server says "Manual", the rules give "Suggest"',
        "effectiveTapestryTokens: server says 50, the rules give 200",
        'effectiveSubjectInputs: server says ["userName"], the rules give []',
        f'effectiveReadFromLoomIds: server says [], the rules give ["{S}"]',
        "vets: server says true, the rules give false",
        "effectiveVetRecall: server says true, the rules give false",
    ]
    assert all(f.level == "error" for f in e.findings if f.code == "server-disagrees")
    # UUIDs the server wrote in upper case are the same looms
    assert not [
        f for f in explain(_response(effectiveReadFromLoomIds=[S.upper()])).findings if f.code == "server-disagrees"
    ]


def test_response_missing_fields_and_wrong_typed_effective_values() -> None:
    e = explain({"enabled": True, "vets": "no"})
    assert e.form == "response"
    assert codes(e.findings) == [
        ("error", "wrong-type", "$.vets"),
        ("warning", "missing-in-response", "$"),
        ("error", "server-disagrees", "$.vets"),
    ]
    assert e.findings[1].message.startswith("a response carries every field; missing: scope, scopeInput, shared,")


# reading: where configurations are found ---------------------------------------------------------------
def test_interaction_documents_with_loom_members_at_any_depth() -> None:
    items = read_paths([str(HERE / "interactions")])
    got = [(Path(c.source).name, c.line, c.at, c.name, c.own_id) for c in items if isinstance(c, Config)]
    assert got == [
        ("managed-create.json", 5, "$.loom", "support-desk", None),
        ("oneshot-versions.json", 3, "$[0].versions[0].loom", "summariser v1", None),
        ("oneshot-versions.json", 5, "$[0].versions[1].loom", "summariser v2", None),
        ("roundrobin-update.json", 2, "$.interaction.update.loom", "debate", None),
        ("roundrobin-update.json", 5, "$.interaction.loom", "debate", "99999999-8888-4777-8666-555555555555"),
    ]
    assert len(items) == 5  # package.json (no loom) is passed over below a directory
    managed = items[0]
    assert isinstance(managed, Config)
    assert managed.explained.effective == {
        "scope": "Input",
        "shared": True,
        "recall": "Suggest",
        "weave": "Suggest",
        "tapestryTokens": 1500,
        "subjectInputs": ["userName"],
        "readFromLoomIds": [A],
        "vets": False,
        "vetRecall": False,
    }
    assert codes(items[3].findings) == [("warning", "unknown-field", "$.interaction.update.loom.loomId")]


def test_definition_files_report_their_line_and_read_lenient_syntax() -> None:
    items = read_paths([str(HERE / "definitions")])
    got = [(Path(i.source).name, i.line, type(i).__name__, getattr(i, "name", None)) for i in items]
    # hidden directories and files without `loom = {` are skipped
    assert got == [
        ("support.loom", 5, "Config", "support-bot"),
        ("broken.def", 2, "Problem", None),
        ("two-agents.def", 2, "Config", "night-shift"),
        ("two-agents.def", 5, "Config", "day-shift"),
    ]
    support = items[0]
    assert isinstance(support, Config)
    assert support.explained.effective == {
        "scope": "Input",
        "shared": False,
        "recall": "Suggest",
        "weave": "Suggest",
        "tapestryTokens": 20_000,
        "subjectInputs": [],
        "readFromLoomIds": [A, A.upper(), "not-a-uuid"],
        "vets": False,
        "vetRecall": False,
    }
    assert codes(support.findings) == [
        ("error", "malformed-uuid", "loom.readFromLoomIds[2]"),
        ("warning", "tapestry-clamped", "loom.tapestryTokens"),
        ("warning", "vet-recall-without-vet-model", "loom.vetRecall"),
        ("warning", "duplicate-loom-id", "loom.readFromLoomIds[1]"),
    ]
    assert [f.line() for f in items[1].findings] == [
        "error: loom: the braced object cannot be read: unexpected end of file (line 5) [not-readable]"
    ]
    assert codes(items[3].findings) == [
        ("warning", "unknown-field", "loom.Recall"),
        ("warning", "enum-not-in-reference", "loom.scope"),
    ]


def test_a_json_list_of_configurations(tmp_path: Path) -> None:
    p = tmp_path / "configs.json"
    p.write_text('[\n  {"enabled": true, "recall": "Off"},\n  {"enabled": true, "tapestryTokens": 100}\n]\n')
    items = read_paths([str(p)])
    assert [(c.line, c.at) for c in items] == [(2, "$[0]"), (3, "$[1]")]
    assert [c.explained.effective for c in items if isinstance(c, Config)] == [
        {**DEFAULTS, "recall": "Off"},
        {**DEFAULTS, "tapestryTokens": 200},
    ]
    assert codes(items[1].findings) == [("warning", "tapestry-clamped", "$[1].tapestryTokens")]


def test_a_named_file_without_a_configuration_is_an_error(tmp_path: Path) -> None:
    p = tmp_path / "package.json"
    p.write_text('{"name": "x"}')
    [item] = read_paths([str(p)])
    assert isinstance(item, Problem)
    assert [f.line() for f in item.findings] == [
        "error: $: no LoomConfiguration and no `loom` member in this JSON document [no-configuration]"
    ]
    [missing] = read_paths([str(tmp_path / "nope.json")])
    assert codes(missing.findings) == [("error", "unreadable", "$")]


# bad input: a finding, never a traceback ---------------------------------------------------------------
def test_not_json() -> None:
    [item] = read_bytes(b'{"loom": {"enabled": true,,}}', "bad.json")
    assert isinstance(item, Problem)
    assert codes(item.findings) == [("error", "not-json", "$")]
    assert item.findings[0].message.startswith("not valid JSON: ")
    [item] = read_bytes(b"just text", "notes.txt")
    assert codes(item.findings) == [("error", "no-configuration", "$")]


def test_loom_that_is_not_an_object() -> None:
    items = read_bytes(b'{"versions": [\n {"loom": "on"},\n {"loom": [1]},\n {"loom": null}]}', "x.json")
    assert [(i.line, codes(i.findings)) for i in items] == [
        (2, [("error", "loom-not-object", "$.versions[0].loom")]),
        (3, [("error", "loom-not-object", "$.versions[1].loom")]),
        (4, [("warning", "loom-null", "$.versions[2].loom")]),
    ]
    assert items[0].findings[0].message == 'loom is "on", not an object'


def test_megabyte_strings_are_cut_in_messages_and_tables() -> None:
    big = "x" * (1 << 20)
    [c] = read_bytes(json.dumps({"loom": {"enabled": True, "scope": big, "seedFromLoomId": big}}).encode(), "big.json")
    assert isinstance(c, Config)
    assert codes(c.findings) == [
        ("warning", "enum-not-in-reference", "$.loom.scope"),
        ("error", "malformed-uuid", "$.loom.seedFromLoomId"),
    ]
    assert all(len(f.message) < 200 for f in c.findings)
    assert c.findings[1].message == f'seedFromLoomId "{"x" * 60}…" (1,048,576 chars) is not a UUID'
    assert all(len(r.given) < 100 and len(r.effective) < 100 for r in c.explained.rows)
    assert c.as_json()["given"]["scope"] == big  # --json keeps what was given


def test_deep_nesting() -> None:
    deep_doc = b'{"loom": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    [item] = read_bytes(deep_doc, "deep.json")
    assert codes(item.findings) == [("error", "not-json", "$")]
    assert item.findings[0].message == "not valid JSON: nested more than 1024 levels deep"
    # deep, but within what JSON readers take: a wrong type, and a value safe to print as JSON
    value = b"[" * 1000 + b"]" * 1000
    [c] = read_bytes(b'{"loom": {"enabled": true, "scope": ' + value + b"}}", "deep2.json")
    assert isinstance(c, Config)
    assert codes(c.findings) == [("error", "wrong-type", "$.loom.scope")]
    json.dumps(c.as_json())
    [p] = read_bytes(b"loom = {scope = " + b"[" * 5000 + b"]" * 5000 + b"}\n", "deep.def")
    assert [f.message for f in p.findings] == [
        "the braced object cannot be read: nested more than 200 levels deep (line 1)"
    ]


def test_integers_beyond_64_bits_are_integers_shown_as_written() -> None:
    [c] = read_bytes(b'{"enabled": true, "tapestryTokens": 100000000000000000000000}', "big.json")
    assert isinstance(c, Config)
    assert c.explained.effective["tapestryTokens"] == 20000
    assert [f.line() for f in c.findings] == [
        "warning: $.tapestryTokens: tapestryTokens 100,000,000,000,000,000,000,000 is above the range "
        "200–20,000: it will be clamped to 20,000 [tapestry-clamped]"
    ]


# the map as a session (what the browser opens) ------------------------------------------------------
def test_open_any_reads_configurations_as_the_loom_map(tmp_path: Path) -> None:
    from loomtui.formats.detect import open_any
    from loomtui.session.errors import SessionFormatError
    from loomtui.view.text import display_text, search_text

    managed = "managed-create.json"  # rows name files relative to what was opened
    sm = open_any(f"{HERE}/interactions/{managed}")
    seed, read = f"seed:{S}:{managed}#$.loom", f"read:{A}:{managed}#$.loom"
    assert [(e.id, e.parent_id, display_text(e, {})) for e in sm.index.entries] == [
        (f"loom:{S}", None, f"[loom]: {S} · seed of 1 · read by 0"),
        (seed, f"loom:{S}", f"[seeds from it]: support-desk ({managed}:5) · ok"),
        (f"loom:{A}", None, f"[loom]: {A} · seed of 0 · read by 1"),
        (read, f"loom:{A}", f"[reads it]: support-desk ({managed}:5) · ok"),
    ]
    assert sm.get_leaf_id() == f"loom:{S}"  # no conversation leaf: the first row, the map's order kept
    assert sm.source.kind == "maitento-loom-config" and not sm.source.leaf_moves
    assert sm.source.describe is not None
    detail = sm.source.describe(seed)
    assert detail is not None and detail.startswith(
        "**support-desk (managed-create.json:5)** — request form at `$.loom`"
    )
    assert "- `tapestryTokens`: `—` → **1500** — not given: 1,500" in detail
    assert "support-desk" in search_text(sm.index.by_id[seed])
    # a definition file, and a directory of them
    two = "two-agents.def"
    assert (
        open_any(f"{HERE}/definitions/nested/{two}").index.by_id[f"config:{two}#loom"].text
        == f"night-shift ({two}:2) · 2 warnings"
    )
    # the second loom = { } of the file: the same path, so the id is made unique
    assert (
        open_any(f"{HERE}/definitions/nested/{two}").index.by_id[f"config:{two}#loom-2"].text
        == f"day-shift ({two}:5) · 2 warnings"
    )
    # 3 looms with a link each, 2 unlinked configurations and 1 problem under their group rows
    assert len(open_any(str(HERE / "definitions")).index.entries) == 11
    (tmp_path / "empty").mkdir()
    with pytest.raises(SessionFormatError, match="directory without loom configurations"):
        open_any(str(tmp_path / "empty"))


def test_the_map_names_no_leaf_marks_no_path_and_has_the_default_filter_alone(tmp_path: Path) -> None:
    """The map's header said "leaf seed:3f2…" and its tree drew active-path dots while Enter and
    Ctrl+S say it has no leaf; its filter bar offered pi's filters (user-only always empty);
    its header named the directory twice (in the name and as the location)."""
    import shutil

    from loomtui.formats.detect import open_any
    from loomtui.view.controller import SessionController

    opened = tmp_path / "configs"
    shutil.copytree(HERE, opened)
    sm = open_any(str(opened))
    src = sm.source
    assert not src.has_leaf and not src.offers(PI_FILTERS)
    controller = SessionController(sm)
    model = controller.model
    assert model.modes == ("default",) and not model.has_mode("user-only")
    lines = list(model.plain_rows(200))
    assert lines and not any("•" in line for line in lines)
    assert lines[0].startswith("› [loom]: ")  # the first row is selected, the map's order kept
    parts = controller.title_parts(str(opened))
    assert not any(p.startswith("leaf") for p in parts), parts
    assert sum(str(opened) in p for p in parts) == 1, parts
    # a filter key of pi's says the map has none, and Ctrl+O stays on the default view
    said = controller.set_filter("user-only").notices[0].text
    assert said == "A loom configuration map has no user-only filter, only the default view.", said
    controller.cycle_filter(1)
    assert model.mode == "default"


def test_a_fifo_or_a_huge_file_is_a_finding_and_never_blocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from loomtui.formats.maitento import read as maitento_read

    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    [item] = read_paths([str(fifo)])
    assert codes(item.findings) == [("error", "unreadable", "$")]
    assert "FIFO" in item.findings[0].message
    (tmp_path / "big.json").write_text('{"loom": {"enabled": true}}' + " " * 100)
    monkeypatch.setattr(maitento_read, "MAX_FILE_BYTES", 64)
    [item] = read_paths([str(tmp_path / "big.json")])  # named: read up to any document's size
    assert isinstance(item, Config)
    assert read_paths([str(tmp_path)]) == []  # below a directory both are passed over
    monkeypatch.setattr(maitento_read, "MAX_DOCUMENT_BYTES", 64)
    [item] = read_paths([str(tmp_path / "big.json")])
    assert codes(item.findings) == [("error", "too-large", "$")]
