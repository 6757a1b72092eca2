"""OCP rows are written when first read: the first screen costs only what it shows, and the
rows, search hits and details are the same whichever way (and from whichever thread) they
are made."""

from __future__ import annotations

import json
import math
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from loomtui.formats.detect import open_any, open_document
from loomtui.formats.ocp import run as ocp
from loomtui.formats.ocp import source as ocp_source
from loomtui.formats.ocp import text as ocp_text
from loomtui.formats.ocp.tree import RowEntry
from loomtui.session import jsonvalue
from loomtui.session.entries import Entry
from loomtui.view.model import TreeModel
from tests.shared_material import SHARED, shared_params

OCP_DIR = SHARED / "fixtures" / "ocp"
FIXTURES = sorted(OCP_DIR.rglob("*.ocp.json"))

#: the same documents, opened over and over
pytestmark = pytest.mark.usefixtures("ocp_checked_once")


def made_run(nodes: int = 120, per_node: int = 3) -> dict[str, Any]:
    """Nodes in four groups, each depending on the one before, with failed tries retried."""
    ns, es, at = [], [], []
    for i in range(nodes):
        ns.append({"id": f"N{i}", "kind": "impl" if i % 5 else "gate", "title": f"step {i}", "group": f"g{i % 4}"})
        if i:
            es.append({"from": f"N{i - 1}", "to": f"N{i}", "kind": "dep"})
        for k in range(per_node):
            last = k == per_node - 1
            a: dict[str, Any] = {
                "id": f"A{i}.{k}",
                "node": f"N{i}",
                "n": k + 1,
                "status": "done" if last else "failed",
                "model": {"raw": f"model-{i % 3}"},
                "harness": "pi",
                "session": f"sess-{i}-{k}",
                "started_at": f"2026-09-01T{i % 24:02d}:{k:02d}:00Z",
                "ended_at": f"2026-09-01T{i % 24:02d}:{k:02d}:30Z",
                "cost": {"usd": 0.25, "input_tokens": 1000 + i, "output_tokens": 10},
                "outcome": {
                    "result": "done" if last else "failed",
                    "evidence": "tests",
                    "reason": "green" if last else f"flaky {i}",
                },
            }
            if k:
                a["cause"] = {"type": "retry", "ref": f"A{i}.{k - 1}", "reason": "try again"}
            at.append(a)
    return {
        "ocp": "0.3",
        "run": {"id": "R1", "title": "made", "started_at": "2026-09-01T00:00:00Z"},
        "groups": [{"id": f"g{j}", "title": f"lane {j}"} for j in range(4)],
        "nodes": ns,
        "edges": es,
        "attempts": at,
    }


def pending(sm: Any) -> int:
    return sum(1 for e in sm.index.entries if isinstance(e, RowEntry) and e._pending is not None)


def eager_rows(sm: Any) -> list[tuple[str, str | None, str, Any]]:
    """Every row's id, parent, text and full entry, each made on its own."""
    return [(e.id, e.parent_id, e.text, sm.load(e)) for e in sm.index.entries]


def test_every_row_sets_every_slot_of_a_skeleton() -> None:
    sm = open_document(made_run(10), None)
    for e in sm.index.entries:
        assert isinstance(e, RowEntry)
        for slot in Entry.__struct_fields__:
            getattr(e, slot)  # a slot never set would raise here


def test_first_screen_writes_only_the_rows_it_shows(tmp_path: Path) -> None:
    sm = open_document(made_run(), None)
    total = len(sm.index.entries)
    assert total == 1 + 4 + 120 + 360
    assert pending(sm) == total  # opening wrote no row text
    model = TreeModel(sm, page_size=40)
    assert pending(sm) == total  # nor did the tree's layout
    shown = list(model.plain_rows(160, 0, 40))
    assert len(shown) == 40 and all(shown)
    assert total - pending(sm) <= 40
    # search (the app warms it after the first paint) writes the rest, and finds deep rows
    model.set_query("flaky 119")
    assert [model.entry_at(i).id for i in range(len(model))][-1] == "a:A119.1"
    assert pending(sm) == 0


def test_rows_search_and_details_do_not_depend_on_when_rows_are_made() -> None:
    doc = made_run()
    first = open_document(doc, None)
    eager = eager_rows(first)
    second = open_document(doc, None)
    m = TreeModel(second, filter_mode="all")
    m.set_query("model-2 failed")
    hits = [m.entry_at(i).id for i in range(len(m))]
    assert hits and all(h.startswith(("run", "g:", "n:", "a:")) for h in hits)
    assert eager_rows(second) == eager
    m2 = TreeModel(first, filter_mode="all")
    m2.set_query("model-2 failed")
    assert [m2.entry_at(i).id for i in range(len(m2))] == hits
    # details (what the pane and the HTML export show) are written from the same run
    assert second.source.describe is not None and first.source.describe is not None
    for eid in ("run", "g:g1", "n:N7", "a:A7.1"):
        assert second.source.describe(eid) == first.source.describe(eid)


def test_rows_made_from_two_threads_at_once_agree() -> None:
    doc = made_run(200)
    want = eager_rows(open_document(doc, None))
    sm = open_document(doc, None)
    got: list[list[tuple[str, str | None, str, Any]]] = []

    def read_all() -> None:
        got.append(eager_rows(sm))

    threads = [threading.Thread(target=read_all) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [want, want, want]


@pytest.mark.parametrize("path", shared_params(FIXTURES), ids=lambda p: str(p.relative_to(OCP_DIR)))
def test_fixture_rows_hold_their_record_and_text(path: Path) -> None:
    sm = open_any(str(path))
    run = ocp.ocp_run(sm)
    assert run is not None
    for e in sm.index.entries:
        entry = sm.load(e)
        assert entry["id"] == e.id and entry["parentId"] == e.parent_id and entry["type"] == "custom_message"
        assert entry["content"] == e.text and entry["customType"] == e.aux
        if e.id.startswith("a:"):
            assert entry["details"] is run.attempts[e.id[2:]]
        elif e.id.startswith("n:") and e.id[2:] in run.nodes:
            assert entry["details"] is run.nodes[e.id[2:]]


def test_a_big_one_line_run_is_parsed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = made_run(1500, 2)  # attempts carry "session" keys: the pi sniff must not parse it for them
    path = tmp_path / "big.ocp.json"
    path.write_bytes(orjson.dumps(doc))
    assert path.stat().st_size > 1 << 20
    big_parses: list[int] = []
    real = jsonvalue.loads

    def counting(raw: Any) -> Any:
        if len(raw) > 1 << 20:
            big_parses.append(len(raw))
        return real(raw)

    monkeypatch.setattr(jsonvalue, "loads", counting)
    from loomtui.formats.opening import open_session

    sm = open_session(str(path))
    assert ocp.ocp_run(sm) is not None and len(sm.index.entries) == 1 + 4 + 1500 + 3000
    assert len(big_parses) == 1


def test_a_pi_header_is_still_recognised_whatever_its_size(tmp_path: Path) -> None:
    header = {
        "type": "session",
        "version": 3,
        "id": "s1",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "cwd": "/x",
        "note": "y" * (1 << 20),
    }
    entry = {
        "type": "message",
        "id": "u1",
        "parentId": None,
        "timestamp": "2026-01-01T00:00:01.000Z",
        "message": {"role": "user", "content": "hello"},
    }
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(header) + "\n" + json.dumps(entry) + "\n")
    from loomtui.formats.opening import open_session
    from loomtui.session.reader import is_pi_session_file

    assert is_pi_session_file(str(path))
    assert [e.id for e in open_session(str(path)).index.entries] == ["u1"]


def test_a_header_line_of_exactly_the_sniff_limit_is_read_alone(tmp_path: Path) -> None:
    from loomtui.session.reader import SNIFF_PARSE_LIMIT, is_pi_session_file

    base = {
        "type": "session",
        "version": 3,
        "id": "s1",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "cwd": "/x",
        "note": "",
    }
    pad = SNIFF_PARSE_LIMIT - len(json.dumps(base))
    header = json.dumps({**base, "note": "y" * pad})
    assert len(header) + 1 == SNIFF_PARSE_LIMIT + 1  # the line with its newline fills the sniff's read
    path = tmp_path / "s.jsonl"
    path.write_text(header + "\n" + '{"type":"message","id":"u1"}\n')
    assert is_pi_session_file(str(path))


def test_totals_sum_the_attempts_exactly() -> None:
    """Run and group totals as a plain loop over the attempts gives them, the floats summed
    exactly rounded (``math.fsum``); times missing, reversed or without a zone left out."""
    from tests.formats.test_ocp_split import DOCS, bad_documents

    docs = [d for _, d in DOCS] + [bad_documents()["mixed"]]
    for doc in docs:
        run = ocp_source.build_session(doc, None).source.document
        aids = [aid for aids in run.attempts_of.values() for aid in aids]
        facts = [run.facts[aid] for aid in aids]
        want = ocp_text.Totals(
            attempts=len(facts), tokens=sum(f[1] for f in facts), statuses=Counter(f[0] for f in facts)
        )
        usd, agent = [], []
        for f in facts:
            if f[2] is not None:
                usd.append(f[2])
                want.priced += 1
        want.usd = math.fsum(usd)
        assert ocp_text.run_totals(run) == (want if facts else ocp_text.Totals())
        # the times straight from each attempt's record, not from what the run made of them
        times = [
            (
                ocp_text.fast_time(run.attempts[aid].get("started_at")),
                ocp_text.fast_time(run.attempts[aid].get("ended_at")),
            )
            for aid in aids
        ]
        timing = ocp_text.Timing()
        for start, end in times:
            if start is not None and end is not None and end >= start:
                agent.append(end - start)
        timing.agent_seconds = math.fsum(agent)
        timing.first_start = min((s for s, _ in times if s is not None), default=math.inf)
        timing.last_end = max((e for _, e in times if e is not None), default=-math.inf)
        assert ocp_text.run_timing(run) == timing
        for gid in run.groups:
            members = run.group_members.get(gid, ())
            in_group = [run.facts[a] for nid in members for a in run.attempts_of.get(nid, ())]
            assert ocp_text.group_totals(run, gid) == (len(members), ocp_text.totals_from(in_group))
            assert sum(f[1] for f in in_group) == ocp_text.group_totals(run, gid)[1].tokens
            in_group_times = [run.times[a] for nid in members for a in run.attempts_of.get(nid, ())]
            assert ocp_text.nodes_timing(run, members) == ocp_text.timing_from(in_group_times)


def test_totals_do_not_depend_on_the_attempts_order() -> None:
    """Amounts whose plain sum changes with the order (1e16 + 1 - 1e16) total the same either
    way: the opening makes them in document order, the rows in placed order."""
    facts = [("done", 5, usd, "m", "h") for usd in (1e16, 1.0, -1e16, 0.1)]
    forward, backward = ocp_text.totals_from(facts), ocp_text.totals_from(facts[::-1])
    assert forward == backward
    assert forward.usd == 1.1 and forward.tokens == 20
    times = [(0.0, end) for end in (1e16, 1.0, 0.1, 0.2)]
    forward_t, backward_t = ocp_text.timing_from(times), ocp_text.timing_from(times[::-1])
    assert forward_t == backward_t and forward_t.agent_seconds == 1e16 + 1.3


def test_amounts_beyond_the_float_range_total_without_an_error() -> None:
    """1e308 twice is more than a float holds: the total is inf, in any order, and the row says
    so instead of failing; 1e308 + 1e308 − 1e308 stays 1e308 whatever the order."""
    facts = [("done", 0, usd, "", "") for usd in (1e308, 1e308, -1e308)]
    for order in (facts, facts[::-1], facts[1:] + facts[:1]):
        assert ocp_text.totals_from(order).usd == 1e308
    over = [("done", 0, 1e308, "", "")] * 2
    assert ocp_text.totals_from(over).usd == math.inf
    doc = made_run(3, 1)
    for a in doc["attempts"][:2]:
        a["cost"] = {"usd": 1e308}
    run = ocp_source.build_session(doc, None).source.document
    assert "$inf" in ocp_text.run_entry(run)["content"]
