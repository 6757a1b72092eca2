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

from loomtui.commands._args import ANY_FILE
from loomtui.commands.progress import stderr_progress
from loomtui.formats.agent.session import AgentSession
from loomtui.formats.ocp.run import ocp_run
from loomtui.formats.opening import open_session
from loomtui.session.entries import Entry
from loomtui.session.errors import LoomError, cannot_open
from loomtui.session.fileio import open_regular
from loomtui.session.jsonvalue import deep_call, depth_at_least, escape_surrogates, finite
from loomtui.session.jsstr import js_json
from loomtui.session.manager import SessionManager
from loomtui.session.reader import decode_line
from loomtui.session.source import PI
from loomtui.view.file_end import marked_leaf
from loomtui.view.omp import is_omp_session
from loomtui.view.printable import printable
from loomtui.view.words import counted, grouped

USAGE_KEYS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")
COST_KEYS = ("input", "output", "cacheRead", "cacheWrite", "total")
#: longest id list printed in plain text (``--json`` has them all)
LIST_CAP = 20
#: the entries by kind in the source's words: (noun, count, finer kinds with their counts)
Kinds = list[tuple[str, int, list[tuple[str, int]]]]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "file",
        metavar="FILE",
        help=ANY_FILE,
    )
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
        raise LoomError(cannot_open(args.file, exc)) from None
    if args.json:
        sys.stdout.write(to_json(summary) + "\n")
    else:
        sys.stdout.write(render_text(summary, entry_kinds(sm)))
    return 0


def entry_kinds(sm: SessionManager) -> Kinds | None:
    """The entries counted by kind in the source's own words (``Source.entry_words``), most
    first; None for pi's (entry types, message roles)."""
    words = sm.source.entry_words
    if words is None:
        return None
    kinds: Counter[tuple[str, str]] = Counter()
    parts: dict[tuple[str, str], Counter[str]] = {}
    runs = sm.agent.subagents if isinstance(sm, AgentSession) else {}
    for e in sm.index.entries:
        if e.id in runs:
            continue  # a subagent run's row: its entries are said apart (``_entry_rows``)
        one, several, part = words.kind(e)
        kinds[one, several] += 1
        if part is not None:
            parts.setdefault((one, several), Counter())[part] += 1
    rows = sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))
    return [
        (
            one if n == 1 else several,
            n,
            sorted(parts.get((one, several), Counter()).items(), key=lambda kv: (-kv[1], kv[0])),
        )
        for (one, several), n in rows
    ]


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


def _may_hold_usage(raw: bytes) -> bool:
    """Whether a line can hold a ``usage`` key: it is written as such, or some string of the
    line is escaped (a key could be ``"\\u0075sage"``). A tool result without either is not
    decoded (most of them: their usage is what pi 1.6.0 counts there, and few have one)."""
    return b'"usage"' in raw or b"\\u" in raw


def _full_entries(sm: SessionManager, entries: list[Entry]) -> Iterator[tuple[Entry, dict[str, Any]]]:
    """Decode ``entries`` (in file order) reading the file once, not once per entry; a tool
    result only where its line may hold a usage (all ``_Totals.add`` reads of it)."""
    fd = open_regular(sm.path) if sm.path else -1
    try:
        for e in entries:
            if e.data is not None or fd < 0 or e.offset < 0:
                yield e, sm.load(e)
                continue
            raw = os.pread(fd, e.size, e.offset)
            if e.role == "toolResult" and e.type == "message" and not _may_hold_usage(raw):
                continue
            try:
                obj = decode_line(raw)
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
    leaves, branch_points = _shape(sm)
    totals = _Totals()
    wanted = [
        e for e in entries if e.type in _USAGE_KINDS or (e.type == "message" and e.role in ("assistant", "toolResult"))
    ]
    for e, obj in _full_entries(sm, wanted):
        totals.add(e, obj)
    summary = {
        "file": sm.source.path,
        "format": sm.source.kind,
        "formatName": sm.source.display_name,
        "version": sm.version,
        "header": sm.get_header(),
        "cwdWord": sm.source.cwd_word,  # what the header's cwd is (the loom map: the directory read)
        "idWord": sm.source.id_word,  # what the header's id is (an OCP run: the run's id)
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
        "models": list(totals.models.values()),
        "usage": {
            **totals.usage,
            "cost": totals.cost,
            "assistantMessagesWithUsage": totals.replies_with_usage,
            "usageEntries": totals.usage_entries,
            "otherEntriesWithUsage": totals.others_with_usage,
        },
        "diagnostics": [{"line": d.line, "reason": d.reason} for d in sorted(sm.diagnostics, key=lambda d: d.line)],
    }
    _source_facts(sm, summary)
    return summary


def _source_facts(sm: SessionManager, summary: dict[str, Any]) -> None:
    """What ``summarize`` adds in the source's own terms: who wrote a pi file, another tool's
    own tree, which figures the file has at all, the leaf rule, an OCP run's totals."""
    if sm.source.kind == PI:
        summary["writtenBy"] = "omp" if is_omp_session(sm.title, sm.path, sm.index.entries) else "pi"
    if isinstance(sm, AgentSession):
        # another tool's file (Claude Code, Codex): its own tree and token count (docs/agent-formats.md)
        summary.update(sm.file_summary())
    u = summary["usage"]
    # a figure the file does not have is not a 0: a format without token counts, or a file whose
    # entries carry none
    summary["usageInFile"] = sm.source.keeps_usage and any(
        u.get(k) for k in ("assistantMessagesWithUsage", "usageEntries", "otherEntriesWithUsage")
    )
    summary["costInFile"] = summary["usageInFile"] and sm.source.counts_cost
    summary["cacheWriteInFile"] = summary["usageInFile"] and sm.source.keeps_cache_write
    # the leaf in the source's words; none where Enter moves no leaf (an OCP run, the loom map)
    summary["leafRule"] = sm.source.leaf_rule if sm.source.leaf_moves else None
    # the entry the app's tree marks and its header names as the leaf (view/file_end.py)
    summary["markedLeafId"] = marked_leaf(sm, sm.get_leaf_id()) if sm.source.leaf_moves else None
    run = ocp_run(sm)
    if run is not None:
        from loomtui.formats.ocp.detail import run_summary

        summary["ocp"] = run_summary(run)


def _shape(sm: SessionManager) -> tuple[list[str], list[dict[str, Any]]]:
    """(leaf ids, branch points with their child counts), in file order."""
    leaves: list[str] = []
    branch_points: list[dict[str, Any]] = []
    children = sm.index.child_lists()  # counted, not copied (a chain of a million nodes)
    for e in sm.index.entries:
        n = len(children.get(e.id, ()))
        if n == 0:
            leaves.append(e.id)
        elif n > 1:
            branch_points.append({"id": e.id, "children": n})
    return leaves, branch_points


#: entry kinds whose usage counts besides the replies' (pi's footer: usage entries, compactions
#: and branch summaries that carry one), and model changes
_USAGE_KINDS = frozenset({"model_change", "usage", "compaction", "branch_summary"})


class _Totals:
    """Models, token usage and cost summed over every assistant message, usage entry (tokens
    spent outside a reply) and tool result, compaction or branch summary with usage, as pi's
    footer counts them; and model changes."""

    def __init__(self) -> None:
        self.models: dict[tuple[str, str], dict[str, Any]] = {}
        self.usage: dict[str, Any] = {k: 0 for k in USAGE_KEYS}
        self.cost: dict[str, Any] = {k: 0.0 for k in COST_KEYS}
        self.replies_with_usage = 0
        self.usage_entries = 0
        self.others_with_usage = 0

    def add(self, e: Entry, obj: dict[str, Any]) -> None:
        if e.type == "model_change":
            _model(self.models, _model_change_key(obj))["modelChanges"] += 1
            return
        if e.type != "message":
            u = obj.get("usage")
            if isinstance(u, dict):
                self._add_usage(u)
                if e.type == "usage":
                    self.usage_entries += 1
                else:
                    self.others_with_usage += 1
            return
        msg = obj.get("message")
        if not isinstance(msg, dict):
            return
        u = msg.get("usage")
        if e.role == "toolResult":
            if isinstance(u, dict):
                self._add_usage(u)
                self.others_with_usage += 1
            return
        _model(self.models, (msg.get("provider"), msg.get("model")))["assistantMessages"] += 1
        if isinstance(u, dict):
            self.replies_with_usage += 1
            self._add_usage(u)

    def _add_usage(self, u: dict[str, Any]) -> None:
        for k in USAGE_KEYS[:4]:
            self.usage[k] += _number(u.get(k))
        # older files lack totalTokens: count the parts then
        self.usage["totalTokens"] += (
            _number(u["totalTokens"]) if "totalTokens" in u else sum(_number(u.get(k)) for k in USAGE_KEYS[:4])
        )
        c = u.get("cost")
        if isinstance(c, dict):
            for k in COST_KEYS:
                self.cost[k] += _number(c.get(k))


def _model_change_key(obj: dict[str, Any]) -> tuple[Any, Any]:
    """(provider, model id) of a model_change entry (omp writes ``model = "provider/modelId"``)."""
    if "modelId" in obj or "provider" in obj:
        return obj.get("provider"), obj.get("modelId")
    provider, _, model = str(obj.get("model", "")).partition("/")
    return (provider, model) if model else (None, provider or None)


def _text(v: Any) -> str:
    """A value from the file as one line of text (JSON for objects and arrays, cut short)."""
    if v is None or isinstance(v, (str, int, float)):
        return str(v)
    text = js_json(v)
    return text if len(text) <= 200 else text[:199] + "…"


def _ids(ids: list[str]) -> str:
    shown = ", ".join(ids[:LIST_CAP])
    return shown + (f", … ({len(ids) - LIST_CAP:,} more)" if len(ids) > LIST_CAP else "")


class _Lines(list[str]):
    """The plain-text report: ``row`` writes a key column and a value."""

    def row(self, key: str, value: Any) -> None:
        self.append(f"{key:<14}{_text(value)}")


def render_text(s: dict[str, Any], kinds: Kinds | None = None) -> str:
    """``summarize``'s summary as text; ``kinds``: the entries in their source's words
    (``entry_kinds``), else by pi's entry types."""
    out = _Lines()
    _header_rows(s, out)
    _entry_rows(s, out, kinds)
    for section in (
        _shape_rows,
        _label_rows,
        _model_rows,
        _usage_rows,
        _ocp_rows,
        _diagnostic_rows,
    ):
        section(s, out)
    return "\n".join(printable(line) for line in out) + "\n"


def _format_text(s: dict[str, Any]) -> str:
    # another format in its own words ("OCP run", "socketteer loom"; it read "ocp loom"); a pi
    # file omp wrote is oh-my-pi's
    agent = "oh-my-pi" if s.get("writtenBy") == "omp" else "pi"
    fmt = f"{agent} session, version {s['version']}" if s["format"] == "pi" else s["formatName"]
    if s.get("source"):
        fmt = f"{s['source']['tool']} session (read-only: loomtui never writes it)"
    if s["format"] == "pi" and s["version"] < 3:
        fmt += " (migrated in memory; run `loomtui migrate FILE` before writing to it)"
    return fmt


def _header_rows(s: dict[str, Any], out: _Lines) -> None:
    h = s["header"] or {}
    out.row("file", s["file"] or "(in memory)")
    out.row("format", _format_text(s))
    if s.get("idWord", "session"):  # a source whose id is made up (the loom map) prints none
        out.row(s.get("idWord", "session"), h.get("id"))
    out.row("created", h.get("timestamp") or "no time (the file keeps none)")
    out.row(s.get("cwdWord", "cwd"), h.get("cwd") or "(none)")
    if h.get("parentSession") is not None:
        out.row("parent", h.get("parentSession"))
    if h.get("branchedFrom") is not None:
        out.row("branched from", h.get("branchedFrom"))
    if s["title"]:
        out.row("title", s["title"])
    out.row("name", s["sessionName"] if s["sessionName"] is not None else "(none)")


def _entries_said(s: dict[str, Any]) -> str:
    """The file's entries (the app's header's count) and, where subagent runs are one row each
    in the tree, what is in the conversation, in the runs, and the rows the tree shows."""
    total, inline, in_files = s["entryCount"], s.get("inlineSubagentEntries") or 0, s.get("fileSubagentRuns") or 0
    if not inline and not in_files:
        return f"{total:,}"
    said = f"{total:,} in this file"
    rows = f"the tree shows {counted(s['treeRows'], 'row')}"
    if inline:
        runs = s["inlineSubagentRuns"]
        said += f": {total - inline:,} in the conversation, {inline:,} in {counted(runs, 'subagent run')}"
        rows += f": the conversation's {total - inline:,} and one per run"
    else:
        rows += ": these and one"
    if in_files:
        there = counted(s["fileSubagentEntries"], "entry", "entries")
        runs_in_files = "the subagent run" if in_files == 1 else f"each of {in_files:,} subagent runs"
        rows += f"{' and one' if inline else ''} for {runs_in_files} kept in its own file ({there} there)"
    return f"{said}; {rows}"


def _entry_rows(s: dict[str, Any], out: _Lines, kinds: Kinds | None) -> None:
    out.row("entries", _entries_said(s))
    if kinds is not None:
        inline = s.get("inlineSubagentEntries") or 0
        # the conversation's entries by kind, then those of inline subagent runs: they add up to
        # the file's (a run kept in its own file is a row of the tree, not an entry of this file)
        lines = [*kinds, ("entries of subagent runs", inline, [])] if inline else kinds
        wide = max((len(noun) for noun, _n, _parts in lines), default=0) + 2
        for noun, n, parts in lines:
            line = f"  {noun:<{max(22, wide)}}{n:>8,}"
            if parts:
                line += "  (" + ", ".join(f"{p} {c:,}" for p, c in parts) + ")"
            out.append(line)
        if inline:
            out[-1] += f"  ({counted(s['inlineSubagentRuns'], 'run')}, each one row of the tree)"
        return
    for t, n in s["entriesByType"].items():
        line = f"  {t or '(no type)':<22}{n:>8,}"
        if t == "message" and s["messagesByRole"]:
            line += "  (" + ", ".join(f"{r} {c:,}" for r, c in s["messagesByRole"].items()) + ")"
        out.append(line)


def _shape_rows(s: dict[str, Any], out: _Lines) -> None:
    out.row("roots", _ends(s["roots"], s.get("subagentRoots") or [], "start"))
    leaf, rule = s["leafId"], s.get("leafRule")
    if rule:
        out.row("leaf", f"{leaf} ({rule})" if leaf else "(none)")
        marked = s.get("markedLeafId")
        if leaf and marked and marked != leaf:
            # the app names the nearest entry the default filter shows: said here, so both agree
            out.append(f"{'':<14}the app marks {marked}, the last entry before it that the default filter shows")
    out.row("leaves", _ends(s["leaves"], s.get("subagentLeaves") or [], "end"))
    bps, beside = s["branchPoints"], s.get("subagentBranchPoints") or []
    if beside:  # the tree's folds at subagent rows, which the file's own links do not make
        out.row(
            "branch points",
            f"{len(bps) + len(beside):,}: {len(bps):,} where the file forks{_forks(bps, ' (', ')')}; {len(beside):,} "
            f"where a subagent run's row hangs beside the conversation ({_forks(beside)})",
        )
    else:
        out.row("branch points", f"{len(bps):,}{_forks(bps, ': ')}" if bps else "0")


def _forks(bps: list[dict[str, Any]], before: str = "", after: str = "") -> str:
    """Branch points as ``id (n children), …`` (``before`` and ``after`` around; none: "")."""
    if not bps:
        return ""
    shown = ", ".join(f"{b['id']} ({b['children']} children)" for b in bps[:LIST_CAP])
    more = f", … ({len(bps) - LIST_CAP:,} more)" if len(bps) > LIST_CAP else ""
    return f"{before}{shown}{more}{after}"


def _ends(ids: list[str], in_subagents: list[str], verb: str) -> str:
    """Roots or leaves, the conversation's apart from those of subagent runs the tree shows as
    one row each (what ``diff`` and ``export-branch`` can name is the first group)."""
    if not ids:
        return "0"
    if not in_subagents:
        return f"{len(ids):,}: {_ids(ids)}"
    hidden = set(in_subagents)
    own = [x for x in ids if x not in hidden]
    return (
        f"{len(ids):,}: {len(own):,} in the conversation ({_ids(own) if own else 'none'}); "
        f"{len(in_subagents):,} {verb} subagent runs, opened from their rows ({_ids(in_subagents)})"
    )


def _label_rows(s: dict[str, Any], out: _Lines) -> None:
    out.row("labels", f"{len(s['labels']):,}")
    for lab in s["labels"]:
        out.append(
            f"  {lab['id']:<8}  {_text(lab['label'])}" + (f"  ({_text(lab['timestamp'])})" if lab["timestamp"] else "")
        )


def _model_rows(s: dict[str, Any], out: _Lines) -> None:
    if s.get("ocp"):
        return  # the run's own models follow (``run models``)
    if not s["models"]:
        out.row("models", "(none)")
        return
    if all(m["provider"] is None and m["model"] is None for m in s["models"]):
        replies = sum(m["assistantMessages"] for m in s["models"])
        out.row("models", f"not in the file ({counted(replies, 'assistant message')})")
        return
    for k, m in enumerate(s["models"]):
        name = "/".join(_text(x) for x in (m["provider"], m["model"]) if x is not None) or "(unknown)"
        parts = []
        if m["assistantMessages"]:
            parts.append(counted(m["assistantMessages"], "assistant message"))
        if m["modelChanges"]:
            parts.append(counted(m["modelChanges"], "model change"))
        out.row("" if k else "models", f"{name} ({', '.join(parts)})")


def _usage_rows(s: dict[str, Any], out: _Lines) -> None:
    if s.get("ocp"):
        return  # the run's own totals follow (``run tokens``, ``run USD``)
    u = s["usage"]
    if not s.get("usageInFile", True):
        replies = sum(m["assistantMessages"] for m in s["models"])
        why = f" (none of its {counted(replies, 'assistant message')} carries a count)" if replies else ""
        out.row("tokens", f"not in the file{why}")
        out.row("cost", "not in the file")
        return
    # a cache write the format never records (Codex) is left out, not printed as 0
    write = f"cache write {grouped(u['cacheWrite'])}, " if s.get("cacheWriteInFile", True) else ""
    out.row(
        "tokens",
        f"input {grouped(u['input'])}, output {grouped(u['output'])}, cache read {grouped(u['cacheRead'])}, "
        f"{write}total {grouped(u['totalTokens'])}",
    )
    c = u["cost"]
    if s.get("source"):
        out.row("cost", "not in the file, and loomtui ships no price table for it")
        out.append(
            f"{'':<14}{counted(u['assistantMessagesWithUsage'], 'API response')} on all branches, each counted once"
        )
        return
    if s.get("costInFile", True):
        out.row(
            "cost",
            f"${c['total']:.4f} (input ${c['input']:.4f}, output ${c['output']:.4f}, cache read "
            f"${c['cacheRead']:.4f}, cache write ${c['cacheWrite']:.4f})",
        )
    else:
        out.row("cost", "not in the file")
    over = [counted(u["assistantMessagesWithUsage"], "assistant message")]
    if u.get("usageEntries"):
        over.append(counted(u["usageEntries"], "usage entry", "usage entries"))
    if u.get("otherEntriesWithUsage"):
        over.append(counted(u["otherEntriesWithUsage"], "summary or tool result", "summaries and tool results"))
    out.append(f"{'':<14}summed over {' and '.join(over)} on all branches")


def _ocp_rows(s: dict[str, Any], out: _Lines) -> None:
    if s.get("ocp"):
        from loomtui.formats.ocp.detail import summary_lines

        for key, value in summary_lines(s["ocp"]):
            out.row(key, value)


def _diagnostic_rows(s: dict[str, Any], out: _Lines) -> None:
    out.row("diagnostics", f"{len(s['diagnostics']):,}")
    for d in s["diagnostics"]:
        out.append(f"  line {d['line']}: {d['reason']}" if d["line"] else f"  {d['reason']}")
