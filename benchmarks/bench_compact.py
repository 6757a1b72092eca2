#!/usr/bin/env python3
"""How many rows show their text at a width, in pi's layout and in compact indentation.

    uv run python benchmarks/bench_compact.py [--entries 100000] [--width 160]

pi's indentation (the default, for parity) leaves most rows of a heavily branched tree as pure
gutter; compact indentation (``loomtui tree --compact``, Ctrl+W in the app) must show at least
60 columns of text on every row at 160 columns. Prints both counts, the narrowest text column
count in compact mode, and the time `loomtui tree` takes in each mode.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.common import compile_bytecode, ms, session_file  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entries", type=int, default=100_000)
    ap.add_argument("--width", type=int, default=160)
    args = ap.parse_args()
    compile_bytecode()
    from loomtui.session.manager import SessionManager
    from loomtui.view.model import TreeModel
    from loomtui.view.text import display_text

    path = session_file(args.entries)
    model = TreeModel(SessionManager.open(str(path)))
    # a row's text: its [label] (when it has one) and its one-line summary
    texts = []
    for i in range(len(model)):
        e = model.entry_at(i)
        label = model.index.label_of(e.id)
        texts.append(f"[{label}" if label is not None else display_text(e, model.flat.tool_calls, model.home))
    width = args.width
    for compact in (False, True):
        model.compact = compact
        t = time.perf_counter()
        lines = list(model.plain_rows(width))
        elapsed = time.perf_counter() - t
        shown = 0
        narrowest = width
        for line, text in zip(lines, texts):
            probe = text[:8]
            at = line.find(probe) if probe else -1
            if at >= 0:
                shown += 1
                narrowest = min(narrowest, width - at)  # columns the row leaves for its text
            else:
                narrowest = 0
        mode = "compact" if compact else "pi (default)"
        print(
            f"{mode:>13}: {shown:,} of {len(lines):,} rows show text at {width} columns; "
            f"fewest columns left for text: {narrowest}; rows formatted in {ms(elapsed)}"
        )


if __name__ == "__main__":
    main()
