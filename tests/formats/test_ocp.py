"""OCP run documents read as a loom: detection, the run tree, rows, filters, bad documents."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from loomtui.formats.detect import classify, open_any, open_document
from loomtui.formats.ocp import filters as ocp_filters
from loomtui.formats.ocp import run as ocp
from loomtui.formats.ocp import text as ocp_text
from loomtui.view.model import TreeModel
from tests.shared_material import SHARED, needs_shared, shared_params

OCP_DIR = SHARED / "fixtures" / "ocp"
ALL_FIXTURES = sorted(p for p in OCP_DIR.rglob("*.ocp.json"))

#: the same documents, opened over and over
pytestmark = pytest.mark.usefixtures("ocp_checked_once")


def load(name: str) -> dict[str, Any]:
    return json.loads((OCP_DIR / name).read_text())


def rows(sm: Any, mode: str = "default", query: str = "") -> list[tuple[str, str]]:
    m = TreeModel(sm, filter_mode=mode)
    if query:
        m.set_query(query)
    return [(m.entry_at(i).id, line) for i, line in enumerate(m.plain_rows(400))]


def parent(sm: Any, eid: str) -> str | None:
    return sm.index.by_id[eid].parent_id


@needs_shared()
def test_there_are_fixtures() -> None:
    assert len(ALL_FIXTURES) >= 30


@pytest.mark.parametrize("path", shared_params(ALL_FIXTURES), ids=lambda p: str(p.relative_to(OCP_DIR)))
def test_every_fixture_opens_with_every_record(path: Path) -> None:
    doc = json.loads(path.read_text())
    assert classify(doc) == ocp.OCP
    sm = open_any(str(path))
    run = ocp.ocp_run(sm)
    assert run is not None and sm.source_format == "ocp"
    ids = {e.id for e in sm.index.entries}
    assert "run" in ids
    assert {ocp.node_eid(n) for n in run.nodes} <= ids
    assert {ocp.attempt_eid(a) for a in run.attempts} <= ids
    assert {ocp.group_eid(g) for g in run.groups} <= ids
    # one root, every entry reachable from it, nothing listed twice
    assert [r.id for r in sm.index.roots] == ["run"]
    assert len(ids) == len(sm.index.entries)
    assert len(rows(sm, "all")) == len(sm.index.entries)
    # the lineage view opens too
    lin = open_any(str(path), tree_id="lineage")
    assert len(lin.index.entries) == len(sm.index.entries) - len(run.groups)


@needs_shared()
def test_review_loop_tree_retries_fan_in_and_groups() -> None:
    sm = open_any(str(OCP_DIR / "review-loop-v01.ocp.json"))
    # groups are folders under the run
    assert parent(sm, "g:build") == "run" and parent(sm, "g:checks") == "run"
    assert parent(sm, "n:P1") == "g:build"
    # a retry (cause.ref at the same node) is a child of the attempt it retries
    assert parent(sm, "a:B1.a2") == "a:B1.a1"
    # a cause.ref at another node (sent back by a review) stays under its own node
    assert parent(sm, "a:B1.a3") == "n:B1"
    # dependency order: B1 and B2 follow P1 inside the group; R1 depends on B1 in another group
    assert parent(sm, "n:B1") == "n:P1" and parent(sm, "n:B2") == "n:P1"
    assert parent(sm, "n:R1") == "g:checks"
    # the fan-in gate appears once, under the parent that settled last (T1 is still working)
    shown = rows(sm)
    gate_rows = [line for eid, line in shown if eid == "n:G1"]
    assert len(gate_rows) == 1
    assert parent(sm, "n:G1") == "n:T1"
    assert "also after: R1, B2" in gate_rows[0]
    # attempts come before the nodes that depend on their node
    order = [eid for eid, _ in shown]
    assert order.index("a:P1.a1") < order.index("n:B1") < order.index("n:B2")
    assert order.index("a:B1.a1") < order.index("a:B1.a2") < order.index("a:B1.a3")


@needs_shared()
def test_rows_show_kind_title_glyph_model_cost() -> None:
    sm = open_any(str(OCP_DIR / "review-loop-v01.ocp.json"))
    by_id = dict(rows(sm))
    assert by_id["n:B1"].lstrip("├└│─ ⊟").startswith("[impl]: ✓ implement the export command · 3 attempts · model-b")
    assert "272k tok" in by_id["n:B1"]
    b1a1 = by_id["a:B1.a1"]
    assert "[attempt]: ✗ #1 failed (verified) · model-b medium" in b1a1
    b1a2 = by_id["a:B1.a2"]
    assert "⊘ #2 rejected (reported)" in b1a2 and "followup ← B1.a1: fix the failing tests" in b1a2
    assert "via R1: missing input validation" in b1a2
    priced = open_any(str(OCP_DIR / "v0.3" / "best_of_n.ocp.json"))
    assert "$0.39" in dict(rows(priced))["a:implement.a1"]


@needs_shared()
def test_missing_evidence_reads_asserted_never_stronger() -> None:
    doc = load("review-loop-v01.ocp.json")
    for a in doc["attempts"]:
        if a["id"] == "B1.a3":
            del a["outcome"]["evidence"]
        if a["id"] == "R1.a1":
            del a["outcome"]
    by_id = dict(rows(open_document(doc, None)))
    assert "✓ #3 done (asserted)" in by_id["a:B1.a3"]
    assert "✓ #1 done (asserted)" in by_id["a:R1.a1"]  # terminal without any outcome
    assert "verified" not in by_id["a:B1.a3"]


@needs_shared()
def test_node_state_never_overrides_attempt_outcomes() -> None:
    doc = load("minimal.ocp.json")
    for n in doc["nodes"]:
        n["state"] = "done"
    for a in doc["attempts"]:
        if a["node"] == "T1":
            a["status"] = "failed"
            a["outcome"]["result"] = "failed"
    sm = open_document(doc, None)
    line = dict(rows(sm))["n:T1"]
    assert "✗ implement feature" in line and "✓" not in line.split("]:")[1][:3]


@needs_shared()
def test_node_without_attempts_shows_its_state_as_the_producers_word() -> None:
    sm = open_any(str(OCP_DIR / "review-loop-v01.ocp.json"))
    assert "○ merge gate · no attempts (state: queued)" in dict(rows(sm))["n:G1"]


@needs_shared()
def test_filters_fit_runs() -> None:
    sm = open_any(str(OCP_DIR / "review-loop-v01.ocp.json"))
    failed = [eid for eid, _ in rows(sm, "failed")]
    assert failed == ["run", "g:build", "n:B1", "a:B1.a1", "a:B1.a2"]
    assert [eid for eid, _ in rows(sm, "gates")] == ["run", "g:checks", "n:G1"]
    flying = [eid for eid, _ in rows(sm, "in-flight")]
    assert flying == ["run", "g:checks", "n:T1", "a:T1.a1", "n:G1"]
    assert "model:model-c" in TreeModel(sm).modes
    assert [eid for eid, _ in rows(sm, "model:model-c")] == ["run", "g:build", "n:B2", "a:B2.a1"]
    swarm = open_any(str(OCP_DIR / "swarm-v02.ocp.json"))
    codex = [eid for eid, _ in rows(swarm, "harness:codex")]
    assert codex == ["run", "n:S-rev", "a:S-rev.a1", "n:S-ext", "a:S-ext.a1"]
    m = TreeModel(sm)
    m.set_filter("failed")
    assert m.footer().endswith("[failed]")


def test_a_run_says_why_it_has_no_findings_mode() -> None:
    """A run without findings has no `findings` mode, and says so (``Source.missing_filter``):
    none found, or not checked when it opened (too big); a run's other modes and pi's are not its
    to explain."""
    from loomtui.formats.ocp.source import build_session

    path = Path(__file__).resolve().parents[1] / "fixtures" / "ocp" / "run-with-session" / "run.ocp.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    missing = open_any(str(path)).source.missing_filter
    assert missing is not None and missing("findings") == ocp_filters.NO_FINDINGS
    assert missing("user-only") is None and missing("bogus") is None
    unchecked = build_session(doc, str(path), check=False).source.missing_filter
    assert unchecked is not None and "not checked when it was opened" in (unchecked("findings") or "")
    doc["nodes"][0]["state"] = "bogus"  # a finding: the mode is there, nothing to explain
    flagged = build_session(doc, str(path)).source
    assert "findings" in flagged.filters and flagged.missing_filter("findings") is None  # type: ignore[misc, operator]


def test_per_model_modes_are_made_when_first_listed_or_chosen() -> None:
    from loomtui.app.screens.source_actions import bar_modes

    for path in sorted(OCP_DIR.glob("*.json")):
        sm = open_any(str(path))
        filters = sm.source.filters
        assert isinstance(filters, ocp_filters.RunFilters)
        m = TreeModel(sm)
        m.footer()
        assert bar_modes(m) == ("default", *[k for k in ("failed", "gates", "in-flight", "findings") if k in filters])
        assert filters._all is None  # the first screen did not make them
        eager = ocp_filters.RunFilters(ocp.ocp_run(sm))  # type: ignore[arg-type]
        assert list(filters) == list(eager) and len(filters) == len(eager)
        assert m.modes == ("default", *eager)  # a run has its own filters, not pi's four
        named = [k for k in eager if ":" in k]
        fresh = open_any(str(path))
        if named:  # chosen first: made then, the same ids
            assert TreeModel(fresh, filter_mode=named[0]).mode == named[0]
            assert sorted(fresh.source.filters[named[0]][1]()) == sorted(filters[named[0]][1]())
        with pytest.raises(KeyError):
            filters["model:nobody"]


@needs_shared()
def test_search_finds_titles_reasons_models_ids() -> None:
    sm = open_any(str(OCP_DIR / "review-loop-v01.ocp.json"))
    assert [e for e, _ in rows(sm, query="input validation")] == ["a:B1.a2", "a:B1.a3"]
    assert "a:B2.a1" in [e for e, _ in rows(sm, query="model-c")]
    assert [e for e, _ in rows(sm, query="b1.a3")] == ["a:B1.a3", "a:R1.a2"]
    assert [e for e, _ in rows(sm, query="merge gate")] == ["n:G1"]


@needs_shared()
def test_lineage_view_puts_launched_work_under_its_launcher() -> None:
    sm = open_any(str(OCP_DIR / "swarm-v02.ocp.json"), tree_id="lineage")
    assert parent(sm, "n:S-plan") == "n:S-lead"  # spawn edge
    assert parent(sm, "n:S-rev") == "a:S-lead.a1"  # origin.launched_by names the launching attempt
    assert parent(sm, "n:S-ext") == "run"  # external: no scanned launcher
    with pytest.raises(Exception, match="two views"):
        open_any(str(OCP_DIR / "swarm-v02.ocp.json"), tree_id="nope")


@needs_shared()
def test_totals_per_node_and_run() -> None:
    sm = open_any(str(OCP_DIR / "v0.3" / "best_of_n.ocp.json"))
    run = ocp.ocp_run(sm)
    assert run is not None
    t = ocp_text.node_totals(run, "implement")
    assert t.attempts == 3 and t.priced == 3 and round(t.usd, 2) == 1.26
    total = ocp_text.run_totals(run)
    assert total.attempts == 4 and round(total.usd, 2) == 2.25
    timing = ocp_text.run_timing(run)
    assert timing.wall_seconds is not None and timing.wall_seconds > 0


# bad documents ------------------------------------------------------------------------------
def diags(sm: Any) -> str:
    return "\n".join(str(d) for d in sm.diagnostics)


@needs_shared()
def test_unknown_version_null_lists_and_junk_open_with_diagnostics() -> None:
    doc = load("minimal.ocp.json")
    doc["ocp"] = "9.9"
    doc["groups"] = None
    doc["artifacts"] = None
    doc["events"] = "nope"
    doc["attempts"].append(42)
    doc["attempts"].append({"node": "T1"})
    doc["nodes"].append({"kind": "impl"})
    sm = open_document(doc, None)
    text = diags(sm)
    assert "unknown OCP version '9.9'" in text
    assert "'groups' is null" in text and "'events' is a str" in text
    assert "attempts[4] is not an object" in text and "attempts[5] has no id" in text
    assert "nodes[3] has no id" in text
    assert len(rows(sm, "all")) == 1 + 3 + 4


def test_nodes_null_and_empty_document() -> None:
    sm = open_document({"ocp": "0.3", "nodes": None, "attempts": None}, None)
    assert [e for e, _ in rows(sm)] == ["run"]
    assert "no 'run' object" in diags(sm) and "'nodes' is null" in diags(sm)


@needs_shared()
def test_dangling_references_are_listed_and_shown() -> None:
    doc = load("minimal.ocp.json")
    doc["attempts"].append(
        {"id": "ghost.a1", "node": "ghost", "status": "done", "cause": {"type": "followup", "ref": "nowhere"}}
    )
    doc["edges"].append({"from": "T1", "to": "missing", "kind": "dep", "tier": "verified"})
    doc["nodes"][0]["group"] = "no-such-group"
    sm = open_document(doc, None)
    text = diags(sm)
    assert "attempt ghost.a1 is at node 'ghost', which the document does not define" in text
    assert "cause.ref 'nowhere' names no attempt" in text
    assert "names an unknown node" in text
    assert "group 'no-such-group' is not defined" in text
    assert parent(sm, "a:ghost.a1") == "n:ghost" and parent(sm, "n:ghost") == "run"
    assert "not defined in the document" in dict(rows(sm))["n:ghost"]


@needs_shared()
def test_dependency_cycle_opens_every_node() -> None:
    doc = load("minimal.ocp.json")
    doc["edges"].append({"from": "G1", "to": "T1", "kind": "dep", "tier": "verified"})
    sm = open_document(doc, None)
    assert "form a cycle through 3 nodes" in diags(sm)
    ids = [e for e, _ in rows(sm)]
    assert {"n:T1", "n:R1", "n:G1"} <= set(ids)
    assert len(ids) == len(set(ids)) == 1 + 3 + 4


@needs_shared()
def test_group_parent_cycle_and_self_retry() -> None:
    doc = load("review-loop-v01.ocp.json")
    doc["groups"][0]["parent"] = "checks"
    doc["groups"][1]["parent"] = "build"
    a = next(x for x in doc["attempts"] if x["id"] == "B1.a1")
    a["cause"] = {"type": "followup", "ref": "B1.a1"}
    sm = open_document(doc, None)
    assert "parent is a cycle" in diags(sm)
    assert parent(sm, "a:B1.a1") == "n:B1"
    assert len(rows(sm, "all")) == len(sm.index.entries)


@needs_shared()
def test_hundred_thousand_attempts_open() -> None:
    doc = load("minimal.ocp.json")
    base = doc["attempts"][0]
    doc["attempts"] = []
    for i in range(100_000):
        a = copy.copy(base)
        a["id"] = f"T1.x{i}"
        a["n"] = i + 1
        doc["attempts"].append(a)
    sm = open_document(doc, None)
    run = ocp.ocp_run(sm)
    assert run is not None and len(run.attempts) == 100_000
    assert len(sm.index.entries) == 1 + 3 + 100_000
    assert "conformance not checked on open" in diags(sm)


@needs_shared()
def test_info_reports_the_run(capsys: pytest.CaptureFixture[str]) -> None:
    from loomtui.cli import main

    assert main(["info", "--json", str(OCP_DIR / "v0.3" / "best_of_n.ocp.json")]) == 0
    s = json.loads(capsys.readouterr().out)["ocp"]
    assert s["runId"] == "run_ex_best_of_n" and s["attempts"] == 4 and s["usd"] == 2.25
    assert s["harnesses"] == {"codex": 3, "claude-code": 1} and s["errors"] == 0
    assert s["wallSeconds"] == 1620.0
    assert main(["info", str(OCP_DIR / "review-loop-v01.ocp.json")]) == 0
    text = capsys.readouterr().out
    assert "attempts      8: done 5, failed 1, rejected 1, working 1" in text
    assert "run USD       unknown" in text


@needs_shared()
def test_export_openloom_keeps_every_row(tmp_path: Path) -> None:
    from loomtui.cli import main

    out = tmp_path / "run.openloom"
    assert main(["export-openloom", str(OCP_DIR / "review-loop-v01.ocp.json"), "-o", str(out)]) == 0
    back = open_any(str(out))
    assert len(back.index.entries) == 17
    texts = [e.text or "" for e in back.index.entries]
    assert any("B1.a2" in t and "fix the failing tests" in t for t in texts)


@needs_shared()
def test_tree_command_view_and_filters(capsys: pytest.CaptureFixture[str]) -> None:
    from loomtui.cli import main

    path = str(OCP_DIR / "swarm-v02.ocp.json")
    assert main(["tree", path, "--view", "lineage", "--ids", "--width", "300"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("run\t") and "[run lineage]" in lines[0]
    assert main(["tree", path, "--filter", "harness:codex", "--ids"]) == 0
    ids = [ln.split("\t")[0] for ln in capsys.readouterr().out.splitlines()[:-1]]
    assert ids == ["run", "n:S-rev", "a:S-rev.a1", "n:S-ext", "a:S-ext.a1"]
    assert main(["tree", path, "--filter", "nope"]) == 2
    assert "unknown filter mode 'nope'" in capsys.readouterr().err


@needs_shared()
def test_html_export_renders_the_run_detail() -> None:
    from loomtui.formats.html.render import EntryRenderer, Stats

    sm = open_any(str(OCP_DIR / "review-loop-v01.ocp.json"))
    model = TreeModel(sm)
    renderer = EntryRenderer(sm, model.flat.tool_calls)
    html, _kind, _head = renderer.render(sm.index.by_id["a:B1.a2"], Stats())
    assert "cause chain" in html and "missing input validation" in html
    assert "evidence reported" in html and "R1 (review: review the export command)" in html
    page_rows = dict(rows(sm))
    assert "B1.a2" in page_rows["a:B1.a2"]


@needs_shared()
def test_deeply_nested_ext_never_breaks_the_detail() -> None:
    from loomtui.formats.ocp.detail import describe

    doc = load("minimal.ocp.json")
    deep: Any = 1
    for _ in range(5000):
        deep = {"x": deep}
    doc["attempts"][0]["ext"] = {"com.example.deep": deep}
    sm = open_document(doc, None)
    run = ocp.ocp_run(sm)
    assert run is not None
    aid = doc["attempts"][0]["id"]
    text = describe(run, "a:" + aid)
    assert "com.example.deep" in text and "nested too deeply" in text


@needs_shared()
def test_the_pickers_group_of_runs_counts_runs(tmp_path: Path) -> None:
    """The group header read "OCP runs: example-project  3 sessions"."""
    import shutil

    from loomtui.formats.ocp.catalog import list_runs
    from loomtui.session.lineage import group_sessions

    for name in ("minimal.ocp.json", "review-loop-v01.ocp.json"):
        shutil.copyfile(OCP_DIR / name, tmp_path / name)
    runs = list_runs([str(tmp_path)], cache=False)
    assert len(runs) == 2 and {s.noun for s in runs} == {"run"}
    assert {g.noun for g in group_sessions(runs)} == {"run"}


@needs_shared()
def test_the_detail_header_shows_a_runs_and_an_attempts_own_start() -> None:
    """The run row's header said "no time" while its details read "started at:
    2026-08-13T14:02:00Z"; an attempt's start is its own, a node keeps none."""
    from loomtui.formats.html.render import EntryRenderer
    from loomtui.view.blocks import header_of

    doc = json.loads((OCP_DIR / "herdr-run-assemble-v01.ocp.json").read_text())
    sm = open_any(str(OCP_DIR / "herdr-run-assemble-v01.ocp.json"))
    by_id = sm.index.by_id
    run_row = by_id["run"]
    assert header_of(sm, run_row, sm.load(run_row)).timestamp == "2026-08-13T14:02:00.000Z"
    attempt = next(a for a in doc["attempts"] if a.get("started_at"))
    row = next(e for e in sm.index.entries if e.id.startswith("a:") and e.id.endswith(attempt["id"]))
    shown = header_of(sm, row, sm.load(row)).timestamp
    assert shown is not None and shown.startswith(attempt["started_at"].removesuffix("Z")[:16])
    node = next(e for e in sm.index.entries if e.id.startswith("n:"))
    assert header_of(sm, node, sm.load(node)).timestamp is None
    assert EntryRenderer(sm, {})._when(run_row, sm.load(run_row), False).startswith("2026-08-13T14:02:00")
