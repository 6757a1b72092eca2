"""A loopback OpenAI-compatible model for tests that drive the real pi, and pi's configuration
for it.

The server (127.0.0.1, a free port) answers every ``chat/completions`` request with one fixed
streamed reply (``REPLY``) and records each request's body. ``pi_env`` writes pi's
``models.json`` with a custom provider ``loop`` pointing at it (pi's docs/models-configuration.md)
in a temporary ``PI_CODING_AGENT_DIR`` and sets ``LOOMTUI_PI`` to a whole command line that runs
pi once in print mode with one prompt (``PROMPT``) on the file loomtui fills in.
"""

from __future__ import annotations

import json
import os
import shlex
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.oracle import NODE, package_dir

ROOT = Path(__file__).resolve().parents[1]
REPLY = "FIXED LOOPBACK REPLY"
PROMPT = "what next?"


class _Model(BaseHTTPRequestHandler):
    """Every POST: recorded, then answered with ``REPLY`` as OpenAI chat-completion chunks."""

    requests: list[dict[str, Any]]

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        size = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(size) or b"{}")
        type(self).requests.append({"path": self.path, "body": body})
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        base = {"id": "loop-1", "object": "chat.completion.chunk", "created": 1, "model": "fixed"}
        chunks = [
            {
                **base,
                "choices": [{"index": 0, "delta": {"role": "assistant", "content": REPLY}, "finish_reason": None}],
            },
            {
                **base,
                "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13},
            },
        ]
        for c in chunks:
            self.wfile.write(b"data: " + json.dumps(c).encode() + b"\n\n")
        self.wfile.write(b"data: [DONE]\n\n")

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def loopback_model() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """(base URL, the requests recorded so far) while the server runs."""
    requests: list[dict[str, Any]] = []
    handler = type("Model", (_Model,), {"requests": requests})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", requests
    finally:
        server.shutdown()
        server.server_close()


def pi_env(tmp_path: Path, base_url: str) -> dict[str, str]:
    agent = tmp_path / "pi-agent"
    agent.mkdir(exist_ok=True)
    (agent / "models.json").write_text(
        json.dumps(
            {
                "providers": {
                    "loop": {
                        "baseUrl": base_url,
                        "api": "openai-completions",
                        "apiKey": "none",
                        "models": [{"id": "fixed", "name": "fixed"}],
                    }
                }
            }
        )
    )
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    cli = package_dir() / "dist" / "cli.js"
    assert NODE is not None
    pi = [
        NODE,
        str(cli),
        "--model",
        "loop/fixed",
        "--no-tools",
        "--no-extensions",
        "--no-skills",
        "--no-context-files",
        "--no-prompt-templates",
        "--offline",
        "-p",
        "--session",
        "{file}",
        PROMPT,
    ]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PI_", "LOOMTUI_PI"))}
    env.update(
        HOME=str(home),
        PI_CODING_AGENT_DIR=str(agent),
        LOOMTUI_PI=shlex.join(pi),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        PYTHONPATH=str(ROOT),
    )
    return env


def _message(i: str, parent: str | None, role: str, text: str, second: int) -> dict[str, Any]:
    msg: dict[str, Any] = {
        "role": role,
        "content": [{"type": "text", "text": text}],
        "timestamp": 1772355600000 + second,
    }
    if role == "assistant":
        msg.update(
            {
                "api": "openai-completions",
                "provider": "loop",
                "model": "fixed",
                "stopReason": "stop",
                "usage": {
                    "input": 1,
                    "output": 1,
                    "cacheRead": 0,
                    "cacheWrite": 0,
                    "totalTokens": 2,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
                },
            }
        )
    return {
        "type": "message",
        "id": i,
        "parentId": parent,
        "timestamp": f"2026-03-01T09:00:{second:02d}.000Z",
        "message": msg,
    }


def branched_session(tmp_path: Path) -> Path:
    """root → (ALPHA branch | BETA branch); the file ends on BETA."""
    cwd = tmp_path / "project"
    cwd.mkdir()
    lines = [
        {
            "type": "session",
            "version": 3,
            "id": "sess-resume",
            "timestamp": "2026-03-01T09:00:00.000Z",
            "cwd": str(cwd),
        },
        _message("u1", None, "user", "shared opening question", 1),
        _message("a1", "u1", "assistant", "shared opening answer", 2),
        _message("u2", "a1", "user", "ALPHA branch question", 3),
        _message("a2", "u2", "assistant", "ALPHA branch answer", 4),
        _message("u3", "a1", "user", "BETA branch question", 5),
        _message("a3", "u3", "assistant", "BETA branch answer", 6),
    ]
    path = tmp_path / "branched.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path
