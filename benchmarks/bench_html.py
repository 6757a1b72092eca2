#!/usr/bin/env python3
"""`loomtui export-html` next to pi's `--export` on generated 10k and 100k-entry sessions.

    uv run python benchmarks/bench_html.py [--entries 10000 100000] [--runs 3] [--no-browser]
                                           [--before DIR] [--no-cache] [--image 300M]

Prints, per size, from runs interleaved with pi's in the same process: export wall time, peak
RSS (of the whole process tree) and page size, each with its ratio to pi's; then, in Debian's
chromium (playwright), the time from navigation to the first sidebar rows painted on both
pages, and on loomtui's page the time of each filter switch until the next frame. Goals
against pi 1.6.0 (pi 0.73.1 a second column): time ≤ 0.40×, size ≤ 0.30×, RSS ≤ 0.30×,
first rows ≤ 0.3× pi's page, filter switch ≤ 100 ms.

``--before DIR`` also runs the loomtui package in DIR (e.g. ``git archive REV loomtui | tar -x
-C DIR``) in the same interleaved runs, for before/after figures. ``--no-cache`` runs loomtui
without its persistent index (a session never opened before); by default the index written by
the first run is used, as when a session was opened before.

``--image SIZE`` also exports an image-heavy session of about SIZE (``gen_image_session.py``,
written under a temporary directory and deleted after) with the same figures (no browser):
the export's memory should be a small multiple of the largest entry, not of the file. pi may
fail on it (out of memory): that is reported.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import (  # noqa: E402
    PI_CURRENT,
    PI_OLD,
    ROOT,
    SHARED,
    compile_bytecode,
    load_average,
    pair_ratios,
    run_measured,
    session_file,
)

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

#: records when the first sidebar row is added to the DOM, and the frame that paints it
FIRST_ROWS = """
(() => {
  const seen = (n) => n.nodeType === 1 && (n.matches('.row, .tree-node') || n.querySelector('.row, .tree-node'));
  const obs = new MutationObserver((muts) => {
    for (const m of muts) for (const n of m.addedNodes) if (seen(n)) {
      obs.disconnect();
      window.__rowsAdded = performance.now();
      requestAnimationFrame(() => setTimeout(() => { window.__rowsPainted = performance.now(); }, 0));
      return;
    }
  });
  obs.observe(document, {childList: true, subtree: true});
})();
"""

#: one filter switch: click, then the next frame (the page recomputes synchronously)
SWITCH = """async (mode) => {
  const t0 = performance.now();
  document.querySelector(`#modes button[data-mode='${mode}']`).click();
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  return performance.now() - t0;
}"""


def first_rows_ms(browser, page_path: Path, timeout_s: float = 120) -> tuple[float | None, str]:  # type: ignore[no-untyped-def]
    """Milliseconds from navigation to the frame after the first sidebar rows appear; None and
    the page's error when it never draws them."""
    page = browser.new_page(viewport={"width": 1400, "height": 900}, bypass_csp=True)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.add_init_script(FIRST_ROWS)
        page.goto(page_path.as_uri(), wait_until="commit", timeout=timeout_s * 1000)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            got = page.evaluate("window.__rowsPainted === undefined ? null : window.__rowsPainted")
            if got is not None:
                return float(got), ""
            if errors and page.evaluate("document.readyState") == "complete":
                page.wait_for_timeout(1000)  # give a late first paint its chance
                got = page.evaluate("window.__rowsPainted === undefined ? null : window.__rowsPainted")
                return (float(got), "") if got is not None else (None, errors[0])
            page.wait_for_timeout(20)
        return None, f"no rows after {timeout_s:.0f} s"
    finally:
        page.close()


def filter_switches(browser, page_path: Path) -> list[float]:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport={"width": 1400, "height": 900}, bypass_csp=True)
    try:
        page.goto(page_path.as_uri())
        page.wait_for_selector("html[data-ready='1']", state="attached", timeout=120_000)
        out = []
        for mode in ("no-tools", "user-only", "labeled-only", "all", "default") * 2:
            out.append(float(page.evaluate(SWITCH, mode)))
        return out
    finally:
        page.close()


def loomtui_cmd(package_dir: Path, *args: str) -> list[str]:
    """``loomtui ARGS`` run from the package in ``package_dir`` (whatever the working directory),
    as the console script runs it (``cli.run``: it ends with a fast exit, as ``python -m
    loomtui`` in the other benchmarks; ``cli.main`` would also time the interpreter freeing
    every object at exit, which the command never does)."""
    code = f"import sys; sys.path.insert(0, {str(package_dir)!r}); from loomtui.cli import run; run()"
    return [sys.executable, "-c", code, *args]


def pair_line(what: str, ours: list[float], theirs: list[float]) -> str:
    pairs = [o / t for o, t in zip(ours, theirs)]
    return (
        f"  {what}, ratio of each interleaved pair: {', '.join(f'{x:.2f}' for x in pairs)}"
        f"   median {statistics.median(pairs):.2f}×  best {min(pairs):.2f}×"
    )


def fmt_ratio(ours: float, theirs: float | None) -> str:
    return f"{ours / theirs:.2f}×" if theirs else "—"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, nargs="*", default=[10_000, 100_000])
    ap.add_argument("--image", metavar="SIZE", help="also an image-heavy session of SIZE (e.g. 300M)")
    ap.add_argument("--runs", type=int, default=3, help="export runs of each (interleaved)")
    ap.add_argument("--no-browser", action="store_true")
    ap.add_argument("--before", type=Path, metavar="DIR", help="a directory holding an older loomtui package")
    ap.add_argument("--no-cache", action="store_true", help="loomtui without its persistent index")
    ap.add_argument("--no-old", action="store_true", help="leave out the pi 0.73.1 column")
    a = ap.parse_args()
    compile_bytecode()
    env = dict(os.environ, LOOMTUI_NO_CACHE="1") if a.no_cache else None
    if a.before is not None:
        import compileall

        compileall.compile_dir(str(a.before / "loomtui"), quiet=1)
    with_pi = PI_CURRENT.available()
    with_old = PI_OLD.available() and not a.no_old
    if not with_pi:
        print("pi is not installed (shared/oracle/ensure_peer.sh): loomtui's figures only")
    out_dir = Path(tempfile.mkdtemp(prefix="bench_html_"))
    pages: dict[int | str, tuple[Path, Path | None]] = {}
    try:
        sessions: list[tuple[int | str, Path]] = [(n, session_file(n)) for n in a.entries]
        if a.image:
            image = out_dir / "image-session.jsonl"
            subprocess.run(
                [sys.executable, str(ROOT / "benchmarks" / "gen_image_session.py"), str(image), "--size", a.image],
                check=True,
                stdout=subprocess.DEVNULL,
            )
            sessions.append(("image", image))
        for n, path in sessions:
            lines = path.read_bytes().count(b"\n") if n == "image" else n
            print(f"\nsession: {path.name} ({path.stat().st_size / 1e6:.0f} MB, {lines} lines)")
            pi_failed = 0
            ours_t, ours_rss, pi_t, pi_rss, before_t = [], [], [], [], []
            old_t, old_rss, old_size = [], [], 0.0  # type: ignore[var-annotated]
            ours_out = pi_out = None
            for r in range(a.runs):
                if a.before is not None:
                    before_out = out_dir / f"before-{n}-{r}.html"
                    t, _, _ = run_measured(loomtui_cmd(a.before, "export-html", str(path), "-o", str(before_out)), env)
                    before_t.append(t)
                    before_size = before_out.stat().st_size / 1e6
                    before_out.unlink()
                ours_out = out_dir / f"loomtui-{n}-{r}.html"
                t, rss, _ = run_measured(loomtui_cmd(ROOT, "export-html", str(path), "-o", str(ours_out)), env)
                ours_t.append(t)
                ours_rss.append(rss)
                if with_pi:
                    pi_out = out_dir / f"pi-{n}-{r}.html"
                    t, rss, _ = run_measured(
                        [str(PI_CURRENT.node), str(PI_CURRENT.cli()), "--export", str(path), str(pi_out)],
                        PI_CURRENT.env(),
                    )
                    if pi_out.exists():
                        pi_t.append(t)
                        pi_rss.append(rss)
                    else:
                        pi_failed += 1
                        print(f"  pi --export failed on {path.name} after {t:.1f} s, peak RSS {rss:.0f} MB")
                        pi_out = None
                if with_old:
                    old_out = out_dir / f"pi-old-{n}-{r}.html"
                    t, rss, _ = run_measured(
                        [str(PI_OLD.node), str(PI_OLD.cli()), "--export", str(path), str(old_out)], PI_OLD.env()
                    )
                    if old_out.exists():
                        old_t.append(t)
                        old_rss.append(rss)
                        old_size = old_out.stat().st_size / 1e6
                        old_out.unlink()
                if r < a.runs - 1:
                    ours_out.unlink()
                    if pi_out is not None:
                        pi_out.unlink()
            assert ours_out is not None
            ot, orss = statistics.median(ours_t), max(ours_rss)
            osize = ours_out.stat().st_size / 1e6
            pt = statistics.median(pi_t) if pi_t else None
            prss = max(pi_rss) if pi_rss else None
            psize = pi_out.stat().st_size / 1e6 if pi_out is not None else None
            print(f"  {load_average()}; ratios against {PI_CURRENT.name}" + (f", then {PI_OLD.name}" if old_t else ""))
            print(
                f"  export time   loomtui {ot:6.2f} s (runs {', '.join(f'{x:.2f}' for x in ours_t)})"
                + (f"   pi {pt:6.2f} s (runs {', '.join(f'{x:.2f}' for x in pi_t)})" if pt else "")
                + f"   ratio {fmt_ratio(ot, pt)}  (goal ≤ 0.40×)"
            )
            if pi_t and not pi_failed:
                print(pair_line("export time", ours_t, pi_t))
            if old_t:
                print(
                    f"  {PI_OLD.name}: export {statistics.median(old_t):.2f} s, peak {max(old_rss):.0f} MB, page "
                    f"{old_size:.1f} MB; ratios time {pair_ratios(ours_t, old_t)}, memory "
                    f"{fmt_ratio(max(ours_rss), max(old_rss))}, page {fmt_ratio(ours_out.stat().st_size / 1e6, old_size)}"
                )
            if before_t:
                print(
                    f"  before        loomtui {statistics.median(before_t):6.2f} s (runs "
                    f"{', '.join(f'{x:.2f}' for x in before_t)}), page {before_size:.1f} MB"
                )
                if pi_t:
                    print(pair_line("before: export time", before_t, pi_t))
                print(pair_line("after / before", ours_t, before_t))
            print(
                f"  peak RSS      loomtui {orss:6.0f} MB"
                + (f"   pi {prss:6.0f} MB" if prss else "")
                + f"   ratio {fmt_ratio(orss, prss)}  (goal ≤ 0.30×)"
            )
            print(
                f"  page size     loomtui {osize:6.1f} MB"
                + (f"   pi {psize:6.1f} MB" if psize else "")
                + f"   ratio {fmt_ratio(osize, psize)}  (goal ≤ 0.3×)"
            )
            if n == "image":
                path.unlink()
                ours_out.unlink()
                if pi_out is not None:
                    pi_out.unlink()
            else:
                pages[n] = (ours_out, pi_out)
        if a.no_browser:
            return
        # pi's page fails on deep generated trees: also the largest real fixture, where it works
        real = SHARED / "fixtures" / "pi" / "pi-mono-large-session.jsonl"
        if real.exists():
            # a copy: pi's --export opens the session for writing (the fixtures are read-only)
            real = Path(shutil.copy(real, out_dir / real.name))
            ours_real = out_dir / "loomtui-real.html"
            run_measured(loomtui_cmd(ROOT, "export-html", str(real), "-o", str(ours_real)), env)
            pi_real = None
            if with_pi:
                pi_real = out_dir / "pi-real.html"
                run_measured(
                    [str(PI_CURRENT.node), str(PI_CURRENT.cli()), "--export", str(real), str(pi_real)], PI_CURRENT.env()
                )
                if not pi_real.exists():
                    print(f"\npi --export failed on {real.name}: its page is left out")
                    pi_real = None
            pages[real.name] = (ours_real, pi_real)
        if not os.path.exists(CHROMIUM):
            print("\nno chromium: browser figures skipped")
            return
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            try:
                for n, (ours, theirs) in pages.items():
                    print(f"\nbrowser, {n if isinstance(n, str) else f'{n} entries'}")
                    o = [first_rows_ms(browser, ours)[0] or float("nan") for _ in range(a.runs)]
                    om = statistics.median(o)
                    line = (
                        f"  first sidebar rows painted   loomtui {om:7.0f} ms (runs {', '.join(f'{x:.0f}' for x in o)})"
                    )
                    if theirs is not None:
                        t, err = zip(*[first_rows_ms(browser, theirs) for _ in range(max(1, a.runs - 1))])
                        if all(x is not None for x in t):
                            tm = statistics.median(t)  # type: ignore[type-var]
                            line += f"   pi {tm:7.0f} ms   ratio {fmt_ratio(om, tm)}  (goal ≤ 0.3×)"
                        else:
                            line += f"   pi: no rows ({next(e for e in err if e)})"
                    print(line)
                    sw = filter_switches(browser, ours)
                    print(
                        f"  filter switch (to the next frame)   median {statistics.median(sw):.0f} ms, "
                        f"max {max(sw):.0f} ms  (goal ≤ 100 ms)"
                    )
            finally:
                browser.close()
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
