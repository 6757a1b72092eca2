"""`loomtui context FILE`: what pi would send to the model at a leaf (build_session_context)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from loomtui.cli import main
from loomtui.session.manager import SessionManager
from tests.context_helpers import built_context

KINDS = Path(__file__).resolve().parents[1] / "app" / "fixtures" / "kinds.jsonl"


def run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_is_build_session_context_at_the_leaf(capsys: Any) -> None:
    code, out, _ = run(capsys, "context", "--json", str(KINDS))
    assert code == 0
    got = json.loads(out)
    ctx = built_context(SessionManager.open(str(KINDS)))
    assert got == json.loads(
        json.dumps({"thinkingLevel": ctx.thinking_level, "model": ctx.model, "messages": ctx.messages})
    )
    # the leaf is after the compaction: its summary comes first, then the kept entries
    assert got["messages"][0]["role"] == "compactionSummary"
    assert got["messages"][0]["tokensBefore"] == 45210
    assert got["model"] == {"provider": "openai", "modelId": "gpt-5"}  # the last model_change on the path


def test_text_output_and_an_earlier_leaf(capsys: Any) -> None:
    code, out, _ = run(capsys, "context", str(KINDS), "--leaf", "a1000002")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("5 messages; model anthropic/claude-sonnet-4-5; thinking medium")
    assert "── user" in lines and "── assistant" in lines
    assert "compactionSummary" not in out
    code, _, err = run(capsys, "context", str(KINDS), "--leaf", "nope")
    assert code == 2 and "nope" in err


def test_json_is_written_a_message_at_a_time_and_equals_the_whole(
    capsys: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    from loomtui.session import manager as manager_mod
    from loomtui.session.jsstr import js_json
    from tests.session.test_image_sessions import write_image_session

    path = tmp_path / "images.jsonl"
    write_image_session(path)
    for f in (KINDS, path):
        ctx = built_context(SessionManager.open(str(f)))
        whole = js_json({"thinkingLevel": ctx.thinking_level, "model": ctx.model, "messages": ctx.messages})
        code, out, _ = run(capsys, "context", "--json", str(f))
        assert code == 0 and out == whole + "\n"
    # the plan decodes what gives the model (assistant messages) and nothing else until asked
    sm = SessionManager.open(str(path))
    loaded: list[str] = []
    real = manager_mod.SessionManager.load

    def load(self: Any, e: Any) -> Any:
        loaded.append(e.role)
        return real(self, e)

    monkeypatch.setattr(manager_mod.SessionManager, "load", load)
    plan = sm.session_context_plan()
    assert set(loaded) == {"assistant"} and len(plan.items) == 30
    loaded.clear()
    first = plan.items[0].message()
    assert loaded == ["user"] and first["content"][0]["text"] == "the sidebar overlaps, turn 0"
    code, out, _ = run(capsys, "context", str(path))
    assert code == 0 and out.splitlines()[0] == "30 messages; model (none); thinking off"
    assert out.count("[image image/png]") == 15


def test_text_output_shows_a_system_messages_sections_and_tools(capsys: Any, write_session: Any) -> None:
    system = {
        "role": "system",
        "content": "",
        "sections": {"preamble": "You are pi.", "skills": None},
        "toolsAdded": [{"name": "read", "description": "d", "parameters": {}}, {"name": "bash"}],
        "toolsRemoved": [{"name": "write"}],
        "timestamp": 1,
    }
    path = write_session(
        [{"type": "message", "id": "s", "parentId": None, "timestamp": "2026-03-01T09:00:00.000Z", "message": system}]
    )
    code, out, _ = run(capsys, "context", str(path))
    assert code == 0
    assert out.split("\n", 2)[2] == (
        "── system\n[section preamble]\nYou are pi.\n[section skills removed]\n"
        "[tools added: read, bash]\n[tools removed: write]\n"
    )
