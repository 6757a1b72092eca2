"""The compare screen's rows (view/compare_layout.py): what a cut block says."""

from __future__ import annotations

from loomtui.view.compare import compare
from loomtui.view.compare_layout import CAP, CompareLayout
from tests.view.helpers import assistant, session, user


def _more_line(extra: int) -> str:
    """The line under an assistant reply ``CAP + extra`` lines long, on one branch only."""
    long = "\n".join(f"line {n}" for n in range(CAP + extra))
    sm = session(
        [
            user("u1", None, "start", 1),
            assistant("a1", "u1", "short", 2),
            assistant("a2", "u1", long, 3),
        ]
    )
    lay = CompareLayout(compare(sm, "a1", "a2", home="/"), 120)
    texts = ["".join(t for _s, t in (r.left or []) + (r.right or [])) for y in range(lay.height) if (r := lay.row(y))]
    return next(t.strip() for t in texts if "more line" in t)


def test_one_line_more_is_said_in_the_singular() -> None:
    assert _more_line(1) == "… 1 more line (Enter shows all)"


def test_more_lines_are_said_in_the_plural() -> None:
    assert _more_line(3) == "… 3 more lines (Enter shows all)"
