"""`loomtui info FILE`: what a session holds, and what the reader had to repair.

Header, format version, entries by type (messages by role), roots, leaves, branch points,
labels, session name, models, token and cost totals summed over every assistant message in the
file (all branches), and the diagnostics with their line numbers. Plain text, or ``--json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from collections.abc import Iterator
from typing import Any

from loomtui.formats.agent_session import AgentSession
from loomtui.commands.progress import stderr_progress
from loomtui.formats.opening import open_session
from loomtui.formats.ocp import ocp_run
from loomtui.session.entries import Entry
from loomtui.session.errors import LoomError
from loomtui.session.jsonvalue import deep_call, depth_at_least, escape_surrogates, finite
from loomtui.session.jsstr import js_json
from loomtui.session.manager import SessionManager
from loomtui.session.reader import decode_line
from loomtui.view.printable import printable

USAGE_KEYS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")
COST_KEYS = ("input", "output", "cacheRead", "cacheWrite", "total")
#: longest id list printed in plain text (``--json`` has them all)
LIST_CAP = 20


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="a pi/omp session file (or another loom)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")


def run(args: argparse.Namespace) -> int:
    try:
        report, clear = stderr_progress(args.file)
        try:
            sm = open_session(args.file, progress=report)
        finally:
            clear()
        summary = summarize(sm)
    except OSError as exc:
        raise LoomError(f"cannot read {args.file}: {exc.strerror or exc}") from None
    if args.json:
        sys.stdout.write(to_json(summary) + "\n")
    else:
        sys.stdout.write(render_text(summary))
    return 0


def to_json(summary: dict[str, Any]) -> str:
    """Strict JSON: non-finite numbers as null (as JSON.stringify), lone surrogates escaped."""
    value = finite(summary)
    if depth_at_least(value, 200):
        text: str = deep_call(json.dumps, value, indent=1, ensure_ascii=False, allow_nan=False)
    else:
        text = json.dumps(value, indent=1, ensure_ascii=False, allow_nan=False)
    return escape_surrogates(text)


def _model(models: dict[tuple[str, str], dict[str, Any]], key: tuple[Any, Any]) -> dict[str, Any]:
    """The counters of one provider/model pair (any JSON values: keyed by their JSON text)."""
    k = (js_json(key[0]), js_json(key[1]))
    found = models.get(k)
    if found is None:
        found = models[k] = {"provider": key[0], "model": key[1], "assistantMessages": 0, "modelChanges": 0}
    return found


def _number(v: Any) -> float | int:
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else 0


def _full_entries(sm: SessionManager, entries: list[Entry]) -> Iterator[tuple[Entry, dict[str, Any]]]:
    """Decode ``entries`` (in file order) reading the file once, not once per entry."""
    fd = os.open(sm.path, os.O_RDONLY) if sm.path else -1
    try:
        for e in entries:
            if e.data is not None or fd < 0 or e.offset < 0:
                yield e, sm.load(e)
                continue
            try:
                obj = decode_line(os.pread(fd, e.size, e.offset))
            except ValueError:
                continue
            if isinstance(obj, dict):
                yield e, obj
    finally:
        if fd >= 0:
            os.close(fd)


def summarize(sm: SessionManager) -> dict[str, Any]:
    """Everything ``info`` prints, as plain JSON-able data."""
    idx = sm.index
    entries = idx.entries
    by_type: Counter[str] = Counter(e.type for e in entries)
    by_role: Counter[str] = Counter(e.role or "?" for e in entries if e.type == "message")

    leaves: list[str] = []
    branch_points: list[dict[str, Any]] = []
    for e in entries:
        n = len(idx.children_in_file_order(e.id))
        if n == 0:
            leaves.append(e.id)
        elif n > 1:
            branch_points.append({"id": e.id, "children": n})

    models: dict[tuple[str, str], dict[str, Any]] = {}
    usage: dict[str, Any] = {k: 0 for k in USAGE_KEYS}
    cost: dict[str, Any] = {k: 0.0 for k in COST_KEYS}
    replies_with_usage = 0
    wanted = [e for e in entries if e.type == "model_change" or (e.type == "message" and e.role == "assistant")]
    for e, obj in _full_entries(sm, wanted):
        if e.type == "model_change":
            if "modelId" in obj or "provider" in obj:
                key = (obj.get("provider"), obj.get("modelId"))
            else:  # omp: model = "provider/modelId"
                provider, _, model = str(obj.get("model", "")).partition("/")
                key = (provider, model) if model else (None, provider or None)
            _model(models, key)["modelChanges"] += 1
            continue
        msg = obj.get("message")
        if not isinstance(msg, dict):
            continue
        _model(models, (msg.get("provider"), msg.get("model")))["assistantMessages"] += 1
        u = msg.get("usage")
        if not isinstance(u, dict):
            continue
        replies_with_usage += 1
        for k in USAGE_KEYS[:4]:
            usage[k] += _number(u.get(k))
        # older files lack totalTokens: count the parts then
        usage["totalTokens"] += _number(u["totalTokens"]) if "totalTokens" in u else sum(
            _number(u.get(k)) for k in USAGE_KEYS[:4]
        )
        c = u.get("cost")
        if isinstance(c, dict):
            for k in COST_KEYS:
                cost[k] += _number(c.get(k))

    header = sm.get_header()
    summary = {
        "file": sm.source.path,
        "format": sm.source.kind,
        "version": sm.version,
        "header": header,
        "title": (sm.title or {}).get("title") if sm.title else None,
        "sessionName": sm.get_session_name(),
        "entryCount": len(entries),
        "entriesByType": dict(sorted(by_type.items(), key=lambda kv: (-kv[1], kv[0]))),
        "messagesByRole": dict(sorted(by_role.items(), key=lambda kv: (-kv[1], kv[0]))),
        "roots": [r.id for r in idx.roots],
        "leafId": sm.get_leaf_id(),
        "leaves": leaves,
        "branchPoints": branch_points,
        "labels": [{"id": k, "label": v[0], "timestamp": v[1]} for k, v in idx.labels.items()],
        "models": list(models.values()),
        "usage": {**usage, "cost": cost, "assistantMessagesWithUsage": replies_with_usage},
        "diagnostics": [{"line": d.line, "reason": d.reason} for d in sorted(sm.diagnostics, key=lambda d: d.line)],
    }
    if isinstance(sm, AgentSession):
        # another tool's file (Claude Code, Codex): its own tree and token count (docs/agent-formats.md)
        summary.update(sm.file_summary())
    run = ocp_run(sm)
    if run is not None:
        from loomtui.formats.ocp_detail import run_summary

        summary["ocp"] = run_summary(run)
    return summary


def _text(v: Any) -> str:
    """A value from the file as one line of text (JSON for objects and arrays, cut short)."""
    if v is None or isinstance(v, (str, int, float)):
        return str(v)
    text = js_json(v)
    return text if len(text) <= 200 else text[:199] + "…"


def _ids(ids: list[str]) -> str:
    shown = ", ".join(ids[:LIST_CAP])
    return shown + (f", … ({len(ids) - LIST_CAP} more)" if len(ids) > LIST_CAP else "")


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _fmt_int(v: float | int) -> str:
    return f"{int(v):,}" if float(v).is_integer() else f"{v:,}"


def render_text(s: dict[str, Any]) -> str:
    out: list[str] = []

    def row(key: str, value: Any) -> None:
        out.append(f"{key:<14}{_text(value)}")

    h = s["header"] or {}
    row("file", s["file"] or "(in memory)")
    fmt = f"{s['format']} session, version {s['version']}" if s["format"] == "pi" else f"{s['format']} loom"
    if s.get("source"):
        fmt = f"{s['source']['tool']} session (read-only: loomtui never writes it)"
    if s["format"] == "pi" and s["version"] < 3:
        fmt += " (migrated in memory; run `loomtui migrate FILE` before writing to it)"
    row("format", fmt)
    row("session", h.get("id"))
    row("created", h.get("timestamp"))
    row("cwd", h.get("cwd"))
    if h.get("parentSession") is not None:
        row("parent", h.get("parentSession"))
    if h.get("branchedFrom") is not None:
        row("branched from", h.get("branchedFrom"))
    if s["title"]:
        row("title", s["title"])
    row("name", s["sessionName"] if s["sessionName"] is not None else "(none)")

    row("entries", s["entryCount"])
    for t, n in s["entriesByType"].items():
        line = f"  {t or '(no type)':<22}{n:>8}"
        if t == "message" and s["messagesByRole"]:
            line += "  (" + ", ".join(f"{r} {c}" for r, c in s["messagesByRole"].items()) + ")"
        out.append(line)

    row("roots", f"{len(s['roots'])}: {_ids(s['roots'])}" if s["roots"] else "0")
    leaf = s["leafId"]
    rule = "the format's leaf rule" if s.get("source") else "last entry in the file"
    row("leaf", f"{leaf} ({rule})" if leaf else "(none)")
    row("leaves", f"{len(s['leaves'])}: {_ids(s['leaves'])}" if s["leaves"] else "0")
    bps = s["branchPoints"]
    if bps:
        shown = ", ".join(f"{b['id']} ({b['children']} children)" for b in bps[:LIST_CAP])
        more = f", … ({len(bps) - LIST_CAP} more)" if len(bps) > LIST_CAP else ""
        row("branch points", f"{len(bps)}: {shown}{more}")
    else:
        row("branch points", "0")

    row("labels", len(s["labels"]))
    for lab in s["labels"]:
        out.append(f"  {lab['id']:<8}  {_text(lab['label'])}" + (f"  ({_text(lab['timestamp'])})" if lab["timestamp"] else ""))

    if s["models"]:
        first = True
        for m in s["models"]:
            name = "/".join(_text(x) for x in (m["provider"], m["model"]) if x is not None) or "(unknown)"
            parts = []
            if m["assistantMessages"]:
                parts.append(_plural(m["assistantMessages"], "assistant message"))
            if m["modelChanges"]:
                parts.append(_plural(m["modelChanges"], "model change"))
            row("models" if first else "", f"{name} ({', '.join(parts)})")
            first = False
    else:
        row("models", "(none)")

    u = s["usage"]
    row(
        "tokens",
        f"input {_fmt_int(u['input'])}, output {_fmt_int(u['output'])}, cache read {_fmt_int(u['cacheRead'])}, "
        f"cache write {_fmt_int(u['cacheWrite'])}, total {_fmt_int(u['totalTokens'])}",
    )
    c = u["cost"]
    if s.get("source"):
        row("cost", "not in the file, and loomtui ships no price table for it")
        out.append(f"{'':<14}{_plural(u['assistantMessagesWithUsage'], 'API response')} on all branches, "
                   "each counted once")
    else:
        row(
            "cost",
            f"${c['total']:.4f} (input ${c['input']:.4f}, output ${c['output']:.4f}, cache read "
            f"${c['cacheRead']:.4f}, cache write ${c['cacheWrite']:.4f})",
        )
        out.append(f"{'':<14}summed over {_plural(u['assistantMessagesWithUsage'], 'assistant message')} on all branches")

    if s.get("ocp"):
        from loomtui.formats.ocp_detail import summary_lines

        for key, value in summary_lines(s["ocp"]):
            row(key, value)
    row("diagnostics", len(s["diagnostics"]))
    for d in s["diagnostics"]:
        out.append(f"  line {d['line']}: {d['reason']}" if d["line"] else f"  {d['reason']}")
    return "\n".join(printable(line) for line in out) + "\n"
