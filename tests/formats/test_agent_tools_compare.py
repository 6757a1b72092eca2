"""The compare view, `loomtui diff` and reader mode show Claude Code's and Codex's tools in the
same forms as the tree rows (formats/agent/tools.py), never their raw names and JSON."""

from __future__ import annotations

from pathlib import Path

from loomtui.formats.detect import open_any
from loomtui.view.compare import compare
from loomtui.view.compare_text import unified
from loomtui.view.reader import Transcript
from tests.formats.test_agent_tools import CLAUDE_CALLS, HOME, claude_file, codex_file


def _b_items(path: Path) -> list[tuple[str, str]]:
    sm = open_any(str(path))
    entries = sm.index.path_to(sm.get_leaf_id())
    cmp = compare(sm, entries[0].id, entries[-1].id, home=HOME)
    return [(it.head, it.text) for it in cmp.b_items]


def test_compare_shows_claude_tools_as_the_rows_do(tmp_path: Path) -> None:
    items = _b_items(claude_file(tmp_path, CLAUDE_CALLS))
    calls = [text for head, text in items if head == "assistant"]
    assert calls == [f"→ {row}" for _n, _a, row in CLAUDE_CALLS]
    heads = [head for head, _t in items if head != "assistant"]
    assert heads == [
        "bash result",
        "read result",
        "edit result",
        "edit result",
        "write result",
        "grep result",
        "find result",
        "task result",
        "todo result",
        "fetch result",
        "search result",
        "mcp__srv__thing result",
    ]


def test_compare_shows_codex_tools_as_the_rows_do(tmp_path: Path) -> None:
    items = _b_items(codex_file(tmp_path))
    assert [text for head, text in items if head == "assistant"] == [
        "→ [bash: ls -la src]",
        "→ [bash: cargo test --quiet]",
        "→ [edit: src/app.py]",
        "→ [plan: fix it · 1/3 steps done]",
    ]
    assert [head for head, _t in items if head.endswith(" result")] == [
        "bash result",
        "bash result",
        "edit result",
        "plan result",
    ]


def test_compare_still_counts_the_files_an_agent_edits(tmp_path: Path) -> None:
    sm = open_any(str(codex_file(tmp_path)))
    entries = sm.index.path_to(sm.get_leaf_id())
    cmp = compare(sm, entries[0].id, entries[-1].id, home=HOME)
    assert cmp.totals_b.files == ["src/app.py"] and cmp.totals_b.tool_calls == 4


def test_diff_output_has_no_raw_tool_json(tmp_path: Path) -> None:
    sm = open_any(str(claude_file(tmp_path, CLAUDE_CALLS[:3])))
    entries = sm.index.path_to(sm.get_leaf_id())
    text = "\n".join(unified(compare(sm, entries[0].id, entries[-1].id, home=HOME), sm))
    assert "[bash: git -C /Users/me/src status --short]" in text and "+bash result: ok" in text
    assert '{"command"' not in text and "Bash" not in text


def test_reader_mode_shows_claude_tools_as_the_rows_do(tmp_path: Path) -> None:
    sm = open_any(str(claude_file(tmp_path, CLAUDE_CALLS[:2])))
    tr = Transcript(sm, sm.get_leaf_id(), home=HOME)
    got = [(tr.item(k).head, tr.item(k).text) for k in range(len(tr))]
    assert got[1:] == [
        ("assistant", "→ [bash: git -C /Users/me/src status --short]"),
        ("bash result", "ok"),
        ("assistant", "→ [read: ~/src/app.py:10-29]"),
        ("read result", "ok"),
    ]
