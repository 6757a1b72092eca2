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
    plan = context_plan(path, load)
    messages = [m for m in (item.message() for item in plan.items) if m is not None]
    return SessionContext(messages, plan.thinking_level, plan.model)


@dataclass(frozen=True, slots=True)
class PlannedMessage:
    """One message of a context, decoded only when ``message()`` is called (the path of a
    session of screenshots may be gigabytes: a caller can print them one at a time)."""

    entry: Entry | None
    make: Callable[[], Any]
    #: False when the entry may turn out to hold no message (``message()`` is then None)
    certain: bool = True

    def message(self) -> Any:
        return self.make()


@dataclass(frozen=True, slots=True)
class ContextPlan:
    items: list[PlannedMessage]
    thinking_level: str
    model: dict[str, Any] | None


def context_plan(path: list[Entry], load: Callable[[Entry], dict[str, Any]]) -> ContextPlan:
    """``build_session_context`` without decoding the messages yet: which entries give a
    message, in order, and the thinking level and model that apply."""
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

    items: list[PlannedMessage] = []

    def emit(e: Entry) -> None:
        if e.type == "message":
            # a skeleton with a role was read from a message object: it is not None
            items.append(PlannedMessage(e, lambda: load(e).get("message"), certain=e.role is not None))
        elif e.type == "custom_message":
            items.append(PlannedMessage(e, lambda: _custom_message(load(e))))
        elif e.type == "branch_summary" and e.text:
            items.append(PlannedMessage(e, lambda: _branch_summary(load(e))))

    if compaction is not None:
        d = load(compaction)
        summary = {"role": "compactionSummary", "summary": d.get("summary"), "tokensBefore": d.get("tokensBefore"),
                   "timestamp": _ms(d.get("timestamp"))}
        items.append(PlannedMessage(compaction, lambda: summary))
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
    return ContextPlan(items, thinking, model)


def _custom_message(d: dict[str, Any]) -> dict[str, Any]:
    return _defined(
        {
            "role": "custom",
            "customType": d.get("customType"),
            "content": d.get("content"),
            "display": d.get("display"),
            "details": d.get("details"),
            "timestamp": _ms(d.get("timestamp")),
        }
    )


def _branch_summary(d: dict[str, Any]) -> dict[str, Any]:
    return {"role": "branchSummary", "summary": d.get("summary"), "fromId": d.get("fromId"),
            "timestamp": _ms(d.get("timestamp"))}
