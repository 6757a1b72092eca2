"""Small hand-built sessions for view tests (ids and timestamps fixed)."""

from __future__ import annotations

from typing import Any

from loomtui.session.manager import SessionManager

HEADER = {"type": "session", "version": 3, "id": "s-test", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}


def ts(n: int) -> str:
    return f"2026-01-01T00:{n // 60:02d}:{n % 60:02d}.000Z"


def user(i: str, parent: str | None, text: str, n: int) -> dict[str, Any]:
    return {
        "type": "message",
        "id": i,
        "parentId": parent,
        "timestamp": ts(n),
        "message": {"role": "user", "content": text, "timestamp": n},
    }


def assistant(i: str, parent: str | None, text: str, n: int, stop: str = "stop", **extra: Any) -> dict[str, Any]:
    content = [{"type": "text", "text": text}] if text else []
    content += extra.pop("blocks", [])
    return {
        "type": "message",
        "id": i,
        "parentId": parent,
        "timestamp": ts(n),
        "message": {"role": "assistant", "content": content, "stopReason": stop, **extra},
    }


def label(i: str, parent: str | None, target: str, text: str | None, n: int) -> dict[str, Any]:
    e: dict[str, Any] = {"type": "label", "id": i, "parentId": parent, "timestamp": ts(n), "targetId": target}
    if text is not None:
        e["label"] = text
    return e


def tool_call(cid: str, name: str, **args: Any) -> dict[str, Any]:
    """An assistant's toolCall content block."""
    return {"type": "toolCall", "id": cid, "name": name, "arguments": args}


def tool_result(i: str, parent: str, cid: str, name: str, text: str, n: int, error: bool = False) -> dict[str, Any]:
    """A toolResult message entry answering the call ``cid``."""
    return {
        "type": "message",
        "id": i,
        "parentId": parent,
        "timestamp": ts(n),
        "message": {
            "role": "toolResult",
            "toolCallId": cid,
            "toolName": name,
            "content": [{"type": "text", "text": text}],
            "isError": error,
        },
    }


def session(entries: list[dict[str, Any]]) -> SessionManager:
    return SessionManager.from_entries(dict(HEADER), entries)


def branched() -> SessionManager:
    """The worked example of pi-session-spec §9.2 (leaf = 'assistant: ok' on branch A)."""
    return session(branched_entries())


def branched_entries() -> list[dict[str, Any]]:
    return [
        user("u1", None, "fix the build", 1),
        assistant("a1", "u1", "looking", 2),
        user("u2", "a1", "two ideas", 3),
        user("ua", "u2", "try A", 4),
        assistant("aa", "ua", "A done", 5),
        user("ua2", "aa", "more A", 6),
        user("ub", "u2", "try B", 7),
        assistant("ab", "ub", "B done", 8),
        user("ub2", "ab", "more B", 9),
        assistant("ok", "ua2", "ok", 10),
    ]
