"""The picker's catalog lists Claude Code and Codex sessions from their own folders, groups them
by project with pi's, threads Codex forks under their parent and searches their text."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import loomtui.formats  # noqa: F401  (the layer whose listers the catalog lists: formats/sources.py)
from loomtui.session.catalog import list_sessions
from loomtui.session.fulltext import SearchHit, search_sessions
from loomtui.session.lineage import group_sessions

EF95 = "claude-code-log__ef958aa1-0e93-49f0-bb71-150f63befcd1"
AGTRACE = "agtrace__codex_session.jsonl"


@pytest.fixture
def homes(shared_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """CLAUDE_CONFIG_DIR and CODEX_HOME with real files, pi's and omp's roots empty."""
    claude = tmp_path / "claude"
    codex = tmp_path / "codex"
    project = claude / "projects" / "-experiments-worktrees"
    project.mkdir(parents=True)
    src = shared_dir / "fixtures" / "claude"
    shutil.copyfile(src / f"{EF95}.jsonl", project / f"{EF95}.jsonl")
    shutil.copytree(src / EF95, project / EF95)  # subagents: not sessions of their own
    shutil.copyfile(src / "claude-code-log__03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl", project / "03eb5929.jsonl")
    day = codex / "sessions" / "2025" / "12" / "10"
    day.mkdir(parents=True)
    parent = day / "rollout-2025-12-10T04-55-16-019b04ae-b1c6-7c72-a134-a4c2de66058c.jsonl"
    shutil.copyfile(shared_dir / "fixtures" / "codex" / AGTRACE, parent)
    # a fork of it: own session_meta naming the parent, the parent's lines replayed, one new turn
    lines = parent.read_text().splitlines()
    meta = json.loads(lines[0])
    meta["payload"] = {
        **meta["payload"],
        "id": "fork-0001",
        "forked_from_id": meta["payload"]["id"],
        "timestamp": "2025-12-10T00:00:00Z",
    }
    meta["timestamp"] = "2025-12-10T00:00:00Z"
    new = {
        "timestamp": "2025-12-10T00:00:01Z",
        "type": "response_item",
        "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "zebra crossing"}]},
    }
    (day / "rollout-2025-12-10T05-00-00-fork-0001.jsonl").write_text(
        "\n".join([json.dumps(meta), *lines, json.dumps(new)]) + "\n"
    )
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("CODEX_HOME", str(codex))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "pi"))
    monkeypatch.setenv("OMP_CODING_AGENT_DIR", str(tmp_path / "omp"))
    return tmp_path


def test_lists_both_tools_grouped_by_project_with_forks_threaded(homes: Path) -> None:
    sessions = list_sessions(cache=False)
    by_tool = sorted((s.tool, s.id) for s in sessions)
    assert by_tool == [
        ("claude-code", "03eb5929-52b3-4b13-ada3-b93ae35806b8"),
        ("claude-code", "ef958aa1-0e93-49f0-bb71-150f63befcd1"),
        ("codex", "019b04ae-b1c6-7c72-a134-a4c2de66058c"),
        ("codex", "fork-0001"),
    ]
    ef95 = next(s for s in sessions if s.id.startswith("ef95"))
    assert ef95.cwd == "-experiments/worktrees"  # the lines' cwd, not the folder name
    assert ef95.first_message.startswith("OK, we're going to make a little experiment")
    rewind = next(s for s in sessions if s.id.startswith("03eb"))
    assert rewind.branch_count == 1  # the rewind; hook and tool forks are not branches
    groups = {g.cwd: g for g in group_sessions(sessions)}
    codex = groups["/Users/test_user/agent-sample"]
    assert [(s.id, depth) for s, depth in codex.items] == [
        ("019b04ae-b1c6-7c72-a134-a4c2de66058c", 0),
        ("fork-0001", 1),
    ]


def test_full_text_search_covers_them(homes: Path) -> None:
    paths = [s.path for s in list_sessions(cache=False)]
    hits = [h for h in search_sessions(paths, "zebra") if isinstance(h, SearchHit)]
    assert [(Path(h.path).name, h.entry_id, h.role) for h in hits] == [
        ("rollout-2025-12-10T05-00-00-fork-0001.jsonl", "L57", "user")
    ]
    from loomtui.formats.detect import open_any  # the browser opens the hit at the same entry

    fork = open_any(hits[0].path)
    assert fork.index.by_id["L57"].text == "zebra crossing"
    assert fork.index.by_id["L57"].hidden is None and fork.index.by_id["L3"].hidden == "from-parent"
    hits = [h for h in search_sessions(paths, "struggled clmail") if isinstance(h, SearchHit)]
    assert hits and all(h.entry_id and len(h.entry_id) == 36 for h in hits)  # Claude uuids


def test_a_codex_fork_finds_its_parent_file_in_another_day(homes: Path) -> None:
    from loomtui.session.lineage import find_session_file

    sessions = list_sessions(cache=False)
    fork = next(s for s in sessions if s.id == "fork-0001")
    moved = homes / "codex" / "sessions" / "2025" / "12" / "11"
    moved.mkdir(parents=True)
    target = moved / Path(fork.path).name
    Path(fork.path).rename(target)
    assert fork.parent_session is not None
    parent = find_session_file(fork.parent_session, near=str(target))
    assert parent is not None and parent.endswith(
        "rollout-2025-12-10T04-55-16-019b04ae-b1c6-7c72-a134-a4c2de66058c.jsonl"
    )


def test_a_claude_branch_file_is_threaded_under_its_source(homes: Path) -> None:
    """/branch writes a new file whose lines carry forkedFrom {sessionId, messageUuid}."""
    from loomtui.formats.detect import open_any
    from loomtui.session.lineage import find_session_file

    project = homes / "claude" / "projects" / "-experiments-worktrees"
    source = project / "03eb5929.jsonl"
    rows = [json.loads(x) for x in source.read_text().splitlines()]
    branched = []
    for o in rows[:20]:
        if "sessionId" in o:
            o = {**o, "sessionId": "b0000000-0000-4000-8000-000000000001"}
        if o.get("uuid"):
            o["forkedFrom"] = {"sessionId": "03eb5929-52b3-4b13-ada3-b93ae35806b8", "messageUuid": o["uuid"]}
        branched.append(json.dumps(o))
    branch = project / "b0000000-0000-4000-8000-000000000001.jsonl"
    branch.write_text("\n".join(branched) + "\n")
    sessions = list_sessions(cache=False)
    group = next(g for g in group_sessions(sessions) if g.cwd == "/home/user/project")
    assert [(s.id[:8], depth) for s, depth in group.items] == [("03eb5929", 0), ("b0000000", 1)]
    sm = open_any(str(branch))
    assert sm.header["parentSession"] == "03eb5929-52b3-4b13-ada3-b93ae35806b8"
    assert find_session_file(sm.header["parentSession"], near=str(branch)) == str(source)
