"""`loomtui check`: the reference checker's codes for every golden file, exit codes, fallback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from loomtui.cli import main
from loomtui.formats.ocp import check as ocp_check
from tests.shared_material import SHARED, needs_shared, shared_params

OCP_DIR = SHARED / "fixtures" / "ocp"
GOLDEN = OCP_DIR / "golden" / "v0.3"
#: the reference checker's codes per golden file (none listed when the shared material is missing)
EXPECTED = json.loads((GOLDEN / "expected.json").read_text()) if (GOLDEN / "expected.json").exists() else {}


def check_json(capsys: pytest.CaptureFixture[str], *paths: Path) -> tuple[int, dict]:
    code = main(["check", "--json", *map(str, paths)])
    return code, json.loads(capsys.readouterr().out)


def test_reference_checker_is_installed_for_the_tests() -> None:
    assert ocp_check.reference_checker() is not None
    assert ocp_check.checker_name() == "loopmath"


@pytest.mark.parametrize("name", shared_params(sorted(EXPECTED), where=GOLDEN / "expected.json"))
def test_golden_files_give_exactly_the_expected_codes(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = check_json(capsys, GOLDEN / name)
    findings = out["files"][0]["findings"]
    assert sorted(f["code"] for f in findings) == sorted(EXPECTED[name])
    has_error = any(f["level"] == "error" for f in findings)
    assert code == (1 if has_error else 0)
    if name.endswith("-pass.ocp.json"):
        assert code == 0 and findings == []
    if name.startswith("E") and name.endswith("-fail.ocp.json"):
        assert code == 1


@needs_shared()
def test_plain_output_and_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(GOLDEN / "E191-fail.ocp.json"), str(GOLDEN / "E191-pass.ocp.json")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("FAIL  ") and out[0].endswith("(1 error, 0 warnings)")
    assert out[1].startswith("  error E191 $['run']['configuration']['settings']: ")
    assert out[2].startswith("PASS  ") and len(out) == 3


@needs_shared()
def test_examples_conform(capsys: pytest.CaptureFixture[str]) -> None:
    examples = sorted((OCP_DIR / "v0.3").glob("*.ocp.json")) + sorted(OCP_DIR.glob("*.ocp.json"))
    code, out = check_json(capsys, *examples)
    assert code == 0
    assert all(f["errors"] == 0 for f in out["files"])


@needs_shared()
def test_broken_and_unreadable_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    unreadable = tmp_path / "a-fifo.json"  # not a regular file: a finding (a directory is a usage error)
    os.mkfifo(unreadable)
    code, out = check_json(capsys, OCP_DIR / "golden" / "broken-tier.ocp.json", bad, unreadable)
    assert code == 1
    codes = [sorted({f["code"] for f in r["findings"]}) for r in out["files"]]
    assert codes == [["E010", "E160", "W180"], ["E001"], ["E001"]]


def test_a_missing_file_alone_is_refused_in_one_line_as_by_every_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A single FILE that is not there is a mistake in the command line, not a finding about a
    document: one line on stderr, exit 2, nothing checked (among several it gets a SKIP line,
    below)."""
    assert main(["check", str(tmp_path / "absent.json")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [f"loomtui: cannot open {tmp_path / 'absent.json'}: No such file or directory"]


@needs_shared()
def test_cross_file_rule_uses_validate_many(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = json.loads((OCP_DIR / "v0.3" / "full-fields.ocp.json").read_text())
    slate = a["run"].get("slate")
    assert isinstance(slate, dict)
    b = json.loads(json.dumps(a))
    other = [m for m in slate["members"] if m != a["run"]["id"]][0]
    b["run"]["id"] = other
    b["run"]["task"]["id"] = "some-other-task"
    pa, pb = tmp_path / "a.ocp.json", tmp_path / "b.ocp.json"
    pa.write_text(json.dumps(a))
    pb.write_text(json.dumps(b))
    single_code, single = check_json(capsys, pb)
    together_code, together = check_json(capsys, pa, pb)
    assert "E194" not in {f["code"] for f in single["files"][0]["findings"]}
    assert "E194" in {f["code"] for f in together["files"][1]["findings"]}
    assert together_code == 1


@needs_shared()
def test_without_the_reference_checker_the_schema_still_speaks(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = [json.loads(p.read_text()) for p in sorted(OCP_DIR.rglob("*.ocp.json"))]
    reference = [[f for f in fs if f.code in ("E003", "E010")] for fs in ocp_check.check_docs(docs)]
    monkeypatch.setattr(ocp_check, "reference_checker", lambda: None)
    # the schema findings are the reference checker's own schema findings, path and message
    assert ocp_check.check_docs(docs) == reference
    code = main(["check", str(OCP_DIR / "golden" / "broken-tier.ocp.json"), str(GOLDEN / "E190-fail.ocp.json")])
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and "pip install 'loomtui[ocp]'" in err[0]
    assert code == 1
    assert "error E010 $['edges'][0]['tier']: schema: " in captured.out
    # numbered rules are the reference checker's: the schema alone does not give E190
    assert "error E190" not in captured.out
    unknown = {"ocp": "7.0", "run": {"id": "x"}}
    assert [f.code for f in ocp_check.check_doc(unknown)] == ["E003"]


@needs_shared()
def test_check_as_a_command(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "loomtui", "check", str(GOLDEN / "W182-fail.ocp.json")], capture_output=True, text=True
    )
    assert proc.returncode == 0  # warnings do not fail
    assert "warning W182" in proc.stdout


def test_a_file_that_is_not_an_ocp_run_is_named_not_checked(
    write_session, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pi session was "not valid JSON" (E001), an OpenLoom document "no 'ocp' version field"
    (E003): each is named in its own words instead, one line, exit 2 (the wrong file was given),
    nothing checked. A JSON file that is no kind loomtui reads keeps its findings."""
    user = {
        "type": "message",
        "id": "u1",
        "parentId": None,
        "timestamp": "2026-01-01T00:00:01.000Z",
        "message": {"role": "user", "content": "hi"},
    }
    reply = {**user, "id": "a1", "parentId": "u1", "message": {"role": "assistant", "content": "hello"}}
    session = write_session([user, reply], name="s.jsonl")
    loom = tmp_path / "s.openloom.json"
    assert main(["export-openloom", str(session), "-o", str(loom)]) == 0
    capsys.readouterr()
    for path, what in ((session, "a pi session"), (loom, "an OpenLoom document")):
        assert main(["check", str(path)]) == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        assert captured.err.splitlines() == [
            f"loomtui: {path} is {what}, not an OCP run document; `check` checks OCP runs"
        ], captured.err
    other = tmp_path / "other.json"
    other.write_text('{"hello": 1}')
    code, out = check_json(capsys, other)
    assert code == 1 and [f["code"] for f in out["files"][0]["findings"]] == ["E003"]


def test_a_directory_is_a_usage_error_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`check DIR` printed an E001 finding, "loomtui reads files only" (false: `loomtui DIR`
    opens a directory), exit 1: it is the wrong argument, refused in one line, exit 2."""
    folder = tmp_path / "runs"
    folder.mkdir()
    assert main(["check", str(folder)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [
        f"loomtui: {folder} is a directory, not an OCP run document; `check` checks OCP run files "
        "(`loom-config` checks a directory's loom configurations)"
    ], captured.err
    assert "files only" not in captured.err


@needs_shared()
def test_among_several_files_one_that_is_not_a_run_is_named_and_the_others_are_checked(
    write_session, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pi session or a directory among the files stopped the whole command (one line, exit 2):
    every other result and a FAIL were lost, and `--json` printed nothing. Each such file is
    named in its line (a record with `"checked": false`), the runs are checked, and the exit is
    1 when a checked file fails, else 2 (a file was not a run)."""
    user = {
        "type": "message",
        "id": "u1",
        "parentId": None,
        "timestamp": "2026-01-01T00:00:01.000Z",
        "message": {"role": "user", "content": "hi"},
    }
    session = write_session([user], name="s.jsonl")
    folder = tmp_path / "runs"
    folder.mkdir()
    fail, ok = GOLDEN / "E191-fail.ocp.json", GOLDEN / "E191-pass.ocp.json"

    assert main(["check", str(ok), str(session), str(fail), str(folder)]) == 1
    out = capsys.readouterr().out.splitlines()
    heads = [line for line in out if not line.startswith("  ")]
    assert heads == [
        f"PASS  {ok}  (0 errors, 0 warnings)",
        f"SKIP  {session}  (a pi session, not an OCP run document: not checked)",
        f"FAIL  {fail}  (1 error, 0 warnings)",
        f"SKIP  {folder}  (a directory, not an OCP run document: not checked)",
    ]
    assert main(["check", "-q", str(ok), str(session)]) == 2  # nothing failed; a file was not a run
    assert capsys.readouterr().out.splitlines() == [
        f"SKIP  {session}  (a pi session, not an OCP run document: not checked)"
    ]

    code, doc = check_json(capsys, folder, ok, session, fail)
    assert code == 1
    assert [(f["file"], f["checked"], f.get("is"), f["errors"]) for f in doc["files"]] == [
        (str(folder), False, "a directory", 0),
        (str(ok), True, None, 0),
        (str(session), False, "a pi session", 0),
        (str(fail), True, None, 1),
    ]
    code, doc = check_json(capsys, folder, ok)
    assert code == 2 and [f["checked"] for f in doc["files"]] == [False, True]


def test_among_several_files_one_that_does_not_exist_is_named_and_the_others_are_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing FILE among several stopped the whole command (``cannot open``, exit 2, nothing
    on stdout even with ``--json``); it is named in its own line now, as a file that is not a run
    is, and the others are checked. Alone it is still refused in one line."""
    ok, missing = GOLDEN / "E191-pass.ocp.json", tmp_path / "nonexist.json"
    assert main(["check", str(ok), str(missing)]) == 2
    assert capsys.readouterr().out.splitlines() == [
        f"PASS  {ok}  (0 errors, 0 warnings)",
        f"SKIP  {missing}  (a path that does not exist: not checked)",
    ]
    code, doc = check_json(capsys, ok, missing)
    assert code == 2
    assert [(f["file"], f["checked"], f.get("is")) for f in doc["files"]] == [
        (str(ok), True, None),
        (str(missing), False, "a path that does not exist"),
    ]
