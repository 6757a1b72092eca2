"""Values of a loom configuration as written: integers of any length kept exact, and any value
shown short in a finding or a table cell (``maitento/rules.py``)."""

from __future__ import annotations

from typing import Any

import orjson

#: longest string shown in a message or a table cell
SHOW_CHARS = 60
#: longest list or object shown (a few UUIDs)
LIST_CHARS = 200


#: digits an integer literal may have to be kept as a Python int (its int-string limit is 4300)
INT_DIGITS = 4000


class HugeInt(int):
    """An integer literal with more digits than Python converts (``INT_DIGITS``): compared as a
    number beyond every limit of the rules (its sign kept), shown as the digits written."""

    text: str

    def __new__(cls, text: str) -> HugeInt:
        beyond = 10 ** (INT_DIGITS + 1)
        obj = super().__new__(cls, -beyond if text.startswith("-") else beyond)
        obj.text = text
        return obj

    def __repr__(self) -> str:
        t = self.text
        return t if len(t) <= SHOW_CHARS else f"{t[:SHOW_CHARS]}… ({len(t.lstrip('-')):,} digits)"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return repr(self)


def exact_int(text: str) -> int:
    """An integer literal as its exact value (``HugeInt`` beyond ``INT_DIGITS`` digits)."""
    return int(text) if len(text) <= INT_DIGITS else HugeInt(text)


def show(value: Any) -> str:
    """A value as compact JSON, cut to SHOW_CHARS characters (a 1 MB string prints as its head)."""
    if isinstance(value, str):
        if len(value) > SHOW_CHARS:
            return _dumps(value[:SHOW_CHARS])[:-1] + f'…" ({len(value):,} chars)'
        return _dumps(value)
    if isinstance(value, (dict, list)):
        text = _dumps(_shallow(value, 3))
        return text if len(text) <= LIST_CHARS else text[: LIST_CHARS - 1] + "…"
    if isinstance(value, int) and not isinstance(value, bool):
        return repr(value)  # exact, whatever its size (orjson writes 64 bits at most)
    return _dumps(value)


def _dumps(value: Any) -> str:
    try:
        return orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):
        return repr(value)


def _shallow(value: Any, depth: int) -> Any:
    """``value`` with containers below ``depth`` levels replaced by "…" (safe to serialise)."""
    if isinstance(value, dict):
        if depth <= 0:
            return "…"
        return {str(k): _shallow(v, depth - 1) for k, v in list(value.items())[:20]}
    if isinstance(value, list):
        if depth <= 0:
            return "…"
        return [_shallow(v, depth - 1) for v in value[:20]]
    return value


def plain(value: Any, depth: int = 64) -> Any:
    """``value`` made safe to serialise: containers deeper than ``depth`` become a marker string."""
    if isinstance(value, dict):
        if depth <= 0:
            return "(nested too deeply)"
        return {str(k): plain(v, depth - 1) for k, v in value.items()}
    if isinstance(value, list):
        if depth <= 0:
            return "(nested too deeply)"
        return [plain(v, depth - 1) for v in value]
    return value
