"""An OCP run opened where the reference checker (and the JSON Schema) is not installed, as in a
plain `uv tool install .`: the missing tool is said as such, never counted as a finding about the
run nor as one of the file's diagnostics."""

from __future__ import annotations

from pathlib import Path

import pytest

from loomtui.cli import main
from loomtui.formats.detect import open_any
from loomtui.formats.ocp import check as ocp_check
from loomtui.formats.ocp import run as ocp
from loomtui.formats.ocp.source import describe_row
from loomtui.view.controller import SessionController


@pytest.fixture(params=["jsonschema", "none"])
def without_checker(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(ocp_check, "reference_checker", lambda: None)
    if request.param == "none":
        monkeypatch.setattr(ocp_check, "_jsonschema", lambda: None)
    return str(request.param)


def _minimal(shared_dir: Path) -> str:
    return str(shared_dir / "fixtures/ocp/minimal.ocp.json")


def test_the_missing_checker_is_no_diagnostic_of_the_run(shared_dir: Path, without_checker: str) -> None:
    path = _minimal(shared_dir)
    sm = open_any(path)
    assert sm.diagnostics == []  # it was "1 finding about the run: the OCP reference checker is not installed"
    assert "diagnostic" not in SessionController(sm).title_parts(path)  # the header read "1 diagnostic"
    run = ocp.ocp_run(sm)
    assert run is not None
    detail = describe_row(run, "run") or ""
    assert "checked with none" not in detail
    assert "pip install 'loomtui[ocp]'" in detail
    if without_checker == "none":
        assert "conformance not checked" in detail
    else:
        assert "checked with the JSON Schema only" in detail


def test_info_and_the_exports_say_the_checker_is_missing_not_that_the_run_has_a_finding(
    capsys: pytest.CaptureFixture[str], shared_dir: Path, tmp_path: Path, without_checker: str
) -> None:
    path = _minimal(shared_dir)
    assert main(["info", path]) == 0
    rows = dict(line.split(None, 1) for line in capsys.readouterr().out.splitlines() if line[:1].strip())
    assert rows["diagnostics"].strip() == "0"
    if without_checker == "none":
        assert rows["conformance"].startswith("not checked")  # it read "0 errors, 0 warnings (none; …)"
    else:
        assert rows["conformance"].startswith("0 errors, 0 warnings (the JSON Schema only")
    assert "pip install 'loomtui[ocp]'" in rows["conformance"]
    for command, out in (("export-openloom", "run.json"), ("export-html", "run.html")):
        assert main([command, path, "-o", str(tmp_path / out)]) == 0
        err = capsys.readouterr().err
        assert "finding about the run" not in err, err  # "note: 1 finding about the run in …"
