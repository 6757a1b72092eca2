"""The comparison model: common ancestor, alignment by order and kind, word changes, folds,
per-branch totals."""

from __future__ import annotations

import time
from typing import Any

import pytest

from loomtui.session.manager import SessionManager
from loomtui.view.compare import (
    CHANGED,
    ONLY_A,
    ONLY_B,
    SAME,
    Fold,
    compare,
    fold_pairs,
    split_paths,
)
from loomtui.view.compare_words import span_lines, word_diff
from tests.shared_material import SHARED, needs_shared
from tests.view.helpers import assistant, session, user
from tests.view.helpers import tool_call as call
from tests.view.helpers import tool_result as result

BROWSE = SHARED / "fixtures" / "pi" / "dnouri-browse-session.jsonl"


def usage(tokens: int, cost: float) -> dict[str, Any]:
    return {
        "input": tokens - 10,
        "output": 10,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": tokens,
        "cost": {"input": cost / 2, "output": cost / 2, "cacheRead": 0, "cacheWrite": 0, "total": cost},
    }


def retry_session() -> SessionManager:
    """One prompt, two retries that read the same file then edit different ones."""
    return session(
        [
            user("u0", None, "fix the bug in parser.py", 0),
            # retry A
            assistant(
                "a1",
                "u0",
                "I will read the parser first.",
                10,
                stop="toolUse",
                blocks=[call("c1", "read", path="src/parser.py")],
                usage=usage(1000, 0.01),
            ),
            result("r1", "a1", "c1", "read", "def parse(x):\n    return x", 12),
            assistant(
                "a2",
                "r1",
                "The index is off by one.",
                14,
                stop="toolUse",
                blocks=[call("c2", "edit", path="src/parser.py", oldText="x", newText="x+1")],
                usage=usage(2000, 0.02),
            ),
            result("r2", "a2", "c2", "edit", "ok", 16),
            assistant("a3", "r2", "Fixed.", 20, usage=usage(500, 0.005)),
            # retry B (same first read, then a failing bash, then a write)
            assistant(
                "b1",
                "u0",
                "I will read the parser first.",
                30,
                stop="toolUse",
                blocks=[call("d1", "read", path="src/parser.py")],
                usage=usage(1000, 0.01),
            ),
            result("s1", "b1", "d1", "read", "def parse(x):\n    return x", 31),
            assistant(
                "b2",
                "s1",
                "Let me run the tests.",
                32,
                stop="toolUse",
                blocks=[call("d2", "bash", command="pytest")],
                usage=usage(1500, 0.015),
            ),
            result("s2", "b2", "d2", "bash", "1 failed", 33, error=True),
            assistant(
                "b3",
                "s2",
                "The index is off by two.",
                34,
                stop="toolUse",
                blocks=[
                    call("d3", "write", path="src/fix.py", content="..."),
                    call("d4", "edit", file_path="src/parser.py", oldText="a", newText="b"),
                ],
                usage=usage(3000, 0.03),
            ),
            result("s3", "b3", "d3", "write", "ok", 35),
            result("s4", "s3", "d4", "edit", "ok", 36),
            assistant("b4", "s4", "Fixed, tests pass.", 90, usage=usage(700, 0.007)),
        ]
    )


def test_common_ancestor_and_branches() -> None:
    sm = retry_session()
    anc, a, b = split_paths(sm, "a3", "b4")
    assert anc is not None and anc.id == "u0"
    assert [e.id for e in a] == ["a1", "r1", "a2", "r2", "a3"]
    assert [e.id for e in b] == ["b1", "s1", "b2", "s2", "b3", "s3", "s4", "b4"]


def test_alignment_by_order_and_tool_name() -> None:
    cmp = compare(retry_session(), "a3", "b4", home="")
    got = [(p.status, p.a.entry.id if p.a else None, p.b.entry.id if p.b else None) for p in cmp.pairs]
    assert got == [
        (SAME, "a1", "b1"),  # same text and the same tool call: identical
        (SAME, "r1", "s1"),
        (CHANGED, "a2", "b2"),  # the next assistant faces the next assistant
        (ONLY_B, None, "s2"),  # a bash result has no bash partner in A
        (ONLY_B, None, "b3"),
        (ONLY_B, None, "s3"),
        (SAME, "r2", "s4"),  # edit result "ok" with edit result "ok": identical
        (CHANGED, "a3", "b4"),
    ]


def test_results_pair_by_tool_name_not_position() -> None:
    sm = session(
        [
            user("u0", None, "go", 0),
            result("ra", "u0", "x", "read", "aaa", 1),
            result("rb", "ra", "y", "grep", "bbb", 2),
            result("sa", "u0", "z", "grep", "ccc", 3),
            result("sb", "sa", "w", "read", "ddd", 4),
        ]
    )
    cmp = compare(sm, "rb", "sb", home="")
    got = [(p.status, p.a.key if p.a else None, p.b.key if p.b else None) for p in cmp.pairs]
    assert got == [(ONLY_B, None, "tool:grep"), (CHANGED, "tool:read", "tool:read"), (ONLY_A, "tool:grep", None)]


def test_totals_per_branch() -> None:
    cmp = compare(retry_session(), "a3", "b4", home="")
    ta, tb = cmp.totals_a, cmp.totals_b
    assert (ta.entries, ta.turns, ta.user_messages, ta.tool_calls, ta.errors) == (5, 3, 0, 2, 0)
    assert (tb.entries, tb.turns, tb.user_messages, tb.tool_calls, tb.errors) == (8, 4, 0, 4, 1)
    assert ta.files == ["src/parser.py"]
    assert tb.files == ["src/fix.py", "src/parser.py"]
    assert (ta.tokens, tb.tokens) == (3500, 6200)
    assert ta.cost == pytest.approx(0.035) and tb.cost == pytest.approx(0.062)
    # from the common ancestor (t=0s) to the last entry
    assert (ta.wall_ms, tb.wall_ms) == (20_000, 90_000)


def test_word_diff_marks_only_the_changed_words() -> None:
    sa, sb = word_diff("The index is off by one.", "The index is off by two.")
    assert sa == [(False, "The index is off by "), (True, "one"), (False, ".")]
    assert sb == [(False, "The index is off by "), (True, "two"), (False, ".")]


def test_word_diff_unicode_and_lines() -> None:
    sa, sb = word_diff("héllo wörld 🎉\nzweite Zeile", "héllo Welt 🎉\nzweite Zeile")
    assert "".join(t for _c, t in sa) == "héllo wörld 🎉\nzweite Zeile"
    assert [t for c, t in sa if c] == ["wörld "]
    assert [t for c, t in sb if c] == ["Welt "]
    assert span_lines(sb) == [[(False, "héllo "), (True, "Welt "), (False, "🎉")], [(False, "zweite Zeile")]]


def test_identical_stretches_fold_with_context() -> None:
    entries = [user("u0", None, "start", 0)]
    for side, base in (("a", 100), ("b", 300)):
        parent = "u0"
        for k in range(20):
            text = "changed " + side if k == 10 else f"same {k}"
            entries.append(assistant(f"{side}{k}", parent, text, base + k))
            parent = f"{side}{k}"
    cmp = compare(session(entries), "a19", "b19", home="")
    assert [p.status for p in cmp.pairs].count(CHANGED) == 1
    blocks = cmp.blocks(context=2)
    assert blocks == [Fold(0, 8), 8, 9, 10, 11, 12, Fold(13, 20)]
    assert blocks[0].text == "8 identical entries"  # type: ignore[union-attr]
    # a fold the user opened stays open
    assert cmp.blocks(context=2, unfolded={0})[:9] == list(range(9))
    # a short run between changes is not folded
    assert fold_pairs(cmp.pairs, context=5) == [Fold(0, 5), *range(5, 16), Fold(16, 20)]


def test_identical_branches_are_one_fold() -> None:
    sm = session(
        [
            user("u0", None, "q", 0),
            assistant("a", "u0", "x", 1),
            user("u1", "a", "y", 2),
            assistant("b", "u0", "x", 3),
            user("u2", "b", "y", 4),
        ]
    )
    cmp = compare(sm, "u1", "u2", home="")
    assert cmp.identical
    assert cmp.blocks() == [Fold(0, 2)]


def test_same_entry_and_ancestor_of_the_other() -> None:
    sm = retry_session()
    same = compare(sm, "a3", "a3")
    assert same.pairs == [] and same.identical and same.ancestor is not None and same.ancestor.id == "a3"
    empty_a = compare(sm, "u0", "a2", home="")
    assert empty_a.ancestor is not None and empty_a.ancestor.id == "u0"
    assert [p.status for p in empty_a.pairs] == [ONLY_B, ONLY_B, ONLY_B]
    assert empty_a.totals_a.entries == 0 and empty_a.totals_a.wall_ms == 0


def test_different_roots_have_no_ancestor() -> None:
    sm = session([user("u0", None, "one", 0), user("u1", None, "two", 1)])
    cmp = compare(sm, "u0", "u1", home="")
    assert cmp.ancestor is None
    assert [p.status for p in cmp.pairs] == [CHANGED]


def test_unknown_id_raises_key_error() -> None:
    with pytest.raises(KeyError):
        compare(retry_session(), "a3", "nope")


@needs_shared()
def test_fixture_branch_inside_a_compaction() -> None:
    sm = SessionManager.open(str(BROWSE))
    cmp = compare(sm, "aa000018", "aa00001e", home="")
    assert cmp.ancestor is not None and cmp.ancestor.id == "aa000008"
    heads_a = [p.a.head for p in cmp.pairs if p.a is not None]
    assert "compaction" in heads_a and "branch summary" in heads_a
    # bookkeeping entries (labels, custom, title) are not part of a transcript
    ids_a = {p.a.entry.id for p in cmp.pairs if p.a is not None}
    assert not ids_a & {"aa00001f", "aa000020", "aa000021", "aa000022", "aa000012"}
    assert cmp.totals_a.errors == 2  # make exited 2; the rate-limit error
    assert cmp.totals_a.entries == 15 and cmp.totals_b.entries == 6


@needs_shared()
def test_loom_sources_compare_through_the_same_model() -> None:
    from loomtui.formats.detect import open_any

    sm = open_any(str(SHARED / "fixtures" / "loom" / "socketteer-loom_demo.json"))
    leaves = [e for e in sm.index.entries if not sm.index.child_lists().get(e.id)]
    cmp = compare(sm, leaves[0].id, leaves[-1].id, home="")
    assert cmp.pairs and cmp.totals_a.entries + cmp.totals_b.entries == len(cmp.a_items) + len(cmp.b_items)


def test_two_long_branches_compare_quickly() -> None:
    """5k entries a side, mostly identical: the matcher must not go quadratic."""
    entries = [user("u0", None, "go", 0)]
    for side in "ab":
        parent = "u0"
        for k in range(5000):
            text = f"step {k} " + ("left" if side == "a" and k % 97 == 0 else "common")
            entries.append(assistant(f"{side}{k}", parent, text, k + 1))
            parent = f"{side}{k}"
    sm = session(entries)
    t0 = time.perf_counter()
    cmp = compare(sm, "a4999", "b4999", home="")
    elapsed = time.perf_counter() - t0
    assert len(cmp.pairs) == 5000
    assert cmp.changed_count() == len(range(0, 5000, 97))
    assert elapsed < 5  # generous: the benchmark holds the real figure


def test_repetitive_branches_align_without_deep_recursion() -> None:
    """Signatures that repeat everywhere (the same short tool output again and again) leave
    few unique anchors; the matcher must stay fast and in order."""
    entries = [user("u0", None, "go", 0)]
    for side in "ab":
        parent = "u0"
        for k in range(3000):
            text = "ok" if k % 3 else f"{side} {k % 7}"
            entries.append(assistant(f"{side}{k}", parent, text, k + 1))
            parent = f"{side}{k}"
    cmp = compare(session(entries), "a2999", "b2999", home="")
    assert len(cmp.pairs) == 3000
    assert [p.status for p in cmp.pairs].count(SAME) == 2000
    ids_a = [p.a.entry.id for p in cmp.pairs if p.a is not None]
    assert ids_a == [f"a{k}" for k in range(3000)]
