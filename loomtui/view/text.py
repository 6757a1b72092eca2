"""One-line entry texts, tool-call formatting and searchable text (docs/formats.md §9.4–§9.5).

Texts come back as segments ``(style, text)``; the style names are pi's theme roles
(``accent``, ``success``, ``muted``, ``error``, ``dim``, ``warning``, ``customMessageLabel``,
``borderAccent``, ``text``), so the CLI and the app colour them from one table.
"""

from __future__ import annotations

import math
import os
import posixpath
import re
from collections.abc import Callable
from datetime import datetime
from functools import lru_cache
from itertools import compress, repeat
from operator import is_, itemgetter, not_
from typing import Any

from loomtui.session.entries import Entry, call_args
from loomtui.session.index import timestamp_ms
from loomtui.session.jsstr import (
    JS_WHITESPACE,
    js_json,
    js_number,
    js_string,
    js_to_number,
    js_trim,
    js_truthy,
    utf16_len,
    utf16_slice,
)
from loomtui.session.locations import home_dir

Segment = tuple[str, str]

_NL_TAB = re.compile(r"[\n\t]")


def normalize(s: Any) -> str:
    """pi's ``normalize``: newlines and tabs become spaces, then trim."""
    text: str = s if isinstance(s, str) else js_string(s)
    if "\n" in text or "\t" in text:
        text = _NL_TAB.sub(" ", text)
    return text.strip(JS_WHITESPACE)


def _tmpl(v: Any) -> str:
    """``${v}`` in a JS template literal (missing values read as undefined)."""
    return "undefined" if v is None else js_string(v)


@lru_cache(maxsize=8)
def _resolved(p: str) -> str:
    """node's ``path.posix.resolve``: relative to the working directory, normalised, one
    leading slash, no trailing one."""
    out = posixpath.normpath(p if p.startswith("/") else posixpath.join(os.getcwd(), p))
    return "/" + out.lstrip("/") if out.startswith("//") else out


def _shorten(p: str, home: str) -> str:
    """pi 1.6.0's ``shortenHomePath``: an absolute path inside ``home`` as ``~/rest`` (both
    resolved first), ``home`` itself as ``~``; anything else unchanged (``/home/me2`` is not
    inside ``/home/me``)."""
    if not home or not p.startswith("/"):
        return p
    home_key = _resolved(home)
    key = p if ("//" not in p and "/." not in p and not p.endswith("/")) else _resolved(p)
    if key == home_key:
        return "~"
    base = home_key if home_key.endswith("/") else home_key + "/"
    return "~/" + key[len(base) :] if key.startswith(base) else p


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


def _path_arg(get: Any, keys: tuple[str, ...], default: str, home: str) -> str:
    """The first truthy of ``keys`` as a path, ``~``-shortened (pi: ``args.path || …``)."""
    for k in keys:
        v = get(k)
        if type(v) is str:
            if v:
                return _shorten(v, home)
        elif js_truthy(v):
            return _shorten(js_string(v), home)
    return _shorten(default, home)


_PATH_KEYS = ("path", "file_path")
_DIR_KEYS = ("path",)


def _no_get(_key: str) -> None:
    return None


class ShownCall(str):
    """A tool call's whole row text, made by the source (another agent's tool that pi has no
    form for, formats/agent/tools.py): ``format_tool_call`` shows it as it is."""

    __slots__ = ()


def format_tool_call(name: Any, args: Any, home: str | None = None) -> str:
    """pi's ``formatToolCall``: ``[read: ~/x.py:10-29]``, ``[bash: …]``, ``[tool: {json}…]``."""
    if type(name) is ShownCall:
        return str(name)
    if home is None:
        home = home_dir()
    if type(args) is bytes:  # a skeleton's arguments kept as their JSON (``entries.call_args``)
        args = call_args(args)
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
    return f"[read: {display}{_read_range(get('offset'), get('limit'))}]"


def _line_number(v: Any) -> float | None:
    """pi's ``parseLineNumber``: a finite number, or a non-blank string that is one."""
    if isinstance(v, str) and js_trim(v):
        x: float = js_to_number(v)
    elif isinstance(v, (int, float)) and not isinstance(v, bool):
        x = js_to_number(v) if isinstance(v, float) or abs(v) > 2**53 else v
    else:
        return None
    return x if math.isfinite(x) else None


def _read_range(offset: Any, limit: Any) -> str:
    """pi 1.6.0's ``formatReadLineRange``: ``:start`` or ``:start-end`` from numbers or numeric
    strings (null reads as missing), nothing for a malformed range."""
    if offset is None and limit is None:
        return ""
    start = 1 if offset is None else _line_number(offset)
    if start is None:
        return ""
    if limit is None:
        return f":{js_number(start)}"
    count = _line_number(limit)
    if count is None:
        return ""
    end = start + count - 1
    return f":{js_number(start)}-{js_number(end)}" if end else f":{js_number(start)}"


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
#: the columns of the widest of them (one column a code point)
HIDDEN_MARK_COLS = max(map(len, HIDDEN_MARKS.values()))


def display_segments(e: Entry, tool_calls: ToolCallMap, home: str | None = None) -> list[Segment]:
    """pi's ``getEntryDisplayText`` as styled segments (a stray fork's row says so first)."""
    mark = HIDDEN_MARKS.get(e.hidden) if e.hidden else None
    if mark is not None:
        return [("warning", mark), *_display_segments(e, tool_calls, home)]
    return _display_segments(e, tool_calls, home)


def _display_segments(e: Entry, tool_calls: ToolCallMap, home: str | None = None) -> list[Segment]:
    """Runs once per drawn row: one call more than the row's kind needs (a message's role, or
    another kind), none per branch."""
    if e.type == "message":
        return _message_segments(e, tool_calls, home)
    return _entry_segments(e)


def _message_segments(e: Entry, tool_calls: ToolCallMap, home: str | None) -> list[Segment]:
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


def _entry_segments(e: Entry) -> list[Segment]:
    """Every kind but a message."""
    t = e.type
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
        return [("dim", field_row(t, "(cleared)" if e.text is None else js_string(e.text)))]
    if t == "session_info":
        name = e.text
        # pi 1.6.0 prints the name as it is (a line break too, which the row shows as its picture)
        return [("dim", field_row(t, js_string(name) if js_truthy(name) else "empty"))]
    if t == "context_edit":
        return [("dim", f"[context {e.aux}: {_tmpl(e.text)}]")]
    omp_row = _OMP_ROWS.get(t) if isinstance(e.aux, tuple) else None
    if omp_row is not None:
        return [("dim", omp_row(*e.aux))]
    # pi prints nothing for types it does not know; omp's generic form reads better
    return [("dim", f"[{t.replace('_', ' ') if t else 'entry'}]")]


#: the kinds whose row says their one field inside the brackets, by the row's word
FIELD_WORDS = {"label": "label", "session_info": "title", "title_change": "title"}


def field_brackets(kind: str) -> tuple[str, str]:
    """What comes before and after the field in the row of one of ``FIELD_WORDS``' kinds
    (``[label: `` and ``]``); the picker's search hits say theirs so too
    (``view/search_words.py``)."""
    return f"[{FIELD_WORDS[kind]}: ", "]"


def field_row(kind: str, field: str) -> str:
    """``[label: start]``, ``[title: Parser fix]``: ``kind``'s row, its field in the brackets."""
    head, tail = field_brackets(kind)
    return f"{head}{field}{tail}"


def _omp_field(v: Any) -> str:
    """omp's ``sanitizeTreeField``: tabs and line breaks as spaces, trimmed."""
    return _tmpl(v).replace("\n", " ").replace("\t", " ").strip()


def _omp_tiers(tiers: Any) -> str:
    """``family:tier`` pairs (``Object.entries``), or ``(default)`` when none is set."""
    if not js_truthy(tiers):
        return "(default)"
    pairs = tiers.items() if isinstance(tiers, dict) else enumerate(tiers) if isinstance(tiers, (list, str)) else ()
    return " ".join(f"{k}:{_tmpl(v)}" for k, v in pairs)


def _model_usage_row(purpose: Any, role: Any, provider: Any, model: Any) -> str:
    shown_role = _omp_field(role) if role is not None else ""  # ``entry.role ?? ""``
    return (
        f"[model usage: {_omp_field(purpose)} {shown_role + ' ' if shown_role else ''}"
        f"{_omp_field(provider)}/{_omp_field(model)}]"
    )


#: omp's tree rows for its own kinds (oh-my-pi's tree selector, docs/pi-releases.md); the fields
#: are the entry's (``session/entries.py`` keeps them in ``aux``)
_OMP_ROWS: dict[str, Callable[..., str]] = {
    "model_usage": lambda purpose, role, provider, model: _model_usage_row(purpose, role, provider, model),
    "service_tier_change": lambda tiers: f"[service tier: {_omp_tiers(tiers)}]",
    "title_change": lambda title: field_row("title_change", _omp_field(title)),
    "mode_change": lambda mode: f"[mode: {_tmpl(mode)}]",
    "credential_pin": lambda provider: f"[credential pin: {_tmpl(provider)}]",
}


#: the longest ``js_number`` text (``-1.7976931348623157e+308``) and two more
_NUMBER_COLS = 26


def _call_bound(name: Any, args: Any) -> int:
    """At least as many code points as ``format_tool_call(name, args)`` has (-1: not known
    without making it): its words, and each argument's value as it may be shown."""
    if type(name) is ShownCall:
        return len(name)
    if not isinstance(name, str):
        return -1 if name is not None else 64
    if name not in _TOOL_FORMATS:
        return len(name) + 48  # the JSON form: at most 40 units of the arguments and "..."
    if not isinstance(args, dict):
        return len(name) + 64  # every argument missing: the defaults
    total = len(name) + 64  # the words, a read's line range (two numbers) and "~/" expanded
    for v in args.values():
        if type(v) is str:
            total += len(v) + 2
        elif v is None or isinstance(v, (bool, int, float)):
            total += _NUMBER_COLS
        else:
            return -1
    return total


_NONE = type(None)


def _cols(texts: Any) -> int:
    """At least the columns of the widest of ``texts``: a code point takes two at most."""
    texts = list(texts)
    ascii_ones = list(map(str.isascii, texts))
    return max(
        max(map(len, compress(texts, ascii_ones)), default=0),
        2 * max(map(len, compress(texts, map(not_, ascii_ones))), default=0),
    )


#: the arguments ``_TOOL_FORMATS`` show whole (``_path_arg``'s keys, grep's and find's pattern)
_SHOWN_ARGS = tuple(dict.fromkeys(_PATH_KEYS + _DIR_KEYS + ("pattern",)))


def calls_cols(tool_calls: ToolCallMap) -> int:
    """At least as many columns as the widest ``format_tool_call`` of ``tool_calls`` takes
    (-1: not known), from the widest name and argument value of them all: a call shows at
    most two of its values (a path and a pattern) and a line range (two numbers)."""
    calls = tool_calls.values()
    try:
        names = set(map(itemgetter(0), calls))
    except TypeError:  # a name that is an object or an array
        return -1
    if not set(map(type, names)) <= {str, ShownCall, _NONE}:
        return -1
    args = list(filter(None, map(itemgetter(1), calls)))
    if args and set(map(type, args)) != {dict}:  # arguments that are no object show the defaults
        args = [x for x in args if type(x) is dict]
    values: list[Any] = []
    for key in _SHOWN_ARGS:  # the values a call may show (the others: bash, JSON, are cut)
        values += map(dict.get, args, repeat(key))
    kinds = set(map(type, values))
    if not kinds <= {str, int, float, bool, _NONE, dict}:
        return -1  # an array shows all its items
    strings = (
        values
        if kinds == {str}
        else filter(None, values)
        if kinds == {str, _NONE}
        else (compress(values, map(is_, map(type, values), repeat(str))))
    )
    widest = max(_NUMBER_COLS, len("[object Object]"), _cols(strings))
    return max(9, _cols(filter(None, names))) + 64 + 2 * (widest + 2)  # a missing name: "undefined"


def display_bound(e: Entry, tool_calls: ToolCallMap) -> int:
    """At least as many code points as ``display_text(e, tool_calls)`` has, made without it
    (-1: not known): a panned row that ends left of the window is blank whatever its text
    (``plain_rows``), so the text of a row thousands of columns left of it is not made."""
    if e.type != "message":
        return -1
    text = e.text
    if text is None:
        n = 0
    elif type(text) is str:
        n = len(text)
    else:
        return -1
    mark = HIDDEN_MARKS.get(e.hidden) if e.hidden else None
    extra = len(mark) if mark is not None else 0
    role = e.role
    if role == "user":
        return extra + 6 + n
    if role == "assistant":
        return extra + 11 + max(n, 80)
    if role == "toolResult":
        call = tool_calls.get(e.aux) if js_truthy(e.aux) else None
        if call is not None:
            b = _call_bound(call[0], call[1])
            return b + extra if b >= 0 else -1
        name = e.tool_name
        if name is None:
            return extra + 6
        return extra + 2 + len(name) if type(name) is str else -1
    if role == "bashExecution":
        return extra + 8 + n
    if role is None:
        return extra + 11
    return extra + 2 + len(role) if type(role) is str else -1


def display_text(e: Entry, tool_calls: ToolCallMap, home: str | None = None) -> str:
    """``display_segments`` joined: the row's one-line text (`loomtui tree` writes it for every row).

    The usual rows (a user's message, an assistant's text, a tool call) are made here without
    their segments; any other as ``display_segments`` makes it."""
    if e.type == "message" and not e.hidden:
        role = e.role
        if role == "user":
            return "user: " + normalize(e.text or "")
        if role == "toolResult":
            aux = e.aux
            call = tool_calls.get(aux) if (type(aux) is str and aux) or js_truthy(aux) else None
            if call is not None:
                return format_tool_call(call[0], call[1], home)
        elif role == "assistant":
            body = normalize(e.text or "")
            if body:
                return "assistant: " + body
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
    elif t == "context_edit":
        parts += ["context edit", _part(e.aux), _part(e.text)]
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
