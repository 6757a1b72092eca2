"""One argument check for every command: an entry id is an exact id or a unique prefix (the
resolver `diff` and the app's go-to use); an ambiguous or unknown one, a filter the file does
not have, or `--view` on a file that is not an OCP run is one line on stderr, exit 2, and
nothing written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from loomtui.cli import main
from tests.shared_material import FIXTURES as SHARED
from tests.shared_material import needs_shared


def msg(
    eid: str, parent: str | None, role: str = "user", text: str = "hi", ts: str = "2026-03-01T09:00:01.000Z"
) -> dict:
    return {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": ts,
        "message": {"role": role, "content": [{"type": "text", "text": text}]},
    }


@pytest.fixture
def session(write_session) -> Path:
    # ids: two start with "ab" (ambiguous), "abc9" is the only one starting with "abc9" / "abc"
    return write_session(
        [
            msg("ab10", None),
            msg("abc9", "ab10", role="assistant", text="one", ts="2026-03-01T09:00:02.000Z"),
            msg("ff01", "ab10", text="other", ts="2026-03-01T09:00:03.000Z"),
        ],
        name="s.jsonl",
    )


def snapshot(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in d.iterdir()}


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("loomtui: "), err
    return lines[0]


def test_every_command_takes_a_unique_prefix(session: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.jsonl"
    assert main(["export-branch", str(session), "--leaf", "abc", "-o", str(out)]) == 0
    assert [json.loads(x)["id"] for x in out.read_text().splitlines()[1:]] == ["ab10", "abc9"]
    fork = tmp_path / "fork.jsonl"  # --fork takes a prefix too: the branch just before ff01
    assert main(["export-branch", str(session), "--fork", "ff", "-o", str(fork)]) == 0
    assert [json.loads(x)["id"] for x in fork.read_text().splitlines()[1:]] == ["ab10"]
    assert main(["label", str(session), "ff", "seen"]) == 0
    labels = [json.loads(x) for x in session.read_text().splitlines() if '"label"' in x]
    assert labels[-1]["targetId"] == "ff01"
    capsys.readouterr()
    assert main(["context", str(session), "--leaf", "ff"]) == 0
    assert "other" in capsys.readouterr().out
    assert main(["tree", str(session), "--leaf", "abc9"[:3], "--width", "80", "--color", "never"]) == 0
    assert "one" in capsys.readouterr().out
    assert main(["diff", str(session), "abc", "ff"]) == 0
    capsys.readouterr()
    assert main(["export-html", str(session), "--leaf", "abc", "--target", "ab1", "-o", str(tmp_path / "p.html")]) == 0
    assert main(["export-openloom", str(session), "--leaf", "abc", "-o", str(tmp_path / "o.openloom.json")]) == 0
    doc = json.loads((tmp_path / "o.openloom.json").read_text())
    assert len(doc["trees"][0]["nodes"]) == 2


@pytest.mark.parametrize(
    "argv",
    [
        ["export-branch", "{f}", "--leaf", "ab", "-o", "{d}/x.jsonl"],
        ["export-branch", "{f}", "--fork", "ab", "-o", "{d}/x.jsonl"],
        ["label", "{f}", "ab", "text"],
        ["context", "{f}", "--leaf", "ab"],
        ["tree", "{f}", "--leaf", "ab"],
        ["diff", "{f}", "ab", "ff"],
        ["export-html", "{f}", "--leaf", "ab", "-o", "{d}/x.html"],
        ["export-openloom", "{f}", "--leaf", "ab", "-o", "{d}/x.openloom.json"],
    ],
)
def test_an_ambiguous_prefix_is_refused_everywhere(
    argv: list[str], session: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(tmp_path)
    args = [a.format(f=session, d=tmp_path) for a in argv]
    assert main(args) == 2
    line = one_error_line(capsys)
    assert "2 entries start with 'ab'" in line and "ab10" in line and "abc9" in line
    assert snapshot(tmp_path) == before
    assert main([a if a != "ab" else "zz" for a in args]) == 2
    assert "no entry 'zz'" in one_error_line(capsys)
    assert snapshot(tmp_path) == before


@needs_shared()
def test_tree_refuses_a_view_or_filter_the_file_does_not_have(
    session: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tree", str(session), "--view", "lineage"]) == 2
    assert "--view is for OCP runs" in one_error_line(capsys)
    assert main(["tree", str(session), "--filter", "bogus"]) == 2
    assert "unknown filter mode 'bogus'" in one_error_line(capsys)
    run = SHARED / "ocp" / "minimal.ocp.json"
    assert main(["tree", str(run), "--filter", "user-only"]) == 2  # pi's filter, not a run's
    assert "unknown filter mode 'user-only'" in one_error_line(capsys)
    assert main(["tree", str(run), "--filter", "failed", "--view", "lineage"]) == 0


#: an OCP run in the repository whose checks find nothing: it has no ``findings`` mode
RUN_WITHOUT_FINDINGS = Path(__file__).resolve().parents[1] / "fixtures" / "ocp" / "run-with-session" / "run.ocp.json"


def test_findings_on_a_run_without_findings_says_the_run_has_none(
    session: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--filter findings` on an OCP run without findings was "unknown filter mode 'findings'",
    though every help lists the mode: it says the run has no findings, naming its modes."""
    assert main(["tree", str(RUN_WITHOUT_FINDINGS), "--filter", "findings"]) == 2
    line = one_error_line(capsys)
    assert "this OCP run has no findings" in line and "applies only to runs with findings" in line, line
    assert "unknown filter mode" not in line and "use one of default, failed, gates, in-flight" in line, line
    assert main(["tree", str(session), "--filter", "findings"]) == 2  # not a run: an unknown mode
    line = one_error_line(capsys)
    assert "unknown filter mode 'findings'" in line and "use one of default, no-tools" in line, line


@needs_shared()
def test_findings_on_a_run_with_findings_is_taken(capsys: pytest.CaptureFixture[str]) -> None:
    run = SHARED / "ocp" / "review-loop-v03.ocp.json"
    assert main(["tree", str(run), "--filter", "findings", "--width", "100"]) == 0
    assert "[findings]" in capsys.readouterr().out


@pytest.mark.parametrize("command", ["tree", "app"])
def test_every_filter_help_says_findings_is_for_runs_with_findings(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main([command, "--help"])
    assert exited.value.code == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "findings (only a run with findings)" in said, said
    readme = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8").split())
    assert "`findings` (only on a run with findings" in readme


def test_the_browser_refuses_an_unknown_filter_before_it_starts(
    session: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from loomtui.app.app import LoomApp

    started: list[object] = []
    monkeypatch.setattr(LoomApp, "run", lambda self, *a, **k: started.append(self) or 0)
    assert main(["--filter", "bogus", str(session)]) == 2
    assert "unknown filter mode 'bogus'" in one_error_line(capsys) and not started
    assert main(["--filter", "model:opus", str(session)]) == 0 and started  # a run's filter: checked once open


def test_the_browser_refuses_an_unknown_theme_before_it_starts(
    session: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """As `--filter`: one line naming the themes `--theme` takes, exit 2, no app (it started and
    said so in a notice)."""
    from loomtui.app.app import LoomApp

    started: list[object] = []
    monkeypatch.setattr(LoomApp, "run", lambda self, *a, **k: started.append(self) or 0)
    assert main(["--theme", "bogus", str(session)]) == 2
    line = one_error_line(capsys)
    assert "no theme named 'bogus'" in line and not started
    assert "light, dark" in line and "loom-dark" in line and "loom-light" in line and "nord" in line
    for name in ("light", "loom-dark", "nord"):
        assert main(["--theme", name, str(session)]) == 0
    assert len(started) == 3


def test_a_file_refused_while_it_is_opened_gives_the_refusal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A path that turns into a FIFO or a device between the first check and the open: the
    refusal is the message, not an error of loomtui's own."""
    from loomtui.commands import app as app_command
    from loomtui.session.errors import LoomError

    def refuse(path: str) -> Any:
        raise LoomError(f"{path}: not a regular file")

    monkeypatch.setattr(app_command, "open_regular_file", refuse)
    path = tmp_path / "s.jsonl"
    path.write_text("{}\n")
    assert app_command._refuse_early(str(path)) == f"{path}: not a regular file"


VIEWER = "claude-code-viewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"


@needs_shared()
def test_info_names_apart_the_ends_of_subagent_runs_and_diff_says_where_they_are(capsys, tmp_path: Path) -> None:
    """A Claude Code 1.0 file keeps its subagents inline (sidechains, each its own root): ``info``
    counts the file's own tree, and says which roots and leaves belong to subagent runs the tree
    shows as one row; ``diff`` on such a leaf says where it is instead of "no entry"."""
    path = SHARED / "claude" / VIEWER
    assert main(["info", "--json", str(path)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert len(info["leaves"]) == 6 and len(info["subagentLeaves"]) == 5
    assert len(info["roots"]) == 6 and len(info["subagentRoots"]) == 5
    own = [x for x in info["leaves"] if x not in info["subagentLeaves"]]
    assert own == [info["leafId"]]
    assert main(["info", str(path)]) == 0
    text = capsys.readouterr().out
    leaves = next(line for line in text.splitlines() if line.startswith("leaves"))
    assert f"6: 1 in the conversation ({own[0]}); 5 end subagent runs" in leaves
    # every leaf info puts in the conversation, diff takes; the others are said to be elsewhere
    assert main(["diff", str(path), own[0], own[0][:8]]) == 0
    capsys.readouterr()
    side = info["subagentLeaves"][0]
    assert main(["diff", str(path), side[:8], own[0]]) == 2
    err = capsys.readouterr().err
    assert f"'{side[:8]}' is in a subagent run (a sidechain)" in err and "no entry" not in err
    assert main(["diff", str(path), "0000dead", own[0]]) == 2
    assert "no entry '0000dead'" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["info"],
        ["tree"],
        ["diff", "--", "{f}", "a", "b"],
        ["check"],
        ["loom-config"],
        ["export-html"],
        ["export-branch", "--clone"],
        ["context"],
        ["migrate"],
    ],
    ids=lambda a: " ".join(a[:1]) or "app",
)
def test_a_missing_file_is_worded_the_same_by_every_command(argv: list[str], tmp_path: Path, capsys) -> None:
    missing = str(tmp_path / "gone.jsonl")
    full = [x.replace("{f}", missing) for x in argv] if "{f}" in argv else [*argv, missing]
    code = main(full)
    captured = capsys.readouterr()
    assert f"cannot open {missing}: No such file or directory" in captured.out + captured.err
    if argv:  # every command: the one line on stderr and exit 2 (check and loom-config too)
        assert code == 2 and captured.out == "" and len(captured.err.splitlines()) == 1, (code, captured)


def test_the_bundled_samples_are_never_written_by_a_command(tmp_path: Path, capsys) -> None:
    """The app works on copies of the samples; a command given a bundled sample's own path
    refuses to append to it or to write beside it, in one line, and the file is unchanged."""
    from loomtui.session.locations import sample_dir

    sample = Path(sample_dir()) / "2026-03-02T09-14-05-120Z_5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19.jsonl"
    before = sample.read_bytes()
    listing = sorted(p.name for p in Path(sample_dir()).iterdir())
    assert main(["label", str(sample), "9a0b1c2d", "good"]) == 2
    assert "bundled samples, which are never written" in capsys.readouterr().err
    assert main(["export-branch", str(sample), "--leaf", "9a0b1c2d"]) == 2
    assert "never written" in capsys.readouterr().err
    assert sample.read_bytes() == before and sorted(p.name for p in Path(sample_dir()).iterdir()) == listing
    copy = tmp_path / sample.name  # a copy is the user's own
    copy.write_bytes(before)
    assert main(["label", str(copy), "9a0b1c2d", "good"]) == 0


def test_diff_refuses_a_negative_context(session: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`diff --context -3` was taken without a word (and printed as if it were 0)."""
    assert main(["diff", str(session), "abc", "ff", "--context", "-3"]) == 2
    assert "--context -3" in one_error_line(capsys)
    assert main(["diff", str(session), "abc", "ff", "--context", "0"]) == 0


def test_export_openloom_refuses_a_tree_the_file_cannot_have(
    session: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--tree` picks one tree of a multi-tree OpenLoom document: on a pi session it was taken
    and ignored; it is refused as `tree --view` is on a file that is not an OCP run."""
    before = snapshot(tmp_path)
    assert main(["export-openloom", str(session), "--tree", "x", "-o", str(tmp_path / "o.json")]) == 2
    line = one_error_line(capsys)
    assert "--tree is for OpenLoom v2 documents" in line and f"{session} is a pi session" in line
    assert snapshot(tmp_path) == before


MAP_DIR = Path(__file__).parents[1] / "formats" / "maitento" / "definitions"


@needs_shared(SHARED / "ocp" / "minimal.ocp.json")
@pytest.mark.parametrize(
    ("command", "out"),
    [
        ("tree", None),
        ("export-html", "p.html"),
        ("context", None),
        ("export-branch", "b.jsonl"),
        ("export-openloom", "o.openloom.json"),
    ],
)
@pytest.mark.parametrize(
    ("which", "leaf", "what"),
    [
        ("run", "a:G1.a1", "is an OCP run, which has no conversation leaf"),
        ("map", "loom:11111111-2222-4333-8444-555555555555", "which has no conversation leaf"),
    ],
)
def test_leaf_is_refused_where_the_file_has_no_conversation_leaf(
    command: str,
    out: str | None,
    which: str,
    leaf: str,
    what: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An OCP run and the loom map keep their rows in the source's order: a `--leaf` reordered
    the run's tree (or was ignored on the map); it is refused in the file's own words."""
    path = SHARED / "ocp" / "minimal.ocp.json" if which == "run" else MAP_DIR
    argv = [command, str(path), "--leaf", leaf] + (["-o", str(tmp_path / out)] if out else [])
    before = snapshot(tmp_path)
    assert main(argv) == 2
    line = one_error_line(capsys)
    if command == "context":  # it has nothing to show for such a file, with or without --leaf
        assert "not a conversation: there is no context a model is sent" in line, line
    elif command == "export-branch":  # nor a branch to export (the app's Ctrl+E says the same)
        assert "not a conversation: it has no branch to export" in line, line
    else:
        assert line.startswith(f"loomtui: --leaf: {path} is ") and what in line, line
    assert snapshot(tmp_path) == before


def test_options_may_come_between_a_commands_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    """`check A -q B` read B as an argument of no command (loomtui's own usage, exit 2): every
    command's options may sit before, between or after its arguments."""
    run_file = str(Path(__file__).parents[1] / "fixtures" / "ocp" / "run-with-session" / "run.ocp.json")
    assert main(["check", "-q", run_file, run_file]) == 0
    first = capsys.readouterr()
    assert main(["check", run_file, "-q", run_file]) == 0
    assert capsys.readouterr() == first
