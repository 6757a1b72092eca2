"""A big OCP run placed by a forked child (``formats/ocp/split.py``) opens exactly as one
placed here: the same run, rows, texts, details, notes, findings and filters, on every
fixture, on bad documents and on a generated run, in both views; a child whose file changed
or whose view differs is not used."""

from __future__ import annotations

import copy
import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import orjson
import pytest

from loomtui.formats.detect import open_any
from loomtui.formats.ocp import run as ocp
from loomtui.formats.ocp import split as ocp_split
from loomtui.formats.ocp import text as T
from loomtui.session.forked import can_fork
from loomtui.view.model import TreeModel
from tests.formats.test_ocp_rows import FIXTURES, made_run

pytestmark = [
    pytest.mark.skipif(not can_fork(), reason="needs fork, two CPUs and no other thread"),
    pytest.mark.usefixtures("ocp_checked_once"),  # the same documents, opened over and over
]


def bad_documents() -> dict[str, Any]:
    """Documents that open with notes: null lists, dangling refs, cycles, unknown versions, junk."""
    base = made_run(30, 3)
    out: dict[str, Any] = {}
    d = copy.deepcopy(base)
    d["ocp"], d["nodes"], d["groups"] = "9.9", None, "no"
    out["nulls"] = d
    d = copy.deepcopy(base)
    d["attempts"] += [
        {"id": "X", "node": "nope", "status": "done"},
        {"id": "Y"},
        5,
        {"id": "A0.0", "node": "N1"},
        {"node": "N2"},
    ]
    d["nodes"] += [d["nodes"][3], {"id": ""}, "junk"]
    d["edges"] += [
        "junk",
        {"from": "N29", "to": "N0", "kind": "dep"},
        {"from": "N3", "to": "N3"},
        {"from": "zz", "to": "N3"},
    ]
    out["dangling-and-cycle"] = d
    d = copy.deepcopy(base)
    d["groups"] += [{"id": "gx", "parent": "gy"}, {"id": "gy", "parent": "gx"}, {"id": "gz", "parent": "g0"}]
    d["nodes"][0]["group"], d["nodes"][1]["group"], d["nodes"][2]["group"] = "gx", "nog", "gz"
    a = d["attempts"]
    a[4]["cause"] = {"type": "retry", "ref": "A1.2"}
    a[5]["cause"] = {"type": "retry", "ref": "A0.0"}
    a[6]["cause"] = {"ref": "ghost"}
    a[7]["n"], a[8]["n"], a[9]["n"], a[10]["status"] = True, 1, "x", "working"
    a[11]["started_at"], a[12]["started_at"] = "bad", "2026-09-01T00:00:00"
    a[13]["origin"] = {"launched_by": "A0.0"}
    a[14]["cost"] = {"usd": 1e308, "input_tokens": 1.5, "output_tokens": True}
    d["edges"] += [{"from": "N2", "to": "N9", "kind": "spawn"}, {"from": "N9", "to": "N2", "kind": "launch"}]
    d["events"] = [{"attempt": "A0.0", "kind": "x"}, 3]
    d["artifacts"] = [{"id": "art1", "producer": "A0.1"}, {"id": "art1"}, None]
    out["mixed"] = d
    out["empty"] = {"ocp": "0.3"}
    out["junk"] = {"ocp": 3, "run": 5, "nodes": {}, "attempts": "x", "edges": None, "groups": [None]}
    return out


def generated() -> dict[str, Any]:
    from benchmarks.gen_ocp import make_run

    return make_run(400, 1500)


def documents() -> list[tuple[str, Any]]:
    docs = [(p.name, json.loads(p.read_bytes())) for p in FIXTURES]
    docs += list(bad_documents().items())
    docs += [("made", made_run(60, 3)), ("generated", generated())]
    return docs


DOCS = documents()


def snapshot(sm: Any) -> dict[str, Any]:
    """Everything an open gives: the run's fields before any row is read, then the rows (ids,
    parents, texts, entries), the first screen, every detail, notes, filters and their rows."""
    run = ocp.ocp_run(sm)
    assert run is not None
    fields = {
        f.name: (type(getattr(run, f.name)), getattr(run, f.name))
        for f in dataclasses.fields(run)
        if f.name not in ("doc", "filters", *TOTALS_MADE_EARLY)
    }
    rows = [
        (e.id, e.parent_id, e.type, e.aux, e.line, e.text, json.dumps(sm.load(e), sort_keys=True, default=str))
        for e in sm.index.entries
    ]
    totals = (T.run_totals(run), {gid: T.group_totals(run, gid) for gid in run.groups})
    model = TreeModel(sm, page_size=40)
    shown = list(model.plain_rows(160, 0, 60))
    details = [sm.source.describe(e.id) for e in sm.index.entries]
    diags = [(d.line, d.reason) for d in sm.index.diagnostics]
    filters = {mode: (tag, sorted(ids())) for mode, (tag, ids) in (sm.source.filters or {}).items()}
    return {
        "fields": fields,
        "rows": rows,
        "shown": shown,
        "details": details,
        "diagnostics": diags,
        "filters": filters,
        "name": sm.get_session_name(),
        "header": sm.header,
        "totals": totals,
    }


#: the run's fields that may hold totals made before the rows are read (the run's total, made
#: before the fork: ``ocp/split._early_total``) or made as rows are read; compared once the
#: rows made theirs
TOTALS_MADE_EARLY = ("run_tot", "group_tot", "node_tot", "run_timing", "timing_later")


def open_with_child(path: Path, view: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, bool]:
    """``open_any`` with a child started for ``path`` first; whether its result was used."""
    used = []
    rebuilt = ocp_split._rebuilt

    def spy(*args: Any) -> Any:
        out = rebuilt(*args)
        used.append(True)
        return out

    monkeypatch.setattr(ocp_split, "_rebuilt", spy)
    assert ocp_split.prestart(str(path), view, min_bytes=1)
    sm = open_any(str(path), tree_id=None if view == "dag" else view)
    return sm, bool(used)


@pytest.mark.parametrize("view", ["dag", "lineage"])
@pytest.mark.parametrize("name,doc", DOCS, ids=[n for n, _ in DOCS])
def test_a_run_placed_by_the_child_opens_as_one_placed_here(
    name: str, doc: Any, view: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "run.ocp.json"
    path.write_bytes(orjson.dumps(doc))
    here = snapshot(open_any(str(path), tree_id=None if view == "dag" else view))
    sm, used = open_with_child(path, view, monkeypatch)
    assert used
    assert snapshot(sm) == here


def test_a_pretty_printed_run_is_placed_by_the_child_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "run.ocp.json"
    path.write_text(json.dumps(generated(), indent=2))
    here = snapshot(open_any(str(path)))
    sm, used = open_with_child(path, "dag", monkeypatch)
    assert used and snapshot(sm) == here


def test_a_child_of_a_file_that_changed_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "run.ocp.json"
    doc = generated()
    path.write_bytes(orjson.dumps(doc))
    assert ocp_split.prestart(str(path), "dag", min_bytes=1)
    doc["attempts"] = doc["attempts"][:-7]  # rewritten after the child started
    path.write_bytes(orjson.dumps(doc))
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    here_path = tmp_path / "same.ocp.json"
    here_path.write_bytes(path.read_bytes())
    rebuilt = []
    monkeypatch.setattr(ocp_split, "_rebuilt", lambda *a: rebuilt.append(a))
    sm = open_any(str(path))
    assert not rebuilt
    assert snapshot(sm)["rows"] == snapshot(open_any(str(here_path)))["rows"]


def test_a_child_of_the_other_view_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "run.ocp.json"
    path.write_bytes(orjson.dumps(generated()))
    assert ocp_split.prestart(str(path), "dag", min_bytes=1)
    rebuilt = []
    monkeypatch.setattr(ocp_split, "_rebuilt", lambda *a: rebuilt.append(a))
    sm = open_any(str(path), tree_id="lineage")
    assert not rebuilt and ocp.ocp_run(sm).view == "lineage"  # type: ignore[union-attr]


def test_only_what_starts_like_an_ocp_object_starts_a_child(tmp_path: Path) -> None:
    assert ocp_split.looks_like_ocp_start(b'\xef\xbb\xbf\n {"run": {}, "ocp": "0.3"')
    assert not ocp_split.looks_like_ocp_start(b'[{"ocp": "0.3"}]')
    assert not ocp_split.looks_like_ocp_start(b'{"type":"session","version":3}\n')
    small = tmp_path / "small.ocp.json"
    small.write_bytes(orjson.dumps(made_run(3, 1)))
    assert not ocp_split.prestart(str(small))  # below MIN_BYTES: one process is fast enough
    other = tmp_path / "other.json"
    other.write_bytes(b'{"nodes": [], "edges": []}')
    assert not ocp_split.prestart(str(other), min_bytes=1)


def test_a_document_that_is_not_ocp_after_all_opens_as_what_it_is(tmp_path: Path) -> None:
    path = tmp_path / "loom.json"
    path.write_bytes(b'{"meta": {"ocp": "a key one level down"}, "nodes": [], "rootNodeIds": []}')
    assert not ocp_split.prestart(str(path), min_bytes=1)  # parsed, not a run: no child
    assert open_any(str(path)).source.kind != "ocp"


@pytest.mark.parametrize("pretty", [False, True])
def test_the_document_parsed_before_the_app_is_not_parsed_again(
    pretty: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from loomtui.formats import detect

    path = tmp_path / "run.ocp.json"
    doc = generated()
    path.write_bytes(json.dumps(doc, indent=2).encode() if pretty else orjson.dumps(doc))
    here = snapshot(open_any(str(path)))
    assert ocp_split.prestart(str(path), min_bytes=1)

    size = path.stat().st_size
    real = detect.line_value

    def no_parse(raw: bytes, *_: Any) -> Any:  # lines and the sniff's head only
        assert len(raw) < size, "the whole document parsed again"
        return real(raw)

    monkeypatch.setattr(detect, "line_value", no_parse)
    monkeypatch.setattr(detect, "load_json", no_parse)
    assert snapshot(open_any(str(path))) == here


@pytest.mark.parametrize("part", ["_packed_run", "_packed_rows"])
def test_a_child_that_fails_leaves_the_run_to_be_placed_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, part: str
) -> None:
    """The child fails while it packs the run placed, or its rows (after the first screen)."""
    path = tmp_path / "run.ocp.json"
    path.write_bytes(orjson.dumps(bad_documents()["mixed"]))
    here = snapshot(open_any(str(path)))

    def fails(*_: Any) -> bytes:
        raise RuntimeError("the child fails")

    monkeypatch.setattr(ocp_split, part, fails)
    used: list[bool] = []
    placed_run = ocp_split.placed_run

    def spy(*args: Any) -> Any:
        out = placed_run(*args)
        used.append(out is not None)
        return out

    monkeypatch.setattr(ocp_split, "placed_run", spy)
    assert ocp_split.prestart(str(path), "dag", min_bytes=1)
    assert snapshot(open_any(str(path))) == here
    assert used == [False]


def test_the_run_total_made_before_the_fork_is_the_rows_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The run's total is made from every attempt's facts before the fork (the first screen
    shows it); it is taken, and it is what the run's row would have made (in another order:
    ``totals_from`` sums exactly)."""
    path = tmp_path / "run.ocp.json"
    doc = generated()
    path.write_bytes(orjson.dumps(doc))
    sm, used = open_with_child(path, "dag", monkeypatch)
    run = ocp.ocp_run(sm)
    assert used and run is not None
    early = run.run_tot
    assert early is not None
    run.run_tot = None
    assert early == T.run_totals(run)


def test_totals_made_early_are_not_taken_when_the_run_drops_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A duplicate attempt is dropped by the run, not by the total made in document order
    before the fork: it is not taken (by the child's first screen either), and the rows make
    their own."""
    path = tmp_path / "run.ocp.json"
    doc = generated()
    doc["attempts"].append(dict(doc["attempts"][0]))
    path.write_bytes(orjson.dumps(doc))
    here = snapshot(open_any(str(path)))
    sm, used = open_with_child(path, "dag", monkeypatch)
    run = ocp.ocp_run(sm)
    assert used and run is not None and run.run_tot is None and run.group_tot == {} and run.run_timing is None
    assert snapshot(sm) == here


def test_a_run_parsed_before_the_app_is_not_sniffed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The document ``prestart`` parsed is an OCP run: the open neither reads the file's first
    line as a pi header nor looks for Claude Code or Codex lines; without it, both still run."""
    from loomtui.formats import detect, opening
    from loomtui.session import reader

    path = tmp_path / "run.ocp.json"
    path.write_bytes(orjson.dumps(generated()))
    here = snapshot(open_any(str(path)))
    looked: list[str] = []
    pi_file, agent = reader.is_pi_session_file, detect.agent_format
    monkeypatch.setattr(reader, "is_pi_session_file", lambda p: looked.append("pi") or pi_file(p))
    monkeypatch.setattr(detect, "agent_format", lambda p: looked.append("agent") or agent(p))
    assert ocp_split.prestart(str(path), min_bytes=1)
    assert snapshot(opening.open_session(str(path))) == here
    assert looked == []
    assert snapshot(opening.open_session(str(path))) == here  # no child this time: the usual looks
    assert looked == ["pi", "agent"]


@pytest.mark.parametrize("drop", [False, True])
def test_the_run_timing_comes_from_the_child_after_its_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, drop: bool
) -> None:
    """The child makes the run's timing after the rows (its second message): the run's detail
    takes it from there, and it is the timing made here from the records; with a duplicate
    attempt dropped too (the child's run keeps the same records)."""
    path = tmp_path / "run.ocp.json"
    doc = generated()
    if drop:
        doc["attempts"].append(dict(doc["attempts"][0]))
    path.write_bytes(orjson.dumps(doc))
    sm, used = open_with_child(path, "dag", monkeypatch)
    run = ocp.ocp_run(sm)
    assert used and run is not None and run.run_timing is None and run.timing_later is not None
    asked: list[Any] = []
    later = run.timing_later
    run.timing_later = lambda: asked.append(later()) or asked[0]
    from_child = T.run_timing(run)
    assert asked and asked[0] is not None and from_child is asked[0]
    run.run_timing = None
    assert T.run_timing(run) == from_child  # made here this time: the same
    assert run.timing_later is None


def test_a_run_whose_timing_is_not_asked_for_lets_its_child_go_at_the_next_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child waits with the timing in its pipe until the run asks; when another run is
    placed by a child first, the waiting one is let go (reaped), and its run makes the same
    timing itself when asked."""
    paths = [tmp_path / "a.ocp.json", tmp_path / "b.ocp.json"]
    for path in paths:
        path.write_bytes(orjson.dumps(generated()))
    started: list[int] = []
    start = ocp_split.start_child
    monkeypatch.setattr(ocp_split, "start_child", lambda *a, **k: started.append((got := start(*a, **k))[0]) or got)
    first, used = open_with_child(paths[0], "dag", monkeypatch)
    assert used and len(started) == 1
    os.kill(started[0], 0)  # still there (a zombie at most): its timing waits
    second, used = open_with_child(paths[1], "dag", monkeypatch)
    assert used and len(started) == 2
    with pytest.raises(ChildProcessError):
        os.waitpid(started[0], os.WNOHANG)  # the first child: ended and reaped
    run = ocp.ocp_run(first)
    assert run is not None
    made = T.run_timing(run)  # its child is gone: made here
    run.run_timing = None
    run.timing_later = None
    assert T.run_timing(run) == made
    other = ocp.ocp_run(second)
    assert other is not None and T.run_timing(other) == made  # the same document: the same timing
