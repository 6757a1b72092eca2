"""build_session_context: what the model sees at a leaf (pi-session-spec §8), against pi's goldens."""

from __future__ import annotations

import json

import pytest
from session_helpers import PI_FIXTURES, msg

from loomtui.session.manager import SessionManager
from tests.context_helpers import built_context


@pytest.mark.parametrize("name", PI_FIXTURES)
def test_context_matches_pi_goldens(name, pi_dir, goldens_dir):
    golden = json.loads((goldens_dir / f"{name}.json").read_text())["context"]
    ctx = built_context(SessionManager.open(str(pi_dir / f"{name}.jsonl")))
    assert [m["role"] for m in ctx.messages] == golden["roles"]
    assert ctx.thinking_level == golden["thinkingLevel"]
    assert ctx.model == golden["model"]


def test_compaction_keeps_from_first_kept_entry_and_everything_after(write_session):
    path = write_session(
        [
            msg("u1", None, text="one"),
            msg("a1", "u1", role="assistant", text="r1", provider="p", model="m1"),
            msg("u2", "a1", text="two"),
            {
                "type": "compaction",
                "id": "c1",
                "parentId": "u2",
                "timestamp": "2026-03-01T09:00:05.000Z",
                "summary": "S",
                "firstKeptEntryId": "u2",
                "tokensBefore": 42,
            },
            msg("u3", "c1", text="three"),
        ]
    )
    ctx = built_context(SessionManager.open(str(path)))
    assert [(m["role"], m.get("summary") or m["content"][0]["text"]) for m in ctx.messages] == [
        ("compactionSummary", "S"),
        ("user", "two"),
        ("user", "three"),
    ]
    assert ctx.messages[0] == {
        "role": "compactionSummary",
        "summary": "S",
        "tokensBefore": 42,
        "timestamp": 1772355605000,
    }
    assert ctx.model == {"provider": "p", "modelId": "m1"}


def test_compaction_with_first_kept_id_off_the_path_keeps_nothing_before_it(write_session):
    path = write_session(
        [
            msg("u1", None),
            {
                "type": "compaction",
                "id": "c1",
                "parentId": "u1",
                "timestamp": "2026-03-01T09:00:05.000Z",
                "summary": "S",
                "firstKeptEntryId": "elsewhere",
                "tokensBefore": 1,
            },
        ]
    )
    assert [m["role"] for m in built_context(SessionManager.open(str(path))).messages] == ["compactionSummary"]


def test_custom_messages_branch_summaries_and_settings(write_session):
    path = write_session(
        [
            {
                "type": "thinking_level_change",
                "id": "t",
                "parentId": None,
                "timestamp": "2026-03-01T09:00:00.000Z",
                "thinkingLevel": "medium",
            },
            {
                "type": "model_change",
                "id": "m",
                "parentId": "t",
                "timestamp": "2026-03-01T09:00:00.500Z",
                "provider": "openai",
                "modelId": "gpt",
            },
            {
                "type": "custom_message",
                "customType": "ext",
                "content": "note",
                "display": True,
                "id": "cm",
                "parentId": "m",
                "timestamp": "2026-03-01T09:00:01.000Z",
            },
            {
                "type": "branch_summary",
                "id": "bs0",
                "parentId": "cm",
                "timestamp": "2026-03-01T09:00:02.000Z",
                "fromId": "cm",
                "summary": "",
            },
            {
                "type": "branch_summary",
                "id": "bs",
                "parentId": "bs0",
                "timestamp": "2026-03-01T09:00:03.000Z",
                "fromId": "bs0",
                "summary": "came back",
            },
            {
                "type": "custom",
                "customType": "state",
                "data": {},
                "id": "cu",
                "parentId": "bs",
                "timestamp": "2026-03-01T09:00:04.000Z",
            },
            {
                "type": "label",
                "id": "l",
                "parentId": "cu",
                "timestamp": "2026-03-01T09:00:05.000Z",
                "targetId": "t",
                "label": "x",
            },
        ]
    )
    ctx = built_context(SessionManager.open(str(path)))
    assert ctx.messages == [
        {"role": "custom", "customType": "ext", "content": "note", "display": True, "timestamp": 1772355601000},
        {"role": "branchSummary", "summary": "came back", "fromId": "bs0", "timestamp": 1772355603000},
    ]
    assert ctx.thinking_level == "medium"
    assert ctx.model == {"provider": "openai", "modelId": "gpt"}


def test_context_for_other_leaf_and_null_leaf(pi_dir):
    sm = SessionManager.open(str(pi_dir / "pi-brain-branch-summary.jsonl"))
    assert [m["role"] for m in built_context(sm, "00000004").messages] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    sm.reset_leaf()
    ctx = built_context(sm)
    assert (ctx.messages, ctx.thinking_level, ctx.model) == ([], "off", None)
