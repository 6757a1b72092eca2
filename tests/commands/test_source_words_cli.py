"""`info` and `context` speak each source's own words (found trying the commands as a new user)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from loomtui.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(list(argv))
    out = capsys.readouterr().out
    assert code == 0
    return out


@pytest.mark.parametrize(
    "name, words",
    [
        ("ocp/minimal.ocp.json", "OCP run"),
        ("loom/socketteer-loom_demo.json", "socketteer loom"),
        ("loom/openloom-v1-existence-of-claude.openloom.json", "OpenLoom document"),
    ],
)
def test_info_names_the_format_as_the_app_does(
    capsys: pytest.CaptureFixture[str], shared_dir: Path, name: str, words: str
) -> None:
    rows = dict(
        line.split(None, 1) if " " in line.strip() else (line.strip(), "")
        for line in _run(capsys, "info", str(shared_dir / "fixtures" / name)).splitlines()[:5]
    )
    assert rows["format"].strip() == words  # it read "ocp loom", "openloom-v2 loom"
    where = "workspace" if name.startswith("ocp/") else "cwd"  # the run's own word for it
    assert rows[where].strip()  # a loom keeps no cwd: "(none)", not a blank
    ident = "run" if name.startswith("ocp/") else "session"  # it labelled the run id "session"
    assert rows[ident].strip() and (ident == "session" or "session" not in rows)


def test_context_counts_one_message_in_the_singular(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    session = tmp_path / "one.jsonl"
    session.write_text(
        '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}\n'
        '{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z",'
        '"message":{"role":"user","content":"hello","timestamp":1}}\n'
    )
    out = _run(capsys, "context", str(session))
    assert out.splitlines()[0].startswith("1 message; model ")


def test_header_counts_one_diagnostic_in_the_singular(shared_dir: Path) -> None:
    from loomtui.formats.detect import open_any
    from loomtui.view.controller import SessionController

    path = str(shared_dir / "fixtures/ocp/review-loop-v03.ocp.json")
    controller = SessionController(open_any(path))
    assert len(controller.manager.diagnostics) == 1
    assert "1 diagnostic" in controller.title_parts(path)  # the header read "1 diagnostics"


def _refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """A refusal: exit 2, nothing on stdout, one line on stderr."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, (code, out, err)
    return err


def test_context_of_an_ocp_run_is_refused_in_its_own_words(
    capsys: pytest.CaptureFixture[str], shared_dir: Path
) -> None:
    err = _refused(capsys, "context", str(shared_dir / "fixtures/ocp/minimal.ocp.json"))
    assert "an OCP run, not a conversation" in err


def test_context_of_a_loom_names_no_pi_setting(capsys: pytest.CaptureFixture[str], shared_dir: Path) -> None:
    head = _run(capsys, "context", str(shared_dir / "fixtures/loom/socketteer-loom_demo.json")).splitlines()[0]
    assert "thinking" not in head and "model not in the file" in head, head


def _rows(text: str) -> dict[str, str]:
    """``info``'s key column and value, the first line of each key."""
    rows: dict[str, str] = {}
    for line in text.splitlines():
        if line[:1].strip():
            key, value = line[:14].strip(), line[14:]
            rows.setdefault(key, value)
    return rows


def test_info_on_an_ocp_run_prints_the_run_totals_not_pi_zeros(
    capsys: pytest.CaptureFixture[str], shared_dir: Path
) -> None:
    out = _run(capsys, "info", str(shared_dir / "fixtures/ocp/minimal.ocp.json"))
    rows = _rows(out)
    assert rows["run tokens"] == "217,800"
    # pi's rows would read "total 0", "$0.0000 … summed over 0 assistant messages", "leaf run
    # (last entry in the file)" although the run is the root and keeps its own totals
    for pi_row in ("tokens", "cost", "models", "leaf"):
        assert pi_row not in rows, (pi_row, out)
    assert "$0.0000" not in out and "last entry in the file" not in out
    # the run's ``workspace`` (not necessarily a path) is named as the run names it, not "cwd"
    assert rows["workspace"] == "example-project" and "cwd" not in rows, out


def test_info_on_a_socketteer_loom_says_its_figures_are_not_in_the_file(
    capsys: pytest.CaptureFixture[str], shared_dir: Path
) -> None:
    out = _run(capsys, "info", str(shared_dir / "fixtures/loom/socketteer-loom_demo.json"))
    rows = _rows(out)
    assert rows["models"] == "not in the file (398 assistant messages)"
    assert rows["tokens"].startswith("not in the file") and rows["cost"] == "not in the file"
    assert "summed over 0" not in out and "(unknown)" not in out
    assert rows["leaf"].endswith("(the loom's current node, else the end of its first branch)")


def test_info_on_an_openloom_document_keeps_no_cost(capsys: pytest.CaptureFixture[str], shared_dir: Path) -> None:
    rows = _rows(_run(capsys, "info", str(shared_dir / "fixtures/loom/openloom-v1-existence-of-claude.openloom.json")))
    assert rows["tokens"] == "not in the file (none of its 45 assistant messages carries a count)"
    assert rows["cost"] == "not in the file"


@pytest.mark.parametrize(
    "name, a, b, missing",
    [
        (
            "ocp/minimal.ocp.json",
            "a:T1.a1",
            "a:R1.a1",
            "(turns, user messages, tool calls, errors, files touched, tokens, cost and wall time: "
            "not counted for an OCP run)",
        ),
        (
            "loom/socketteer-loom_demo.json",
            "af4931cc",
            "84f21d4a",
            "(tokens, cost and wall time: not counted for a socketteer loom)",
        ),
        (
            "loom/openloom-v1-existence-of-claude.openloom.json",
            "03265C0F",
            "B8446448",
            "(cost and wall time: not counted for an OpenLoom document)",
        ),
    ],
)
def test_diff_prints_no_zero_for_a_figure_the_format_lacks(
    capsys: pytest.CaptureFixture[str], shared_dir: Path, name: str, a: str, b: str, missing: str
) -> None:
    out = _run(capsys, "diff", str(shared_dir / "fixtures" / name), a, b)
    totals = out[out.index("\ntotals") :].splitlines()
    assert totals[-1].strip() == missing
    named = {line.split()[0] for line in totals[1:-1]}
    assert "wall" not in named and "cost" not in named
    assert ("tokens" in named) == ("tokens" not in missing)
    assert ("turns" in named) == ("turns" not in missing)  # an OCP run has no conversation to count


def _breakdown(out: str) -> list[tuple[str, int]]:
    """The lines under ``entries``: each noun and its count."""
    body = out[out.index("\nentries") + 1 :].split("\nroots")[0]
    found = [re.fullmatch(r"  (\S.*?)\s+([\d,]+)(  \(.*\))?", line) for line in body.splitlines()[1:]]
    assert all(found), body
    return [(m.group(1), int(m.group(2).replace(",", ""))) for m in found if m]


def _total(out: str) -> int:
    said = _rows(out)["entries"]
    return int(re.match(r"[\d,]+", said).group().replace(",", ""))  # type: ignore[union-attr]


def test_info_s_entry_lines_add_up_to_the_entries_of_inline_subagent_runs(
    capsys: pytest.CaptureFixture[str], shared_dir: Path
) -> None:
    """The file holds 437 entries, the tree (and the app's header) 37 rows: 405 entries are in
    five subagent runs the tree shows as one row each. The lines under it counted the 37 rows."""
    name = "claude/claude-code-viewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
    out = _run(capsys, "info", str(shared_dir / "fixtures" / name))
    assert _rows(out)["entries"] == (
        "437 in this file: 32 in the conversation, 405 in 5 subagent runs; "
        "the tree shows 37 rows: the conversation's 32 and one per run"
    )
    kinds = _breakdown(out)
    assert sum(n for _noun, n in kinds) == _total(out) == 437
    assert kinds[-1] == ("entries of subagent runs", 405)
    assert "(5 runs, each one row of the tree)" in out
    assert sum(n for noun, n in kinds if "subagent" not in noun) == 32  # the conversation's, by kind


def test_info_s_entry_lines_add_up_to_the_total_beside_a_subagent_file(
    capsys: pytest.CaptureFixture[str], shared_dir: Path
) -> None:
    """162 entries in the file; a run kept in its own file is one more row of the tree (163), and
    the lines under the total counted that row as a "subagent run" entry."""
    name = "claude/claude-code-log__ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
    out = _run(capsys, "info", str(shared_dir / "fixtures" / name))
    assert _rows(out)["entries"] == (
        "162 in this file; the tree shows 163 rows: these and one for the subagent run kept in its own file "
        "(56 entries there)"
    )
    kinds = _breakdown(out)
    assert sum(n for _noun, n in kinds) == _total(out) == 162
    assert not [noun for noun, _n in kinds if "subagent" in noun]


def test_info_s_entry_lines_add_up_to_the_total_without_shared_material(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A Claude Code session with an inline run, one with a run in its own file, and a pi session:
    the lines under ``entries`` add up to it."""
    from tests.claude_subagent_files import session_with_inline_sidechain, session_with_subagent_file

    samples = Path(__file__).resolve().parents[2] / "sample_sessions"
    inline = session_with_inline_sidechain(tmp_path / "inline")
    in_file, _run_file = session_with_subagent_file(tmp_path / "files")
    weather = samples / "2026-03-02T09-14-05-120Z_5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19.jsonl"
    for path in (inline, in_file, weather):
        out = _run(capsys, "info", str(path))
        assert sum(n for _noun, n in _breakdown(out)) == _total(out), out
    assert _rows(_run(capsys, "info", str(weather)))["entries"] == "49"  # a pi session: its entries, no more said


def test_info_names_an_oh_my_pi_session(capsys: pytest.CaptureFixture[str]) -> None:
    samples = Path(__file__).resolve().parents[2] / "sample_sessions"
    omp = _rows(_run(capsys, "info", str(samples / "2026-03-03T14-30-12-480Z_0196f2a4c1d87e3b.jsonl")))
    assert omp["format"] == "oh-my-pi session, version 3"
    pi = _rows(
        _run(capsys, "info", str(samples / "2026-03-02T09-14-05-120Z_5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19.jsonl"))
    )
    assert pi["format"] == "pi session, version 3"


@pytest.mark.parametrize(
    "name, what",
    [
        ("claude/claude-code-log__03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl", "a Claude Code session"),
        ("ocp/minimal.ocp.json", "an OCP run"),
    ],
)
def test_migrate_names_what_the_file_is(
    capsys: pytest.CaptureFixture[str], shared_dir: Path, tmp_path: Path, name: str, what: str
) -> None:
    """It read "line 1: no session header … is this a pi session file?" (and "line 20" on a run)."""
    copy = tmp_path / Path(name).name
    copy.write_bytes((shared_dir / "fixtures" / name).read_bytes())
    err = _refused(capsys, "migrate", str(copy))
    assert f"{copy} is {what}, not a pi session: `migrate` rewrites version 1 and 2 pi sessions only" in err
    assert not (tmp_path / (copy.name + ".bak")).exists()


def test_a_file_loomtui_cannot_read_is_told_what_it_reads(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """It read "is not a pi session, OpenLoom or socketteer loom file" (no Claude Code, Codex, OCP)."""
    text = tmp_path / "passwd"
    text.write_text("root:x:0:0:root:/root:/bin/bash\n")
    err = _refused(capsys, "tree", str(text))
    for kind in ("pi and oh-my-pi sessions", "OCP runs", "OpenLoom and socketteer looms", "Codex", "Claude Code"):
        assert kind in err, kind


def _help(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as done:
        main([*argv, "--help"])
    assert done.value.code == 0
    return " ".join(capsys.readouterr().out.split())  # argparse's wrapping undone


@pytest.mark.parametrize(
    "command, kinds",
    [
        ("label", ("pi/omp session", "Claude Code", "Codex")),
        ("export-branch", ("pi/omp session", "Claude Code", "Codex", "OpenLoom", "socketteer")),
        ("export-html", ("pi/omp", "Claude Code", "Codex", "OpenLoom", "socketteer", "OCP run")),
        ("export-openloom", ("pi/omp", "Claude Code", "Codex", "OpenLoom", "socketteer", "OCP run")),
        ("info", ("Claude Code", "Codex", "OCP run")),
        ("tree", ("Claude Code", "Codex", "OCP run")),
    ],
)
def test_a_commands_help_names_every_kind_of_file_it_takes(
    capsys: pytest.CaptureFixture[str], command: str, kinds: tuple[str, ...]
) -> None:
    """label and export-branch said "a pi/omp session file (v3)" though both take Claude Code and
    Codex sessions; the exports named no Claude Code, Codex or OCP run."""
    text = _help(capsys, command)
    file_help = text.split(" FILE ", 2)[-1]  # after the usage line: the positional's help
    for kind in kinds:
        assert kind in file_help, (kind, file_help[:200])


def test_the_top_level_help_says_where_labels_and_sessions_go(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "label store" in text and "~/.claude/projects" in text and "~/.codex/sessions" in text
    app = _help(capsys, "app")
    assert "~/.claude/projects" in app and "~/.codex/sessions" in app


def test_an_ocp_runs_findings_are_not_called_repaired_lines(
    capsys: pytest.CaptureFixture[str], shared_dir: Path, tmp_path: Path
) -> None:
    """A conformance warning of a run read "1 line repaired or skipped" (the app's notice, the
    palette) and "note: 1 repair while reading" (export-html, export-openloom); the run's
    detail said "1 findings"."""
    from loomtui.formats.detect import open_any
    from loomtui.view.session_header import opening_notices

    path = str(shared_dir / "fixtures/ocp/review-loop-v03.ocp.json")
    manager = open_any(path)
    (notice,) = opening_notices(manager, manager.source, "F2")
    assert notice.text.startswith("1 finding about the run: W180") and "repair" not in notice.text
    assert "1 finding\n" in manager.source.describe("run") + "\n" and "1 findings" not in manager.source.describe("run")
    for command, out in (("export-html", "run.html"), ("export-openloom", "run.json")):
        assert main([command, path, "-o", str(tmp_path / out)]) == 0
        err = capsys.readouterr().err
        assert "note: 1 finding about the run in " in err and "repair" not in err


def test_a_pi_files_repairs_are_still_lines_repaired(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    session = tmp_path / "torn.jsonl"
    session.write_text(
        '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}\n'
        "{not json\n"
        '{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z",'
        '"message":{"role":"user","content":"hello","timestamp":1}}\n'
    )
    assert main(["export-html", str(session), "-o", str(tmp_path / "torn.html")]) == 0
    assert "note: 1 line repaired or skipped in " in capsys.readouterr().err


def test_label_on_a_loom_or_a_run_says_where_its_labels_go(
    capsys: pytest.CaptureFixture[str], shared_dir: Path, tmp_path: Path
) -> None:
    """`label` on a socketteer loom said "is not a pi session file; labels can only be written
    to pi sessions" — though the same command labels Claude Code and Codex sessions (the label
    store), and the browser saves a loom's labels into it as bookmarks."""
    import shutil

    loom = tmp_path / "loom.json"
    shutil.copyfile(shared_dir / "fixtures/loom/socketteer-loom_demo.json", loom)
    before = loom.read_bytes()
    assert main(["label", str(loom), "af4931cc", "hi"]) == 2
    err = capsys.readouterr().err
    assert "bookmarks" in err and "Ctrl+S" in err and "labels can only be written to pi sessions" not in err
    run = tmp_path / "run.ocp.json"
    shutil.copyfile(shared_dir / "fixtures/ocp/review-loop-v03.ocp.json", run)
    assert main(["label", str(run), "run", "hi"]) == 2
    err = capsys.readouterr().err
    assert "an OCP run" in err and "in memory" in err
    assert loom.read_bytes() == before


def test_one_entry_is_counted_in_the_singular(tmp_path: Path) -> None:
    """A one-entry session's header read "1 entries" (the browser's header bar, the HTML page)."""
    from loomtui.formats.detect import open_any
    from loomtui.formats.html.export import export_html
    from loomtui.view.controller import SessionController

    session = tmp_path / "one.jsonl"
    session.write_text(
        '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}\n'
        '{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z",'
        '"message":{"role":"user","content":"hello","timestamp":1}}\n'
    )
    parts = SessionController(open_any(str(session))).title_parts(str(session))
    assert "1 entry" in parts and "1 entries" not in parts
    export_html(open_any(str(session)), str(tmp_path / "one.html"), source_name="one.jsonl")
    page = (tmp_path / "one.html").read_text(encoding="utf-8")
    assert "1 entries" not in page[page.index('<header id="head">') : page.index("</header>")]


def test_a_one_node_run_counts_in_the_singular(
    capsys: pytest.CaptureFixture[str], shared_dir: Path, tmp_path: Path
) -> None:
    """The solo run's row read "1 nodes · 1 attempts: 1✓", `info` "1 in 0 groups, 0 edges, 1
    artifacts", and export-openloom of one node "1 nodes, 0 edges"."""
    run = str(shared_dir / "fixtures/ocp/v0.3/solo.ocp.json")
    assert main(["tree", run, "--width", "200", "--color", "never"]) == 0
    row = capsys.readouterr().out.splitlines()[0]
    assert "· 1 node · 1 attempt: 1✓" in row, row
    assert main(["info", run]) == 0
    nodes = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("nodes"))
    assert nodes.split(None, 1)[1] == "1 in 0 groups, 0 edges, 1 artifact, 6 events"
    session = tmp_path / "one.jsonl"
    session.write_text(
        '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}\n'
        '{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z",'
        '"message":{"role":"user","content":"hello","timestamp":1}}\n'
    )
    assert main(["export-openloom", str(session), "-o", str(tmp_path / "one.openloom.json")]) == 0
    assert capsys.readouterr().out.rstrip().endswith(": 1 node, 0 edges")


@pytest.mark.parametrize(
    "name",
    [
        "agtrace__codex_session.jsonl",
        "localpush__rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl",
    ],
)
def test_info_on_codex_prints_no_cache_write_codex_never_records(
    capsys: pytest.CaptureFixture[str], shared_dir: Path, tmp_path: Path, name: str
) -> None:
    """A Codex ``token_count`` has cached input (a cache read) and no cache write: the row read
    "cache write 0"."""
    import shutil

    path = tmp_path / name
    shutil.copyfile(shared_dir / "fixtures/codex" / name, path)
    rows = _rows(_run(capsys, "info", str(path)))
    assert "cache read" in rows["tokens"] and "cache write" not in rows["tokens"], rows["tokens"]


def test_info_on_claude_keeps_its_cache_write(
    capsys: pytest.CaptureFixture[str], shared_dir: Path, tmp_path: Path
) -> None:
    import shutil

    name = "claude-code-log__0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl"
    path = tmp_path / name
    shutil.copyfile(shared_dir / "fixtures/claude" / name, path)
    assert "cache write" in _rows(_run(capsys, "info", str(path)))["tokens"]


def test_info_on_the_loom_map_names_no_made_up_session_id(capsys: pytest.CaptureFixture[str]) -> None:
    folder = Path(__file__).parents[1] / "formats" / "maitento"
    out = _run(capsys, "info", str(folder))
    firsts = [line.split(None, 1)[0] for line in out.splitlines()[:6] if line.strip()]
    assert "session" not in firsts and "loom-config-map" not in out  # it printed "session  loom-config-map"
    assert "directory" in firsts


def _fold_points(capsys: pytest.CaptureFixture[str], path: Path) -> int:
    """The branch points ``tree`` (the app's rows) draws: each has one last child, ``└``."""
    return _run(capsys, "tree", str(path), "--filter", "all").count("└")


def test_info_counts_the_branch_points_the_tree_draws_at_subagent_runs(
    capsys: pytest.CaptureFixture[str], shared_dir: Path, tmp_path: Path
) -> None:
    """The tree branches (and folds, ⊟) where a subagent run's row hangs beside the conversation;
    info said "branch points 0" there."""
    from tests.claude_subagent_files import session_with_inline_sidechain, session_with_subagent_file

    viewer = shared_dir / "fixtures" / "claude/claude-code-viewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
    inline = session_with_inline_sidechain(tmp_path / "inline")
    in_file, _run_file = session_with_subagent_file(tmp_path / "files")
    for path, n in ((viewer, 5), (inline, 1), (in_file, 1)):
        said = _rows(_run(capsys, "info", str(path)))["branch points"]
        assert _fold_points(capsys, path) == n
        assert said.startswith(f"{n}: 0 where the file forks; {n} where a subagent run's row hangs beside the "), said
    said = _rows(_run(capsys, "info", str(viewer)))["branch points"]
    assert "62e0bdc0" not in said and "(2 children)" in said


CODEX_LONG = "codex/localpush__rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"


def test_info_writes_a_big_entry_count_as_the_header_does(capsys: pytest.CaptureFixture[str], shared_dir: Path) -> None:
    """The browser's header says ``1,303 entries``; ``info`` said ``entries 1303``."""
    out = _run(capsys, "info", str(shared_dir / "fixtures" / CODEX_LONG))
    assert _rows(out)["entries"] == "1,303"
