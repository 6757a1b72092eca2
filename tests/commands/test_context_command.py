"""`loomtui context FILE`: what pi would send to the model at a leaf (build_session_context)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from loomtui.cli import main
from loomtui.session.manager import SessionManager

KINDS = Path(__file__).resolve().parents[1] / "app" / "fixtures" / "kinds.jsonl"


def run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_is_build_session_context_at_the_leaf(capsys: Any) -> None:
    code, out, _ = run(capsys, "context", "--json", str(KINDS))
    assert code == 0
    got = json.loads(out)
    ctx = SessionManager.open(str(KINDS)).build_session_context()
    assert got == json.loads(json.dumps({"thinkingLevel": ctx.thinking_level, "model": ctx.model,
                                         "messages": ctx.messages}))
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
