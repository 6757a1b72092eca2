"""Maitento configurations are recognised by content however their JSON is laid out: the whole
document, one configuration or a list of them on one line, indented, or compact; and a
configuration file bigger than what a directory walk reads is still opened when named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loomtui.cli import main
from loomtui.formats.detect import open_any
from loomtui.formats.maitento import read as maitento_read
from loomtui.view.text import display_text

CONF = {
    "enabled": True,
    "scope": "Input",
    "scopeInput": "userName",
    "tapestryTokens": 900,
    "seedFromLoomId": "11111111-2222-4333-8444-555555555555",
}
SHAPES: dict[str, Any] = {
    "request": {"name": "desk", "agents": [{"name": "triage"}], "loom": CONF},
    "configuration": CONF,
    "list": [{"name": "a", "loom": CONF}, {"name": "b", "loom": {**CONF, "scopeInput": "other"}}],
    "package": {"name": "pkg", "interactions": [{"name": "one", "loom": CONF}]},
}
LAYOUTS = {
    "one line": lambda d: json.dumps(d),
    "compact": lambda d: json.dumps(d, separators=(",", ":")),
    "indented": lambda d: json.dumps(d, indent=2),
    "one line, newline at end": lambda d: json.dumps(d) + "\n",
    "crlf": lambda d: json.dumps(d, indent=1).replace("\n", "\r\n"),
}


def rows(path: Path) -> list[str]:
    sm = open_any(str(path))
    assert sm.source.kind == "maitento-loom-config", sm.source.kind
    return [display_text(e, {}) for e in sm.index.entries]


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_every_layout_is_recognised(tmp_path: Path, shape: str, layout: str) -> None:
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps(SHAPES[shape], indent=4) + "\n")
    f = tmp_path / "c.json"
    f.write_text(LAYOUTS[layout](SHAPES[shape]))
    expected = [r.replace("pretty.json", "c.json") for r in rows(pretty)]
    got = rows(f)
    # line numbers differ with the layout; what is recognised does not
    strip = lambda rs: [r.split(" (")[0].split(":")[0] for r in rs]  # noqa: E731
    assert strip(got) == strip(expected)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    shape=st.sampled_from(list(SHAPES)),
    indent=st.one_of(st.none(), st.integers(0, 4)),
    lead=st.sampled_from(["", " ", "\n", "\ufeff"]),
    trail=st.sampled_from(["", "\n", "  \n"]),
)
def test_any_layout(tmp_path: Path, shape: str, indent: int | None, lead: str, trail: str) -> None:
    f = tmp_path / "c.json"
    f.write_bytes((lead + json.dumps(SHAPES[shape], indent=indent) + trail).encode("utf-8"))
    assert rows(f)


def test_a_configuration_bigger_than_a_walk_reads_opens_when_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(maitento_read, "MAX_FILE_BYTES", 4096)
    f = tmp_path / "big.json"
    f.write_text(json.dumps({"name": "desk", "description": "x" * 20_000, "loom": CONF}, indent=2))
    got = rows(f)
    assert any("desk" in r for r in got) and not any("problem" in r for r in got)


def test_counts_on_the_map_and_in_notes_are_in_the_singular(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """ "1 input(s) with no readable configuration", "Seed of 1 interaction(s)", "1 node(s) name no
    author": one is counted in the singular, as everywhere else."""
    assert main(["tree", str(Path(__file__).parent / "maitento" / "definitions"), "--width", "200"]) == 0
    rows = capsys.readouterr().out
    assert "1 input with no readable configuration" in rows and "(s)" not in rows
    sm = open_any(str(Path(__file__).parent / "maitento" / "definitions"))
    describe = sm.source.describe
    assert describe is not None
    details = [describe(e.id) or "" for e in sm.index.entries]
    assert any("Seed of 1 interaction, read by" in d for d in details)
    assert not any("(s)" in d for d in details)

    loom = tmp_path / "one.json"
    loom.write_text(json.dumps({"root": {"id": "r", "text": "once", "children": []}}))
    assert main(["export-openloom", str(loom), "-o", str(tmp_path / "one.openloom.json")]) == 0
    assert "1 node names no author" in capsys.readouterr().err
