"""A Claude Code session with inline subagent runs: the header's token figure and entry count
say what ``loomtui info`` says (every reply of the file, the runs' too), and the header names
the tree's rows apart from the file's entries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from loomtui.commands.info import summarize
from loomtui.formats.opening import open_session
from loomtui.view.session_header import header
from loomtui.view.usage_totals import UsageTotals, session_usage
from tests.shared_material import FIXTURES, needs_shared

SID = "5e55a0d1-0000-4000-8000-0000000000aa"
AT = "2026-09-30T10:00:0{}Z"


def _usage(n: int) -> dict[str, int]:
    return {
        "input_tokens": n,
        "output_tokens": 10 * n,
        "cache_read_input_tokens": 100 * n,
        "cache_creation_input_tokens": 1000 * n,
    }


def _line(uuid: str, parent: str | None, kind: str, at: int, content: Any, **more: Any) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        msg.update(id=f"m-{uuid}", usage=more.pop("usage"))
    return {
        "sessionId": SID,
        "cwd": "/home/user/proj",
        "version": "1.0.30",
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "timestamp": AT.format(at),
        "message": msg,
        **more,
    }


def _session(path: Path) -> Path:
    task = {"description": "look around", "prompt": "Look around.", "subagent_type": "Explore"}
    side = {"isSidechain": True}
    lines = [
        _line("u1", None, "user", 0, "Explore the repository"),
        _line(
            "a1",
            "u1",
            "assistant",
            1,
            [{"type": "tool_use", "id": "t1", "name": "Task", "input": task}],
            usage=_usage(1),
            requestId="q1",
        ),
        # the subagent run, inline: three lines, two of them replies
        _line("s1", None, "user", 2, "Look around.", **side),
        _line(
            "s2", "s1", "assistant", 3, [{"type": "text", "text": "Reading."}], usage=_usage(2), requestId="q8", **side
        ),
        _line(
            "s3", "s2", "assistant", 4, [{"type": "text", "text": "A README."}], usage=_usage(3), requestId="q9", **side
        ),
        _line("r1", "a1", "user", 5, [{"type": "tool_result", "tool_use_id": "t1", "content": "A README."}]),
        _line("a2", "r1", "assistant", 6, [{"type": "text", "text": "Done."}], usage=_usage(4), requestId="q2"),
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _agrees_with_info(path: Path) -> tuple[UsageTotals, str]:
    sm = open_session(str(path))
    info = summarize(sm)
    totals = session_usage(sm)
    u = info["usage"]
    assert (totals.input, totals.output, totals.cache_read, totals.cache_write) == (
        u["input"],
        u["output"],
        u["cacheRead"],
        u["cacheWrite"],
    )
    bar = header(sm, sm.source, str(path), sm.get_leaf_id(), False)
    rows = info["treeRows"]
    if info.get("inlineSubagentEntries"):
        assert bar.entries == f"{info['entryCount']:,} entries ({rows:,} rows)"
    else:
        assert bar.entries == f"{info['entryCount']:,} entries"
    return totals, bar.entries


def test_the_header_counts_the_subagent_runs_as_info_does(tmp_path: Path) -> None:
    totals, entries = _agrees_with_info(_session(tmp_path / f"{SID}.jsonl"))
    assert (totals.input, totals.output) == (1 + 2 + 3 + 4, 100)
    assert totals.figure == "↑10 ↓100 R1.0k W10k"
    # seven lines; the tree shows five rows (the run is one)
    assert entries == "7 entries (5 rows)"


VIEWER = FIXTURES / "claude/claude-code-viewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"


@needs_shared(VIEWER)
def test_the_viewer_fixture_header_agrees_with_info() -> None:
    totals, entries = _agrees_with_info(VIEWER)
    assert totals.figure == "↑818 ↓52k R3.6M W138k"
    assert entries == "437 entries (37 rows)"


def test_the_header_does_not_count_the_row_of_a_run_kept_in_its_own_file(tmp_path: Path) -> None:
    """Four lines in the session; the run in its own file is a fifth row of the tree, which the
    header counted as an entry (``5 entries``) where ``info`` says 4."""
    from tests.claude_subagent_files import session_with_subagent_file

    main, _run = session_with_subagent_file(tmp_path)
    _totals, entries = _agrees_with_info(main)
    assert entries == "4 entries"
    assert summarize(open_session(str(main)))["treeRows"] == 5


EF95 = FIXTURES / "claude/claude-code-log__ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"


@needs_shared(EF95)
def test_the_header_of_a_session_beside_its_run_s_file_agrees_with_info() -> None:
    _totals, entries = _agrees_with_info(EF95)
    assert entries == "162 entries"
