"""What the model sees at a leaf: pi's buildSessionContext (docs/formats.md §8)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from loomtui.session.entries import Entry
from loomtui.session.index import timestamp_ms


@dataclass(frozen=True, slots=True)
class SessionContext:
    messages: list[dict[str, Any]]
    thinking_level: str
    model: dict[str, Any] | None


def _ms(ts: Any) -> Any:
    v = timestamp_ms(ts)
    return None if v != v else int(v)


def _defined(d: dict[str, Any]) -> dict[str, Any]:
    """JSON.stringify drops undefined members; mirror that for optional fields."""
    return {k: v for k, v in d.items() if v is not None}


def build_session_context(path: list[Entry], load: Callable[[Entry], dict[str, Any]]) -> SessionContext:
    """``path`` is root → leaf; ``load`` decodes the full entry of a skeleton."""
    thinking = "off"
    model: dict[str, Any] | None = None
    compaction: Entry | None = None
    for e in path:
        if e.type == "thinking_level_change":
            thinking = load(e).get("thinkingLevel")  # type: ignore[assignment]
        elif e.type == "model_change":
            d = load(e)
            model = _defined({"provider": d.get("provider"), "modelId": d.get("modelId")})
        elif e.type == "message" and e.role == "assistant":
            m = load(e).get("message") or {}
            model = _defined({"provider": m.get("provider"), "modelId": m.get("model")})
        elif e.type == "compaction":
            compaction = e

    messages: list[dict[str, Any]] = []

    def emit(e: Entry) -> None:
        if e.type == "message":
            m = load(e).get("message")
            if m is not None:
                messages.append(m)
        elif e.type == "custom_message":
            d = load(e)
            messages.append(
                _defined(
                    {
                        "role": "custom",
                        "customType": d.get("customType"),
                        "content": d.get("content"),
                        "display": d.get("display"),
                        "details": d.get("details"),
                        "timestamp": _ms(d.get("timestamp")),
                    }
                )
            )
        elif e.type == "branch_summary" and e.text:
            d = load(e)
            messages.append(
                {"role": "branchSummary", "summary": d.get("summary"), "fromId": d.get("fromId"),
                 "timestamp": _ms(d.get("timestamp"))}
            )

    if compaction is not None:
        d = load(compaction)
        messages.append(
            {"role": "compactionSummary", "summary": d.get("summary"), "tokensBefore": d.get("tokensBefore"),
             "timestamp": _ms(d.get("timestamp"))}
        )
        first_kept = d.get("firstKeptEntryId")
        at = next(i for i, e in enumerate(path) if e is compaction)
        keeping = False
        for e in path[:at]:
            if e.id == first_kept:
                keeping = True
            if keeping:
                emit(e)
        for e in path[at + 1 :]:
            emit(e)
    else:
        for e in path:
            emit(e)
    return SessionContext(messages, thinking, model)
