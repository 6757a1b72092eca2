"""JavaScript string semantics that pi's output depends on.

pi measures and cuts strings in UTF-16 code units, trims with ECMAScript's whitespace set and
prints values with ``String()`` / ``JSON.stringify``. Matching its rows exactly means doing the
same here (pi-session-spec §16 item 10).
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
        return ",".join("" if x is None else js_string(x) for x in v)
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
        s = _NEEDS_ESC.sub(lambda m: _ESC.get(m.group(), "\\u%04x" % ord(m.group())), s)
    return '"' + s + '"'


def js_json(v: Any) -> str:
    """``JSON.stringify(v)`` (compact, keys in insertion order, JS number format)."""
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
        return "[" + ",".join(js_json(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(_quote(str(k)) + ":" + js_json(x) for k, x in v.items()) + "}"
    return "null"
