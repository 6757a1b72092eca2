"""The import graph of loomtui as it runs (docs/architecture.md, "Packages"): every import, at
the top of a module or inside a function, read from the source with ``ast`` (imports only for
type checking do not run and are left out). No module imports itself in a circle, except the
small ones allowed below, each saying why; the root of ``formats/`` holds only the opener and
the list of sources; the app names no source's formats, ids or types."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "loomtui"

#: circles allowed to stay, each small and explained (none is left)
ALLOWED_CYCLES: set[frozenset[str]] = set()

#: what the root of formats/ holds: the opener (by content) and the one list of sources
FORMATS_ROOT = {"__init__.py", "detect.py", "sources.py"}

#: the speed machinery, behind the one opener (``formats/opening``): the layers above the
#: session (the view, the app, the commands) ask the opener and import none of these
SPEED_MECHANISMS = {
    "loomtui.session.split",
    "loomtui.session.forked",
    "loomtui.session.indexcache",
    "loomtui.session.cache_io",
    "loomtui.formats.opening.flat_cache",
    "loomtui.formats.opening.tree_memo",
    "loomtui.formats.opening.kept_screen",
    "loomtui.formats.ocp.split",
    "loomtui.formats.claude.split",
}

#: names of sources' formats, ids and types that the app must not hold (they live in the
#: source's package, behind ``Source`` and the list of sources)
APP_BANNED = re.compile(
    r"""["']a:|["']n:|\bRunFilters\b|\bOcpRun\b|\bocp_run\b|\bCLAUDE\b|\bCODEX\b|loomtui\.formats\.(ocp|claude|codex|maitento|looms|agent)\b"""
)


def _modules() -> dict[str, Path]:
    out = {}
    for p in sorted(PACKAGE.rglob("*.py")):
        if "__pycache__" in p.parts:
            continue
        parts = p.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = p
    return out


def _is_type_checking(node: ast.If) -> bool:
    return "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The loomtui modules ``name`` imports when it runs (top level or inside functions)."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()

    def target(dotted: str) -> str | None:
        while dotted and dotted not in modules:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for other in child.orelse:
                    walk(other)
                continue
            if isinstance(child, ast.Import):
                found.update(t for a in child.names if (t := target(a.name)))
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    up = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join(up + ([base] if base else []))
                for a in child.names:
                    t = target(f"{base}.{a.name}") if f"{base}.{a.name}" in modules else target(base)
                    if t:
                        found.add(t)
            walk(child)

    walk(ast.parse(path.read_text(encoding="utf-8")))
    found.discard(name)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(frozenset(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_graph_sees_function_level_imports() -> None:
    """The reader of the graph is itself right: a function-level import is an edge."""
    graph = import_graph()
    assert "loomtui.formats.detect" in graph["loomtui.formats.opening"]  # imported inside open_session
    assert "loomtui.view.jumps" in graph["loomtui.commands._args"]  # imported inside resolve_id


def test_no_import_circle_at_run_time_beyond_the_allowed_ones() -> None:
    found = set(cycles(import_graph()))
    assert found - ALLOWED_CYCLES == set(), f"import circles: {sorted(sorted(c) for c in found - ALLOWED_CYCLES)}"
    assert len(ALLOWED_CYCLES) <= 2 and all(len(c) <= 3 for c in ALLOWED_CYCLES)


def test_the_root_of_formats_holds_only_the_opener() -> None:
    root = PACKAGE / "formats"
    modules = {p.name for p in root.glob("*.py")}
    assert modules - FORMATS_ROOT == set(), f"put these in a source's package: {sorted(modules - FORMATS_ROOT)}"
    packages = {p.name for p in root.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    # beside the sources: what every source shares (base), the HTML page, and carrying on from
    # a branch (resume an agent, carry a branch summary: formats/carry_on)
    # and the opener, with the speed machinery behind it (formats/opening)
    assert packages == {"agent", "base", "carry_on", "claude", "codex", "html", "looms", "maitento", "ocp", "opening"}


def test_a_source_package_imports_only_the_shared_ones() -> None:
    """A package of formats/ imports no other source's package: only base/ (and, for Claude Code
    and Codex, agent/); the opener and the list of sources sit above them all."""
    shared = {"base", "agent"}
    crossing = []
    for name, imported in import_graph().items():
        parts = name.split(".")
        if len(parts) < 4 or parts[1] != "formats" or parts[2] == "opening":
            continue  # the opener sits above the sources, as the list of sources does
        for other in imported:
            op = other.split(".")
            if len(op) >= 4 and op[1] == "formats" and op[2] != parts[2] and op[2] not in shared:
                crossing.append(f"{name} -> {other}")
    assert crossing == []


def test_the_app_names_no_source_format() -> None:
    offenders = [
        f"{p.relative_to(PACKAGE)}:{n}: {line.strip()}"
        for p in sorted((PACKAGE / "app").rglob("*.py"))
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if APP_BANNED.search(line)
    ]
    assert offenders == []


def test_the_view_the_app_and_the_commands_ask_the_opener_and_import_no_speed_mechanism() -> None:
    """The tail parser, the forked helpers, the persistent index and the caches beside it are
    the opener's: no module of the view, the app or the commands (nor the CLI) imports one."""
    graph = import_graph()
    above = [n for n in graph if n.split(".")[1:2] in (["view"], ["app"], ["commands"], ["cli"])]
    assert len(above) > 50
    offenders = sorted(f"{n} -> {m}" for n in above for m in graph[n] & SPEED_MECHANISMS)
    assert offenders == []
    assert SPEED_MECHANISMS <= set(graph)  # every name above is a module that exists
