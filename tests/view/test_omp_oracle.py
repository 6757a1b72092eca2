"""loomtui's omp search against omp's own fuzzy matcher, run under node
(``tests/view/omp_fuzzy_oracle.mjs``; ``sh tests/view/ensure_omp_peer.sh`` installs it, CI does).

Skipped, with the reason, only outside CI when node or the package is missing; in CI (``CI``
set) a missing oracle fails the test.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from loomtui.session.manager import SessionManager
from loomtui.view import omp
from loomtui.view.model import TreeModel

PEER = Path(os.environ.get("OMP_PEER", "/tmp/peer-omp"))
FUZZY = PEER / "pi-tui" / "src" / "fuzzy.ts"
NODE = next(
    (
        n
        for n in (os.environ.get("PI_PEER", "/tmp/peer") + "/bin/node", shutil.which("node"))
        if n and os.path.exists(n)
    ),
    None,
)
ORACLE = Path(__file__).with_name("omp_fuzzy_oracle.mjs")
SAMPLE = Path(__file__).parents[2] / "sample_sessions" / "2026-03-03T14-30-12-480Z_0196f2a4c1d87e3b.jsonl"


@pytest.fixture(scope="module", autouse=True)
def _oracle_present() -> None:
    if NODE is None or not FUZZY.exists():
        why = f"needs node and @oh-my-pi/pi-tui in {PEER} (sh tests/view/ensure_omp_peer.sh)"
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)


def omp_says(pairs: list[tuple[str, str]]) -> list[bool]:
    out = subprocess.run(
        [str(NODE), str(ORACLE)],
        input=json.dumps(pairs),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env={**os.environ, "OMP_PEER": str(PEER)},
    )
    result: list[bool] = json.loads(out.stdout)
    return result


WORDS = [
    "SQLite",
    "storage",
    "NoteStore",
    "notes.json",
    "image",
    "provider",
    "bun:sqlite",
    "v2",
    "gpt4o",
    "migrate",
    "HTTPServer",
    "x86_64",
    "über",
    "naïve",
    "tree-selector",
    "fuzzyMatch",
    "a",
    "ab",
    "abc",
]


def random_pairs(rng: random.Random, n: int) -> list[tuple[str, str]]:
    pairs = []
    for _ in range(n):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 6)))
        source = rng.choice(WORDS).lower()
        k = rng.randint(1, len(source))
        start = rng.randint(0, len(source) - k)
        pick = source[start : start + k]
        if rng.random() < 0.3:
            pick = "".join(c for c in pick if rng.random() < 0.7) or pick
        if rng.random() < 0.2:
            pick = pick[::-1]
        if rng.random() < 0.2:
            pick += rng.choice("xyz0123.-")
        pairs.append((pick, text))
    return pairs


def test_fuzzy_match_equals_omps_on_random_pairs() -> None:
    pairs = random_pairs(random.Random(27), 3000)
    expected = omp_says(pairs)
    ours = [omp.fuzzy_match(q, omp.SearchIndex(t)) for q, t in pairs]
    wrong = [(p, e) for p, e, o in zip(pairs, expected, ours) if e != o]
    assert not wrong, wrong[:10]
    assert 300 < sum(expected) < 2700  # both outcomes are well represented


def test_sample_session_search_equals_omps() -> None:
    """Every query token against every entry of the bundled omp session, in the `all` filter:
    the rows loomtui keeps are the rows omp's matcher keeps over the same search texts."""
    model = TreeModel(SessionManager.open(str(SAMPLE)), filter_mode="all")
    assert model.omp
    entries = [model.entry_at(i) for i in range(len(model))]
    texts = [omp.search_text(e, model.index.label_of(e.id), model.manager.load(e)) for e in entries]
    queries = ["sqlite", "sqlt", "note store", "grep", "tst", "plan mgr", "bun", "ttsr", "model usage", "xyz"]
    pairs = [(tok, t) for q in queries for t in texts for tok in q.split()]
    expected = iter(omp_says(pairs))
    for q in queries:
        tokens = q.split()
        keep = [e.id for e, t in zip(entries, texts) if all([next(expected) for _ in tokens])]
        model.query = q
        model._refilter()
        assert [model.entry_at(i).id for i in range(len(model))] == keep, q
