"""Any JSON value in any field of an OCP run or a Maitento configuration is used or reported as
a finding, never a crash ("unexpected error"), and numbers are shown as the file wrote them:
integers beyond 64 bits are integers (not ``1e+30``), a 10,000-digit one is read and shown by its
digits, not refused by Python's integer-string limit."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.faults.test_cache_parity import run

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)


def paths(v: Any, p: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [p]
    if isinstance(v, dict):
        for k, x in v.items():
            out += paths(x, (*p, k))
    elif isinstance(v, list):
        for i, x in enumerate(v[:4]):
            out += paths(x, (*p, i))
    return out


def replaced(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    d = copy.deepcopy(doc)
    cur = d
    for k in path[:-1]:
        cur = cur[k]
    cur[path[-1]] = value
    return d


def no_crash(argv: list[str]) -> None:
    code, out, err = run(argv)
    assert b"unexpected error" not in err, (argv, err)
    assert code in (0, 1, 2), (argv, code, err)


@pytest.fixture(scope="module")
def ocp_doc(shared_dir: Path) -> Any:
    return json.loads((shared_dir / "fixtures" / "ocp" / "review-loop-v03.ocp.json").read_text())


MAITENTO = {
    "name": "desk",
    "agents": [{"name": "triage"}],
    "loom": {
        "enabled": True,
        "scope": "Input",
        "scopeInput": "userName",
        "shared": True,
        "tapestryTokens": 900,
        "subjectInputs": ["userName"],
        "seedFromLoomId": "11111111-2222-4333-8444-555555555555",
        "readFromLoomIds": ["aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"],
        "recall": "Suggest",
    },
}


@pytest.mark.usefixtures("ocp_checked_once")  # each changed run is opened by tree and info
@pytest.mark.parametrize("field", ["id", "node", "attempt", "from", "to", "group", "kind", "producer", "nodes"])
@pytest.mark.parametrize("value", [[1], {"a": 1}, 10**30, None, True])
def test_ocp_ids_of_any_json_type(
    ocp_doc: Any, tmp_path: Path, field: str, value: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOOMTUI_NO_CACHE", "1")
    for n, p in enumerate(p for p in paths(ocp_doc) if p and p[-1] == field):
        f = tmp_path / f"r{n}.ocp.json"
        f.write_text(json.dumps(replaced(ocp_doc, p, value)))
        for cmd in ("tree", "info", "check"):
            no_crash([cmd, str(f)])


@pytest.mark.usefixtures("ocp_checked_once")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), value=JSON)
def test_any_value_in_any_ocp_field(ocp_doc: Any, tmp_path: Path, data: st.DataObject, value: Any) -> None:
    p = data.draw(st.sampled_from(paths(ocp_doc)[1:]))
    f = tmp_path / "r.ocp.json"
    f.write_text(json.dumps(replaced(ocp_doc, p, value)))
    for cmd in ("tree", "info", "check"):
        no_crash([cmd, str(f), "--no-cache"] if cmd != "check" else [cmd, str(f)])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), value=JSON)
def test_any_value_in_any_maitento_field(tmp_path: Path, data: st.DataObject, value: Any) -> None:
    p = data.draw(st.sampled_from(paths(MAITENTO)[1:]))
    f = tmp_path / "c.json"
    f.write_text(json.dumps(replaced(MAITENTO, p, value)))
    for extra in ([], ["--json"], ["--map"]):
        no_crash(["loom-config", str(f), *extra])
    no_crash([str(f)][:0] + ["tree", str(f)])


def test_big_integers_are_integers_shown_as_written(tmp_path: Path) -> None:
    big = "1" + "0" * 30
    f = tmp_path / "c.json"
    f.write_text(json.dumps(MAITENTO).replace('"tapestryTokens": 900', f'"tapestryTokens": {big}'))
    code, out, err = run(["loom-config", str(f)])
    assert b"unexpected" not in err and b"1e+30" not in out and b"wrong-type" not in out
    assert big.encode() in out and b"tapestry-clamped" in out
    code, out, err = run(["loom-config", str(f), "--json"])
    assert f'"tapestryTokens": {big}'.encode() in out


@pytest.mark.parametrize("layout", ["json", "definition"])
def test_a_ten_thousand_digit_number(tmp_path: Path, layout: str) -> None:
    digits = "9" * 10_000
    if layout == "json":
        f = tmp_path / "c.json"
        f.write_text(json.dumps(MAITENTO).replace('"tapestryTokens": 900', f'"tapestryTokens": {digits}'))
    else:
        f = tmp_path / "c.loom"
        f.write_text(f'name = "x"\nloom = {{\n  enabled = true,\n  tapestryTokens = {digits}\n}}\n')
    code, out, err = run(["loom-config", str(f)])
    assert b"unexpected" not in err and b"not valid JSON" not in out, err
    assert b"9" * 60 in out and b"10,000 digits" in out and b"tapestry-clamped" in out
    code, out, err = run(["loom-config", str(f), "--json"])
    assert digits.encode() in out and b"unexpected" not in err
