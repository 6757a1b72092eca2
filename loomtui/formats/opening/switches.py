"""Each speed mechanism behind the opener, off on request, to measure what it buys.

``LOOMTUI_WITHOUT`` names the mechanisms to leave out, comma-separated (``benchmarks/
bench_mechanisms.py`` sets it; docs/performance.md has the figures): the output is the same
either way, only slower or faster. The persistent index has its own switch
(``LOOMTUI_NO_CACHE``, ``--no-cache``), which the user also has.
"""

from __future__ import annotations

import os

#: what may be left out, by name
MECHANISMS = (
    "split",  # a forked child parses a big pi file's tail (session/split.py)
    "flat-cache",  # the flattened tree and the row texts kept beside the index (flat_cache.py)
    "tree-memo",  # `tree`'s printed rows kept for the same command (tree_memo.py)
    "early-ocp",  # a big OCP run placed by a child started before Textual (formats/ocp/split.py)
    "early-claude",  # a big Claude Code file's tail parsed likewise (formats/claude/split.py)
    "early-proof",  # an indexed session's proof hashed while Textual starts (session/cache_io.py)
    "kept-screen",  # the app's first screen kept beside the index, painted on a reopen (kept_screen.py)
)


def enabled(name: str) -> bool:
    """Whether mechanism ``name`` runs (every one does unless ``LOOMTUI_WITHOUT`` names it)."""
    assert name in MECHANISMS, name
    left_out = os.environ.get("LOOMTUI_WITHOUT", "")
    return not left_out or name not in {x.strip() for x in left_out.split(",")}
