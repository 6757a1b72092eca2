"""Blocks of the entries that shape what the model is sent rather than what was said: system
messages (prompt sections and the tools they add or remove), context edits (the entry they omit
or replace) and usage entries (tokens spent outside a reply); and the note on an entry that a
context edit on the current branch omits or replaces (docs/formats.md, docs/pi-releases.md).

``view/blocks.py`` calls these from its builder table. No Textual here.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

from loomtui.session.entries import Entry
from loomtui.session.index import SessionIndex
from loomtui.session.manager import SessionManager
from loomtui.view.block_types import Block, Markdown, Note, Plain, Title, pretty_json, text_of, usage_of

OneLine = Callable[[Entry], "str | None"]


def _text(content: Any) -> str:
    return text_of(content, "\n\n")


def _is_leading(index: SessionIndex, e: Entry) -> bool:
    """True when no system message comes before ``e`` on its path (the prompt itself)."""
    cur = index.parent_of(e)
    while cur is not None:
        if cur.type == "message" and cur.role == "system":
            return False
        cur = index.parent_of(cur)
    return True


def system_blocks(manager: SessionManager, e: Entry, msg: dict[str, Any]) -> list[Block]:
    """A system message: its instructions, each prompt section it sets or removes, and the
    tools it adds (name, description, parameters) or removes."""
    leading = _is_leading(manager.index, e)
    out: list[Block] = [Title("system prompt" if leading else "system prompt update", "dim")]
    text = _text(msg.get("content"))
    if text.strip():
        out += [Title("instructions" if leading else "added instructions"), Markdown(text)]
    sections = msg.get("sections")
    if isinstance(sections, dict):
        for name, body in sections.items():
            out += (
                [Title(f"section {name}: removed", "error")]
                if body is None
                else [Title(f"section {name}"), Plain(str(body))]
            )
    out += _tools_added(msg.get("toolsAdded")) + _tools_removed(msg.get("toolsRemoved"))
    if len(out) == 1:
        out.append(Note("(no instructions, sections or tools)"))
    return out


def _tools_added(tools: Any) -> list[Block]:
    added = [t for t in tools if isinstance(t, dict)] if isinstance(tools, list) else []
    if not added:
        return []
    out: list[Block] = [
        Title(f"tools added ({len(added)}): " + ", ".join(str(t.get("name")) for t in added), "success")
    ]
    for t in added:
        out.append(Title(f"+ {t.get('name')}", "success"))
        if isinstance(t.get("description"), str) and t["description"].strip():
            out.append(Markdown(t["description"]))
        if t.get("parameters"):
            out.append(Plain(pretty_json(t.get("parameters")), "json"))
    return out


def _tools_removed(tools: Any) -> list[Block]:
    if not isinstance(tools, list) or not tools:
        return []
    names = [str(t.get("name")) if isinstance(t, dict) else str(t) for t in tools]
    return [Title(f"tools removed ({len(names)}): " + ", ".join(names), "error")]


def context_edit_blocks(manager: SessionManager, full: dict[str, Any], one_line: OneLine) -> list[Block]:
    """A context edit: what it does to which entry, that entry's text, and the replacement."""
    target = full.get("targetId")
    t = manager.index.by_id.get(target) if isinstance(target, str) else None
    replacement = full.get("replacement")
    what = "omits" if replacement is None else "replaces the content of"
    out: list[Block] = [Title(f"context edit: {what} entry {target} in the model's context", "warning")]
    if t is None:
        out.append(Note(f"entry {target} is not in this session", "error"))
    else:
        line = one_line(t) or (t.text if isinstance(t.text, str) and t.text else t.role or t.type)
        out.append(Note(f"{target}: {line}", "text"))
        out.append(
            Note(
                "Enter jumps to that entry. The file keeps it unchanged; only what is sent to the model "
                "on branches through this edit changes."
            )
        )
    if replacement is not None:
        out.append(Title("replacement"))
        content = replacement.get("content") if isinstance(replacement, dict) else replacement
        text = _text(content)
        out.append(Markdown(text) if text.strip() else Plain(pretty_json(content), "json"))
    return out


def usage_blocks(full: dict[str, Any]) -> list[Block]:
    """A usage entry: tokens and cost spent outside a reply (cache warming, a classifier)."""
    model = f"{full.get('provider')}/{full.get('model')}" if full.get("provider") else str(full.get("model") or "?")
    out: list[Block] = [
        Title(f"usage: {full.get('kind') or 'usage'} ({model})", "dim"),
        Note("counted in the session's tokens and cost; not part of the conversation"),
    ]
    u = usage_of(full.get("usage"))
    out.append(u if u is not None and u.text else Note("(no usage figures)"))
    extra = {
        k: v
        for k, v in full.items()
        if k not in ("type", "id", "parentId", "timestamp", "kind", "provider", "model", "usage")
    }
    if extra:
        out.append(Plain(pretty_json(extra), "json"))
    return out


# context edits by target --------------------------------------------------------------------

_EDITS: weakref.WeakKeyDictionary[SessionManager, tuple[int, dict[str, list[tuple[Entry, Any]]]]] = (
    weakref.WeakKeyDictionary()
)


def edits_by_target(manager: SessionManager) -> dict[str, list[tuple[Entry, Any]]]:
    """Every context edit of the session by the entry it targets: (edit, replacement), in file
    order. Read once per session size (a grown file is read again)."""
    n = len(manager.index.entries)
    hit = _EDITS.get(manager)
    if hit is not None and hit[0] == n:
        return hit[1]
    out: dict[str, list[tuple[Entry, Any]]] = {}
    for e in manager.index.entries:
        if e.type != "context_edit":
            continue
        full = manager.load(e)
        target = full.get("targetId") if isinstance(full, dict) else None
        if isinstance(target, str):
            out.setdefault(target, []).append((e, full.get("replacement")))
    _EDITS[manager] = (n, out)
    return out


def edit_target(manager: SessionManager, e: Entry) -> str | None:
    """The entry a context edit targets, when it is in this session."""
    if e.type != "context_edit":
        return None
    full = manager.load(e)
    target = full.get("targetId") if isinstance(full, dict) else None
    return target if isinstance(target, str) and target in manager.index.by_id else None


def edited_notes(manager: SessionManager, e: Entry) -> list[Block]:
    """What the context edits aimed at ``e`` do: the one in force on the current branch (the
    latest on the path to the leaf wins) and the ones on other branches."""
    edits = edits_by_target(manager).get(e.id)
    if not edits:
        return []
    index = manager.index
    on_branch: set[str] = set()
    cur = index.by_id.get(manager.get_leaf_id() or "")
    while cur is not None:
        on_branch.add(cur.id)
        cur = index.parent_of(cur)
    here = [(edit, r) for edit, r in edits if edit.id in on_branch]
    out: list[Block] = []
    if here:
        edit, replacement = max(here, key=lambda p: index.depth(p[0]))
        if replacement is None:
            out.append(
                Note(
                    f"edited on this branch: context edit {edit.id} omits this entry from what the model is sent",
                    "warning",
                    bold=True,
                )
            )
        else:
            content = replacement.get("content") if isinstance(replacement, dict) else replacement
            out.append(
                Note(
                    f"edited on this branch: context edit {edit.id} replaces its content for the model "
                    f"with: {text_of(content)}",
                    "warning",
                    bold=True,
                )
            )
    others = [edit.id for edit, _r in edits if edit.id not in on_branch]
    if others:
        out.append(Note(f"context edit{'s' if len(others) > 1 else ''} on another branch: {', '.join(others)}"))
    return out


__all__ = ["context_edit_blocks", "edit_target", "edited_notes", "edits_by_target", "system_blocks", "usage_blocks"]
