"""`loomtui loom-config`: the table, the exact --json shape, exit codes, and the loom map."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from loomtui.cli import main
from loomtui.formats.maitento.map import build_map
from loomtui.formats.maitento.read import read_paths
from loomtui.session.locations import sample_dir
from tests.shared_material import FIXTURES as SHARED_FIXTURES
from tests.shared_material import shared_params

FIXTURES = Path(__file__).parents[1] / "formats" / "maitento"
LOOM = "3f2b8c1e-5d4a-4e6b-9c7d-2a1b0c9d8e7f"
A = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
S = "11111111-2222-4333-8444-555555555555"
N = "99999999-8888-4777-8666-555555555555"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_shape_of_the_reference_request(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(FIXTURES / "reference-request.json")
    code, out, err = run(capsys, "loom-config", path, "--json")
    assert code == 0 and err == ""  # warnings only
    [obj] = json.loads(out)
    assert list(obj) == ["source", "line", "form", "given", "effective", "findings"]
    assert (obj["source"], obj["line"], obj["form"]) == (path, 1, "request")
    assert obj["given"] == json.loads((FIXTURES / "reference-request.json").read_text())
    assert obj["effective"] == {
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
    assert obj["findings"][1] == {
        "level": "warning",
        "code": "tapestry-clamped",
        "path": "$.tapestryTokens",
        "message": "tapestryTokens 0 is below the range 200–20,000: it will be clamped to 200",
    }


def test_errors_exit_1_and_the_table_explains_each_field(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(FIXTURES / "reference-response.json")
    code, out, err = run(capsys, "loom-config", path)
    assert code == 1 and err == ""
    lines = out.splitlines()
    assert lines[0] == f"{path}:1  response  $"
    assert lines[1].split() == ["field", "given", "effective", "why"]
    assert lines[8].split(None, 3) == [
        "tapestryTokens",
        "0",
        "200",
        "0 is below 200–20,000: clamped to 200; but the server says 0",
    ]
    assert lines[-1] == "  error: $.vets: vets: server says false, the rules give true [server-disagrees]"


def test_bad_input_is_a_finding_not_a_traceback(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"loom": 3}')
    unreadable = tmp_path / "pipe.json"
    os.mkfifo(unreadable)  # there, but never read: a finding of its own
    code, out, err = run(capsys, "loom-config", str(bad), str(unreadable), "--json")
    assert code == 1 and err == ""
    assert json.loads(out) == [
        {
            "source": str(bad),
            "line": 1,
            "form": None,
            "given": None,
            "effective": None,
            "findings": [
                {"level": "error", "code": "loom-not-object", "path": "$.loom", "message": "loom is 3, not an object"}
            ],
        },
        {
            "source": str(unreadable),
            "line": 0,
            "form": None,
            "given": None,
            "effective": None,
            "findings": [
                {
                    "level": "error",
                    "code": "unreadable",
                    "path": "$",
                    "message": f"{unreadable} is a FIFO (named pipe), not a regular file; loomtui reads files only",
                }
            ],
        },
    ]


def test_a_missing_path_alone_is_refused_in_one_line_as_by_every_command(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(capsys, "loom-config", str(tmp_path / "missing"))
    assert code == 2 and out == ""
    assert err.splitlines() == [f"loomtui: cannot open {tmp_path / 'missing'}: No such file or directory"]


def _good(tmp_path: Path) -> Path:
    good = tmp_path / "good.json"
    good.write_text('{"name":"y","loom":{"enabled":false,"tapestryTokens":100}}')
    return good


def test_among_several_paths_one_not_read_is_named_and_the_others_explained(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`loom-config good.json missing.json` printed only "cannot open missing.json" (exit 2):
    as `check` does, the path not read gets a SKIP line and the others are explained; exit 2,
    or 1 when a finding is an error."""
    good, missing = _good(tmp_path), tmp_path / "missing.json"
    code, out, err = run(capsys, "loom-config", str(good), str(missing))
    assert code == 2 and err == ""
    lines = out.splitlines()
    assert lines[0] == f"y ({good}:1)  request  $.loom"
    assert any("[tapestry-clamped]" in x for x in lines)
    assert lines[-1] == f"SKIP  {missing}  (a path that does not exist: not read)"
    # the missing one first: the others still follow
    code, out, _ = run(capsys, "loom-config", str(missing), str(good), str(FIXTURES / "reference-response.json"))
    assert code == 1  # an error in a configuration read
    assert out.splitlines()[0] == f"SKIP  {missing}  (a path that does not exist: not read)"
    assert f"y ({good}:1)  request  $.loom" in out and "[server-disagrees]" in out
    code, out, _ = run(capsys, "loom-config", str(good), str(missing), "--json")
    doc = json.loads(out)
    assert code == 2 and [d["source"] for d in doc] == [str(good), str(missing)]
    assert doc[1] == {
        "source": str(missing),
        "line": 0,
        "form": None,
        "given": None,
        "effective": None,
        "findings": [],
        "notRead": "a path that does not exist",
    }


def test_a_file_with_no_configuration_is_the_wrong_argument_as_a_session_is(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`{"hello": 1}` was an error finding (exit 1) where a pi session is refused (exit 2):
    both are a file that is not a loom configuration, refused alone, named among several."""
    hello = tmp_path / "hello.json"
    hello.write_text('{"hello": 1}')
    notes = FIXTURES / "definitions" / "notes.txt"
    what = "a JSON document without a LoomConfiguration or a `loom` member"
    reads = "`loom-config` reads Maitento loom configurations (JSON, definition files, directories of them)"
    code, out, err = run(capsys, "loom-config", str(hello))
    assert (code, out) == (2, "") and err.splitlines() == [f"loomtui: {hello} is {what}; {reads}"]
    code, out, err = run(capsys, "loom-config", str(notes))
    assert (code, out) == (2, "")
    assert err.splitlines() == [f"loomtui: {notes} is neither JSON nor a definition file with loom = {{ … }}; {reads}"]
    good = _good(tmp_path)
    code, out, err = run(capsys, "loom-config", str(good), str(hello), str(WEATHER))
    assert code == 2 and err == ""
    assert out.splitlines()[-3:] == [
        f"SKIP  {hello}  ({what}: not read)",
        "",
        f"SKIP  {WEATHER}  (a pi session, not a loom configuration: not read)",
    ]


def test_the_map_lists_and_counts_every_path_not_read(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`--map good.json hello.json bad.json`: hello.json (no loom at all) was in neither the map
    nor the count ("1 not read" for three files, one of them read)."""
    good = _good(tmp_path)
    hello = tmp_path / "hello.json"
    hello.write_text('{"hello": 1}')
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"loom": 3}')
    code, out, err = run(capsys, "loom-config", "--map", str(good), str(hello), str(bad), str(tmp_path / "gone"))
    assert code == 1  # bad.json's loom is an error
    assert out.splitlines()[-4:] == [
        "not read (3)",
        f"  ├─ {hello}  a JSON document without a LoomConfiguration or a `loom` member: not read",
        f"  ├─ {bad}:1  loom is 3, not an object",
        f"  └─ {tmp_path / 'gone'}  a path that does not exist: not read",
    ]
    assert err == "1 configuration, 3 not read: 1 error, 1 warning (`loomtui loom-config` without --map lists them)\n"
    code, out, _ = run(capsys, "loom-config", "--map", "--json", str(good), str(hello))
    assert code == 2
    assert [(p["source"], p.get("notRead")) for p in json.loads(out)["problems"]] == [
        (str(hello), "a JSON document without a LoomConfiguration or a `loom` member")
    ]


def test_map_of_seed_and_read_looms() -> None:
    m = build_map(read_paths([str(FIXTURES / "interactions"), str(FIXTURES / "definitions")]))
    got = {
        n.id: ([c.label.split(" (")[0] for c in n.seeded_by], [c.label.split(" (")[0] for c in n.read_by])
        for n in m.looms
    }
    assert got == {
        S: (["support-desk", "support-bot"], ["debate"]),
        A: ([], ["support-desk", "summariser v1", "support-bot"]),  # the upper-case duplicate counts once
        N: (["debate", "debate"], []),
        "not-a-uuid": ([], ["support-bot"]),
    }
    flags = {n.id: n.flags for n in m.looms}
    assert flags[A] == []
    assert flags["not-a-uuid"] == ["not a UUID"]
    # the RoundRobin interaction is known by loom N (its loomId) and seeds from N
    assert flags[N] == [f"seeds from itself: debate ({FIXTURES / 'interactions' / 'roundrobin-update.json'}:5)"]
    assert flags[S] == []  # seeded by two, read by another: ordinary sharing
    assert [c.label.split(" (")[0] for c in m.unlinked] == ["summariser v2", "night-shift", "day-shift"]
    assert [Path(p.source).name for p in m.problems] == ["broken.def"]


def test_sharing_a_loom_is_not_flagged(tmp_path: Path) -> None:
    """A loom one interaction seeds from while another reads it, or the loom of an interaction
    seeded from elsewhere that another reads, was flagged "! both read-only and seeded" though
    every configuration is [ok]: that is what sharing a loom is; nothing is flagged."""
    (tmp_path / "a.json").write_text(
        json.dumps({"name": "writer", "loomId": A, "loom": {"enabled": True, "seedFromLoomId": S}})
    )
    (tmp_path / "b.json").write_text(json.dumps({"name": "reader", "loom": {"enabled": True, "readFromLoomIds": [A]}}))
    (tmp_path / "c.json").write_text(json.dumps({"name": "peer", "loom": {"enabled": True, "readFromLoomIds": [S]}}))
    m = build_map(read_paths([str(tmp_path)]))
    assert {n.id: n.flags for n in m.looms} == {S: [], A: []}


def test_a_loom_one_interaction_seeds_from_and_reads_is_flagged(capsys: pytest.CaptureFixture[str]) -> None:
    """The real conflict: the same interaction seeds from a loom and reads it (its
    ``seed-also-read`` warning), so the map still marks that loom with "!"."""
    path = FIXTURES / "reference-request.json"
    code, out, _ = run(capsys, "loom-config", "--map", str(path))
    assert code == 0
    assert out.splitlines() == [
        f"loom {LOOM}  (seed of 1, read by 1)",
        f"  ├─ seeds from it  {path}:1  [5 warnings]",
        f"  ├─ reads it       {path}:1  [5 warnings]",
        f"  └─ ! seeded from and read by the same interaction: {path}:1 (its threads come back twice)",
    ]
    code, out, _ = run(capsys, "loom-config", str(path))
    assert "[seed-also-read]" in out


def test_map_command_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    d = FIXTURES / "interactions"
    code, out, err = run(capsys, "loom-config", "--map", str(d))
    assert code == 0
    assert out.splitlines() == [
        f"loom {S}  (seed of 1, read by 1)",
        f"  ├─ seeds from it  support-desk ({d}/managed-create.json:5)  [ok]",
        f"  └─ reads it       debate ({d}/roundrobin-update.json:5)  [ok]",
        f"loom {A}  (seed of 0, read by 2)",
        f"  ├─ reads it       support-desk ({d}/managed-create.json:5)  [ok]",
        f"  └─ reads it       summariser v1 ({d}/oneshot-versions.json:3)  [ok]",
        f"loom {N}  (seed of 2, read by 0)",
        f"  ├─ seeds from it  debate ({d}/roundrobin-update.json:2)  [1 warning]",
        f"  ├─ seeds from it  debate ({d}/roundrobin-update.json:5)  [ok]",
        f"  └─ ! seeds from itself: debate ({d}/roundrobin-update.json:5)",
        "no seed or read-only loom (1)",
        f"  └─ summariser v2 ({d}/oneshot-versions.json:5)  [ok]",
    ]
    assert err == "5 configurations, 0 not read: 1 warning (`loomtui loom-config` without --map lists them)\n"
    code, out, _ = run(capsys, "loom-config", "--map", "--json", str(d))
    doc = json.loads(out)
    assert list(doc) == ["looms", "unlinked", "problems"]
    assert doc["looms"][2] == {
        "id": N,
        "flags": [f"seeds from itself: debate ({d}/roundrobin-update.json:5)"],
        "seededBy": [
            {"source": f"{d}/roundrobin-update.json", "line": 2, "name": "debate"},
            {"source": f"{d}/roundrobin-update.json", "line": 5, "name": "debate"},
        ],
        "readBy": [],
    }


def test_map_exit_code_follows_the_errors(capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run(capsys, "loom-config", "--map", str(FIXTURES / "definitions"))
    assert code == 1
    assert (
        err == "3 configurations, 1 not read: 2 errors, 7 warnings (`loomtui loom-config` without --map lists them)\n"
    )


@pytest.mark.parametrize("command", ["info", "tree"])
def test_a_huge_directory_is_refused_at_once_not_walked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """``info /tmp`` walked every file below it and mapped whatever it found: a directory with
    more below it than a loom map looks through is refused in one line, before any file is read."""
    from loomtui.formats.maitento import read, session

    monkeypatch.setattr(session, "MAP_WALK_LIMIT", 20, raising=False)
    for k in range(3):
        sub = tmp_path / f"d{k}"
        sub.mkdir()
        for n in range(10):
            (sub / f"f{n}.json").write_text((FIXTURES / "interactions" / "managed-create.json").read_text())
    opened: list[str] = []
    monkeypatch.setattr(read, "read_file", lambda path, explicit=True: opened.append(path) or [])
    code, out, err = run(capsys, command, str(tmp_path))
    assert code == 2 and out == "" and opened == []
    assert err.splitlines() == [
        f"loomtui: {tmp_path} holds more than 20 files and directories below it: too many to look through for "
        f"loom configurations; open one file, or a directory that holds them (`loomtui loom-config {tmp_path}` "
        "reads every file below it)"
    ]


def test_a_directory_of_loom_configurations_is_still_mapped_by_info(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = run(capsys, "info", str(FIXTURES / "interactions"))
    assert code == 0 and "loom configuration map" in out
    # the header's directory is named as what it is, as on the HTML page (not a session's cwd)
    rows = {line.split()[0]: line for line in out.splitlines() if line.strip()}
    assert "directory" in rows and "cwd" not in rows, out
    # opened on one file, the map names that file as what it is, not as a directory
    code, out, _err = run(capsys, "info", str(FIXTURES / "reference-request.json"))
    rows = {line.split(None, 1)[0]: line for line in out.splitlines() if line.strip()}
    assert code == 0 and "directory" not in rows and "config" in rows, out


def test_a_directory_of_sessions_is_not_mapped_for_a_loom_configuration_below_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``loomtui DIR`` lists the sessions in a directory that holds some; ``info``, ``tree`` and
    ``export-html`` on the same directory showed the map of a Maitento file further below it
    instead. They say what the directory is, as the browser takes it."""
    import shutil

    shutil.copy(FIXTURES / "reference-request.json", tmp_path / "reference-request.json")
    (tmp_path / "s.jsonl").write_text(
        '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}\n'
    )
    for command in ("info", "tree", "export-html"):
        assert main([command, str(tmp_path)]) == 2
        err = capsys.readouterr().err
        assert f"{tmp_path} is a directory of sessions (1 session file)" in err, (command, err)


WEATHER = Path(sample_dir()) / "2026-03-02T09-14-05-120Z_5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19.jsonl"
CLAUDE = SHARED_FIXTURES / "claude" / "claude-code-log__ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"


def _refused(path: Path, what: str) -> str:
    return (
        f"loomtui: {path} is {what}, not a loom configuration; `loom-config` reads Maitento loom "
        "configurations (JSON, definition files, directories of them)"
    )


@pytest.mark.parametrize("flags", [(), ("--json",), ("--map",)])
def test_a_pi_session_is_named_not_called_broken_json(
    capsys: pytest.CaptureFixture[str], flags: tuple[str, ...]
) -> None:
    """`loom-config SESSION` said "not valid JSON … [not-json]" (exit 1): the file is named as
    what it is, as `check` names a file that is not an OCP run, in one line, exit 2."""
    code, out, err = run(capsys, "loom-config", str(WEATHER), *flags)
    assert (code, out) == (2, "")
    assert err.splitlines() == [_refused(WEATHER, "a pi session")]
    # among configurations it is named in one line, as `check` names it, and the others are read
    code, out, err = run(capsys, "loom-config", str(FIXTURES / "reference-request.json"), str(WEATHER), *flags)
    assert code == 2  # reference-request.json has warnings only
    assert err == (
        "1 configuration, 1 not read: 5 warnings (`loomtui loom-config` without --map lists them)\n"
        if flags == ("--map",)
        else ""
    )
    assert str(WEATHER) in out and "a pi session, not a loom configuration" in out
    assert str(FIXTURES / "reference-request.json") in out


@pytest.mark.parametrize("path", shared_params([CLAUDE]))
def test_a_claude_code_session_is_named_not_called_broken_json(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    code, out, err = run(capsys, "loom-config", str(path))
    assert (code, out) == (2, "")
    assert err.splitlines() == [_refused(path, "a Claude Code session")]
    assert "not-json" not in err and "not valid JSON" not in err
