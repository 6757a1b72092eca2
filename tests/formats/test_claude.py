"""Claude Code sessions: the tree against the fixtures' own counting script, kinds, stray forks,
subagents, tokens, leaf, labels in the store, exports."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from loomtui.cli import main
from loomtui.formats.agent.tools import CLAUDE_TOOLS, shown_calls
from loomtui.formats.claude import lines as claude
from loomtui.formats.claude.read import open_claude
from loomtui.formats.detect import open_any
from loomtui.session.manager import SessionManager
from loomtui.view.model import TreeModel
from tests.shared_material import FIXTURES, needs_shared

CLAUDE_FILES = [
    "alignment-hive__6f2580aa-3095-45b7-8d4e-dd8cac7eeffe.jsonl",
    "claude-code-log__03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl",
    "claude-code-log__0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl",
    "claude-code-log__ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl",
    "claude-code-log__ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/agent-a4ca7529859c158c2.jsonl",
    "claude-code-viewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
]
#: the leaf line each file's notes name (SOURCES.md)
LEAF_LINES = {
    CLAUDE_FILES[0]: 4053,
    CLAUDE_FILES[1]: 61,
    CLAUDE_FILES[2]: 68,
    CLAUDE_FILES[3]: 180,
    CLAUDE_FILES[4]: 56,
}
EF95 = CLAUDE_FILES[3]
REWIND = CLAUDE_FILES[1]


@pytest.fixture(scope="module")
def claude_dir(shared_dir: Path) -> Path:
    return shared_dir / "fixtures" / "claude"


@pytest.fixture(autouse=True)
def _label_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def tree_stats(claude_dir: Path, name: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, str(claude_dir / "tree_stats.py"), str(claude_dir / name)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out.split("\n", 1)[1])


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


@pytest.mark.parametrize("name", CLAUDE_FILES)
def test_tree_facts_equal_tree_stats(claude_dir: Path, name: str) -> None:
    want = tree_stats(claude_dir, name)
    sm = open_any(str(claude_dir / name))
    stats = sm.agent.stats
    assert stats["lines"] == want["entries"]
    assert stats["entries"] == want["uuid_entries"]
    assert len(stats["roots"]) == want["roots"]
    assert len(stats["leaves"]) == want["leaves"]
    assert len(stats["branchPoints"]) == want["branch_points"]
    kinds: dict[str, int] = {}
    for b in stats["branchPoints"]:
        kinds[b["kind"]] = kinds.get(b["kind"], 0) + 1
    assert kinds == want["branch_classes"]
    # every line is somewhere: an entry, or shown with one (each entry lists at most 200)
    attached = [a for v in sm.agent.attached.values() for a in v if a["type"] != "…"]
    assert sm.agent.extra["linesWithoutId"] == want["entries"] - want["uuid_entries"]
    assert len(attached) <= want["entries"] - want["uuid_entries"]
    if want["entries"] - want["uuid_entries"] < 200:
        assert len(attached) == want["entries"] - want["uuid_entries"]
    if name in LEAF_LINES:
        assert sm.agent.spans[sm.get_leaf_id()][2] == LEAF_LINES[name]


def test_info_json_keeps_its_shape_and_reports_the_file(claude_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from loomtui.cli import main

    want = tree_stats(claude_dir, EF95)
    assert main(["info", str(claude_dir / EF95), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    for key in ("roots", "leaves", "branchPoints", "usage", "leafId", "labels", "entryCount"):
        assert key in info
    assert len(info["roots"]) == want["roots"] and len(info["leaves"]) == want["leaves"]
    assert len(info["branchPoints"]) == want["branch_points"]
    assert info["usage"]["totalTokens"] == expected_tokens(claude_dir / EF95)


def expected_tokens(path: Path) -> int:
    """The format note's rule, written out: one usage per (message.id, requestId), the largest."""
    best: dict[Any, int] = {}
    for o in lines_of(path):
        msg = o.get("message")
        if o.get("type") != "assistant" or not isinstance(msg, dict) or not isinstance(msg.get("usage"), dict):
            continue
        u = msg["usage"]
        total = sum(
            int(u.get(k) or 0)
            for k in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
        )
        key = (msg.get("id"), o.get("requestId")) if msg.get("id") else o["uuid"]
        best[key] = max(best.get(key, 0), total)
    return sum(best.values())


@pytest.mark.parametrize("name", CLAUDE_FILES)
def test_token_totals_follow_the_counting_rule(claude_dir: Path, name: str) -> None:
    sm = open_any(str(claude_dir / name))
    assert sm.file_summary()["usage"]["totalTokens"] == expected_tokens(claude_dir / name)
    # split responses are counted once: fewer counted responses than assistant lines
    assistants = sum(1 for o in lines_of(claude_dir / name) if o.get("type") == "assistant")
    assert sm.file_summary()["usage"]["assistantMessagesWithUsage"] < assistants


def test_alignment_hive_split_response_counts_its_largest_part(claude_dir: Path) -> None:
    name = CLAUDE_FILES[0]
    rows = lines_of(claude_dir / name)
    parts: dict[str, list[int]] = {}
    for o in rows:
        if o.get("type") == "assistant":
            parts.setdefault(o["message"]["id"], []).append(o["message"]["usage"]["output_tokens"])
    differing = [k for k, v in parts.items() if len(set(v)) > 1]
    assert differing  # the fixture has partial usages (1 then 152)
    sm = open_any(str(claude_dir / name))
    counted = {
        sm.load(sm.index.by_id[eid])["agentSource"]["messageId"]: u["output"] for eid, u in sm.agent.usage.items()
    }
    for mid in differing:
        assert counted[mid] == max(parts[mid])


def test_rewind_at_line_16_shows_as_two_branches(claude_dir: Path) -> None:
    sm = open_any(str(claude_dir / REWIND))
    rows = lines_of(claude_dir / REWIND)
    parent = rows[15]["uuid"]
    kids = sm.index.children(parent)
    assert sorted(sm.agent.spans[k.id][2] for k in kids) == [18, 38]
    assert all(k.type == "message" and k.role == "user" for k in kids)
    model = TreeModel(sm)  # default filter: the hook summary at line 16 is hidden, both prompts stay
    text = "\n".join(model.plain_rows(200))
    first18 = rows[17]["message"]["content"][:40]
    first38 = rows[37]["message"]["content"][:40]
    lines = text.splitlines()
    row18 = next(x for x in lines if first18 in x)
    row38 = next(x for x in lines if first38 in x)
    assert ("├" in row18 and "└" in row38) or ("├" in row38 and "└" in row18)
    # the leaf (line 61) is on the line-38 branch: its prompt row is on the active path
    assert "•" in row38 and "•" not in row18


def test_kinds_map_to_pi_roles_so_filters_keep_their_meaning(claude_dir: Path) -> None:
    sm = open_any(str(claude_dir / CLAUDE_FILES[2]))  # 1.0.43: image, thinking, hooks, commands
    rows = lines_of(claude_dir / CLAUDE_FILES[2])
    by_line = {sm.agent.spans[e.id][2]: e for e in sm.index.entries if e.id in sm.agent.spans}
    for n, o in enumerate(rows, start=1):
        e = by_line[n]
        kind = claude.line_kind(o)
        if kind == "prompt":
            assert (e.type, e.role) == ("message", "user")
        elif kind == "tool_result":
            assert (e.type, e.role) == ("message", "toolResult")
        elif kind == "assistant":
            assert (e.type, e.role) == ("message", "assistant")
        elif o["type"] == "system":
            assert e.type == "custom"  # hook output: shown in the all filter
        else:
            assert e.type == "custom_message"
    image = sm.load(by_line[46])
    assert any(b["type"] == "image" and b["mimeType"] == "image/png" for b in image["message"]["content"])
    user_only = TreeModel(sm, filter_mode="user-only")
    assert all(user_only.entry_at(i).role == "user" for i in range(len(user_only)))
    no_tools = TreeModel(sm, filter_mode="no-tools")
    assert not any(no_tools.entry_at(i).role == "toolResult" for i in range(len(no_tools)))
    default = TreeModel(sm)
    assert any(default.entry_at(i).role == "toolResult" for i in range(len(default)))
    thinking = [
        e
        for e in sm.index.entries
        if e.role == "assistant" and any(b["type"] == "thinking" for b in sm.load(e)["message"]["content"])
    ]
    assert thinking
    # a thinking-only part of a split response has no text: hidden, as pi hides tool-only replies
    only = [e for e in thinking if not e.has_text]
    assert only and all(only[0].id != default.entry_at(i).id for i in range(len(default)))


def test_stray_forks_are_marked_and_only_the_all_filter_shows_them(claude_dir: Path) -> None:
    sm = open_any(str(claude_dir / EF95))
    rows = lines_of(claude_dir / EF95)
    uuid_at = {n: o["uuid"] for n, o in enumerate(rows, start=1) if o.get("uuid")}
    # line 55 has two children: the next parallel tool call (56) and its own result (61)
    assert {uuid_at[56], uuid_at[61]} == {k.id for k in sm.index.children(uuid_at[55])}
    for line in (57, 58, 61, 62):  # dead-end results of parallel calls and their hook lines
        assert sm.agent.stray[uuid_at[line]] in ("parallel tool call", "hook progress")
    assert uuid_at[63] not in sm.agent.stray  # the result the conversation continues from
    default = TreeModel(sm)
    shown = {default.entry_at(i).id for i in range(len(default))}
    assert uuid_at[61] not in shown and uuid_at[63] in shown
    everything = TreeModel(sm, filter_mode="all")
    all_rows = "\n".join(everything.plain_rows(200))
    assert uuid_at[61] in {everything.entry_at(i).id for i in range(len(everything))}
    assert "⑂ stray:" in all_rows
    # a real rewind is never marked
    rewind = open_any(str(claude_dir / REWIND))
    rrows = lines_of(claude_dir / REWIND)
    assert rrows[17]["uuid"] not in rewind.agent.stray and rrows[37]["uuid"] not in rewind.agent.stray


def test_lines_without_uuid_are_shown_with_their_entry(claude_dir: Path) -> None:
    sm = open_any(str(claude_dir / REWIND))
    rows = lines_of(claude_dir / REWIND)
    # line 17: a file-history snapshot naming the prompt at line 18
    target = rows[16]["messageId"]
    full = sm.get_entry(target)
    assert full is not None
    assert any(a["line"] == 17 and a["type"] == "file-history-snapshot" for a in full["agentSource"]["attached"])
    hive = open_any(str(claude_dir / CLAUDE_FILES[0]))
    # summaries whose leafUuid is in the file become labels on that entry
    hive_rows = lines_of(claude_dir / CLAUDE_FILES[0])
    summary = next(o for o in hive_rows if o.get("type") == "summary")
    assert hive.index.label_of(summary["leafUuid"])


def test_subagent_file_hangs_under_its_tool_call(claude_dir: Path) -> None:
    sm = open_any(str(claude_dir / EF95))
    rows = lines_of(claude_dir / EF95)
    result = rows[62]  # line 63: toolUseResult.agentId names the file
    assert result["toolUseResult"]["agentId"] == "a4ca7529859c158c2"
    sub = sm.subagent_of("agent:a4ca7529859c158c2")
    assert sub is not None and sub.path.endswith("subagents/agent-a4ca7529859c158c2.jsonl")
    row = sm.index.by_id["agent:a4ca7529859c158c2"]
    assert row.parent_id == result["uuid"]
    assert "Research Claude Code plan mode" in sm.load(row)["content"]
    opened = sm.open_subagent(row.id)
    assert opened is not None and len(opened.index.entries) == 56
    assert sm.open_subagent(result["uuid"]) is None


def test_inline_sidechains_hang_under_their_task_calls(claude_dir: Path) -> None:
    name = CLAUDE_FILES[5]
    sm = open_any(str(claude_dir / name))
    rows = lines_of(claude_dir / name)
    roots = [o for o in rows if o.get("isSidechain") and o.get("parentUuid") is None]
    assert len(roots) == 5
    calls = {
        b["id"]: b["input"]
        for o in rows
        if o.get("type") == "assistant"
        for b in o["message"]["content"]
        if b.get("type") == "tool_use" and b.get("name") == "Task"
    }
    results = {
        b["tool_use_id"]: o["uuid"]
        for o in rows
        if o.get("type") == "user" and isinstance(o["message"]["content"], list)
        for b in o["message"]["content"]
        if b.get("type") == "tool_result"
    }
    for r in roots:
        sub = sm.subagent_of(f"agent:{r['uuid']}")
        assert sub is not None and sub.call_id in calls
        assert calls[sub.call_id]["prompt"].strip() == r["message"]["content"].strip()
        assert sm.index.by_id[sub.entry_id].parent_id == results[sub.call_id]
        side = sm.open_subagent(sub.entry_id)
        assert side is not None and side.index.roots[0].id == r["uuid"]
        assert len(side.index.entries) == sub.entries
    # the main view holds the main conversation only (plus the five rows)
    assert sum(1 for e in sm.index.entries if e.id in sm.agent.spans) == 437 - 405


def test_detected_by_content_not_by_name(claude_dir: Path, tmp_path: Path) -> None:
    odd = tmp_path / "whatever.log"
    shutil.copyfile(claude_dir / REWIND, odd)
    sm = open_any(str(odd))
    assert sm.source_format == "claude-code"
    assert len(sm.agent.stats["roots"]) == 1


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_label_survives_a_restart_and_the_file_stays_byte_identical(claude_dir: Path, tmp_path: Path) -> None:
    f = tmp_path / "s.jsonl"
    shutil.copyfile(claude_dir / REWIND, f)
    before = sha(f)
    sm = open_any(str(f))
    target = lines_of(f)[17]["uuid"]
    sm.append_label_change(target, "liked it")
    assert sm.index.label_of(target) == "liked it"
    again = open_any(str(f))  # a new process would read the same store
    assert again.index.label_of(target) == "liked it"
    assert "liked it" in "\n".join(TreeModel(again, filter_mode="labeled-only").plain_rows(200))
    search = TreeModel(again)
    search.set_query("liked")
    assert len(search) == 1 and search.entry_at(0).id == target
    again.append_label_change(target, None)
    assert open_any(str(f)).index.label_of(target) is None
    assert sha(f) == before
    with pytest.raises(Exception):  # noqa: B017 (any refusal: nothing may be written)
        again.append_custom_entry("loomtui/test")
    assert sha(f) == before


def test_export_branch_in_claude_format_reopens_with_exactly_the_branch(claude_dir: Path, tmp_path: Path) -> None:
    f = tmp_path / "s.jsonl"
    shutil.copyfile(claude_dir / REWIND, f)
    sm = open_any(str(f))
    rows = lines_of(f)
    leaf = rows[34]["uuid"]  # line 35: the end of the abandoned branch
    branch = [e.id for e in sm.index.path_to(leaf)]
    out = Path(sm.create_branched_session(leaf))
    assert out.parent == tmp_path and out.name != f.name
    back = open_any(str(out))
    assert back.source_format == "claude-code"
    assert [e.id for e in back.index.entries] == branch
    assert back.get_leaf_id() == leaf
    assert back.agent.session_id != sm.agent.session_id
    original = f.read_bytes().splitlines()
    exported = out.read_bytes().splitlines()
    for raw in exported:  # the original bytes, only the session id differs
        assert raw.replace(back.agent.session_id.encode(), sm.agent.session_id.encode()) in original


def test_export_branch_to_pi_and_openloom(claude_dir: Path, tmp_path: Path) -> None:
    from loomtui.formats.looms.export import export_openloom

    f = tmp_path / "s.jsonl"
    shutil.copyfile(claude_dir / REWIND, f)
    sm = open_any(str(f))
    leaf = sm.get_leaf_id()
    assert leaf is not None
    branch = [e.id for e in sm.index.path_to(leaf)]
    pi = SessionManager.open(sm.export_pi(leaf))
    assert [e.id for e in pi.index.entries] == branch
    assert pi.header["parentSession"] == str(f)
    res = export_openloom(sm, str(tmp_path / "b.openloom"), leaf_id=leaf)
    assert res.nodes > 0 and open_any(res.path).index.entries


@pytest.mark.parametrize("name", CLAUDE_FILES)
def test_fast_skeletons_equal_what_fill_makes_of_the_full_entry(claude_dir: Path, name: str) -> None:
    """The reader builds skeletons straight from each line; the detail pane, search and export
    use the full entry (``to_pi``). Both must agree on everything the tree shows."""
    from loomtui.session.manager import entry_from_dict

    sm = open_any(str(claude_dir / name))
    fields = (
        "type",
        "role",
        "timestamp",
        "text",
        "aux",
        "has_text",
        "stop_reason",
        "tool_name",
        "tool_calls",
        "content_is_str",
        "hidden",
        "parent_id",
    )
    checked = 0
    for e in sm.index.entries:
        if e.id not in sm.agent.spans:
            continue  # a subagent row (kept in memory)
        full = entry_from_dict(sm.load(e))
        assert full is not None
        # the skeleton's tool calls are the rows' pi forms of the entry's (formats/agent/tools.py)
        full.tool_calls = shown_calls(CLAUDE_TOOLS, full.tool_calls)
        for f in fields:
            assert getattr(e, f) == getattr(full, f), (e.id, f)
        checked += 1
    assert checked == sum(1 for e in sm.index.entries if e.data is None)


@needs_shared()
def test_generated_session_reads_consistently(tmp_path: Path) -> None:
    """The benchmark's generator (rewinds, split responses, parallel calls, hook lines): the
    file's tree equals what the fixtures' script counts, and skeletons equal the full entries."""
    from loomtui.session.manager import entry_from_dict

    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "gen.jsonl"
    subprocess.run(
        [
            sys.executable,
            str(root / "benchmarks" / "gen_claude_session.py"),
            str(out),
            "--lines",
            "900",
            "--rewind-every",
            "5",
        ],
        check=True,
    )
    shared = FIXTURES / "claude" / "tree_stats.py"
    want = json.loads(
        subprocess.run(
            [sys.executable, str(shared), str(out)], capture_output=True, text=True, check=True
        ).stdout.split("\n", 1)[1]
    )
    sm = open_any(str(out))
    s = sm.agent.stats
    assert (s["entries"], len(s["roots"]), len(s["leaves"]), len(s["branchPoints"])) == (
        want["uuid_entries"],
        want["roots"],
        want["leaves"],
        want["branch_points"],
    )
    assert want["branch_classes"].get("prompt", 0) > 0  # the rewinds are there
    for e in sm.index.entries:
        full = entry_from_dict(sm.load(e))
        assert full is not None and (e.text, e.role, e.tool_calls, e.hidden) == (
            full.text,
            full.role,
            shown_calls(CLAUDE_TOOLS, full.tool_calls),
            full.hidden,
        )


def _line(uuid: str, parent: str | None, kind: str, content: Any, **extra: Any) -> str:
    msg = {"role": "user" if kind == "user" else "assistant", "content": content}
    if kind == "assistant":
        msg.update({"id": f"msg_{uuid}", "model": "m", "usage": {"input_tokens": 1, "output_tokens": 1}})
    return json.dumps(
        {
            "parentUuid": parent,
            "isSidechain": False,
            "sessionId": "s-1",
            "type": kind,
            "message": msg,
            "uuid": uuid,
            "timestamp": f"2026-01-01T00:00:{len(uuid):02d}Z",
            **extra,
        }
    )


def test_abandoned_branch_keeps_its_tail_after_a_parallel_call(tmp_path: Path) -> None:
    """A rewind leaves a branch whose last turn had parallel tool calls: its continuation is not
    a stray fork (only the dead-end result is)."""
    call = lambda i, tid: {"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": f"c{i}"}}  # noqa: E731
    result = lambda tid: [{"type": "tool_result", "tool_use_id": tid, "content": "ok"}]  # noqa: E731
    rows = [
        _line("p1", None, "user", "first question"),
        _line("a1", "p1", "assistant", [{"type": "text", "text": "answer one"}]),
        _line("p2", "a1", "user", "abandoned question"),
        _line("c1", "p2", "assistant", [call(1, "t1")]),
        _line("c2", "c1", "assistant", [call(2, "t2")]),
        _line("r2", "c2", "user", result("t2")),  # dead end
        _line("r1", "c1", "user", result("t1")),  # the abandoned branch goes on from here
        _line("a2", "r1", "assistant", [{"type": "text", "text": "abandoned answer"}]),
        _line("p3", "a1", "user", "the question asked instead"),  # the rewind
        _line("a3", "p3", "assistant", [{"type": "text", "text": "final answer"}]),
    ]
    f = tmp_path / "s-1.jsonl"
    f.write_text("\n".join(rows) + "\n")
    sm = open_any(str(f))
    assert sm.get_leaf_id() == "a3"
    assert set(sm.agent.stray) == {"c2", "r2"}
    shown = TreeModel(sm)
    ids = {shown.entry_at(i).id for i in range(len(shown))}
    assert {"p2", "r1", "a2", "p3", "a3"} <= ids and "r2" not in ids


def test_lines_linked_in_a_cycle_below_a_fork_open(tmp_path: Path) -> None:
    """Two lines naming each other as parent, one of them at a fork: the file opens (in a child
    process, so that a reader going round the cycle fails here instead of hanging)."""
    rows = [
        _line("r", None, "user", "hi"),
        _line("a", "b", "assistant", [{"type": "text", "text": "x"}]),
        _line("b", "a", "assistant", [{"type": "text", "text": "y"}]),
        _line("c", "a", "user", [{"type": "tool_result", "tool_use_id": "q", "content": "z"}]),
        _line("d", "r", "user", "again"),
    ]
    f = tmp_path / "s-1.jsonl"
    f.write_text("\n".join(rows) + "\n")
    code = (
        "import sys, json; from loomtui.formats.detect import open_any; sm = open_any(sys.argv[1]); "
        "print(json.dumps([sm.get_leaf_id(), sorted(sm.agent.stray), len(sm.index.entries)]))"
    )
    out = subprocess.run([sys.executable, "-c", code, str(f)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    leaf, stray, n = json.loads(out.stdout)
    assert leaf == "d" and n == 5
    assert "c" in stray or "b" in stray  # one side of the tool fork is stray, the cycle did not stop it


def test_a_child_written_before_its_parent_and_children_of_a_missing_parent(tmp_path: Path) -> None:
    """The file's own tree is read by index (``Scan.parents``): a result written before its call
    still hangs under it, and two lines naming the same parent that is not in the file are
    siblings of one fork, as when the tree was a map of children by uuid."""
    call = lambda tid: [{"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": tid}}]  # noqa: E731
    result = lambda tid: [{"type": "tool_result", "tool_use_id": tid, "content": "ok"}]  # noqa: E731
    rows = [
        _line("p1", None, "user", "question"),
        _line("r2", "c2", "user", result("t2")),  # before its call
        _line("c1", "p1", "assistant", call("t1")),
        _line("c2", "c1", "assistant", call("t2")),
        _line("r1", "c1", "user", result("t1")),
        _line("x1", "gone", "assistant", call("t3")),
        _line("x2", "gone", "user", result("t3")),
        _line("a1", "r1", "assistant", [{"type": "text", "text": "answer"}]),
    ]
    f = tmp_path / "s-1.jsonl"
    f.write_text("\n".join(rows) + "\n")
    sm = open_any(str(f))
    assert sm.get_leaf_id() == "a1"
    assert sm.agent.stray == {"c2": "parallel tool call", "r2": "parallel tool call", "x1": "parallel tool call"}
    stats = {k: v() if callable(v) else v for k, v in sm.agent.stats.items()}
    assert stats["danglingParents"] == 2 and sorted(stats["leaves"]) == ["a1", "r2", "x1", "x2"]
    assert [(b["id"], b["children"]) for b in stats["branchPoints"]] == [("c1", 2), ("gone", 2)]


@pytest.mark.parametrize("name", CLAUDE_FILES)
def test_lines_without_a_uuid_are_attached_without_counting_the_tokens(claude_dir: Path, name: str) -> None:
    """A user's or a tool result's detail asks for the attached lines only: the tokens (a pass
    over every usage line) stay uncounted until asked for, and both come out as when made together."""
    sm = open_any(str(claude_dir / name))
    src = sm.agent
    attached = src.attached
    assert src.attached is attached  # asked again: still not counted
    assert src.deferred is not None  # the tokens are not counted yet
    usage = src.usage
    assert src.deferred is None and src.deferred_attached is None
    together = open_any(str(claude_dir / name)).agent
    together.ensure()
    assert attached == together.attached and usage == together.usage
    assert src.extra == together.extra


def _usage_alone_equals_the_count(path: Path, **kw: Any) -> int:
    alone = open_claude(str(path), **kw)
    src = alone.agent
    ids = [e.id for e in alone.index.entries]
    got = {eid: src.usage_one(eid) for eid in ids}  # type: ignore[misc]
    assert src.deferred is not None  # nothing was counted for the whole file meanwhile
    counted = open_claude(str(path), **kw).agent.usage
    assert {k: v for k, v in got.items() if v is not None} == {k: v for k, v in counted.items() if k in got}
    return len(counted)


@pytest.mark.parametrize("name", CLAUDE_FILES)
def test_one_entrys_tokens_alone_equal_the_whole_files_count(claude_dir: Path, name: str) -> None:
    """An assistant's detail reads its own response's lines only (``claude/tree.one_usage``);
    every entry gets what counting the whole file gives it."""
    assert _usage_alone_equals_the_count(claude_dir / name) > 0


def test_one_entrys_tokens_follow_the_rule_on_repeats_and_sidechains(tmp_path: Path) -> None:
    """Split responses, a part repeated right after itself (skipped), the same response again
    after another one's line (not skipped: a new walk), a sidechain copy (the main line wins)."""

    def line(n: int, mid: str, out: int, side: bool = False, rid: str | None = "r") -> str:
        return json.dumps(
            {
                "type": "assistant",
                "uuid": f"u{n}",
                "parentUuid": f"u{n - 1}" if n else None,
                "isSidechain": side,
                "sessionId": "s",
                "requestId": rid,
                "timestamp": f"2026-01-01T00:00:{n:02d}Z",
                "message": {
                    "id": mid,
                    "role": "assistant",
                    "content": [{"type": "text", "text": "t"}],
                    "usage": {"input_tokens": 1, "output_tokens": out},
                },
            }
        )

    rows = [
        line(0, "a", 1),
        line(1, "a", 1),
        line(2, "a", 5),
        line(3, "b", 2),
        line(4, "a", 5),
        line(5, "a", 5, True),
        line(6, "c", 3, True),
        line(7, "c", 3),
        line(8, "d", 4, rid=None),
        line(9, "d", 9, rid="x"),
        line(10, "e", 2),
        line(11, "e", 2, True),
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(rows) + "\n")
    assert _usage_alone_equals_the_count(path) >= 4


def test_many_entries_asked_one_by_one_count_the_whole_file_once(claude_dir: Path) -> None:
    """A detail pane asks for one or two entries' tokens (read alone); ``info`` asks for every
    assistant turn: past a few, the whole file is counted once instead."""
    from loomtui.formats.agent.session import USAGE_ALONE

    sm = open_any(str(claude_dir / CLAUDE_FILES[0]))
    src = sm.agent
    ids = [e.id for e in sm.index.entries]
    assert len(ids) > USAGE_ALONE + 1
    first = [src.usage_of(eid) for eid in ids[:USAGE_ALONE]]
    assert src.deferred is not None  # read alone so far
    rest = [src.usage_of(eid) for eid in ids[USAGE_ALONE:]]
    assert src.deferred is None  # counted once
    assert first + rest == [src.usage.get(eid) for eid in ids]


def test_one_entrys_tokens_when_the_usage_lines_come_out_of_order(
    claude_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``one_usage`` finds an entry's usage line by bisection over line numbers; were the lines
    ever out of order it looks them up by a map instead, and still gives what the count gives."""
    from loomtui.formats.claude import scan as claude_scan

    real = claude_scan.Scan.usage

    def reversed_usage(self: Any) -> list[Any]:
        lines = real(self)
        lines.reverse()
        return lines

    monkeypatch.setattr(claude_scan.Scan, "usage", reversed_usage)
    assert _usage_alone_equals_the_count(claude_dir / CLAUDE_FILES[0]) > 0


def test_export_to_pi_keeps_the_stores_labels_and_the_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``export-branch --as pi``: labels set with loomtui (its label store, never the file) become
    pi label entries on the branch, a cleared one does not; the session's title a session_info."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    lines = [{"type": "custom-title", "customTitle": "Storage plan", "sessionId": "s9"}]
    parent = None
    for k, (t, text) in enumerate([("user", "first"), ("assistant", "one"), ("user", "second"), ("assistant", "two")]):
        content: Any = text if t == "user" else [{"type": "text", "text": text}]
        lines.append(
            {
                "type": t,
                "uuid": f"e{k}",
                "parentUuid": parent,
                "sessionId": "s9",
                "cwd": "/w",
                "timestamp": f"2026-09-30T10:00:0{k}Z",
                "message": {"role": t, "content": content},
            }
        )
        parent = f"e{k}"
    path = tmp_path / "s9.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    sm = open_any(str(path))
    sm.append_label_change("e0", "start")
    sm.append_label_change("e2", "gone")
    sm.append_label_change("e2", None)
    sm.append_label_change("e3", "end")
    before = path.read_bytes()
    out = tmp_path / "out.jsonl"
    assert main(["export-branch", str(path), "--leaf", "e3", "--as", "pi", "-o", str(out)]) == 0
    assert path.read_bytes() == before
    pi = SessionManager.open(str(out))
    assert {e: pi.get_label(e) for e in ("e0", "e2", "e3")} == {"e0": "start", "e2": None, "e3": "end"}
    assert pi.index.session_name == "Storage plan"
    assert [e.id for e in pi.index.path_to("e3")] == ["e0", "e1", "e2", "e3"]


def _cc(**k: Any) -> str:
    return json.dumps(k)


def _conversation(sid: str, extra: dict[str, Any] | None = None) -> list[str]:
    more = extra or {}
    return [
        _cc(
            type="user",
            uuid="u1",
            parentUuid=None,
            sessionId=sid,
            cwd="/w",
            timestamp="2026-09-30T10:00:00Z",
            message={"role": "user", "content": "first question"},
            **more,
        ),
        _cc(
            type="file-history-snapshot",
            messageId="u1",
            isSnapshotUpdate=False,
            snapshot={"messageId": "u1", "trackedFileBackups": {}, "timestamp": "2026-09-30T10:00:00Z"},
        ),
        _cc(
            type="assistant",
            uuid="a1",
            parentUuid="u1",
            sessionId=sid,
            timestamp="2026-09-30T10:00:01Z",
            requestId="q1",
            message={"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "one"}]},
            **more,
        ),
        _cc(
            type="file-history-delta",
            messageId="u1",
            snapshotMessageId="u1",
            trackingPath="notes.md",
            backup={"backupFileName": "f@v2", "version": 2},
            timestamp="2026-09-30T10:00:02Z",
        ),
        _cc(
            type="user",
            uuid="u2",
            parentUuid="a1",
            sessionId=sid,
            timestamp="2026-09-30T10:00:03Z",
            message={"role": "user", "content": "second"},
            **more,
        ),
        _cc(
            type="assistant",
            uuid="a2",
            parentUuid="u2",
            sessionId=sid,
            timestamp="2026-09-30T10:00:04Z",
            requestId="q2",
            message={"id": "m2", "role": "assistant", "content": [{"type": "text", "text": "two"}]},
            **more,
        ),
    ]


def _rows(path: Path, mode: str = "default") -> list[str]:
    model = TreeModel(open_any(str(path)), filter_mode=mode)
    return [r.strip().removeprefix("› ").removeprefix("• ") for r in model.plain_rows(200)]


def test_file_history_delta_lines_are_bookkeeping_even_first(tmp_path: Path) -> None:
    """2.1.x writes a ``file-history-delta`` (one tracked file's new backup, no uuid) between
    snapshots: it is listed with the entry its ``messageId`` names, never a row, and a file that
    starts with one is still a Claude Code session."""
    lines = _conversation("s1")
    path = tmp_path / "s1.jsonl"
    path.write_text("\n".join([lines[3], *lines]) + "\n")
    sm = open_any(str(path))
    assert _rows(path, "all") == ["user: first question", "assistant: one", "user: second", "assistant: two"]
    attached = sm.agent.attached["u1"]
    assert [(a["type"], a["text"]) for a in attached if a["type"] == "file-history-delta"] == [
        ("file-history-delta", "notes.md v2"),
        ("file-history-delta", "notes.md v2"),
    ]
    assert not sm.index.diagnostics


def _bg_project(tmp_path: Path, with_parent: bool = True) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    if with_parent:
        (folder / "s1.jsonl").write_text("\n".join(_conversation("s1")) + "\n")
    bg = {"sessionKind": "bg"}
    own = [
        _cc(type="agent-name", agentName="fork ⑂ storage", sessionId="s2"),
        *_conversation("s2", bg),
        _cc(
            type="user",
            uuid="u3",
            parentUuid="a2",
            sessionId="s2",
            timestamp="2026-09-30T11:00:00Z",
            message={"role": "user", "content": "background task"},
            **bg,
        ),
        _cc(
            type="assistant",
            uuid="a3",
            parentUuid="u3",
            sessionId="s2",
            timestamp="2026-09-30T11:00:01Z",
            requestId="q3",
            message={"id": "m3", "role": "assistant", "content": [{"type": "text", "text": "done in the background"}]},
            **bg,
        ),
    ]
    (folder / "s2.jsonl").write_text("\n".join(own) + "\n")
    return folder / "s2.jsonl"


def test_background_fork_shows_its_own_lines_once(tmp_path: Path) -> None:
    """A ``sessionKind: "bg"`` fork replays its parent's lines with their uuids: beside the
    parent, those are marked as from the parent (the all filter shows them), the fork names its
    parent, and the picker threads it under the parent."""
    from loomtui.session.catalog import agent_summary as summary

    path = _bg_project(tmp_path)
    assert _rows(path) == ["user: background task", "assistant: done in the background"]
    assert _rows(path, "all") == [
        "↰ from parent: user: first question",
        "↰ from parent: assistant: one",
        "↰ from parent: user: second",
        "↰ from parent: assistant: two",
        "user: background task",
        "assistant: done in the background",
    ]
    sm = open_any(str(path))
    assert sm.header["parentSession"] == "s1"
    assert sm.load(sm.index.by_id["u1"]).get("hidden") == "from-parent"
    found = summary(str(path), path.read_bytes(), 0.0)
    assert found is not None and found.parent_session == "s1"


def test_background_fork_without_its_parent_shows_everything(tmp_path: Path) -> None:
    path = _bg_project(tmp_path, with_parent=False)
    assert _rows(path)[:2] == ["user: first question", "assistant: one"]


def test_a_usage_count_that_is_not_a_number_is_counted_as_zero(tmp_path: Path) -> None:
    """Two lines of one response, one of them with a count written as a string: the lines are
    ranked by the counts that are numbers (the string counts 0), never a crash."""
    common = {"sessionId": "s7", "cwd": "/w", "requestId": "r1"}
    lines = [
        {
            "type": "user",
            "uuid": "u0",
            "parentUuid": None,
            **common,
            "timestamp": "2026-09-30T10:00:00Z",
            "message": {"role": "user", "content": "hi"},
        }
    ]
    for k, usage in enumerate([{"input_tokens": "12", "output_tokens": 3}, {"input_tokens": 5, "output_tokens": 4}]):
        lines.append(
            {
                "type": "assistant",
                "uuid": f"a{k}",
                "parentUuid": "u0" if k == 0 else "a0",
                **common,
                "timestamp": f"2026-09-30T10:00:0{k + 1}Z",
                "message": {
                    "id": "m1",
                    "role": "assistant",
                    "content": [{"type": "text", "text": f"part {k}"}],
                    "usage": usage,
                },
            }
        )
    path = tmp_path / "s7.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    usage = open_claude(str(path)).agent.usage
    assert usage == {"a1": {"input": 5, "output": 4, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 9}}


@needs_shared()
def test_enter_and_the_detail_speak_claude_codes_words_not_pis() -> None:
    """Enter on a user or command row said "(pi: re-edit it)"; a command's detail read
    "[command] custom message (shown in the chat)": pi's custom messages and editor."""
    from loomtui.view.blocks import Title, entry_blocks
    from loomtui.view.controller import SessionController

    path = FIXTURES / "claude" / "claude-code-log__03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl"
    controller = SessionController(open_any(str(path)))
    index = controller.manager.index
    command = next(e for e in index.entries if e.type == "custom_message" and e.aux == "command")
    titles = [b.text for b in entry_blocks(controller.manager, command) if isinstance(b, Title)]
    assert titles[0] == "[command]", titles
    user = next(
        e
        for e in index.entries
        if e.type == "message"
        and e.role == "user"
        and index.parent_of(e) is not None
        and e.id != controller.model.leaf_id
    )
    notes = [n.text for n in controller.move_leaf(user.id).notices]
    assert notes and all("pi" not in n.split() and "pi:" not in n for n in notes), notes
    assert "the parent of this message: the branch now ends before it" in notes[0]
