"""One-line entry texts, tool-call formatting and searchable text (docs/formats.md §9.4–§9.5).

Texts come back as segments ``(style, text)``; the style names are pi's theme roles
(``accent``, ``success``, ``muted``, ``error``, ``dim``, ``warning``, ``customMessageLabel``,
``borderAccent``, ``text``), so the CLI and the app colour them from one table.
"""

from __future__ import annotations

import math
import os
import re
from datetime import datetime
from collections.abc import Callable
from typing import Any

from loomtui.session.entries import Entry
from loomtui.session.index import timestamp_ms
from loomtui.session.jsstr import JS_WHITESPACE, js_json, js_number, js_string, js_trim, js_truthy, utf16_len, utf16_slice

Segment = tuple[str, str]

_NL_TAB = re.compile(r"[\n\t]")
_LINE_BREAKS = re.compile(r"[\r\n\u2028\u2029]")


def normalize(s: Any) -> str:
    """pi's ``normalize``: newlines and tabs become spaces, then trim."""
    text: str = s if isinstance(s, str) else js_string(s)
    if "\n" in text or "\t" in text:
        text = _NL_TAB.sub(" ", text)
    return text.strip(JS_WHITESPACE)


def one_line(s: str) -> str:
    """Where pi would print a raw line break inside a row, print a space (robustness)."""
    return _LINE_BREAKS.sub(" ", s) if ("\n" in s or "\r" in s or "\u2028" in s or "\u2029" in s) else s


def _tmpl(v: Any) -> str:
    """``${v}`` in a JS template literal (missing values read as undefined)."""
    return "undefined" if v is None else js_string(v)


def home_dir() -> str:
    return os.environ.get("HOME") or os.environ.get("USERPROFILE") or ""


def _shorten(p: str, home: str) -> str:
    return "~" + p[len(home) :] if home and p.startswith(home) else p


def _to_number(v: Any) -> float:
    if v is None:
        return 0.0
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        t = js_trim(v)
        if not t:
            return 0.0
        try:
            return float(t)
        except ValueError:
            return math.nan
    return math.nan


def _js_add(a: Any, b: Any) -> Any:
    if isinstance(a, str) or isinstance(b, str) or isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
        return js_string(a) + js_string(b)
    return _to_number(a) + _to_number(b)


def _num_or_int(x: float) -> Any:
    return int(x) if x == x and not math.isinf(x) and x == int(x) else x


def _path_arg(get: Any, keys: tuple[str, ...], default: str, home: str) -> str:
    """The first truthy of ``keys`` as a path, ``~``-shortened (pi: ``args.path || …``)."""
    for k in keys:
        v = get(k)
        if type(v) is str:
            if v:
                return "~" + v[len(home) :] if home and v.startswith(home) else v
        elif js_truthy(v):
            return _shorten(js_string(v), home)
    return _shorten(default, home)


_PATH_KEYS = ("path", "file_path")
_DIR_KEYS = ("path",)


def _no_get(_key: str) -> None:
    return None


def format_tool_call(name: Any, args: Any, home: str | None = None) -> str:
    """pi's ``formatToolCall``: ``[read: ~/x.py:10-29]``, ``[bash: …]``, ``[tool: {json}…]``."""
    if home is None:
        home = home_dir()
    if args is None:
        args = {}
    fmt = _TOOL_FORMATS.get(name) if isinstance(name, str) else None
    if fmt is not None:
        return fmt(args, args.get if isinstance(args, dict) else _no_get, home)
    text = js_json(args)
    more = "..." if utf16_len(text) > 40 else ""
    return f"[{_tmpl(name)}: {utf16_slice(text, 40)}{more}]"


def _read_call(args: Any, get: Callable[[str], Any], home: str) -> str:
    display = _path_arg(get, _PATH_KEYS, "", home)
    if isinstance(args, dict) and ("offset" in args or "limit" in args):
        display += _read_range(args)
    return f"[read: {display}]"


def _read_range(args: dict[str, Any]) -> str:
    """``:start`` or ``:start-end`` of a read call with an offset or a limit (JS arithmetic)."""
    offset = args.get("offset")
    start: Any = offset if offset is not None else 1
    end: Any = ""
    if "limit" in args:
        total = _js_add(start, args.get("limit"))
        end = _num_or_int(_to_number(total) - 1)
    start_text = js_string(_num_or_int(start) if isinstance(start, float) else start)
    end_text = ""
    if js_truthy(end):
        end_text = "-" + (js_number(end) if isinstance(end, (int, float)) else js_string(end))
    return f":{start_text}{end_text}"


def _bash_call(args: Any, get: Callable[[str], Any], home: str) -> str:
    cmd = get("command")
    raw = js_string(cmd) if js_truthy(cmd) else ""
    flat = _NL_TAB.sub(" ", raw) if ("\n" in raw or "\t" in raw) else raw
    short = utf16_slice(js_trim(flat), 50)
    return f"[bash: {short}{'...' if utf16_len(raw) > 50 else ''}]"


def _pattern(get: Callable[[str], Any]) -> str:
    pattern = get("pattern")
    return js_string(pattern) if js_truthy(pattern) else ""


#: pi's per-tool call texts; any other tool shows its arguments as JSON
_TOOL_FORMATS: dict[str, Callable[[Any, Callable[[str], Any], str], str]] = {
    "read": _read_call,
    "write": lambda args, get, home: f"[write: {_path_arg(get, _PATH_KEYS, '', home)}]",
    "edit": lambda args, get, home: f"[edit: {_path_arg(get, _PATH_KEYS, '', home)}]",
    "bash": _bash_call,
    "grep": lambda args, get, home: f"[grep: /{_pattern(get)}/ in {_path_arg(get, _DIR_KEYS, '.', home)}]",
    "find": lambda args, get, home: f"[find: {_pattern(get)} in {_path_arg(get, _DIR_KEYS, '.', home)}]",
    "ls": lambda args, get, home: f"[ls: {_path_arg(get, _DIR_KEYS, '.', home)}]",
}


ToolCallMap = dict[Any, tuple[Any, Any]]


#: row marks of entries adapters hide from all filters but ``all`` (``Entry.hidden``), by reason
HIDDEN_MARKS = {"stray": "⑂ stray: ", "from-parent": "↰ from parent: "}


def display_segments(e: Entry, tool_calls: ToolCallMap, home: str | None = None) -> list[Segment]:
    """pi's ``getEntryDisplayText`` as styled segments (a stray fork's row says so first)."""
    mark = HIDDEN_MARKS.get(e.hidden) if e.hidden else None
    if mark is not None:
        return [("warning", mark), *_display_segments(e, tool_calls, home)]
    return _display_segments(e, tool_calls, home)


# radon rates this E: kept in one piece on purpose. It runs once per drawn row over a whole
# session (100k entries); a helper call per branch adds measurable time there
# (benchmarks/bench_tree.py, bench_open.py, bench_app.py). docs/architecture.md, "Where each rule lives".
def _display_segments(e: Entry, tool_calls: ToolCallMap, home: str | None = None) -> list[Segment]:
    t = e.type
    if t == "message":
        role = e.role
        if role == "user":
            return [("accent", "user: "), ("text", normalize(e.text or ""))]
        if role == "assistant":
            head = ("success", "assistant: ")
            body = normalize(e.text or "")
            if body:
                return [head, ("text", body)]
            if e.stop_reason == "aborted":
                return [head, ("muted", "(aborted)")]
            if js_truthy(e.aux):
                return [head, ("error", utf16_slice(normalize(e.aux), 80))]
            return [head, ("muted", "(no content)")]
        if role == "toolResult":
            call = tool_calls.get(e.aux) if js_truthy(e.aux) else None
            if call is not None:
                return [("muted", format_tool_call(call[0], call[1], home))]
            name = e.tool_name
            return [("muted", f"[{'tool' if name is None else js_string(name)}]")]
        if role == "bashExecution":
            return [("dim", f"[bash]: {normalize(e.text if e.text is not None else '')}")]
        return [("dim", f"[{_tmpl(role)}]")]
    if t == "custom_message":
        return [("customMessageLabel", f"[{_tmpl(e.aux)}]: "), ("text", normalize(e.text or ""))]
    if t == "compaction":
        tokens = _to_number(e.aux) / 1000 if e.aux is not None else math.nan
        rounded = math.floor(tokens + 0.5) if tokens == tokens and not math.isinf(tokens) else tokens
        return [("borderAccent", f"[compaction: {js_number(rounded)}k tokens]")]
    if t == "branch_summary":
        return [("warning", "[branch summary]: "), ("text", normalize(e.text or ""))]
    if t == "model_change":
        return [("dim", f"[model: {_tmpl(e.text)}]")]
    if t == "thinking_level_change":
        return [("dim", f"[thinking: {_tmpl(e.text)}]")]
    if t == "custom":
        return [("dim", f"[custom: {_tmpl(e.text)}]")]
    if t == "label":
        return [("dim", f"[label: {'(cleared)' if e.text is None else js_string(e.text)}]")]
    if t == "session_info":
        name = e.text
        return [("dim", f"[title: {one_line(js_string(name)) if js_truthy(name) else 'empty'}]")]
    # pi prints nothing for types it does not know; omp's generic form reads better
    return [("dim", f"[{t.replace('_', ' ') if t else 'entry'}]")]


def display_text(e: Entry, tool_calls: ToolCallMap, home: str | None = None) -> str:
    """``display_segments`` joined: the row's one-line text (`loomtui tree` writes it for every row)."""
    return "".join([s for _style, s in display_segments(e, tool_calls, home)])


def _part(v: Any) -> str:
    """Array.join renders null/undefined as empty strings."""
    return "" if v is None else js_string(v)


def search_text(e: Entry) -> str:
    """pi's ``getSearchableText`` without the label (labels change; callers test them apart).

    Tokens never contain whitespace and the parts are joined with spaces, so testing the
    label and the rest separately gives pi's result exactly.
    """
    t = e.type
    parts: list[str] = []
    if t == "message":
        parts.append(_part(e.role))
        if e.text and e.role != "bashExecution":
            parts.append(e.text)
        elif e.role == "bashExecution":
            if e.aux:
                parts.append(e.aux)
            if js_truthy(e.text):
                parts.append(js_string(e.text))
    elif t == "custom_message":
        parts.append(_part(e.aux))
        text = e.text or ""
        parts.append(text if e.content_is_str else utf16_slice(text, 200))
    elif t == "compaction":
        parts.append("compaction")
    elif t == "branch_summary":
        parts += ["branch summary", _part(e.text)]
    elif t == "session_info":
        parts.append("title")
        if js_truthy(e.text):
            parts.append(js_string(e.text))
    elif t == "model_change":
        parts += ["model", _part(e.text)]
    elif t == "thinking_level_change":
        parts += ["thinking", _part(e.text)]
    elif t == "custom":
        parts += ["custom", _part(e.text)]
    elif t == "label":
        parts += ["label", _part(e.text)]
    return " ".join(parts).lower()


def format_label_time(ts: Any, now: datetime | None = None) -> str:
    """Shift+T label timestamps: ``HH:MM`` today, ``M/D HH:MM`` this year, else ``YY/M/D HH:MM``."""
    ms = timestamp_ms(ts)
    if ms != ms:
        return "Invalid Date"
    d = datetime.fromtimestamp(ms / 1000).astimezone()
    now = now or datetime.now().astimezone()
    hm = f"{d.hour:02d}:{d.minute:02d}"
    if (d.year, d.month, d.day) == (now.year, now.month, now.day):
        return hm
    if d.year == now.year:
        return f"{d.month}/{d.day} {hm}"
    return f"{str(d.year)[-2:]}/{d.month}/{d.day} {hm}"
