"""Tool calls in a comparison's and reader mode's transcript: the tree row's text for each call
(the source's view of it, ``SessionManager.tool_call_view``: Claude Code's and Codex's tools as
pi's) and the files edit tools touch (read from the call as written)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from loomtui.session.entries import Entry
from loomtui.session.manager import SessionManager
from loomtui.view.text import ShownCall, format_tool_call

#: tool names (lower case) whose calls change files; the file is in one of FILE_KEYS
EDIT_TOOLS = frozenset(
    {"edit", "write", "multiedit", "multi_edit", "notebookedit", "str_replace_editor", "create", "apply_patch", "patch"}
)
FILE_KEYS = ("path", "file_path", "filePath", "notebook_path", "filename")
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.M)

#: a source's view of a tool call (``SessionManager.tool_call_view``)
ToolView = Callable[[Any, Any], tuple[Any, Any]]


def as_is(name: Any, args: Any) -> tuple[Any, Any]:
    return name, args


def files_of_call(args: Any) -> list[str]:
    if not isinstance(args, dict):
        return []
    for k in FILE_KEYS:
        v = args.get(k)
        if isinstance(v, str) and v:
            return [v]
    for k in ("input", "patch"):
        v = args.get(k)
        if isinstance(v, str) and "*** " in v:
            return [m.strip() for m in _PATCH_FILE.findall(v)]
    return []


def call_line(block: dict[str, Any], home: str, files: dict[str, None], view: ToolView = as_is) -> str:
    """``→ [edit: x.py]``, the tree row's form; the files an edit tool touches go into ``files``
    (from the call as written: a patch names each of its files)."""
    name = block.get("name")
    args = block.get("arguments")
    if isinstance(name, str) and name.lower() in EDIT_TOOLS:
        for f in files_of_call(args):
            files.setdefault(f, None)
    return "→ " + format_tool_call(*view(name, args), home)


def shown_tool(manager: SessionManager, e: Entry) -> str | None:
    """The tool name a result's call is shown with (``Glob`` → ``find``, a ``[task: …]`` row →
    ``task``), from the calling entry's row; None when the call is not found."""
    call_id = e.aux
    caller = manager.index.calling_entry(e, call_id) if call_id is not None else None
    for cid, name, _args in (caller.tool_calls or ()) if caller is not None else ():
        if cid == call_id:
            if type(name) is ShownCall:  # the whole row, "[word: …]"
                return name[1:].split(":", 1)[0].split("]", 1)[0] or None
            return name if isinstance(name, str) and name else None
    return None
