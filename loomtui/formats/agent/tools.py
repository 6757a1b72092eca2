"""Claude Code's and Codex's tool calls as pi's tools (docs/agent-formats.md, "Tool calls").

``pi_call`` maps a call onto the pi tool that does the same thing (``Bash`` → ``bash``,
``Read`` → ``read``, ``Glob`` → ``find``, Codex's ``shell`` → ``bash``, ``apply_patch`` →
``edit``, ...), so the tree row is pi's own text for that tool (``view/text.py``'s
``format_tool_call``) and the detail pane shows an edit as a diff as it does for pi. A tool pi
has no counterpart for gets a short text of its own (``[task: …]``, ``[todo: …]``, ``[fetch: …]``,
``[search: …]``, ``[plan: …]``), any other pi's generic ``[name: {json}]``; neither is cut
short, the row is cut where the pane ends.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from typing import Any

from loomtui.session.jsstr import js_json
from loomtui.view.text import ShownCall

Call = tuple[Any, Any]
#: a tool's mapping: the pi call, or None when the arguments are not that tool's (redacted, say)
Mapping = Callable[[dict[str, Any]], Call | None]


def _d(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _s(v: Any) -> str:
    return v if isinstance(v, str) else ""


def _one_line(s: str) -> str:
    return " ".join(s.split())


def _path(a: dict[str, Any]) -> Any:
    return a.get("file_path") or a.get("path") or a.get("notebook_path") or ""


def _read(a: dict[str, Any]) -> Call:
    out: dict[str, Any] = {"path": _path(a)}
    if "offset" in a:
        out["offset"] = a["offset"]
    if "limit" in a:
        out["limit"] = a["limit"]
    return "read", out


def _edit(a: dict[str, Any]) -> Call:
    return "edit", {
        "path": _path(a),
        "edits": [{"oldText": _s(a.get("old_string")), "newText": _s(a.get("new_string"))}],
    }


def _multi_edit(a: dict[str, Any]) -> Call:
    edits = [
        {"oldText": _s(_d(x).get("old_string")), "newText": _s(_d(x).get("new_string"))}
        for x in a.get("edits") or []
        if isinstance(x, dict)
    ]
    return "edit", {"path": _path(a), "edits": edits}


def _write(a: dict[str, Any]) -> Call:
    return "write", {"path": _path(a), "content": _s(a.get("content"))}


def _grep(a: dict[str, Any]) -> Call:
    return "grep", {"pattern": _s(a.get("pattern")), "path": a.get("path") or "."}


def _glob(a: dict[str, Any]) -> Call:
    return "find", {"pattern": _s(a.get("pattern")), "path": a.get("path") or "."}


def _task(a: dict[str, Any]) -> Call:
    what = _one_line(_s(a.get("description")) or _s(a.get("prompt")))
    kind = _s(a.get("subagent_type"))
    return ShownCall(f"[task: {what}{f' ({kind})' if kind else ''}]"), None


def _steps(items: Any, done_key: str, word: str) -> str:
    steps = [x for x in items if isinstance(x, dict)] if isinstance(items, list) else []
    done = sum(1 for x in steps if x.get(done_key) == "completed")
    now = next(
        (
            _s(x.get("activeForm")) or _s(x.get("content")) or _s(x.get("step"))
            for x in steps
            if x.get(done_key) == "in_progress"
        ),
        "",
    )
    head = f"{_one_line(now)} · " if now else ""
    return f"{head}{done}/{len(steps)} {word}{'' if len(steps) == 1 else 's'} done"


def _todo(a: dict[str, Any]) -> Call:
    return ShownCall(f"[todo: {_steps(a.get('todos'), 'status', 'item')}]"), None


def _plan(a: dict[str, Any]) -> Call | None:
    if not isinstance(a.get("plan"), list):
        return None
    return ShownCall(f"[plan: {_steps(a.get('plan'), 'status', 'step')}]"), None


def _fetch(a: dict[str, Any]) -> Call:
    return ShownCall(f"[fetch: {_one_line(_s(a.get('url')))}]"), None


def _search(a: dict[str, Any]) -> Call:
    query = a.get("query")
    if not isinstance(query, str):  # Codex's web_search_call keeps the query in its action
        query = _d(a.get("action")).get("query") if isinstance(a.get("action"), dict) else None
    return ShownCall(f"[search: {_one_line(_s(query))}]"), None


def _command_text(cmd: Any) -> str:
    """A Codex command (``["bash", "-lc", script]`` or an argv list, or a string) as one line."""
    if isinstance(cmd, list) and all(isinstance(x, str) for x in cmd):
        if len(cmd) >= 3 and cmd[1] in ("-lc", "-c") and cmd[0].rsplit("/", 1)[-1] in ("bash", "sh", "zsh"):
            return str(cmd[2])
        return shlex.join(cmd)
    return _s(cmd)


def _shell(a: dict[str, Any]) -> Call | None:
    if "command" not in a and "cmd" not in a:
        return None
    return "bash", {"command": _command_text(a.get("command") if "command" in a else a.get("cmd"))}


_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", re.M)


def _apply_patch(a: dict[str, Any]) -> Call | None:
    patch = _s(a.get("input")) or _s(a.get("patch"))
    files = _PATCH_FILE.findall(patch)
    if not files:
        return None
    path = files[0].strip()
    more = f" (+{len(files) - 1} more)" if len(files) > 1 else ""
    return "edit", {"path": path + more, "patch": patch}


def _needs(keys: tuple[str, ...], fn: Mapping) -> Mapping:
    """``fn`` where one of ``keys`` holds a string; else None (the generic form)."""
    # one call per tool call of a session as it opens: no generator for the usual key counts
    if len(keys) == 1:
        key = keys[0]
        return lambda a: fn(a) if isinstance(a.get(key), str) else None
    if len(keys) == 3:
        k1, k2, k3 = keys
        get = dict.get
        return lambda a: (
            fn(a) if isinstance(get(a, k1), str) or isinstance(get(a, k2), str) or isinstance(get(a, k3), str) else None
        )
    return lambda a: fn(a) if any(isinstance(a.get(k), str) for k in keys) else None


_PATHS = ("file_path", "path", "notebook_path")
CLAUDE_TOOLS: dict[str, Mapping] = {
    "Bash": _needs(("command",), lambda a: ("bash", {"command": a["command"]})),
    "Read": _needs(_PATHS, _read),
    "Edit": _needs(_PATHS, _edit),
    "MultiEdit": _needs(_PATHS, _multi_edit),
    "Write": _needs(_PATHS, _write),
    "NotebookEdit": _needs(_PATHS, _write),
    "Grep": _needs(("pattern",), _grep),
    "Glob": _needs(("pattern",), _glob),
    "LS": _needs(("path",), lambda a: ("ls", {"path": a["path"]})),
    "Task": _task,
    "Agent": _task,
    "TodoWrite": _todo,
    "WebFetch": _fetch,
    "WebSearch": _search,
}
CODEX_TOOLS: dict[str, Mapping] = {
    "shell": _shell,
    "local_shell": _shell,
    "container.exec": _shell,
    "exec_command": _shell,
    "shell_command": _shell,
    "apply_patch": _apply_patch,
    "update_plan": _plan,
    "web_search_call": _search,
    "web_search": _search,
}


def pi_call(tools: dict[str, Mapping], name: Any, args: Any) -> Call:
    """(name, arguments) of the pi tool a call is shown as; an unknown tool keeps pi's generic
    ``[name: {json}]`` text, whole."""
    fn = tools.get(name) if isinstance(name, str) else None
    shown = fn(args if isinstance(args, dict) else {}) if fn is not None else None
    if shown is not None:
        return shown
    text = js_json({} if args is None else args)
    return ShownCall(f"[{name if isinstance(name, str) else js_json(name)}: {text}]"), None


def shown_calls(
    tools: dict[str, Mapping], calls: tuple[tuple[Any, Any, Any], ...] | None
) -> tuple[tuple[Any, Any, Any], ...] | None:
    """A skeleton's tool calls (id, name, arguments) with each call as ``pi_call`` shows it."""
    if not calls:
        return calls
    return tuple((cid, *pi_call(tools, name, args)) for cid, name, args in calls)


def tools_of(tool: str) -> dict[str, Mapping]:
    """The mapping for a source kind (``claude-code`` or ``codex``; anything else: none)."""
    return CODEX_TOOLS if tool == "codex" else CLAUDE_TOOLS if tool == "claude-code" else {}
