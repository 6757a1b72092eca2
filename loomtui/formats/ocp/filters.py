"""A run's filter modes: failed and rejected attempts, gates, work in flight, findings (a run with
findings only), one mode per model and per harness (docs/ocp.md); the rows each shows, made when
the mode is chosen."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from operator import itemgetter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from loomtui.formats.ocp.run import OcpRun


#: why ``--filter findings`` (or the app's) is refused on a run without findings
NO_FINDINGS = "this OCP run has no findings: the 'findings' filter applies only to runs with findings"


def is_gate(node: dict[str, Any]) -> bool:
    return node.get("kind") == "gate" or isinstance(node.get("gate"), dict)


def _context(run: OcpRun, nid: str) -> list[str]:
    """The rows that show where a node sits: the run, its group folders, the node."""
    out = ["run", "n:" + nid]
    g = run.nodes.get(nid, {}).get("group") if run.view == "dag" else None
    seen: set[str] = set()
    while isinstance(g, str) and g in run.groups and g not in seen:
        seen.add(g)
        out.append("g:" + g)
        g = run.groups[g].get("parent")
    return out


def _attempt_rows(run: OcpRun, aids: Any) -> frozenset[str]:
    ids: set[str] = set()
    for aid in aids:
        a = run.attempts[aid]
        ids.add("a:" + aid)
        nid = a.get("node")
        ids.update(_context(run, nid if isinstance(nid, str) else ""))
    return frozenset(ids)


def _failed_rows(run: OcpRun) -> frozenset[str]:
    return _attempt_rows(run, [aid for aid, f in run.facts.items() if f[0] in ("failed", "rejected")])


def _gate_rows(run: OcpRun) -> frozenset[str]:
    ids: set[str] = set()
    for nid, node in run.nodes.items():
        if is_gate(node):
            ids.update(_context(run, nid))
            ids.update("a:" + a for a in run.attempts_of.get(nid, ()))
    return frozenset(ids)


def _in_flight_rows(run: OcpRun) -> frozenset[str]:
    ids = set(_attempt_rows(run, [aid for aid, f in run.facts.items() if f[0] in ("queued", "working")]))
    for nid in run.nodes:
        if not run.attempts_of.get(nid):
            ids.update(_context(run, nid))
    return frozenset(ids)


def _finding_rows(run: OcpRun) -> frozenset[str]:
    ids = set(run.findings) | {"run"}
    for eid in run.findings:
        if eid.startswith("a:") and eid[2:] in run.attempts:
            ids |= _attempt_rows(run, [eid[2:]])
        elif eid.startswith("n:") and eid[2:] in run.nodes:
            ids.update(_context(run, eid[2:]))
    return frozenset(ids)


def _tag(mode: str) -> str:
    """A mode's footer tag: its name as the filter bar and ``--filter`` spell it (pi's tags are
    its bar's names too), so one filter has one spelling."""
    return f" [{mode}]"


def filters(run: OcpRun) -> Mapping[str, tuple[str, Any]]:
    """Filter mode -> (footer tag, function giving the entry ids it shows): failed and
    rejected attempts, gates, work in flight, findings, one mode per model and per harness.
    The id sets are made when a mode is first chosen, the per-model and per-harness modes when
    first listed (``RunFilters``)."""
    return RunFilters(run)


class RunFilters(Mapping[str, tuple[str, Any]]):
    """A run's filter modes (``filters``): the fixed ones at once, the per-model and
    per-harness ones (a pass over every attempt's facts) when the modes are first listed or
    one of them is asked for, so a run's first screen does not wait for them."""

    def __init__(self, run: OcpRun) -> None:
        self._run = run
        self._fixed: dict[str, tuple[str, Any]] = {
            "failed": (_tag("failed"), lambda: _failed_rows(run)),
            "gates": (_tag("gates"), lambda: _gate_rows(run)),
            "in-flight": (_tag("in-flight"), lambda: _in_flight_rows(run)),
        }
        if run.findings:
            self._fixed["findings"] = (_tag("findings"), lambda: _finding_rows(run))
        self._all: dict[str, tuple[str, Any]] | None = None

    def _every(self) -> dict[str, tuple[str, Any]]:
        made = self._all
        if made is None:  # two threads may both make it: the same modes either way
            made = self._all = {**self._fixed, **_named_modes(self._run)}
        return made

    def __getitem__(self, mode: str) -> tuple[str, Any]:
        # the named modes all hold a colon ("model:…", "harness:…"); the fixed ones none
        return self._every()[mode] if ":" in mode else self._fixed[mode]

    def __iter__(self) -> Iterator[str]:
        return iter(self._every())

    def __len__(self) -> int:
        return len(self._every())

    def __bool__(self) -> bool:
        return True  # the fixed modes are always there

    def fixed(self) -> tuple[str, ...]:
        """The modes this run has without a colon (what the filter bar lists: ``findings`` only
        on a run with findings), without making the others."""
        return tuple(self._fixed)

    def missing(self, mode: str) -> str | None:
        """Why this run has no ``mode`` that other runs have (``findings``: it has none), or None
        (``Source.missing_filter``)."""
        if mode != "findings" or mode in self._fixed:
            return None
        if not self._run.checked:  # too big to check on open (``ocp/check.attach_findings``)
            return (
                "this OCP run was not checked when it was opened, so it has no findings: the 'findings' "
                "filter applies only to runs with findings (`loomtui check FILE` checks it)"
            )
        return NO_FINDINGS


def _named_modes(run: OcpRun) -> dict[str, tuple[str, Any]]:
    """One mode per model and per harness the attempts name (sorted by name)."""
    out: dict[str, tuple[str, Any]] = {}
    facts = run.facts.values()
    models = set(map(itemgetter(3), facts))
    harnesses = set(map(itemgetter(4), facts))
    models.discard("")
    harnesses.discard("")

    def by(field: int, value: str) -> Any:
        return lambda: _attempt_rows(run, [aid for aid, f in run.facts.items() if f[field] == value])

    for m in sorted(models):
        out[f"model:{m}"] = (_tag(f"model:{m}"), by(3, m))
    for h in sorted(harnesses):
        out[f"harness:{h}"] = (_tag(f"harness:{h}"), by(4, h))
    return out
