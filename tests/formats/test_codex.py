"""Codex rollouts: counts against the fixtures' script, turns, compaction, rollbacks as side
branches, forks' replayed prefix, tokens, labels and exports."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from loomtui.formats.detect import open_any
from loomtui.session.manager import SessionManager
from loomtui.view.model import TreeModel

CODEX_FILES = [
    "agtrace__codex_session.jsonl",
    "localpush__rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl",
    "localpush__rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl",
    "agent-history__session-01.jsonl",
]
CONVERSATIONAL = (
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "web_search_call",
)


@pytest.fixture(scope="module")
def codex_dir(shared_dir: Path) -> Path:
    return shared_dir / "fixtures" / "codex"


@pytest.fixture(autouse=True)
def _label_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def rollout_stats(codex_dir: Path, name: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, str(codex_dir / "rollout_stats.py"), str(codex_dir / name)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out.split("\n", 1)[1])


@pytest.mark.parametrize("name", CODEX_FILES)
def test_counts_and_tokens_equal_rollout_stats(codex_dir: Path, name: str) -> None:
    want = rollout_stats(codex_dir, name)
    sm = open_any(str(codex_dir / name))
    assert sm.source_format == "codex"
    summary = sm.file_summary()
    assert summary["source"]["lines"] == want["lines"]
    items = sum(n for k, n in want["kinds"].items() if k.split("/", 1)[-1] in CONVERSATIONAL)
    model_changes = 0  # one model per fixture
    assert summary["entryCount"] == items + want["kinds"].get("compacted", 0) + model_changes
    assert len(summary["roots"]) == 1 and len(summary["leaves"]) == 1 and summary["branchPoints"] == []
    assert summary["usage"]["totalTokens"] == want["final_total_token_usage"]["total_tokens"]
    assert summary["usage"]["cacheRead"] == want["final_total_token_usage"]["cached_input_tokens"]
    assert summary["usage"]["output"] == want["final_total_token_usage"]["output_tokens"]
    assert sm.header["id"] == want["session_meta"][0]["id"]


def test_prompts_context_and_turns(codex_dir: Path) -> None:
    sm = open_any(str(codex_dir / CODEX_FILES[0]))
    prompts = [e for e in sm.index.entries if e.role == "user"]
    assert [sm.agent.spans[e.id][2] for e in prompts] == [3, 25]  # line 2 is environment context
    assert sm.index.by_id["L2"].type == "custom_message"
    user_only = TreeModel(sm, filter_mode="user-only")
    assert [user_only.entry_at(i).id for i in range(len(user_only))] == ["L3", "L25"]
    rows = "\n".join(TreeModel(sm).plain_rows(200))
    assert "[bash: mkdir -p myapp]" in rows and "assistant: Added simple script" in rows
    # lines that are not entries are listed with the entry before them
    attached = sm.get_entry("L3")["agentSource"]["attached"]
    assert any(a["type"] == "turn_context" for a in attached)


def test_unfinished_turn_ends_on_the_call(codex_dir: Path) -> None:
    sm = open_any(str(codex_dir / CODEX_FILES[2]))
    assert sm.get_leaf_id() == "L18"
    leaf = sm.get_entry(sm.get_leaf_id() or "")
    assert leaf is not None and leaf["message"]["content"][0]["type"] == "toolCall"


def test_compaction_is_an_entry_on_the_line(codex_dir: Path) -> None:
    sm = open_any(str(codex_dir / CODEX_FILES[1]))
    e = sm.index.by_id["L1788"]
    assert e.type == "compaction"
    assert len(sm.index.children("L1788")) == 1
    assert sm.index.path_to(sm.get_leaf_id())[0].id == sm.index.roots[0].id
    assert "L1788" in {x.id for x in sm.index.path_to(sm.get_leaf_id())}


def _line(t: str, payload: dict[str, Any], ts: str) -> str:
    return json.dumps({"timestamp": ts, "type": t, "payload": payload})


def _msg(role: str, text: str, ts: str) -> list[str]:
    kind = "input_text" if role == "user" else "output_text"
    out = [_line("response_item", {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}, ts)]
    if role == "user":
        out.append(_line("event_msg", {"type": "user_message", "message": text, "images": []}, ts))
    return out


def write_rollback(path: Path) -> None:
    rows = [
        _line(
            "session_meta", {"id": "thread-1", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/p"}, "2026-01-01T00:00:00Z"
        )
    ]
    rows += _msg("user", "first", "2026-01-01T00:00:01Z") + _msg("assistant", "one", "2026-01-01T00:00:02Z")
    rows += _msg("user", "second", "2026-01-01T00:00:03Z") + _msg("assistant", "two", "2026-01-01T00:00:04Z")
    rows += _msg("user", "third", "2026-01-01T00:00:05Z") + _msg("assistant", "three", "2026-01-01T00:00:06Z")
    rows.append(_line("event_msg", {"type": "thread_rolled_back", "num_turns": 2}, "2026-01-01T00:00:07Z"))
    rows += _msg("user", "second again", "2026-01-01T00:00:08Z") + _msg("assistant", "better", "2026-01-01T00:00:09Z")
    path.write_text("\n".join(rows) + "\n")


def test_rollback_makes_the_dropped_turns_a_side_branch(tmp_path: Path) -> None:
    f = tmp_path / "rollout-2026-01-01T00-00-00-thread-1.jsonl"
    write_rollback(f)
    sm = open_any(str(f))
    texts = {e.id: e.text for e in sm.index.entries}
    first_reply = next(k for k, v in texts.items() if v == "one")
    kids = sm.index.children(first_reply)
    assert sorted(texts[k.id] for k in kids) == ["second", "second again"]
    assert texts[sm.get_leaf_id()] == "better"
    path = [texts[e.id] for e in sm.index.path_to(sm.get_leaf_id())]
    assert path == ["first", "one", "second again", "better"]
    # the dropped turns are marked; only the all filter shows them
    dropped = [e.id for e in sm.index.entries if texts[e.id] in ("second", "two", "third", "three")]
    assert all(sm.agent.stray[d].startswith("rolled back") for d in dropped)
    shown = TreeModel(sm)
    assert not {shown.entry_at(i).id for i in range(len(shown))} & set(dropped)
    everything = TreeModel(sm, filter_mode="all")
    assert set(dropped) <= {everything.entry_at(i).id for i in range(len(everything))}
    assert sm.file_summary()["branchPoints"] == [{"id": first_reply, "children": 2, "kind": "rollback"}]


def test_fork_shows_the_replayed_prefix_folded_as_from_parent(tmp_path: Path) -> None:
    parent_rows = [
        _line(
            "session_meta", {"id": "parent-1", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/p"}, "2026-01-01T00:00:00Z"
        )
    ]
    history = _msg("user", "old question", "2026-01-01T00:00:01Z") + _msg(
        "assistant", "old answer", "2026-01-01T00:00:02Z"
    )
    rows = [
        _line(
            "session_meta",
            {"id": "fork-1", "forked_from_id": "parent-1", "timestamp": "2026-01-02T00:00:00Z", "cwd": "/p"},
            "2026-01-02T00:00:00Z",
        )
    ]
    rows += parent_rows + history
    rows += _msg("user", "new question", "2026-01-02T00:00:05Z") + _msg(
        "assistant", "new answer", "2026-01-02T00:00:06Z"
    )
    f = tmp_path / "rollout-fork.jsonl"
    f.write_text("\n".join(rows) + "\n")
    sm = open_any(str(f))
    assert sm.header["parentSession"] == "parent-1"
    row = sm.index.by_id["from-parent"]
    assert "parent-1" in sm.load(row)["content"]
    default = TreeModel(sm)
    shown = [default.entry_at(i) for i in range(len(default))]
    assert [e.text for e in shown if e.role] == ["new question", "new answer"]
    assert shown[0].id == "from-parent"
    everything = TreeModel(sm, filter_mode="all")
    assert "old question" in "\n".join(everything.plain_rows(200))
    assert "↰ from parent:" in "\n".join(everything.plain_rows(200))


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_label_in_the_store_and_the_rollout_untouched(codex_dir: Path, tmp_path: Path) -> None:
    f = tmp_path / "r.jsonl"
    shutil.copyfile(codex_dir / CODEX_FILES[0], f)
    before = sha(f)
    open_any(str(f)).append_label_change("L25", "second prompt")
    again = open_any(str(f))
    assert again.index.label_of("L25") == "second prompt"
    assert sha(f) == before


def test_export_branch_in_codex_format_reopens_with_the_branch(tmp_path: Path) -> None:
    f = tmp_path / "rollout-2026-01-01T00-00-00-thread-1.jsonl"
    write_rollback(f)
    sm = open_any(str(f))
    leaf = sm.get_leaf_id()
    assert leaf is not None
    branch = [sm.get_entry(e.id)["agentSource"]["line"] for e in sm.index.path_to(leaf)]
    out = Path(sm.create_branched_session(leaf))
    assert out.name.startswith("rollout-") and out.parent == tmp_path
    back = open_any(str(out))
    assert back.source_format == "codex" and back.agent.session_id != "thread-1"
    assert [e.text for e in back.index.entries] == [e.text for e in sm.index.path_to(leaf)]
    assert len(back.index.entries) == len(branch)
    assert back.file_summary()["branchPoints"] == []
    original = f.read_bytes().splitlines()
    assert all(raw in original for raw in out.read_bytes().splitlines()[1:])
    pi = SessionManager.open(sm.export_pi(leaf))
    assert len(pi.index.entries) == len(branch)


def _rollout(tmp_path: Path, lines: list[tuple[str, dict[str, Any]]]) -> Path:
    meta = (
        "session_meta",
        {"id": "c-prompts", "timestamp": "2026-09-30T10:00:00Z", "cwd": "/w", "cli_version": "0.135"},
    )
    path = tmp_path / "rollout-2026-09-30T10-00-00-c-prompts.jsonl"
    path.write_text(
        "".join(
            json.dumps({"timestamp": f"2026-09-30T10:00:{n:02d}Z", "type": t, "payload": p}) + "\n"
            for n, (t, p) in enumerate([meta, *lines])
        )
    )
    return path


def _user_item(text: str, image: bool = False) -> tuple[str, dict[str, Any]]:
    content: list[dict[str, Any]] = [{"type": "input_text", "text": text}]
    if image:
        content.append({"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="})
    return "response_item", {"type": "message", "role": "user", "content": content}


def _user_event(text: str) -> tuple[str, dict[str, Any]]:
    return "event_msg", {"type": "user_message", "message": text, "images": []}


def _reply(text: str) -> tuple[str, dict[str, Any]]:
    return "response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}


def _user_only(path: Path) -> list[str]:
    model = TreeModel(open_any(str(path)), filter_mode="user-only")
    return [model.entry_at(i).text or "" for i in range(len(model))]


def test_prompts_are_the_items_user_message_events_confirm_whatever_their_text(tmp_path: Path) -> None:
    """The event's text differs from the item's (redacted, an attachment added): the item is
    still the prompt; injected context without a known prefix (redacted too) is not."""
    path = _rollout(
        tmp_path,
        [
            _user_item("[REDACTED_TEXT len=3017]"),  # injected context, its prefix redacted away
            ("event_msg", {"type": "task_started", "turn_id": "t1"}),
            _user_item("[REDACTED_TEXT len=32]"),
            _user_event("[REDACTED_MESSAGE len=32]"),
            ("turn_context", {"model": "gpt-5", "cwd": "/w"}),
            _reply("done"),
            _user_item("look at this\n<image name=[Image #1]>", image=True),
            _user_event("look at this"),
            _reply("a cat"),
        ],
    )
    assert _user_only(path) == ["[REDACTED_TEXT len=32]", "look at this\n<image name=[Image #1]>"]


def test_rollout_without_user_message_events_keeps_the_context_prefix_rule(tmp_path: Path) -> None:
    path = _rollout(tmp_path, [_user_item("<environment_context>\n<cwd>/w</cwd>"), _user_item("hello"), _reply("hi")])
    assert _user_only(path) == ["hello"]
