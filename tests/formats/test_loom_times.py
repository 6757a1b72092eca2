"""Looms show what they hold: a socketteer node without a source has no role (no `user:` row),
and formats that keep no times show none — no file time, no `2000-01-01` placeholder — in the
rows, the detail header, `info`, comparisons and the HTML page."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from loomtui.cli import main
from loomtui.formats.detect import open_any
from loomtui.formats.html.render import EntryRenderer
from loomtui.view.blocks import header_of
from loomtui.view.compare import compare
from loomtui.view.model import TreeModel
from tests.shared_material import FIXTURES as SHARED
from tests.shared_material import needs_shared

SOCKETTEER = SHARED / "loom" / "socketteer-loom_demo.json"
OPENLOOM_V1 = SHARED / "loom" / "openloom-v1-existence-of-claude.openloom.json"
MAITENTO = Path(__file__).parent / "maitento" / "interactions" / "managed-create.json"


@needs_shared()
def test_a_socketteer_node_without_a_source_has_no_role() -> None:
    sm = open_any(str(SOCKETTEER))
    model = TreeModel(sm, filter_mode="all")
    rows = {model.entry_at(i).id: model.row_text(i) for i in range(len(model))}
    raw = json.loads(SOCKETTEER.read_bytes())
    stack, sourceless = [raw["root"]], []
    while stack:
        n = stack.pop()
        if not (n.get("meta") or {}).get("source") and "id" in n:
            sourceless.append(n["id"])
        stack.extend(n["children"])
    assert sourceless
    for nid in sourceless:
        assert "user:" not in rows[nid] and "[node]" in rows[nid], rows[nid]


@needs_shared()
def test_socketteer_entries_show_no_time_anywhere(capsys) -> None:
    sm = open_any(str(SOCKETTEER))
    today = datetime.now(UTC).date().isoformat()
    assert sm.header.get("timestamp") is None and not sm.source.keeps_times
    for e in sm.index.entries[:50]:
        assert header_of(sm, e, sm.load(e)).timestamp is None
    assert main(["info", str(SOCKETTEER)]) == 0
    out = capsys.readouterr().out
    assert "no time" in out and today not in out and "1970" not in out
    leaves = [e.id for e in sm.index.entries if not sm.index.children(e.id)]
    cmp = compare(sm, leaves[0], leaves[-1])
    assert cmp.totals_a.wall_ms == 0 and cmp.totals_b.wall_ms == 0  # 0: unknown, shown as no time
    renderer = EntryRenderer(sm, {})
    e = sm.index.entries[3]
    assert renderer._when(e, sm.load(e), False) == ""


@needs_shared()
def test_an_openloom_node_shows_its_own_creation_time() -> None:
    sm = open_any(str(OPENLOOM_V1))
    timed = [e for e in sm.index.entries if isinstance(sm.load(e).get("message", {}).get("timestamp"), (int, float))]
    assert timed
    e = timed[-1]
    ms = sm.load(e)["message"]["timestamp"]
    shown = header_of(sm, e, sm.load(e)).timestamp
    assert shown is not None and abs(datetime.fromisoformat(shown.replace("Z", "+00:00")).timestamp() * 1000 - ms) < 1


def test_the_loom_configuration_map_invents_no_time() -> None:
    sm = open_any(str(MAITENTO))
    assert sm.header.get("timestamp") is None
    assert all(e.timestamp is None for e in sm.index.entries)


@needs_shared()
def test_an_ocp_run_without_a_start_has_no_placeholder_time(tmp_path: Path, capsys) -> None:
    doc = json.loads((SHARED / "ocp" / "minimal.ocp.json").read_text())
    doc["run"].pop("started_at", None)
    path = tmp_path / "run.ocp.json"
    path.write_text(json.dumps(doc))
    sm = open_any(str(path))
    assert sm.header.get("timestamp") is None
    assert {e.timestamp for e in sm.index.entries} == {None}
    assert main(["info", str(path)]) == 0
    assert "2000-01-01" not in capsys.readouterr().out


def _exported_entries(capsys, tmp_path: Path, loom: Path, leaf: str) -> tuple[dict, list[dict]]:
    assert main(["export-branch", str(loom), "--leaf", leaf, "--dir", str(tmp_path)]) == 0
    path = Path(capsys.readouterr().out.strip().splitlines()[-1])
    header, *entries = [json.loads(line) for line in path.read_text().splitlines()]
    return header, entries


@needs_shared()
def test_a_loom_branch_exported_as_pi_has_real_entry_times(tmp_path: Path, capsys) -> None:
    """pi reads an entry's timestamp as a time: a node's own creation time goes there, not the
    1970 ordering key the loom's entries carry in memory."""
    header, entries = _exported_entries(capsys, tmp_path, OPENLOOM_V1, "03265C0F")
    messages = [d for d in entries if d["type"] == "message"]
    assert len(messages) > 2
    for d in messages:
        ms = d["message"]["timestamp"]
        assert d["timestamp"] == datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds").replace(
            "+00:00", "Z"
        )
    assert not any(d.get("timestamp", "").startswith("1970") for d in entries)


@needs_shared()
def test_a_timeless_loom_exported_as_pi_dates_its_entries_at_the_export(tmp_path: Path, capsys) -> None:
    sm = open_any(str(SOCKETTEER))
    leaf = max(sm.index.entries, key=lambda e: len(sm.index.path_to(e.id)))
    header, entries = _exported_entries(capsys, tmp_path, SOCKETTEER, leaf.id)
    assert len(entries) > 5
    assert {d["timestamp"] for d in entries if d["type"] != "label"} == {header["timestamp"]}
