"""OCP rows: status glyphs, one-line texts, totals and the run filters (see docs/formats.md, "OCP run documents").

Everything a row says comes from the attempts: a node's glyph is its attempts' status, never
``node.state`` (the producer's projection, shown beside it in the detail only). A missing
``outcome.evidence`` reads "asserted", the weakest grade, never a stronger one.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from math import fsum
from operator import is_not, itemgetter
from typing import TYPE_CHECKING, Any

from loomtui.formats.base.common import parse_iso
from loomtui.view.words import counted

if TYPE_CHECKING:
    from loomtui.formats.ocp.run import OcpRun

GLYPHS = {
    "queued": "○",
    "working": "▶",
    "done": "✓",
    "failed": "✗",
    "rejected": "⊘",
    "canceled": "⊖",
    "settled_unverified": "◌",
    "lost": "†",
}
UNKNOWN_GLYPH = "?"
TERMINAL = frozenset(("done", "failed", "rejected", "canceled", "settled_unverified", "lost"))
TOKEN_FIELDS = ("input_tokens", "cached_input_tokens", "cache_creation_tokens", "output_tokens")
STATUS_ORDER = ("done", "failed", "rejected", "canceled", "settled_unverified", "lost", "working", "queued")


def glyph(status: str | None) -> str:
    return GLYPHS.get(status or "", UNKNOWN_GLYPH)


def _s(value: Any, cap: int = 120) -> str:
    """A short one-line rendering of a scalar from the document."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    text = " ".join(text.split())
    return text if len(text) <= cap else text[: cap - 1] + "…"


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def status_of(a: dict[str, Any]) -> str:
    s = a.get("status")
    return s if isinstance(s, str) else "?"


def evidence_of(a: dict[str, Any]) -> str:
    """outcome.evidence, with a missing one read as ``asserted`` (never upgraded)."""
    outcome = a.get("outcome")
    ev = outcome.get("evidence") if isinstance(outcome, dict) else None
    return ev if isinstance(ev, str) and ev else "asserted"


def model_of(a: dict[str, Any]) -> str:
    m = a.get("model")
    if isinstance(m, dict):
        for k in ("raw", "id", "family"):
            if isinstance(m.get(k), str) and m[k]:
                return str(m[k])
    elif isinstance(m, str):
        return m
    return ""


def harness_of(a: dict[str, Any]) -> str:
    h = a.get("harness")
    return h if isinstance(h, str) else ""


def fast_time(value: Any) -> float | None:
    """An ISO-8601 time with zone as Unix seconds (None when missing or without a zone)."""
    if type(value) is not str:
        return None
    try:
        dt = _fromiso(value)
    except ValueError:
        parsed = parse_iso(value)
        return parsed.timestamp() if parsed is not None else None
    return dt.timestamp() if dt.tzinfo is not None else None


_fromiso = datetime.fromisoformat


#: what rows and totals need of one attempt: status, tokens, usd (None when not priced), model
#: label, harness
Facts = tuple[str, int, "float | None", str, str]
#: when one attempt ran: start, end (Unix seconds or None). Apart from ``Facts``: only the
#: details show times, and reading two ISO times is half the cost of an attempt's facts
Times = tuple["float | None", "float | None"]


def facts_of(a: dict[str, Any]) -> Facts:
    """What rows and totals need of one attempt (run once per attempt while a run opens: the
    usual shapes are read inline, anything else by ``_num`` and ``model_of``)."""
    get = a.get
    cost = get("cost")
    tokens = 0
    usd = None
    if type(cost) is dict:
        cget = cost.get
        for v in map(cget, TOKEN_FIELDS):
            if type(v) is int:
                tokens += v
            elif v is not None:
                v = _num(v)
                if v:
                    tokens += int(v)
        usd = cget("usd")
        if type(usd) is not float:
            usd = _num(usd)
        elif usd - usd != 0.0:  # inf or nan
            usd = None
    status = get("status")
    harness = get("harness")
    m = get("model")
    model = m.get("raw") if type(m) is dict else m
    if type(model) is not str or not model:
        model = model_of(a)
    return (status if type(status) is str else "?", tokens, usd, model, harness if type(harness) is str else "")


def times_of(a: dict[str, Any]) -> Times:
    """When an attempt started and ended (Unix seconds; None when missing or without a zone)."""
    get = a.get
    return fast_time(get("started_at")), fast_time(get("ended_at"))


@dataclass
class Totals:
    """What a set of attempts adds up to on a row: counts by status, tokens, USD."""

    attempts: int = 0
    tokens: int = 0
    usd: float = 0.0
    priced: int = 0
    statuses: Counter[str] = field(default_factory=Counter)

    def usd_text(self) -> str:
        """The cost in USD, ``+`` where some attempts have none; empty when none has one."""
        return f"${self.usd:.2f}" + ("+" if self.priced < self.attempts else "") if self.priced else ""

    def cost_text(self) -> str:
        parts = []
        if self.priced:
            parts.append(self.usd_text())
        if self.tokens:
            parts.append(tokens_text(self.tokens) + " tok")
        return " · ".join(parts)

    def counts_text(self) -> str:
        c = self.statuses
        keys = [k for k in STATUS_ORDER if c.get(k)] + sorted(k for k in c if k not in STATUS_ORDER)
        return " ".join(f"{c[k]}{glyph(k)}" for k in keys)


@dataclass
class Timing:
    """When a set of attempts ran (what the details show): the first start, the last end, and
    the agent time (the sum of the attempts' own durations)."""

    first_start: float = math.inf
    last_end: float = -math.inf
    agent_seconds: float = 0.0

    @property
    def wall_seconds(self) -> float | None:
        return self.last_end - self.first_start if self.last_end >= self.first_start else None


def tokens_text(n: float) -> str:
    if n >= 1e6:
        return f"{n / 1e6:.1f}M"
    if n >= 1e3:
        return f"{n / 1e3:.0f}k"
    return str(int(n))


def duration_text(seconds: float | None) -> str:
    if seconds is None:
        return "unknown"
    s = int(round(seconds))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}h{m:02d}m" if h else (f"{m}m{sec:02d}s" if m else f"{sec}s")


def totals_from(facts: list[Facts]) -> Totals:
    """The totals of these attempts, summed column by column with builtins (a run's 50k
    attempts are on its first row). The floats are summed exactly rounded (``math.fsum``), so
    the totals do not depend on the attempts' order (``ocp/split.py`` makes them in document
    order while the run is placed)."""
    t = Totals()
    if not facts:
        return t
    t.attempts = len(facts)
    t.statuses = Counter(map(itemgetter(0), facts))
    t.tokens = sum(map(itemgetter(1), facts))
    priced = list(filter(_known, map(itemgetter(2), facts)))
    t.priced = len(priced)
    t.usd = exact_sum(priced)
    return t


def timing_from(times: list[Times]) -> Timing:
    """The timing of these attempts (the agent time summed exactly, as ``totals_from`` sums)."""
    t = Timing()
    if not times:
        return t
    starts, ends = list(map(itemgetter(0), times)), list(map(itemgetter(1), times))
    t.first_start = min(filter(_known, starts), default=math.inf)
    t.last_end = max(filter(_known, ends), default=-math.inf)
    t.agent_seconds = exact_sum([e - s for s, e in zip(starts, ends) if s is not None and e is not None and e >= s])
    return t


def exact_sum(values: list[float]) -> float:
    """The sum of finite floats exactly rounded (``math.fsum``), so it does not depend on their
    order; a sum that leaves the float range on the way (a document's 1e308 amounts) is made
    from the values scaled down by a power of two (exact), then scaled back: ±inf when the
    total itself is out of range, never an error."""
    try:
        return fsum(values)
    except OverflowError:
        return fsum([v * _DOWN for v in values]) * _UP


_DOWN, _UP = 2.0**-64, 2.0**64


#: not None (a C-level test for ``filter``)
_known = partial(is_not, None)


def totals_of(run: OcpRun, attempt_ids: Any) -> Totals:
    facts = run.facts
    return totals_from([facts[aid] for aid in attempt_ids])


def node_totals(run: OcpRun, nid: str) -> Totals:
    t = run.node_tot.get(nid)
    if t is None:
        t = run.node_tot[nid] = totals_of(run, run.attempts_of.get(nid, ()))
    return t


def group_totals(run: OcpRun, gid: str) -> tuple[int, Totals]:
    """(member nodes, their attempts' totals); made from the attempts directly: the group rows
    are on the first screen, and a per-node total for every member would cost more."""
    members = run.group_members.get(gid, ())
    t = run.group_tot.get(gid)
    if t is None:
        attempts_of, facts = run.attempts_of, run.facts
        t = run.group_tot[gid] = totals_from([facts[aid] for nid in members for aid in attempts_of.get(nid, ())])
    return len(members), t


def nodes_timing(run: OcpRun, nids: Any) -> Timing:
    """The timing of these nodes' attempts (a node's, a group's members')."""
    attempts_of, times = run.attempts_of, run.times
    return timing_from([times[aid] for nid in nids for aid in attempts_of.get(nid, ())])


def run_timing(run: OcpRun) -> Timing:
    """The whole run's timing (made once)."""
    t = run.run_timing
    if t is None:
        later, run.timing_later = run.timing_later, None
        t = later() if later is not None else None  # made by the child that placed the run
        if t is None:  # read from the records straight: each attempt's times are not kept for this
            attempts = run.attempts
            t = timing_from([times_of(attempts[aid]) for aids in run.attempts_of.values() for aid in aids])
        run.run_timing = t
    return t


def run_totals(run: OcpRun) -> Totals:
    """The whole run's totals (made once: the run row and its detail both show them)."""
    t = run.run_tot
    if t is None:
        facts = run.facts
        t = run.run_tot = totals_from([facts[aid] for aids in run.attempts_of.values() for aid in aids])
    return t


def _flag(run: OcpRun, eid: str) -> str:
    fs = run.findings.get(eid)
    if not fs:
        return ""
    codes = sorted({f[1] for f in fs})
    return " · ⚑" + ",".join(codes[:4]) + ("…" if len(codes) > 4 else "")


def _entry(kind: str, text: str, record: Any, what: str, rid: str) -> dict[str, Any]:
    """A row: kind in brackets, then its one-line text; ``details`` keeps the record as read
    (renderers that know nothing of OCP show it as JSON)."""
    return {"type": "custom_message", "customType": kind, "content": text, "display": True, "details": record}


def run_name(run: OcpRun) -> str:
    r = run.run
    title = _s(r.get("title"), 80)
    rid = _s(r.get("id"), 80) or "(no run id)"
    return f"{rid}: {title}" if title else rid


def task_of(run: OcpRun) -> str:
    task = run.run.get("task")
    if isinstance(task, dict):
        return _s(task.get("title") or task.get("id"), 80)
    labels = run.run.get("labels")
    if isinstance(labels, dict) and isinstance(labels.get("task"), str):
        return _s(labels["task"], 80)
    return ""


def run_entry(run: OcpRun) -> dict[str, Any]:
    t = run_totals(run)
    parts = [run_name(run)]
    task = task_of(run)
    if task:
        parts.append(f"task {task}")
    parts.append(counted(len(run.nodes), "node"))
    parts.append(counted(t.attempts, "attempt") + (f": {t.counts_text()}" if t.attempts else ""))
    cost = t.cost_text()
    if cost:
        parts.append(cost)
    label = "run" if run.view == "dag" else "run lineage"
    return _entry(label, " · ".join(parts) + _flag(run, "run"), run.run, "run", "")


def group_entry(run: OcpRun, gid: str) -> dict[str, Any]:
    g = run.groups[gid]
    count, t = group_totals(run, gid)
    parts = [_s(g.get("title")) or gid, counted(count, "node")]
    if t.attempts:
        parts.append(t.counts_text())
    cost = t.cost_text()
    if cost:
        parts.append(cost)
    if g.get("title") and g.get("title") != gid:
        parts.append(gid)
    return _entry("group", " · ".join(parts) + _flag(run, "g:" + gid), g, "group", gid)


def node_models(run: OcpRun, nid: str) -> str:
    seen: dict[str, None] = {}
    facts = run.facts
    for aid in run.attempts_of.get(nid, ()):
        m = facts[aid][3]
        if m:
            seen.setdefault(m)
    names = list(seen)
    return names[0] + (f" +{len(names) - 1}" if len(names) > 1 else "") if names else ""


def node_kind(node: dict[str, Any]) -> str:
    """The bracketed kind of a node's row (its ``kind``, else "node")."""
    return _s(node.get("kind"), 40) or "node"


def node_entry(run: OcpRun, nid: str) -> dict[str, Any]:
    node = run.nodes[nid]
    kind = node_kind(node)
    status = run.node_status(nid)
    t = node_totals(run, nid)
    head = glyph(status) if status else "○"
    parts = [f"{head} {_s(node.get('title')) or nid}"]
    if status is None:
        st = node.get("state")
        parts.append("no attempts" + (f" (state: {_s(st, 40)})" if isinstance(st, str) else ""))
    elif t.attempts > 1:
        parts.append(f"{t.attempts} attempts")
    models = node_models(run, nid)
    if models:
        parts.append(models)
    cost = t.cost_text()
    if cost:
        parts.append(cost)
    parts.append(nid)
    after = run.also_after.get(nid)
    if after:
        word = "also after" if run.view == "dag" else "also from"
        parts.append(f"{word}: " + ", ".join(after[:6]) + (" …" if len(after) > 6 else ""))
    return _entry(kind, " · ".join(parts) + _flag(run, "n:" + nid), node, "node", nid)


def missing_node_entry(run: OcpRun, nid: str) -> dict[str, Any]:
    return _entry(
        "missing node",
        f"? {nid} (named by attempts, not defined in the document)" + _flag(run, "n:" + nid),
        None,
        "missing",
        nid,
    )


def _short(value: Any, cap: int = 120) -> str:
    """``_s`` for the hot path: plain short strings pass as they are (rows normalise spaces)."""
    if type(value) is str and len(value) <= cap:
        return value
    return _s(value, cap)


def _cost_of(f: Facts) -> str:
    tokens, usd = f[1], f[2]
    if usd is not None:
        return f"${usd:.2f} · {tokens_text(tokens)} tok" if tokens else f"${usd:.2f}"
    return f"{tokens_text(tokens)} tok" if tokens else ""


def attempt_entry(run: OcpRun, aid: str) -> dict[str, Any]:
    a = run.attempts[aid]
    f = run.facts[aid]
    outcome = a.get("outcome")
    if type(outcome) is not dict:
        outcome = None
    parts = [_attempt_head(a.get("n"), f[0], outcome)]
    model = f[3]
    effort = a.get("effort")
    if type(effort) is str:
        parts.append(f"{model} {_short(effort, 20)}" if model else _short(effort, 20))
    elif model:
        parts.append(model)
    if f[4]:
        parts.append(_short(f[4], 40))
    cost = _cost_of(f)
    if cost:
        parts.append(cost)
    parts.append(aid)
    cause = _cause_text(a.get("cause"))
    if cause:
        parts.append(cause)
    if outcome is not None:
        via, reason = outcome.get("via"), outcome.get("reason")
        if via or reason:
            parts.append(
                ": ".join(x for x in (f"via {_short(via, 60)}" if via else "", _short(reason) if reason else "") if x)
            )
    session = a.get("session")
    if type(session) is str and session:
        parts.append("⏎ session")
    flag = _flag(run, "a:" + aid) if run.findings else ""
    return {
        "type": "custom_message",
        "customType": "attempt",
        "content": " · ".join(parts) + flag,
        "display": True,
        "details": a,
    }


def _attempt_head(n: Any, status: str, outcome: dict[str, Any] | None) -> str:
    """Glyph, number, status and the outcome's grade (a missing evidence reads "asserted")."""
    head = f"{GLYPHS.get(status, UNKNOWN_GLYPH)} " + (f"#{n} " if type(n) is int else "") + status
    if outcome is not None or status in TERMINAL:
        result = outcome.get("result") if outcome else None
        ev = outcome.get("evidence") if outcome else None
        grade = ev if type(ev) is str and ev else "asserted"
        head += f" ({grade})" if result is None or result == status else f" (outcome {_short(result, 40)}, {grade})"
    return head


def _cause_text(cause: Any) -> str:
    """``type ← ref: reason`` for a cause other than the initial one ("" for that)."""
    if type(cause) is not dict:
        return ""
    ctype, ref = cause.get("type"), cause.get("ref")
    if not ref and not (type(ctype) is str and ctype != "initial"):
        return ""
    c = _short(ctype, 30) or "cause"
    if ref:
        c += f" ← {_short(ref, 60)}"
    if cause.get("reason"):
        c += f": {_short(cause.get('reason'))}"
    return c


# filters ------------------------------------------------------------------------------------
