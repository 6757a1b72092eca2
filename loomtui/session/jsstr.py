"""JavaScript string semantics that pi's output depends on.

pi measures and cuts strings in UTF-16 code units, trims with ECMAScript's whitespace set and
prints values with ``String()`` / ``JSON.stringify``. Matching its rows exactly means doing the
same here (docs/formats.md §16 item 10).
"""

from __future__ import annotations

import math
import re
from typing import Any

#: ECMAScript WhiteSpace + LineTerminator (what ``String.prototype.trim`` and ``\s`` remove).
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_JS_SPLIT = re.compile("[" + re.escape(JS_WHITESPACE) + "]+")


def js_trim(s: str) -> str:
    return s.strip(JS_WHITESPACE)


def js_split_ws(s: str) -> list[str]:
    """``s.split(/\\s+/).filter(Boolean)``."""
    return [t for t in _JS_SPLIT.split(s) if t]


def _is_bmp(s: str) -> bool:
    return s.isascii() or max(s) <= "\uffff"


def utf16_len(s: str) -> int:
    if s.isascii():
        return len(s)
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


def utf16_slice(s: str, n: int) -> str:
    """``s.slice(0, n)``; a surrogate pair cut in half becomes U+FFFD, as a terminal shows it."""
    if n <= 0:
        return ""
    head = s[:n]  # n code points hold at least n UTF-16 units
    if _is_bmp(head):
        return head
    units = 0
    for i, c in enumerate(head):
        w = 2 if c > "\uffff" else 1
        if units + w > n:
            return head[:i] + ("\ufffd" if units < n else "")
        units += w
    return head


def js_number(x: float | int) -> str:
    """``String(number)`` for the values session files hold."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        # beyond 2**53 JSON.parse already rounded the value to a double
        return str(x) if -(2**53) <= x <= 2**53 else js_number(float(x))
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == int(x) and abs(x) <= 2**53:
        return str(int(x))
    # Number::toString: the shortest round-trip digits (what repr gives), placed by JS's rules
    # (plain notation for exponents -7 < n <= 21, e.g. 5e-06 is "0.000005")
    r = repr(abs(x))
    mant, _, exp = r.partition("e")
    int_part, _, frac = mant.partition(".")
    digits = int_part + frac
    n = len(int_part) + (int(exp) if exp else 0)
    stripped = digits.lstrip("0")
    n -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    k = len(digits)
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * -n + digits
    else:
        e = n - 1
        out = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return ("-" if x < 0 else "") + out


def js_string(v: Any) -> str:
    """``String(v)`` for JSON values."""
    if v is None:
        return "null"
    if isinstance(v, str):
        return v
    if isinstance(v, (bool, int, float)):
        return js_number(v)
    if isinstance(v, list):
        try:
            return ",".join("" if x is None else js_string(x) for x in v)
        except RecursionError:
            return "[nested too deeply]"
    return "[object Object]"


def js_truthy(v: Any) -> bool:
    if isinstance(v, float) and math.isnan(v):
        return False
    return bool(v) if not isinstance(v, (dict, list)) else True


_ESC = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
# JSON.stringify also escapes lone surrogates (well-formed JSON.stringify, ES2019); a Python str
# holds them when a file had an unpaired \\udXXX escape, and they cannot be encoded as UTF-8.
_NEEDS_ESC = re.compile(r'["\\\x00-\x1f\ud800-\udfff]')


def _quote(s: str) -> str:
    if _NEEDS_ESC.search(s):
        s = _NEEDS_ESC.sub(lambda m: _ESC.get(m.group(), f"\\u{ord(m.group()):04x}"), s)
    return '"' + s + '"'


def js_json(v: Any) -> str:
    """``JSON.stringify(v)`` (compact, keys in insertion order, JS number format), for values
    of any depth."""
    try:
        return _js_json(v)
    except RecursionError:
        from loomtui.session.jsonvalue import deep_call

        return deep_call(_js_json, v)  # type: ignore[no-any-return]


def _js_json(v: Any) -> str:
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, str):
        return _quote(v)
    if isinstance(v, (int, float)):
        if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
            return "null"
        return js_number(v)
    if isinstance(v, list):
        return "[" + ",".join(_js_json(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(_quote(str(k)) + ":" + _js_json(x) for k, x in v.items()) + "}"
    return "null"


_JS_NUMERIC = re.compile(r"[+-]?(?:Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")
_JS_RADIX = re.compile(r"0(?:[xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)")


def js_to_number(v: Any) -> float:
    """JavaScript's ``ToNumber`` (what ``v >= 3`` compares) for JSON values: strings parsed
    as JS does (trimmed, ``""`` is 0, hex/octal/binary, ``Infinity``), booleans 0/1, arrays
    through their ``String()``, objects NaN."""
    if v is None:
        return 0.0
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, (int, float)):
        try:
            return float(v)
        except OverflowError:
            return math.inf if v > 0 else -math.inf
    if isinstance(v, list):
        return js_to_number(js_string(v))
    if not isinstance(v, str):
        return math.nan
    s = js_trim(v)
    if not s:
        return 0.0
    if _JS_NUMERIC.fullmatch(s):
        return float(s.replace("Infinity", "inf"))
    if _JS_RADIX.fullmatch(s):
        return float(int(s, 0))
    return math.nan


def session_version(v: Any) -> int:
    """The format version pi acts on for a header's ``version`` value (docs/formats.md §6):
    ``version ?? 1``, compared as JavaScript compares (``"3"`` and ``3.0`` are 3). A value
    that is not a number (NaN) passes neither ``< 2`` nor ``< 3``: pi migrates nothing, as
    for version 3."""
    if v is None:
        return 1
    n = js_to_number(v)
    if math.isnan(n) or n >= 3:
        return 3 if math.isnan(n) or n < 4 else int(min(n, 1 << 31))
    return 2 if n >= 2 else 1
