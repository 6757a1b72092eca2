"""`info`'s entries block and `context`'s headings name each source's entries in its own words:
an OCP run read "custom_message 17", a socketteer loom "custom_message 324", a Claude Code
session "custom 53" (its hook and attachment lines) — loomtui's internal pi mapping, shown to
the user of a file that has no such entries. ``--json`` keeps the internal names."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from loomtui.cli import main

#: pi's entry types and message roles, which only a pi or omp file has
PI_WORDS = re.compile(r"\b(custom_message|custom|branch_summary|toolResult|compactionSummary|bashExecution)\b")

CLAUDE = "claude/claude-code-log__03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl"
CODEX = "codex/localpush__rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"
SOCKETTEER = "loom/socketteer-loom_demo.json"
OPENLOOM = "loom/openloom-v1-existence-of-claude.openloom.json"
OCP = "ocp/review-loop-v03.ocp.json"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(list(argv))
    out = capsys.readouterr().out
    assert code == 0
    return out


def _kinds(out: str) -> dict[str, str]:
    """The entries block: each kind's noun -> its count and finer kinds."""
    block = out[out.index("\nentries") + 1 :].split("\nroots")[0].splitlines()[1:]
    found = (re.match(r"  (\S.*?)\s+(\d+(?:  \(.*\))?)$", line) for line in block)
    return {m.group(1): m.group(2) for m in found if m}


@pytest.mark.parametrize(
    "name, kinds",
    [
        (OCP, {"attempts": "8", "groups": "2", "run": "1"}),
        (SOCKETTEER, {"nodes": "764  (AI 374, no source 324, prompt 42, mixed 24)"}),
        (OPENLOOM, {"nodes": "81  (model 45, human 36)"}),
        (
            CLAUDE,
            {
                "assistant lines": "22",
                "progress lines": "11  (hook_progress 11)",
                "system lines": "7  (stop_hook_summary 7)",
                "user prompts": "7",
                "commands": "2",
                "tool results": "2",
                "meta line": "1",
            },
        ),
        (
            CODEX,
            {
                "tool calls": "372",
                "tool outputs": "365",
                "assistant messages": "255",
                "reasoning items": "219",
                "injected messages": "53  (developer 45, environment and instructions 8)",
                "user prompts": "38",
                "compaction": "1",
            },
        ),
    ],
)
def test_info_counts_the_entries_in_the_sources_own_words(
    capsys: pytest.CaptureFixture[str], shared_dir: Path, name: str, kinds: dict[str, str]
) -> None:
    path = str(shared_dir / "fixtures" / name)
    out = _run(capsys, "info", path)
    found = _kinds(out)
    assert found.items() >= kinds.items(), found
    assert not PI_WORDS.search(out), PI_WORDS.search(out)
    summary = json.loads(_run(capsys, "info", "--json", path))
    total = sum(int(count.split()[0]) for count in found.values())
    assert total == sum(summary["entriesByType"].values())  # every entry counted once
    # the JSON keeps loomtui's internal names
    assert set(summary["entriesByType"]) <= {"message", "custom_message", "custom", "compaction"}


def test_the_ocp_runs_nodes_are_counted_by_their_kind(capsys: pytest.CaptureFixture[str], shared_dir: Path) -> None:
    found = _kinds(_run(capsys, "info", str(shared_dir / "fixtures/ocp/minimal.ocp.json")))
    assert found == {"attempts": "4", "nodes": "3  (gate 1, impl 1, review 1)", "run": "1"}


@pytest.mark.parametrize(
    "name, headings",
    [
        (SOCKETTEER, {"node (no source)", "user"}),
        (OPENLOOM, {"user", "assistant"}),
        (CLAUDE, {"assistant", "user", "command", "meta line", "tool result (Bash)", "tool result (Read)"}),
        (
            CODEX,
            {
                "assistant",
                "user",
                "developer message",
                "compaction summary",
                "tool output (apply_patch)",
                "tool output (exec_command)",
                "tool output (write_stdin)",
            },
        ),
        ("codex/agtrace__codex_session.jsonl", {"assistant", "user", "injected context", "tool output (apply_patch)"}),
    ],
)
def test_context_heads_each_message_in_the_sources_own_words(
    capsys: pytest.CaptureFixture[str], shared_dir: Path, name: str, headings: set[str]
) -> None:
    out = _run(capsys, "context", str(shared_dir / "fixtures" / name))
    found = {line[3:] for line in out.splitlines() if line.startswith("── ")}
    assert headings <= found, found
    assert not any(PI_WORDS.search(h) for h in found), found


def test_a_pi_sessions_context_keeps_pis_roles(capsys: pytest.CaptureFixture[str], pi_dir: Path) -> None:
    out = _run(capsys, "context", str(pi_dir / "dnouri-browse-session.jsonl"))
    found = {line[3:] for line in out.splitlines() if line.startswith("── ")}
    assert any(h.startswith("toolResult") for h in found), found


def test_a_loom_configuration_map_counts_looms_and_interactions(capsys: pytest.CaptureFixture[str]) -> None:
    interactions = Path(__file__).resolve().parents[1] / "formats" / "maitento" / "interactions"
    out = _run(capsys, "info", str(interactions))
    assert _kinds(out)["looms"] == "3" and not PI_WORDS.search(out)
