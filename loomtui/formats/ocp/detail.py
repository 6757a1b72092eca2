"""The detail of one OCP row (run, group, node, attempt) as Markdown, Textual-free.

Every field of the record is shown; the interpreted parts come first: outcome with its
evidence grade (a missing grade reads "asserted") and the gate or review it came ``via``, the
cost with its basis, the cause chain, the origin, timings, artifacts with their edges, totals.
``ext`` namespaces are listed as they are, never interpreted.
"""

from __future__ import annotations

import json
from typing import Any

from loomtui.formats.ocp import text as T
from loomtui.formats.ocp.check import checked_words
from loomtui.formats.ocp.run import OcpRun
from loomtui.view.words import counted

CHAIN_CAP = 50


def _dumps(value: Any, indent: int | None = None) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, indent=indent, default=str)
    except (RecursionError, ValueError, TypeError):  # hostile nesting never breaks the pane
        return "(nested too deeply to show)"


def _j(value: Any) -> str:
    return _dumps(value)


def _code(value: Any) -> str:
    return "```json\n" + _dumps(value, 2) + "\n```"


def _esc(value: Any) -> str:
    text = value if isinstance(value, str) else _j(value)
    return text.replace("\\", "\\\\").replace("*", "\\*").replace("_", "\\_").replace("`", "\\`").replace("<", "&lt;")


def _row(out: list[str], key: str, value: Any) -> None:
    if value is None or value == "" or value == {} or value == []:
        return
    out.append(f"- **{key}**: {_esc(value)}")


def _node_name(run: OcpRun, nid: Any) -> str:
    node = run.nodes.get(nid) if isinstance(nid, str) else None
    if node is None:
        return f"{_esc(nid)} (not a node of this run)"
    title = node.get("title")
    return f"{_esc(nid)} ({_esc(node.get('kind'))}{': ' + _esc(title) if title else ''})"


def _attempt_name(run: OcpRun, aid: Any) -> str:
    a = run.attempts.get(aid) if isinstance(aid, str) else None
    if a is None:
        return f"{_esc(aid)} (not an attempt of this run)"
    return f"{_esc(aid)} ({T.glyph(T.status_of(a))} {_esc(T.status_of(a))} at node {_esc(a.get('node'))})"


def _totals(out: list[str], t: T.Totals, timing: T.Timing, title: str) -> None:
    out.append(f"\n### {title}\n")
    out.append(f"- **attempts**: {t.attempts}" + (f" ({t.counts_text()})" if t.attempts else ""))
    out.append(f"- **tokens**: {t.tokens:,}")
    usd = f"${t.usd:.4f}" if t.priced else "unknown"
    if t.priced and t.priced < t.attempts:
        usd += f" (priced on {t.priced} of {t.attempts} attempts)"
    out.append(f"- **USD**: {usd}")
    out.append(
        f"- **wall time**: {T.duration_text(timing.wall_seconds)} (first start to last end); "
        f"agent time {T.duration_text(timing.agent_seconds)}"
    )


def _ext(out: list[str], record: dict[str, Any], where: str = "") -> None:
    ext = record.get("ext")
    if isinstance(ext, dict) and ext:
        out.append(f"\n### extensions{where} (shown as recorded, not interpreted)\n")
        for ns, value in ext.items():
            out.append(f"- `{ns}`: {_esc(value)}")


def _findings(out: list[str], run: OcpRun, eid: str) -> None:
    fs = run.findings.get(eid)
    if fs:
        out.append("\n### conformance findings\n")
        for level, code, path, message in fs:
            out.append(f"- **{code}** {level} at `{path}`: {_esc(message)}")


def _all_fields(out: list[str], record: Any) -> None:
    out.append("\n### every field\n")
    out.append(_code(record))


def describe(run: OcpRun, eid: str, session_path: str | None = None) -> str:
    """Markdown for the row ``eid`` (``session_path``: where ``attempt.session`` was found)."""
    out: list[str] = []
    if eid == "run":
        _run(out, run)
    elif eid.startswith("g:") and eid[2:] in run.groups:
        _group(out, run, eid[2:])
    elif eid.startswith("n:") and eid[2:] in run.nodes:
        _node(out, run, eid[2:])
    elif eid.startswith("n:"):
        out.append(f"## missing node {_esc(eid[2:])}\n")
        out.append("Attempts name this node but the document does not define it.")
        _totals(out, T.node_totals(run, eid[2:]), T.nodes_timing(run, [eid[2:]]), "totals")
    elif eid.startswith("a:") and eid[2:] in run.attempts:
        _attempt(out, run, eid[2:], session_path)
    _findings(out, run, eid)
    return "\n".join(out) + "\n"


def _run(out: list[str], run: OcpRun) -> None:
    r = run.run
    out.append(f"## run {_esc(r.get('id'))}\n")
    _row(out, "title", r.get("title"))
    _row(out, "OCP version", run.doc.get("ocp"))
    _row(out, "view", "dependency tree" if run.view == "dag" else "spawn/launch lineage")
    _producer(out, run.doc)
    for key in ("started_at", "ended_at", "workspace", "labels"):
        _row(out, key.replace("_", " "), r.get(key))
    _task_and_configuration(out, r)
    for key in ("provenance", "acceptance_rule", "slate", "rescue"):
        _row(out, key.replace("_", " "), r.get(key))
    _signals(out, r.get("signals"))
    _totals(out, T.run_totals(run), T.run_timing(run), "run totals")
    if run.checked:
        found = sum(len(v) for v in run.findings.values())
        checked, how = checked_words(run.checked)
        if checked:
            out.append(f"\nconformance checked with {how}: {counted(found, 'finding')}")
        else:
            out.append(f"\nconformance not checked: {how}")
    _ext(out, r, " of the run")
    _ext(out, run.doc, " of the document")
    _all_fields(
        out,
        {k: v for k, v in run.doc.items() if k not in ("nodes", "attempts", "edges", "events", "artifacts", "groups")},
    )


def _producer(out: list[str], doc: dict[str, Any]) -> None:
    """Who wrote the document (``producer``) and its privacy profile."""
    p = doc.get("producer")
    if isinstance(p, dict):
        _row(out, "producer", " ".join(str(p.get(k)) for k in ("name", "version") if p.get(k)))
        _row(out, "framework", " ".join(str(p.get(k)) for k in ("framework", "framework_version") if p.get(k)))
        _row(out, "source contract", p.get("source_contract"))
        _row(out, "emitted", p.get("emitted_at"))
    priv = doc.get("privacy")
    if isinstance(priv, dict):
        _row(out, "privacy", priv.get("profile"))


def _task_and_configuration(out: list[str], r: dict[str, Any]) -> None:
    task = r.get("task")
    if isinstance(task, dict):
        _row(
            out, "task", " · ".join(str(task.get(k)) for k in ("id", "title", "type", "subtype", "repo") if task.get(k))
        )
    cfg = r.get("configuration")
    if isinstance(cfg, dict):
        wf = cfg.get("workflow") if isinstance(cfg.get("workflow"), dict) else {}
        _row(
            out,
            "configuration",
            " · ".join(str(x) for x in (cfg.get("id"), wf.get("id") or wf.get("ref"), cfg.get("source")) if x),
        )


def _signals(out: list[str], signals: Any) -> None:
    if isinstance(signals, list) and signals:
        out.append("\n### signals\n")
        for s in signals:
            if isinstance(s, dict):
                at = f" after {_esc(s.get('at_attempt'))}" if s.get("at_attempt") else ""
                out.append(
                    f"- {_esc(s.get('kind'))} **{_esc(s.get('name'))}** = {_esc(s.get('value'))}"
                    f"{at} ({_esc(s.get('tier'))}, {_esc(s.get('observed_at'))})"
                )


def _group(out: list[str], run: OcpRun, gid: str) -> None:
    g = run.groups[gid]
    out.append(f"## group {_esc(gid)}\n")
    _row(out, "title", g.get("title"))
    _row(out, "parent", g.get("parent"))
    count, t = T.group_totals(run, gid)
    _row(out, "nodes", count)
    _totals(out, t, T.nodes_timing(run, run.group_members.get(gid, ())), "totals")
    _ext(out, g)
    _all_fields(out, g)


def _edges_of(run: OcpRun, nid: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    ins = [e for e in run.edges if e.get("to") == nid]
    outs = [e for e in run.edges if e.get("from") == nid]
    return ins, outs


def _edge_text(e: dict[str, Any], other: str) -> str:
    parts = [f"{_esc(e.get('kind', 'dep'))} {_esc(e.get(other))}"]
    if e.get("tier"):
        parts.append(f"({_esc(e.get('tier'))})")
    if e.get("artifact"):
        parts.append(f"artifact {_esc(e.get('artifact'))}: {_esc(e.get('from_attempt'))} → {_esc(e.get('to_attempt'))}")
    if e.get("evidence"):
        parts.append(f"— {_esc(e.get('evidence'))}")
    return " ".join(parts)


def _node(out: list[str], run: OcpRun, nid: str) -> None:
    n = run.nodes[nid]
    out.append(f"## {_esc(n.get('kind'))} {_esc(nid)}\n")
    _row(out, "title", n.get("title"))
    status = run.node_status(nid)
    out.append(
        "- **status (from its attempts)**: " + (f"{T.glyph(status)} {_esc(status)}" if status else "no attempts")
    )
    if n.get("state") is not None:
        note = "" if n.get("state") == status else " — the attempts above are what counts"
        out.append(f"- **state (the producer's projection)**: {_esc(n.get('state'))}{note}")
    for key in ("group", "vertex", "labels", "gate"):
        _row(out, key, n.get(key))
    if nid in run.also_after:
        word = "also after" if run.view == "dag" else "also from"
        out.append(f"- **{word}**: " + ", ".join(_node_name(run, p) for p in run.also_after[nid]))
    ins, outs = _edges_of(run, nid)
    if ins or outs:
        out.append("\n### edges\n")
        out.extend(f"- from {_edge_text(e, 'from')}" for e in ins)
        out.extend(f"- to {_edge_text(e, 'to')}" for e in outs)
    aids = run.attempts_of.get(nid, [])
    if aids:
        out.append("\n### attempts\n")
        for aid in aids:
            a = run.attempts[aid]
            out.append(
                f"- {T.glyph(T.status_of(a))} {_esc(aid)} {_esc(T.status_of(a))} ({T.evidence_of(a)})"
                + (f" · {_esc(T.model_of(a))}" if T.model_of(a) else "")
            )
    _totals(out, T.node_totals(run, nid), T.nodes_timing(run, [nid]), "node totals")
    _ext(out, n)
    _all_fields(out, n)


def cause_chain(run: OcpRun, aid: str) -> list[str]:
    """The attempt's cause, then the cause of the attempt it points at, … (loops cut)."""
    chain: list[str] = []
    seen = {aid}
    a: dict[str, Any] | None = run.attempts.get(aid)
    while a is not None and len(chain) < CHAIN_CAP:
        cause = a.get("cause")
        if not isinstance(cause, dict):
            break
        text = _esc(cause.get("type") or "cause")
        if cause.get("by"):
            text += f" by {_esc(cause.get('by'))}"
        if cause.get("reason"):
            text += f": {_esc(cause.get('reason'))}"
        ref = cause.get("ref")
        if isinstance(ref, str) and ref:
            text += f" ← {_attempt_name(run, ref)}"
        chain.append(text)
        if not isinstance(ref, str) or ref in seen:
            if isinstance(ref, str) and ref in seen:
                chain.append("(the chain loops here)")
            break
        seen.add(ref)
        a = run.attempts.get(ref)
    return chain


def _attempt(out: list[str], run: OcpRun, aid: str, session_path: str | None) -> None:
    a = run.attempts[aid]
    status = T.status_of(a)
    out.append(f"## attempt {_esc(aid)} {T.glyph(status)} {_esc(status)}\n")
    out.append(f"- **node**: {_node_name(run, a.get('node'))}")
    _row(out, "n", a.get("n"))
    _outcome(out, run, a.get("outcome"), status)
    chain = cause_chain(run, aid)
    if chain:
        out.append("\n### cause chain\n")
        out.extend(f"{i + 1}. {c}" for i, c in enumerate(chain))
    _who_and_how(out, run, a, session_path)
    out.append("\n### timings\n")
    start, end = run.times[aid]
    _row(out, "started", a.get("started_at"))
    _row(out, "ended", a.get("ended_at"))
    if start is not None and end is not None:
        out.append(f"- **duration**: {T.duration_text(end - start)}")
    _cost(out, a.get("cost"))
    _artifacts(out, run, aid)
    events = [e for e in run.events if e.get("attempt") == aid]
    if events:
        out.append("\n### events\n")
        out.extend(
            f"- {_esc(e.get('at'))} {_esc(e.get('type'))}" + (f": {_esc(e.get('detail'))}" if e.get("detail") else "")
            for e in events
        )
    _ext(out, a)
    _all_fields(out, a)


def _outcome(out: list[str], run: OcpRun, outcome: Any, status: str) -> None:
    """The outcome with its evidence (a missing one is "asserted") and ``via`` link."""
    if isinstance(outcome, dict):
        ev = outcome.get("evidence")
        grade = _esc(ev) if isinstance(ev, str) and ev else "asserted (no evidence given: read as a bare claim)"
        out.append(f"- **outcome**: {_esc(outcome.get('result'))}, evidence {grade}")
        if outcome.get("result") not in (None, status):
            out.append(f"- **status and outcome differ**: status {_esc(status)}, outcome {_esc(outcome.get('result'))}")
        if outcome.get("via"):
            out.append(f"- **via**: {_node_name(run, outcome.get('via'))}")
        _row(out, "receipt", outcome.get("receipt"))
        _row(out, "reason", outcome.get("reason"))
    elif status in T.TERMINAL:
        out.append("- **outcome**: none recorded; the status stands as a bare claim (asserted)")


def _who_and_how(out: list[str], run: OcpRun, a: dict[str, Any], session_path: str | None) -> None:
    out.append("\n### who and how\n")
    for key in ("actor", "harness", "effort", "vertex", "round", "cwd"):
        _row(out, key, a.get(key))
    m = a.get("model")
    if isinstance(m, dict):
        _row(out, "model", " · ".join(f"{k} {m[k]}" for k in ("raw", "id", "family", "provider", "tier") if m.get(k)))
    for key in ("role", "phase", "setting", "labels"):
        _row(out, key, a.get(key))
    origin = a.get("origin")
    if isinstance(origin, dict):
        out.append(_origin_text(run, origin))
    session = a.get("session")
    if isinstance(session, str) and session:
        where = f" → {_esc(session_path)} (Enter opens it)" if session_path else " (not found among the known sessions)"
        out.append(f"- **session**: {_esc(session)}{where}")


def _origin_text(run: OcpRun, origin: dict[str, Any]) -> str:
    lb = origin.get("launched_by")
    return (
        "- **origin**: "
        + ", ".join(
            [
                f"launched by {_attempt_name(run, lb)}" if lb else "launched by no scanned attempt",
                f"workspace {_esc(origin.get('workspace'))}" if origin.get("workspace") else "workspace unknown",
                {True: "external launch", False: "not launched externally"}.get(
                    origin.get("external"), "external unknown"
                ),
                f"how {_esc(origin.get('how'))}" if origin.get("how") else "how unknown",
                f"tier {_esc(origin.get('tier'))}",
            ]
        )
        + (f" — {_esc(origin.get('evidence'))}" if origin.get("evidence") else "")
    )


def _cost(out: list[str], cost: Any) -> None:
    """The cost with its basis (an unknown basis said as such)."""
    out.append("\n### cost\n")
    if not isinstance(cost, dict):
        out.append("- none recorded")
        return
    basis = cost.get("basis")
    out.append(f"- **basis**: {_esc(basis)}" if basis else "- **basis**: unknown (not given)")
    for key in (
        "input_tokens",
        "cached_input_tokens",
        "cache_creation_tokens",
        "cache_creation_5m_tokens",
        "cache_creation_1h_tokens",
        "output_tokens",
        "reasoning_tokens",
        "requests",
    ):
        v = cost.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            out.append(f"- **{key.replace('_', ' ')}**: {v:,}")
    usd = cost.get("usd")
    out.append(
        f"- **USD**: ${usd:.4f}"
        if isinstance(usd, (int, float)) and not isinstance(usd, bool)
        else "- **USD**: not given"
    )
    _row(out, "tariff", cost.get("tariff"))
    _ext(out, cost, " of the cost")


def _artifacts(out: list[str], run: OcpRun, aid: str) -> None:
    lines = []
    for art_id, art in run.artifacts.items():
        writers = art.get("writers") if isinstance(art.get("writers"), list) else []
        readers = art.get("consumers") if isinstance(art.get("consumers"), list) else []
        roles = []
        if art.get("producer") == aid:
            roles.append("produced")
        elif aid in writers:
            roles.append("wrote")
        if aid in readers:
            roles.append("read")
        if not roles:
            continue
        kind = art.get("kind")
        kv = kind.get("value") if isinstance(kind, dict) else None
        lines.append(
            f"- {' and '.join(roles)} **{_esc(art.get('path') or art_id)}**" + (f" ({_esc(kv)})" if kv else "")
        )
        for e in run.edges:
            if (
                e.get("kind") == "artifact"
                and e.get("artifact") == art_id
                and aid in (e.get("from_attempt"), e.get("to_attempt"))
            ):
                lines.append(
                    f"  - edge {_esc(e.get('from_attempt'))} → {_esc(e.get('to_attempt'))}"
                    + (f" ({_esc(e.get('tier'))})" if e.get("tier") else "")
                    + (f": {_esc(e.get('evidence'))}" if e.get("evidence") else "")
                )
    if lines:
        out.append("\n### artifacts\n")
        out.extend(lines)


def run_summary(run: OcpRun) -> dict[str, Any]:
    """What ``loomtui info`` adds for a run: version, producer, task, counts, totals, models,
    harnesses, findings (plain JSON-able data)."""
    t, timing = T.run_totals(run), T.run_timing(run)
    producer = run.doc.get("producer") if isinstance(run.doc.get("producer"), dict) else {}
    models: dict[str, int] = {}
    harnesses: dict[str, int] = {}
    for a in run.attempts.values():
        m, h = T.model_of(a), T.harness_of(a)
        if m:
            models[m] = models.get(m, 0) + 1
        if h:
            harnesses[h] = harnesses.get(h, 0) + 1
    findings = [f for fs in run.findings.values() for f in fs]
    return {
        "ocp": run.doc.get("ocp"),
        "runId": run.run.get("id"),
        "title": run.run.get("title"),
        "producer": producer.get("name"),
        "task": T.task_of(run) or None,
        "groups": len(run.groups),
        "nodes": len(run.nodes),
        "edges": len(run.edges),
        "attempts": t.attempts,
        "attemptsByStatus": dict(sorted(t.statuses.items())),
        "artifacts": len(run.artifacts),
        "events": len(run.events),
        "tokens": t.tokens,
        "usd": round(t.usd, 6) if t.priced else None,
        "pricedAttempts": t.priced,
        "wallSeconds": timing.wall_seconds,
        "agentSeconds": timing.agent_seconds,
        "models": models,
        "harnesses": harnesses,
        "checkedWith": run.checked or None,
        "errors": sum(f[0] == "error" for f in findings),
        "warnings": sum(f[0] != "error" for f in findings),
    }


def summary_lines(s: dict[str, Any]) -> list[tuple[str, str]]:
    """``run_summary`` as (key, value) rows for the plain-text ``info``."""
    usd = f"${s['usd']:.4f}" if s["usd"] is not None else "unknown"
    if s["usd"] is not None and s["pricedAttempts"] < s["attempts"]:
        usd += f" (priced on {s['pricedAttempts']} of {s['attempts']} attempts)"
    counts = ", ".join(f"{k} {v}" for k, v in s["attemptsByStatus"].items()) or "none"
    rows = [
        ("OCP run", f"{s['runId']} (OCP {s['ocp']}, producer {s['producer']})"),
        ("task", s["task"] or "(none)"),
        (
            "nodes",
            f"{s['nodes']} in {counted(s['groups'], 'group')}, {counted(s['edges'], 'edge')}, "
            f"{counted(s['artifacts'], 'artifact')}, {counted(s['events'], 'event')}",
        ),
        ("attempts", f"{s['attempts']}: {counts}"),
        ("run tokens", f"{s['tokens']:,}"),
        ("run USD", usd),
        ("wall time", f"{T.duration_text(s['wallSeconds'])} (agent time {T.duration_text(s['agentSeconds'])})"),
        ("run models", ", ".join(f"{k} ({v})" for k, v in s["models"].items()) or "(none)"),
        ("harnesses", ", ".join(f"{k} ({v})" for k, v in s["harnesses"].items()) or "(none)"),
    ]
    if s["checkedWith"]:
        checked, how = checked_words(s["checkedWith"])
        counts = f"{counted(s['errors'], 'error')}, {counted(s['warnings'], 'warning')}"
        rows.append(
            ("conformance", f"{counts} ({how}; `loomtui check FILE` lists them)" if checked else f"not checked: {how}")
        )
    return rows
