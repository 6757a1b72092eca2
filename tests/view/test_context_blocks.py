"""pi 1.6.0's new entry kinds in the detail blocks (system messages, context edits, usage
entries), the note on an edited entry, and the session's token totals (against pi's own sums)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from loomtui.commands.info import summarize
from loomtui.session.manager import SessionManager
from loomtui.view.block_types import Markdown, Note, Plain, Title, Usage
from loomtui.view.blocks import entry_blocks
from loomtui.view.context_blocks import edit_target
from loomtui.view.controller import SessionController
from loomtui.view.usage_totals import header_usage, session_usage, short_count
from tests.shared_material import needs

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pi160"
NEW_KINDS = FIXTURES / "new-kinds.jsonl"
WRITTEN_BY_PI = FIXTURES / "written-by-pi-1.6.0.jsonl"
PEER = Path(os.environ.get("PI_PEER", "/tmp/peer"))
PI_160 = PEER / "node_modules" / "@earendil-works" / "pi-coding-agent"
NODE = str(PEER / "bin" / "node") if (PEER / "bin" / "node").exists() else shutil.which("node")
needs_pi_160 = needs(
    "node 22 and pi 1.6.0 in $PI_PEER (run ../shared/oracle/ensure_peer.sh)"
    if NODE is None or not (PI_160 / "dist" / "core" / "usage-totals.js").exists()
    else None
)


def texts(blocks: list[object]) -> list[str]:
    return [b.text for b in blocks if isinstance(b, (Title, Note, Markdown, Plain))]


def blocks_of(sm: SessionManager, eid: str) -> list[object]:
    return list(entry_blocks(sm, sm.index.by_id[eid], {}, header=False))


def test_the_leading_system_message_shows_its_sections_and_tools() -> None:
    sm = SessionManager.open(str(NEW_KINDS))
    t = texts(blocks_of(sm, "sys00001"))
    assert t[0] == "system prompt"
    assert "You are an expert coding assistant." in t
    assert t[t.index("section preamble") + 1] == "Be brief."
    assert "section skills" in t
    assert "tools added (2): read, write" in t
    assert "Read a file from disk." in t and any('"path"' in x for x in t)  # description and parameters


def test_a_system_update_shows_the_section_it_removes_and_the_tools_it_drops() -> None:
    sm = SessionManager.open(str(NEW_KINDS))
    t = texts(blocks_of(sm, "sys00002"))
    assert t[0] == "system prompt update"
    assert "section skills: removed" in t
    assert "tools removed (1): write" in t
    assert not any(x.startswith("tools added") for x in t)


def test_a_context_edit_names_the_entry_it_omits_or_replaces() -> None:
    sm = SessionManager.open(str(NEW_KINDS))
    t = texts(blocks_of(sm, "ced00001"))
    assert t[0] == "context edit: omits entry ast00001 in the model's context"
    assert any(x.startswith("ast00001: ") and "Flask" in x for x in t)
    t = texts(blocks_of(sm, "ced00002"))
    assert t[0] == "context edit: replaces the content of entry usr00001 in the model's context"
    assert "replacement" in t and "Summarise app.py (short)" in t
    assert edit_target(sm, sm.index.by_id["ced00002"]) == "usr00001"
    assert edit_target(sm, sm.index.by_id["usr00002"]) is None


def test_the_target_says_it_is_edited_on_this_branch_and_not_on_another() -> None:
    sm = SessionManager.open(str(NEW_KINDS))
    assert sm.get_leaf_id() == "usr00002"  # the branch with the edits
    notes = [b for b in blocks_of(sm, "ast00001") if isinstance(b, Note)]
    assert notes[0].text.startswith("edited on this branch: context edit ced00001 omits this entry")
    replaced = [b.text for b in blocks_of(sm, "usr00001") if isinstance(b, Note)]
    assert replaced[0].startswith("edited on this branch: context edit ced00002 replaces its content")
    assert "Summarise app.py (short)" in replaced[0]
    sm.branch("usr00003")  # the other branch: the edits are not on it
    notes = [b.text for b in blocks_of(sm, "ast00001") if isinstance(b, Note)]
    assert not any(n.startswith("edited on this branch") for n in notes)
    assert "context edit on another branch: ced00001" in notes
    assert not [b for b in blocks_of(sm, "usr00003") if isinstance(b, Note)]  # not a target


def test_a_usage_entry_shows_its_kind_model_and_figures() -> None:
    sm = SessionManager.open(str(NEW_KINDS))
    b = blocks_of(sm, "use00001")
    assert texts(b)[0] == "usage: cache_warm (anthropic/claude-sonnet-4-5)"
    [u] = [x for x in b if isinstance(x, Usage)]
    assert (u.cache_read, u.cache_write, u.cost) == (40000, 2000, 0.0195)


def test_usage_entries_count_in_info_and_the_header() -> None:
    sm = SessionManager.open(str(NEW_KINDS))
    usage = summarize(sm)["usage"]
    assert usage["cacheRead"] == 90000 and usage["cacheWrite"] == 2000  # the reply's and the usage entry's
    assert usage["usageEntries"] == 1 and usage["assistantMessagesWithUsage"] == 1
    assert usage["cost"]["total"] == pytest.approx(0.0426)
    controller = SessionController(sm)
    assert not any(p.startswith("↑") for p in controller.title_parts(str(NEW_KINDS)))  # not counted yet
    totals = session_usage(sm)
    assert header_usage(sm) is totals
    assert "↑1.2k ↓300 R90k W2.0k $0.043" in controller.title_parts(str(NEW_KINDS))


def test_short_counts_are_pis_footer_numbers() -> None:
    assert [short_count(n) for n in (999, 1000, 9999, 12_500, 999_499, 1_250_000, 12_500_000)] == [
        "999",
        "1.0k",
        "10.0k",
        "13k",
        "999k",
        "1.3M",
        "13M",
    ]


@needs_pi_160
@pytest.mark.parametrize("path", [NEW_KINDS, WRITTEN_BY_PI], ids=["new-kinds", "written-by-pi-1.6.0"])
def test_totals_equal_pi_160s_own(path: Path) -> None:
    out = subprocess.run(
        [str(NODE), str(Path(__file__).with_name("pi_usage_totals.mjs")), str(PI_160), str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    pi = json.loads(out.stdout)
    sm = SessionManager.open(str(path))
    totals = session_usage(sm)
    assert totals.tokens == pi["tokens"] and totals.cost == pytest.approx(pi["cost"])
    u = summarize(sm)["usage"]
    assert u["input"] + u["output"] + u["cacheRead"] + u["cacheWrite"] == pi["tokens"]
    assert u["cost"]["total"] == pytest.approx(pi["cost"])
