"""JSON values as JavaScript's ``JSON.parse`` makes them, whatever the file holds.

pi reads every line ``JSON.parse`` accepts, so loomtui must too (docs/architecture.md,
"Bad input"): nesting far beyond orjson's 1024 levels, lone surrogates (``"\\ud83d"``, what
JavaScript writes for a cut emoji), numbers too big for a double (``1e999`` is Infinity) and
integers with thousands of digits (a double, not an error). orjson takes the usual lines; the
rest go through the stdlib codec on a thread with a large stack.
"""

from __future__ import annotations

import json
import math
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

import orjson

#: stack for parsing/serialising very deep documents (the stdlib codec recurses in C, ~200
#: bytes a level; a socketteer chain nests two JSON levels per node)
DEEP_STACK = 512 << 20
DEEP_LIMIT = 2_000_000

#: Python refuses to convert integer strings longer than this (``sys.get_int_max_str_digits``)
_INT_DIGITS = 4000

_DEEP_LOCK = threading.Lock()


def deep_call(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Run a recursive call (stdlib JSON, a tree walk) on a thread with a large stack.

    The stdlib codec would overflow the C stack of an ordinary thread (a crash, not an
    exception) long before Python's recursion limit if that limit were simply raised.
    """
    result: list[Any] = []
    error: list[BaseException] = []

    def work() -> None:
        try:
            result.append(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller
            error.append(exc)

    old_limit = sys.getrecursionlimit()
    with _DEEP_LOCK:
        old_stack = threading.stack_size()
        try:
            threading.stack_size(DEEP_STACK)
            sys.setrecursionlimit(max(old_limit, DEEP_LIMIT))
            t = threading.Thread(target=work, name="loomtui-deep-json")
            t.start()
            t.join()
        finally:
            threading.stack_size(old_stack)
            sys.setrecursionlimit(old_limit)
    if error:
        raise error[0]
    return result[0]


def _js_int(s: str) -> int | float:
    # JSON.parse makes every number a double; Python keeps exact ints but cannot convert
    # thousands of digits (and such a value is a double beyond 2**53 in JavaScript anyway)
    return int(s) if len(s) <= _INT_DIGITS else float(s)


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def stdlib_loads(text: str) -> Any:
    """``JSON.parse`` of ``text`` with the stdlib codec (lone surrogates, huge numbers), and
    without recursion for deep documents; raises ValueError for what is not JSON."""
    try:
        return json.loads(text, parse_int=_js_int, parse_constant=_no_constants)
    except RecursionError:
        pass
    try:  # the C codec on a thread with a big stack: fast, up to DEEP_LIMIT levels
        return deep_call(json.loads, text, parse_int=_js_int, parse_constant=_no_constants)
    except (RecursionError, MemoryError):
        return iterative_loads(text, _js_int, float)


_WS = re.compile(r"[ \t\n\r]*")


def _ws_end(text: str, idx: int) -> int:
    """Where the whitespace starting at ``idx`` ends."""
    m = _WS.match(text, idx)
    return m.end() if m is not None else idx


_NUMBER = re.compile(r"(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?")


def iterative_loads(text: str, parse_int: Any = int, parse_float: Any = float) -> Any:
    """A JSON parser without recursion: any depth in memory proportional to the document
    (the C codec recurses, ~200 bytes of stack a level). Same values as ``json.loads``."""
    idx = _ws_end(text, 0)
    stack: list[list[Any]] = []  # [container, pending key]
    while True:
        c = text[idx : idx + 1]
        if c == "{" or c == "[":
            value, idx = _open(text, idx, c, stack)
            if value is _OPENED:
                continue
        else:
            value, idx = _scalar(text, idx, c, parse_int, parse_float)
        # a value is complete: hand it to the open containers, closing those that end here
        done, value, idx = _close(text, idx, value, stack)
        if done:
            return value


#: what ``_open`` returns when a container stays open (its first element or key follows)
_OPENED = object()


def _open(text: str, idx: int, c: str, stack: list[list[Any]]) -> tuple[Any, int]:
    """At ``{`` or ``[``: an empty container (complete), or push a new one and return ``_OPENED``."""
    idx = _ws_end(text, idx + 1)
    if c == "{":
        if text[idx : idx + 1] == "}":
            return {}, idx + 1
        key, idx = _key(text, idx)
        stack.append([{}, key])
        return _OPENED, _ws_end(text, idx)
    if text[idx : idx + 1] == "]":
        return [], idx + 1
    stack.append([[], None])
    return _OPENED, idx


def _scalar(text: str, idx: int, c: str, parse_int: Any, parse_float: Any) -> tuple[Any, int]:
    """A string, literal or number starting at ``idx`` (``c`` is its first character)."""
    if c == '"':
        string, end = scanstring(text, idx + 1, True)
        return string, end
    for word, literal in _LITERALS:
        if c == word[0] and text.startswith(word, idx):
            return literal, idx + len(word)
    m = _NUMBER.match(text, idx)
    if m is None or not c:
        raise ValueError(f"not JSON at character {idx}")
    i, frac, exp = m.groups()
    return (parse_float(m.group()) if frac or exp else parse_int(i)), m.end()


_LITERALS = (("null", None), ("true", True), ("false", False))


def _close(text: str, idx: int, value: Any, stack: list[list[Any]]) -> tuple[bool, Any, int]:
    """Put a complete ``value`` into the open containers, closing those that end here.

    (True, the document, end) when the outermost value is complete; else (False, _, index of
    the next value)."""
    while stack:
        top = stack[-1]
        container = top[0]
        is_dict = type(container) is dict
        if is_dict:
            container[top[1]] = value
        else:
            container.append(value)
        idx = _ws_end(text, idx)
        ch = text[idx : idx + 1]
        if ch == ",":
            idx = _ws_end(text, idx + 1)
            if is_dict:
                top[1], idx = _key(text, idx)
                idx = _ws_end(text, idx)
            return False, None, idx
        if ch != ("}" if is_dict else "]"):
            raise ValueError(f"expected , or a closing bracket at character {idx}")
        idx += 1
        stack.pop()
        value = container
    idx = _ws_end(text, idx)
    if idx != len(text):
        raise ValueError(f"extra data at character {idx}")
    return True, value, idx


def _key(text: str, idx: int) -> tuple[str, int]:
    """An object key and its colon, from ``idx`` (at the opening quote)."""
    if text[idx : idx + 1] != '"':
        raise ValueError(f"expected a key at character {idx}")
    key, idx = scanstring(text, idx + 1, True)
    idx = _ws_end(text, idx)
    if text[idx : idx + 1] != ":":
        raise ValueError(f"expected : at character {idx}")
    return key, _ws_end(text, idx + 1)


def loads(raw: bytes | bytearray | memoryview | str) -> Any:
    """``JSON.parse``: orjson first, the stdlib codec for what orjson refuses but JS accepts.

    Raises ValueError (or UnicodeDecodeError) for what is not JSON.
    """
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        pass
    text = raw if isinstance(raw, str) else bytes(raw).decode("utf-8", errors="replace")
    return stdlib_loads(text)


def depth_at_least(v: Any, limit: int) -> bool:
    """Whether ``v`` nests ``limit`` or more arrays/objects deep (iterative)."""
    stack: list[tuple[Any, int]] = [(v, 1)]
    while stack:
        x, d = stack.pop()
        if isinstance(x, dict):
            if d >= limit:
                return True
            stack.extend((y, d + 1) for y in x.values())
        elif isinstance(x, list):
            if d >= limit:
                return True
            stack.extend((y, d + 1) for y in x)
    return False


def finite(v: Any) -> Any:
    """``v`` with every non-finite number replaced by None (what ``JSON.stringify`` writes), so
    that a strict JSON printer can print it (iterative; shares untouched parts)."""
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if not isinstance(v, (dict, list)):
        return v
    return deep_call(_finite, v) if depth_at_least(v, 200) else _finite(v)


def _finite(v: Any) -> Any:
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, dict):
        return {k: _finite(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_finite(x) for x in v]
    return v


@contextmanager
def exact_ints() -> Iterator[None]:
    """Let the stdlib codec read and write integers of any length exactly (for rewrites of
    documents loomtui did not write: their numbers must come back as they were)."""
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(old)


def _finite_float(s: str) -> float:
    x = float(s)
    if not math.isfinite(x):
        raise ValueError(f"the number {s[:40]} is beyond a double and could not be written back as it was")
    return x


def exact_loads(text: str) -> Any:
    """A document to rewrite: integers exact, every float finite (else ValueError: it could not
    be written back value for value), any depth."""
    with exact_ints():
        try:
            return json.loads(text, parse_float=_finite_float, parse_constant=_no_constants)
        except RecursionError:
            pass
        try:
            return deep_call(json.loads, text, parse_float=_finite_float, parse_constant=_no_constants)
        except (RecursionError, MemoryError):
            return iterative_loads(text, int, _finite_float)


_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_surrogates(text: str) -> str:
    """JSON text with each lone surrogate written as its ``\\uXXXX`` escape (what
    ``JSON.stringify`` writes), so that it can be encoded as UTF-8."""
    if text.isascii():
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def dumps_bytes(value: Any, indent: bool = False) -> bytes:
    """JSON for any value read from a file: orjson when it can, else the stdlib codec (deep
    values, integers beyond 64 bits, lone surrogates escaped as JSON.stringify writes them);
    non-finite numbers as null."""
    try:
        return orjson.dumps(value, option=(orjson.OPT_INDENT_2 if indent else 0) | orjson.OPT_NON_STR_KEYS)
    except TypeError:
        pass
    kwargs: dict[str, Any] = {
        "indent": 2 if indent else None,
        "ensure_ascii": False,
        "default": str,
        "separators": (",", ": ") if indent else (",", ":"),
    }
    value = finite(value)
    with exact_ints():
        try:
            text = json.dumps(value, **kwargs)
        except RecursionError:
            text = deep_call(json.dumps, value, **kwargs)
    return escape_surrogates(text).encode()
