"""`loomtui resume` and `loomtui carry` driving the real pi 1.6.0 against a loopback model.

A small OpenAI-compatible server of the test's own (127.0.0.1, a free port) answers every
``chat/completions`` request with one fixed streamed reply and records the messages it was
sent. pi is configured with a custom provider pointing at it (``models.json`` in a temporary
``PI_CODING_AGENT_DIR``, pi's docs/models-configuration.md) and is run by ``loomtui resume``
through ``LOOMTUI_PI``, a whole command line (``{file}`` filled in) that runs pi once in print
mode with one prompt. The session has two branches under a shared start; resuming at the end of
one, the model must receive that branch's context (what ``loomtui context --leaf`` says pi sends)
and nothing of the other, and pi's answer must land under the resume point. After a carry the
summary is in the request too.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from loomtui.session.manager import SessionManager
from tests.loopback_model import PROMPT, REPLY, branched_session, loopback_model, pi_env
from tests.oracle import NODE, needs_pi, package_dir

pytestmark = needs_pi()


@pytest.fixture
def model() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    with loopback_model() as served:
        yield served


@pytest.fixture
def branched(tmp_path: Path) -> Path:
    return branched_session(tmp_path)


def _loomtui(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "loomtui", *argv], env=env, capture_output=True, text=True, timeout=120, check=False
    )


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content if isinstance(b, dict))


def _sent(request: dict[str, Any]) -> list[tuple[str, str]]:
    """(role, text) of every message the model was sent, the system prompt left out."""
    return [(m["role"], _text(m.get("content"))) for m in request["body"]["messages"] if m["role"] != "system"]


def _expected(env: dict[str, str], path: Path, leaf: str) -> list[tuple[str, str]]:
    """What `loomtui context` says pi sends at ``leaf``, as (role, text) of chat messages."""
    done = _loomtui(env, "context", "--json", str(path), "--leaf", leaf)
    assert done.returncode == 0, done.stderr
    out = []
    for m in json.loads(done.stdout)["messages"]:
        if m["role"] == "branchSummary":
            out.append(("user", m["summary"]))
        elif m["role"] != "system":
            out.append((m["role"], _text(m.get("content"))))
    return out


def _answer_parent_chain(path: Path) -> list[str]:
    """The ids from pi's answer (the file's last assistant message) up to the root."""
    sm = SessionManager.open(str(path))
    answer = next(e for e in reversed(sm.index.entries) if e.type == "message" and e.role == "assistant")
    assert REPLY in json.dumps(sm.get_entry(answer.id))
    return [e.id for e in sm.index.path_to(answer.id)]


def test_resumed_at_an_entry_the_model_receives_that_branch_only(
    tmp_path: Path, branched: Path, model: tuple[str, list[dict[str, Any]]]
) -> None:
    base_url, requests = model
    env = pi_env(tmp_path, base_url)
    expected = _expected(env, branched, "a2")
    assert [r for r, _ in expected] == ["user", "assistant", "user", "assistant"]

    done = _loomtui(env, "resume", str(branched), "--at", "a2")

    assert done.returncode == 0, done.stderr
    assert len(requests) == 1
    sent = _sent(requests[0])
    assert sent[:-1] == expected  # exactly the ALPHA branch's context
    assert sent[-1] == ("user", PROMPT)
    assert "BETA" not in json.dumps(requests[0]["body"])  # nothing of the other branch
    chain = _answer_parent_chain(branched)
    assert chain[:4] == ["u1", "a1", "u2", "a2"] and "a3" not in chain  # the answer is under a2


def test_after_a_carry_the_model_also_receives_the_summary(
    tmp_path: Path, branched: Path, model: tuple[str, list[dict[str, Any]]]
) -> None:
    base_url, requests = model
    env = pi_env(tmp_path, base_url)
    summary = "The other attempt found that the cache key must include the locale."
    carried = _loomtui(env, "carry", str(branched), "--from", "a3", "--onto", "a2", "--message", summary)
    assert carried.returncode == 0, carried.stderr
    written, new_id = carried.stdout.strip().split("\t")
    assert written == str(branched)
    entry = SessionManager.open(str(branched)).get_entry(new_id)
    assert entry is not None and {k: entry[k] for k in ("type", "parentId", "fromId", "summary")} == {
        "type": "branch_summary",
        "parentId": "a2",
        "fromId": "a3",
        "summary": summary,
    }

    done = _loomtui(env, "resume", str(branched), "--at", new_id)

    assert done.returncode == 0, done.stderr
    assert "append nothing" not in done.stderr
    sent = _sent(requests[0])
    roles = [r for r, _ in sent]
    assert roles == ["user", "assistant", "user", "assistant", "user", "user"]
    assert sent[:4] == _expected(env, branched, "a2")
    assert summary in sent[4][1]  # pi's branch summary message, holding the summary
    assert sent[-1] == ("user", PROMPT)
    assert "BETA" not in json.dumps(requests[0]["body"])
    chain = _answer_parent_chain(branched)
    assert chain[:5] == ["u1", "a1", "u2", "a2", new_id]


def test_resumed_at_a_user_message_pi_gets_its_text_back_in_the_editor(
    tmp_path: Path, branched: Path, model: tuple[str, list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """pi's RPC mode reports what its extensions do to the editor (``set_editor_text``): the
    plan's own command line, run as planned, must put the message back, unsent."""
    from loomtui.formats.carry_on.resume import apply_plan, plan_resume
    from loomtui.formats.opening import open_session

    base_url, requests = model
    env = pi_env(tmp_path, base_url)
    assert NODE is not None
    env["LOOMTUI_PI"] = shlex.join(
        [
            NODE,
            str(package_dir() / "dist" / "cli.js"),
            "--mode",
            "rpc",
            "--model",
            "loop/fixed",
            "--no-tools",
            "--no-extensions",
            "--no-skills",
            "--offline",
        ]
    )
    sm = open_session(str(branched))
    plan = plan_resume(sm, "u3", env)
    assert plan.leaf == "a1"
    apply_plan(sm, plan)
    proc = subprocess.Popen(
        plan.argv,
        cwd=plan.cwd,
        env={**env, **plan.env},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdin is not None
        first = json.loads(proc.stdout.readline())
        proc.stdin.close()
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert first["type"] == "extension_ui_request" and first["method"] == "set_editor_text"
    assert first["text"] == "BETA branch question"
    assert requests == []  # not sent
