"""`loomtui tree` draws what pi's own /tree selector draws, view by view.

The judge is pi's code (``../shared/oracle/pi_tree_oracle.mjs`` builds pi's TreeSelectorComponent
and renders every filter mode and a few searches): pi 1.6.0 on the fixtures and on sessions
1.6.0's own SessionManager writes (usage entries, context edits, system messages among them),
at the wide width the parity script uses and at narrow ones (rows cut without an ellipsis, deep
trees panned left); and on sessions pi 0.73.1 wrote, what both releases draw.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from loomtui.cli import main
from tests.oracle import NODE, PI_CURRENT, PI_OLD, needs_pi, oracle_env
from tests.shared_material import SHARED, needs_shared, shared_params

ORACLE = SHARED / "oracle"
FIXTURES = sorted((SHARED / "fixtures" / "pi").glob("*.jsonl"))
SEARCHES = ("build", "user", "a b", "LABEL", "zzz-no-match", "context omit", "replace", "system")


def pi_views(path: Path, package: str, width: int = 1000) -> list[dict[str, Any]]:
    cmd = [str(NODE), str(ORACLE / "pi_tree_oracle.mjs"), str(path)]
    for q in SEARCHES:
        cmd += ["--search", q]
    out = subprocess.run(
        cmd, capture_output=True, text=True, timeout=300, env=oracle_env(package, ORACLE_WIDTH=str(width))
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)["views"]  # type: ignore[no-any-return]


def visible(line: str) -> str:
    """pi's row as a terminal shows it safely (control characters as their pictures), which
    is what loomtui prints."""
    return "".join(chr(0x2400 + ord(c)) if ord(c) < 0x20 else "\u2421" if c == "\x7f" else c for c in line)


def our_lines(path: Path, mode: str, query: str, width: int) -> list[str]:
    args = ["tree", str(path), "--filter", mode, "--width", str(width), "--color", "never"]
    if query:
        args += ["--search", query]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(args) == 0
    return buf.getvalue().rstrip("\n").split("\n")


def differing(path: Path, package: str, width: int = 1000) -> list[tuple[str, str, str, str]]:
    """The views where loomtui's rows are not pi's: (mode, query, pi's first differing line, ours)."""
    bad = []
    for view in pi_views(path, package, width):
        theirs = [visible(x) for x in view["lines"]]
        mine = our_lines(path, view["mode"], view["query"], width)
        if mine != theirs:
            k = next((i for i, (a, b) in enumerate(zip(theirs, mine)) if a != b), min(len(theirs), len(mine)))
            bad.append((view["mode"], view["query"], (theirs + [""])[k], (mine + [""])[k]))
    return bad


def generated(package: str, dest: Path, seed: int, ops: int = 250) -> Path:
    """A random branched session written by ``package``'s own SessionManager."""
    out = subprocess.run(
        [str(NODE), str(ORACLE / "gen_ref_session.mjs"), str(dest), str(seed), str(ops)],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
        env=oracle_env(package),
    )
    return Path(out.stdout.strip().splitlines()[-1])


def kinds(path: Path) -> set[str]:
    found = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        found.add(obj["type"] if obj["type"] != "message" else "message:" + obj["message"]["role"])
    return found


@pytest.fixture(autouse=True)
def _home(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tool-call paths are shortened against the oracle's HOME."""
    monkeypatch.setenv("HOME", "/home/user")


@needs_pi(PI_CURRENT)
@pytest.mark.parametrize("path", shared_params(FIXTURES), ids=lambda p: p.stem)
def test_fixtures_draw_as_pi_1_6_0_draws_them(path: Path) -> None:
    assert differing(path, PI_CURRENT) == []


@needs_shared()
@needs_pi(PI_CURRENT)
@pytest.mark.parametrize("seed", [11, 27, 40])
def test_sessions_pi_1_6_0_writes_draw_as_it_draws_them(seed: int, tmp_path: Path) -> None:
    path = generated(PI_CURRENT, tmp_path, seed)
    # the new kinds are there: usage (never a row), context edits (settings rows), system messages
    assert {"usage", "context_edit", "message:system"} <= kinds(path)
    assert differing(path, PI_CURRENT) == []


@needs_shared()
@needs_pi(PI_CURRENT)
@pytest.mark.parametrize("width", [80, 50])
def test_narrow_rows_are_cut_as_pi_1_6_0_cuts_them(width: int, tmp_path: Path) -> None:
    path = generated(PI_CURRENT, tmp_path, 5)
    assert differing(path, PI_CURRENT, width) == []
    assert differing(FIXTURES[0], PI_CURRENT, width) == []


def deep_session(path: Path, depth: int) -> Path:
    """A chain of ``depth`` branch points (each adds a level of indentation): the leaf's text
    starts far right of a narrow terminal (the leaf is the last entry of the chain)."""
    lines = [{"type": "session", "version": 3, "id": "deep", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}]
    parent = None
    for i in range(depth):
        keep, side = f"k{i:06d}", f"s{i:06d}"
        for eid, text in ((side, f"side {i} 東京"), (keep, f"go on {i} " + "long words " * 12)):
            lines.append(
                {
                    "type": "message",
                    "id": eid,
                    "parentId": parent,
                    "timestamp": "2026-01-01T00:00:01.000Z",
                    "message": {"role": "user", "content": text, "timestamp": 1},
                }
            )
        parent = keep
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    return path


@needs_shared()
@needs_pi(PI_CURRENT)
@pytest.mark.parametrize(("depth", "width"), [(40, 80), (40, 200), (8, 30)])
def test_deep_trees_pan_left_as_pi_1_6_0_pans_them(depth: int, width: int, tmp_path: Path) -> None:
    path = deep_session(tmp_path / "deep.jsonl", depth)
    assert differing(path, PI_CURRENT, width) == []
    # the leaf's row shows its text: the rows were shifted, not just cut
    rows = our_lines(path, "default", "", width)
    assert any(line.startswith("› ") and f"go on {depth - 1}" in line for line in rows)


@needs_shared()
@needs_pi(PI_OLD, PI_CURRENT)
@pytest.mark.parametrize("seed", [3, 8])
def test_files_pi_0_73_1_wrote_still_draw_the_same(seed: int, tmp_path: Path) -> None:
    """Files the old release wrote: loomtui draws what 0.73.1 drew and what 1.6.0 draws."""
    path = generated(PI_OLD, tmp_path, seed)
    assert not {"usage", "context_edit", "message:system"} & kinds(path)
    assert differing(path, PI_OLD) == []
    assert differing(path, PI_CURRENT) == []


def small_session(path: Path) -> Path:
    """Each new kind once, a usage entry as the leaf (pi's cursor goes to the row above it), a
    context edit of each sort and a session name with line breaks (as files from before pi
    0.80 may hold)."""
    rows: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "kinds", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"},
        {
            "type": "message",
            "id": "u1",
            "parentId": None,
            "timestamp": "2026-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": "build the thing", "timestamp": 1},
        },
        {
            "type": "usage",
            "id": "w1",
            "parentId": "u1",
            "timestamp": "2026-01-01T00:00:02.000Z",
            "kind": "cache_warm",
            "provider": "anthropic",
            "model": "m",
            "usage": {"input": 1, "output": 1, "totalTokens": 2},
        },
        {
            "type": "session_info",
            "id": "n1",
            "parentId": "w1",
            "timestamp": "2026-01-01T00:00:03.000Z",
            "name": "two\nlines\rand\ttab",
        },
        {
            "type": "context_edit",
            "id": "c1",
            "parentId": "n1",
            "timestamp": "2026-01-01T00:00:04.000Z",
            "targetId": "u1",
            "replacement": None,
        },
        {
            "type": "context_edit",
            "id": "c2",
            "parentId": "c1",
            "timestamp": "2026-01-01T00:00:05.000Z",
            "targetId": "u1",
            "replacement": {"content": "shorter"},
        },
        {
            "type": "label",
            "id": "l1",
            "parentId": "c2",
            "timestamp": "2026-01-01T00:00:06.000Z",
            "targetId": "c1",
            "label": "LABEL on edit",
        },
        {
            "type": "message",
            "id": "s1",
            "parentId": "l1",
            "timestamp": "2026-01-01T00:00:07.000Z",
            "message": {"role": "system", "content": "", "sections": {"base": "be brief"}, "timestamp": 7},
        },
        {
            "type": "usage",
            "id": "w2",
            "parentId": "s1",
            "timestamp": "2026-01-01T00:00:08.000Z",
            "kind": "title",
            "provider": "anthropic",
            "model": "m",
            "usage": {"input": 1, "output": 1, "totalTokens": 2},
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@needs_shared()
@needs_pi(PI_CURRENT)
@pytest.mark.parametrize("width", [1000, 40])
def test_new_kinds_the_leaf_after_them_and_odd_names_draw_as_pi(width: int, tmp_path: Path) -> None:
    path = small_session(tmp_path / "kinds.jsonl")
    assert differing(path, PI_CURRENT, width) == []
    every = our_lines(path, "all", "", width)
    assert not any("usage" in line for line in every)
    assert any(line.startswith("› ") and "[system]" in line for line in every)
