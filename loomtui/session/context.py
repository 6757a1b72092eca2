"""What the model sees at a leaf: pi's buildSessionContext (docs/formats.md §8).

pi 1.6.0's rules: the entries of the context are the path, or with a compaction on it the latest
compaction, the path from its ``firstKeptEntryId`` up to it without system messages, and all
after it; the latest ``context_edit`` of each of those entries (among them) omits or replaces
its content; a compaction gives its ``systemMessage`` checkpoint, then its summary.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from loomtui.session.entries import Entry
from loomtui.session.index import timestamp_ms

#: a member JavaScript reads as ``undefined`` (absent): JSON.stringify leaves it out
_ABSENT: Any = object()
#: the message roles whose content a context edit replaces (pi's projectContextEntry)
_EDITABLE_ROLES = ("user", "assistant", "toolResult", "custom")
#: roles that must hold a content array: a string replacement becomes one text block
_ARRAY_ROLES = ("assistant", "toolResult")


@dataclass(frozen=True, slots=True)
class SessionContext:
    messages: list[dict[str, Any]]
    thinking_level: str
    model: dict[str, Any] | None


def _ms(ts: Any) -> Any:
    v = timestamp_ms(ts)
    return None if v != v else int(v)


def _js_truthy(v: Any) -> bool:
    """JavaScript's truthiness of a JSON value (objects and arrays, even empty, are true)."""
    if v is None or v is False or v is _ABSENT:
        return False
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v == v and v != 0
    if isinstance(v, str):
        return v != ""
    return True


def _members(**members: Any) -> dict[str, Any]:
    """An object literal as JSON.stringify writes it: absent members left out."""
    return {k: v for k, v in members.items() if v is not _ABSENT}


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
    thinking, model = _settings(path, load)
    entries = _context_entries(path, load)
    edits = _latest_edits(entries, load)
    items: list[PlannedMessage] = []
    for i, e in enumerate(entries):
        if e.type == "compaction" and i > 0:
            continue  # an older compaction inside the kept range gives nothing
        edit = edits.get(e.id, _ABSENT)
        if edit is None:
            continue  # omitted by a context edit
        for item in _entry_messages(e, load):
            items.append(item if edit is _ABSENT else _edited(item, edit))
    return ContextPlan(items, thinking, model)


def _settings(path: list[Entry], load: Callable[[Entry], dict[str, Any]]) -> tuple[Any, dict[str, Any] | None]:
    """The last thinking level change, and the model of the last model change or assistant."""
    thinking: Any = "off"
    model: dict[str, Any] | None = None
    for e in path:
        if e.type == "thinking_level_change":
            thinking = load(e).get("thinkingLevel")
        elif e.type == "model_change":
            d = load(e)
            model = _members(provider=d.get("provider", _ABSENT), modelId=d.get("modelId", _ABSENT))
        elif e.type == "message" and e.role == "assistant":
            m = load(e).get("message") or {}
            model = _members(provider=m.get("provider", _ABSENT), modelId=m.get("model", _ABSENT))
    return thinking, model


def _context_entries(path: list[Entry], load: Callable[[Entry], dict[str, Any]]) -> list[Entry]:
    """pi's buildContextEntries: the path, or the latest compaction first, then the path from
    its ``firstKeptEntryId`` up to it without system messages, then everything after it."""
    at = next((i for i in range(len(path) - 1, -1, -1) if path[i].type == "compaction"), None)
    if at is None:
        return path
    compaction = path[at]
    first_kept = load(compaction).get("firstKeptEntryId")
    out = [compaction]
    keeping = False
    for e in path[:at]:
        keeping = keeping or e.id == first_kept
        if keeping and not (e.type == "message" and e.role == "system"):
            out.append(e)
    out.extend(path[at + 1 :])
    return out


def _latest_edits(entries: list[Entry], load: Callable[[Entry], dict[str, Any]]) -> dict[str, Any]:
    """The replacement of the latest context edit of each target among ``entries`` (None:
    omitted). An edit without a replacement member is ignored (pi cannot build that context)."""
    edits: dict[str, Any] = {}
    for e in entries:
        if e.type == "context_edit":
            d = load(e)
            target = d.get("targetId")
            if isinstance(target, str) and "replacement" in d:
                edits[target] = d["replacement"]
    return edits


def _entry_messages(e: Entry, load: Callable[[Entry], dict[str, Any]]) -> list[PlannedMessage]:
    """pi's sessionEntryToContextMessages for one entry."""
    if e.type == "message":
        # a skeleton with a role was read from a message object: it is not None
        return [PlannedMessage(e, lambda: _message(load(e).get("message")), certain=e.role is not None)]
    if e.type == "custom_message":
        return [PlannedMessage(e, lambda: _custom_message(load(e)))]
    if e.type == "branch_summary":
        d = load(e)
        return [PlannedMessage(e, lambda: _branch_summary(d))] if _js_truthy(d.get("summary")) else []
    if e.type == "compaction":
        d = load(e)
        summary = _members(
            role="compactionSummary",
            summary=d.get("summary", _ABSENT),
            tokensBefore=d.get("tokensBefore", _ABSENT),
            timestamp=_ms(d.get("timestamp")),
        )
        system = d.get("systemMessage", _ABSENT)
        head = [PlannedMessage(e, lambda: system)] if _js_truthy(system) else []
        return head + [PlannedMessage(e, lambda: summary)]
    return []


def _message(m: Any) -> Any:
    """A stored message; a missing or null content as pi reads it ("" for a system message,
    [] for a user, assistant or tool result message)."""
    if isinstance(m, dict) and m.get("content") is None:
        role = m.get("role")
        if role == "system":
            return {**m, "content": ""}
        if role in ("user", "assistant", "toolResult"):
            return {**m, "content": []}
    return m


def _edited(item: PlannedMessage, replacement: Any) -> PlannedMessage:
    """``item`` with its content replaced (pi's projectContextEntry)."""

    def make() -> Any:
        m = item.message()
        if not isinstance(m, dict) or m.get("role") not in _EDITABLE_ROLES:
            return m
        content = replacement.get("content", _ABSENT) if isinstance(replacement, dict) else _ABSENT
        if m.get("role") in _ARRAY_ROLES and isinstance(content, str):
            content = [{"type": "text", "text": content}]
        out = {**m, "content": content}
        if content is _ABSENT:
            del out["content"]
        return out

    return PlannedMessage(item.entry, make, item.certain)


def _custom_message(d: dict[str, Any]) -> dict[str, Any]:
    content = d.get("content")
    return _members(
        role="custom",
        customType=d.get("customType", _ABSENT),
        content=[] if content is None else content,
        display=d.get("display", _ABSENT),
        details=d.get("details", _ABSENT),
        timestamp=_ms(d.get("timestamp")),
    )


def _branch_summary(d: dict[str, Any]) -> dict[str, Any]:
    return _members(
        role="branchSummary",
        summary=d.get("summary"),
        fromId=d.get("fromId", _ABSENT),
        timestamp=_ms(d.get("timestamp")),
    )
