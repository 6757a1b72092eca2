"""The session's token and cost totals as pi's footer counts them: every assistant reply,
every usage entry (tokens spent outside a reply, such as cache warming), and the usage of tool
results, compactions and branch summaries that carry one; all branches, not only the current
one (docs/pi-releases.md). Usage entries have no tree rows of their own: this is where they show.
No Textual here.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from loomtui.session.entries import Entry
from loomtui.session.manager import SessionManager

#: entry kinds that can carry usage (a message is counted by role)
_KINDS = frozenset({"usage", "compaction", "branch_summary"})


@dataclass(slots=True)
class UsageTotals:
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0
    replies: int = 0
    usage_entries: int = 0
    others: int = 0  # tool results, compactions and branch summaries with usage

    @property
    def tokens(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write

    @property
    def figure(self) -> str:
        """``↑in ↓out Rread Wwrite $cost`` as pi's footer writes it (k/M for big numbers)."""
        parts = []
        if self.input:
            parts.append(f"↑{short_count(self.input)}")
        if self.output:
            parts.append(f"↓{short_count(self.output)}")
        if self.cache_read:
            parts.append(f"R{short_count(self.cache_read)}")
        if self.cache_write:
            parts.append(f"W{short_count(self.cache_write)}")
        if self.cost:
            parts.append(f"${to_fixed(self.cost, 3)}")
        return " ".join(parts)


def to_fixed(x: float, digits: int = 1) -> str:
    """JavaScript's ``toFixed``: the exact value rounded, a tie upwards."""
    return str(Decimal(x).quantize(Decimal(1).scaleb(-digits), ROUND_HALF_UP))


def short_count(n: int) -> str:
    """pi's footer numbers: 999, 1.2k, 12k, 1.2M, 12M."""
    if n < 1000:
        return str(n)
    if n < 10_000:
        return f"{to_fixed(n / 1000)}k"
    if n < 1_000_000:
        return f"{math.floor(n / 1000 + 0.5)}k"
    if n < 10_000_000:
        return f"{to_fixed(n / 1_000_000)}M"
    return f"{math.floor(n / 1_000_000 + 0.5)}M"


def _num(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return 0.0
    return float(v)


def _counted(e: Entry) -> bool:
    if e.type == "message":
        return e.role in ("assistant", "toolResult")
    return e.type in _KINDS


def usage_of_entry(full: Any) -> dict[str, Any] | None:
    """The usage object an entry carries (a reply's, a usage entry's, a summary's), if any."""
    if not isinstance(full, dict):
        return None
    if full.get("type") == "message":
        msg = full.get("message")
        u = msg.get("usage") if isinstance(msg, dict) else None
    else:
        u = full.get("usage")
    return u if isinstance(u, dict) else None


def add(totals: UsageTotals, e: Entry, full: Any) -> None:
    u = usage_of_entry(full)
    if u is None:
        return
    totals.input += int(_num(u.get("input")))
    totals.output += int(_num(u.get("output")))
    totals.cache_read += int(_num(u.get("cacheRead")))
    totals.cache_write += int(_num(u.get("cacheWrite")))
    cost = u.get("cost")
    totals.cost += _num(cost.get("total")) if isinstance(cost, dict) else 0.0
    if e.type == "usage":
        totals.usage_entries += 1
    elif e.type == "message" and e.role == "assistant":
        totals.replies += 1
    else:
        totals.others += 1


_CACHE: weakref.WeakKeyDictionary[SessionManager, tuple[int, UsageTotals]] = weakref.WeakKeyDictionary()


def session_usage(manager: SessionManager) -> UsageTotals:
    """The totals of every entry (read once per session size; a grown file adds its new
    entries' usage only)."""
    entries = manager.index.entries
    n = len(entries)
    hit = _CACHE.get(manager)
    start, totals = (0, UsageTotals()) if hit is None or hit[0] > n else (hit[0], hit[1])
    if start == n and hit is not None:
        return totals
    own = manager.source.file_usage
    if own is not None:  # the file's own count (``Source.file_usage``), as ``info`` prints it
        u = own()
        totals = UsageTotals(
            u.get("input", 0),
            u.get("output", 0),
            u.get("cacheRead", 0),
            u.get("cacheWrite", 0),
            replies=u.get("responses", 0),
        )
        _CACHE[manager] = (n, totals)
        return totals
    totals = UsageTotals(**{f: getattr(totals, f) for f in UsageTotals.__dataclass_fields__})
    for e in entries[start:]:
        if _counted(e):
            add(totals, e, manager.load(e))
    _CACHE[manager] = (n, totals)
    return totals


#: new entries the header's figure adds on the spot (more wait for the next full count)
INCREMENT = 1000


def header_usage(manager: SessionManager) -> UsageTotals | None:
    """The totals for the header without reading the whole session: None until
    ``session_usage`` ran once (the browser runs it in a worker after opening); then kept up to
    date as the file grows by a few entries."""
    hit = _CACHE.get(manager)
    if hit is None:
        return None
    if 0 <= len(manager.index.entries) - hit[0] <= INCREMENT:
        return session_usage(manager)
    return hit[1]
