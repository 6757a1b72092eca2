"""Shared helpers for the benchmark scripts (they print figures; they are not tests)."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data"
SHARED = ROOT.parent / "shared"
PEER = Path(os.environ.get("PI_PEER", "/tmp/peer"))


def session_file(entries: int) -> Path:
    """A generated session with ``entries`` entries (made once with shared/bench/gen_session.py)."""
    DATA.mkdir(parents=True, exist_ok=True)
    path = DATA / f"s{entries // 1000}k.jsonl"
    if not path.exists():
        subprocess.run(
            [sys.executable, str(SHARED / "bench" / "gen_session.py"), str(path), "--entries", str(entries)], check=True
        )
    return path


def run_measured(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Wall seconds and peak RSS (MB) of one child process, plus its stdout (cut)."""
    probe = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)\n"
        "dt = time.perf_counter() - t\n"
        "sys.stderr.write('%f %d\\n' % (dt, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
        "sys.stdout.buffer.write(p.stdout[-2000:])\n"
    )
    out = subprocess.run([sys.executable, "-c", probe, *cmd], capture_output=True, env=env)
    wall, rss_kb = out.stderr.decode().split()[-2:]
    return float(wall), int(rss_kb) / 1024, out.stdout.decode(errors="replace")


def compile_bytecode() -> None:
    """Write the bytecode of loomtui and of what it imports (Textual, Rich, …) once, as an
    installed package has it (pip writes it at install, Python at the first import): with
    PYTHONDONTWRITEBYTECODE set (as on this machine) every run would otherwise recompile them
    and time that too (Textual alone is about 0.4 s of compiling). uv's ``compile-bytecode``
    setting is not used: it rechecks every file at each ``uv run`` (about 0.2 s a start)."""
    import compileall
    import site

    compileall.compile_dir(str(ROOT / "loomtui"), quiet=1)
    for packages in site.getsitepackages():
        compileall.compile_dir(packages, quiet=1)


class PiRelease(NamedTuple):
    """One installed pi release the benchmarks compare against: its name, npm package and the
    node that runs it."""

    name: str
    package: str
    node: str | None

    def available(self) -> bool:
        return self.node is not None and (PEER / "node_modules" / self.package / "dist").is_dir()

    def env(self) -> dict[str, str]:
        """The environment of ``shared/oracle/bench_ref.mjs`` for this release (``PI_PKG``)."""
        return {**os.environ, "PI_PEER": str(PEER), "PI_PKG": self.package}

    def first_screen_cmd(self, path: str | Path, *, first_screen_only: bool = True) -> list[str]:
        """pi's open + first /tree screen of ``path`` (``bench_ref.mjs``); run it with ``env()``."""
        assert self.node is not None
        return [
            self.node,
            str(SHARED / "oracle" / "bench_ref.mjs"),
            str(path),
            *(["--first-screen-only"] if first_screen_only else []),
        ]

    def cli(self) -> Path:
        return PEER / "node_modules" / self.package / "dist" / "cli.js"


_PEER_NODE = PEER / "bin" / "node"
#: pi 1.6.0, the current release: every ratio is against it (it needs Node 22, from ensure_peer.sh)
PI_CURRENT = PiRelease("pi 1.6.0", "@earendil-works/pi-coding-agent", str(_PEER_NODE) if _PEER_NODE.exists() else None)
#: pi 0.73.1, the release earlier goals were quoted against: a second column where they were
PI_OLD = PiRelease("pi 0.73.1", "@mariozechner/pi-coding-agent", shutil.which("node"))


def pi_available(release: PiRelease = PI_CURRENT) -> bool:
    return release.available()


def load_average() -> str:
    """The machine's 1/5/15-minute load, printed with every comparison (the machine is shared)."""
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "load average: unknown"
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def pair_ratios(ours: list[float], theirs: list[float]) -> str:
    """The median of the per-run ratios (interleaved pairs) and the best pair."""
    import statistics

    pairs = [o / t for o, t in zip(ours, theirs) if t > 0]
    if not pairs:
        return "n/a"
    return f"{statistics.median(pairs):.2f}x median of pairs, {min(pairs):.2f}x best pair"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def best_of(fn, repeat: int = 3) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


#: the start of an app benchmark's child process (``python -c``; ``sys.argv[1]`` the file,
#: ``sys.argv[2]`` the parent's ``time.time()`` at the spawn): it starts as ``loomtui FILE`` does
#: (``formats.opening.Opening.before_app`` before Textual is imported) and hooks the widgets:
#: ``marks["tree"]`` when the tree has drawn its first row of a loaded session (the row's text
#: made; ``marks["cpu"]``: CPU seconds so far, children included), ``marks["detail"]`` when the
#: detail pane has first drawn an entry. The script goes on with its own ``main``.
APP_CHILD_START = r"""
import sys, time, json, os, resource, asyncio
T_SPAWN = float(sys.argv[2])
from loomtui.formats.opening import Opening
opening = Opening.before_app(sys.argv[1])
from loomtui.app.app import LoomApp
from loomtui.app.widgets.tree_view import TreeView
from loomtui.app.widgets.detail import DetailPane
marks = {}
def _cpu():
    # CPU seconds of this process and of every helper it forked: those reaped (RUSAGE_CHILDREN)
    # and those still running or not yet reaped (their /proc stat, Linux)
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    total = own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
    me, tick = os.getpid(), os.sysconf("SC_CLK_TCK")
    for name in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[1]) == me:  # the parent pid
                    total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
            except (OSError, ValueError, IndexError):
                pass
    return total
_tree_line, _detail_line = TreeView.render_line, DetailPane.render_line
def _hooked_tree_line(self, y):
    line = _tree_line(self, y)
    if "tree" not in marks and line.text.strip():
        # the first row drawn: of the session, of its first rows, or of the screen kept from an
        # earlier open (``TreeView.kept``), never a blank line
        marks["tree"] = time.time()
        marks["cpu"] = _cpu()
    first = getattr(self, "showing_first_screen", False)
    if "whole" not in marks and self.model is not None and not first and line.text.strip():
        # the whole session's rows drawn: installed, keys act on it
        marks["whole"] = time.time()
        marks["whole_cpu"] = _cpu()
    return line
def _hooked_detail_line(self, y):
    line = _detail_line(self, y)
    if self.entry_id is not None and "detail" not in marks:
        marks["detail"] = time.time()
    return line
TreeView.render_line, DetailPane.render_line = _hooked_tree_line, _hooked_detail_line
"""
