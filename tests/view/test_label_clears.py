"""A label entry without a label in the detail: what it did, from the label history in file
order (view/label_history.py). The tree row keeps pi's ``[label: (cleared)]``."""

from __future__ import annotations

from loomtui.session.manager import SessionManager
from loomtui.view import blocks as B
from loomtui.view.model import TreeModel
from loomtui.view.text import display_text

HEADER = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}


def _msg(i: str, parent: str | None, role: str, n: int) -> dict[str, object]:
    content = "hi" if role == "user" else [{"type": "text", "text": "hello"}]
    return {
        "type": "message",
        "id": i,
        "parentId": parent,
        "timestamp": f"2026-01-01T00:00:{n:02}.000Z",
        "message": {"role": role, "content": content},
    }


def _label(i: str, parent: str, target: str, n: int, label: str | None = None) -> dict[str, object]:
    out: dict[str, object] = {
        "type": "label",
        "id": i,
        "parentId": parent,
        "timestamp": f"2026-01-01T00:00:{n:02}.000Z",
        "targetId": target,
    }
    if label is not None:
        out["label"] = label
    return out


def _manager(*extra: dict[str, object]) -> SessionManager:
    base = [_msg("u1", None, "user", 1), _msg("a1", "u1", "assistant", 2), _msg("u2", "a1", "user", 3)]
    return SessionManager.from_entries(HEADER, [*base, *extra])  # type: ignore[arg-type]


def _titles(m: SessionManager, entry_id: str) -> list[str]:
    tool_calls = TreeModel(m).flat.tool_calls
    return [b.text for b in B.entry_blocks(m, m.index.by_id[entry_id], tool_calls) if isinstance(b, (B.Title, B.Note))]


def test_a_real_clear_names_the_label_it_clears() -> None:
    m = _manager(_label("l1", "u2", "a1", 4, "checkpoint"), _label("l2", "l1", "a1", 5))
    texts = _titles(m, "l2")
    assert texts[0] == "clears the label [checkpoint] of a1"
    assert not any("leaf marker" in t or "cleared nothing" in t for t in texts)
    assert m.get_label("a1") is None
    assert display_text(m.index.by_id["l2"], {}) == "[label: (cleared)]"  # pi's /tree words stay


def test_a_clear_parented_on_its_target_is_a_leaf_marker_even_after_a_real_clear_elsewhere() -> None:
    # a1's label was set and cleared before; the marker on a1 clears nothing more
    m = _manager(
        _label("l1", "u2", "a1", 4, "checkpoint"),
        _label("l2", "l1", "a1", 5),
        _label("l3", "a1", "a1", 6),
    )
    texts = _titles(m, "l3")
    assert texts[0] == "leaf marker: moved where pi resumes to a1"
    assert "It cleared nothing (a1 had no label)" in texts[1] and "Ctrl+S" in texts[1]
    assert _titles(m, "l2")[0] == "clears the label [checkpoint] of a1"  # earlier in file order
    assert display_text(m.index.by_id["l3"], {}) == "[label: (cleared)]"


def test_a_clear_on_its_target_that_had_a_label_is_a_clear_not_a_marker() -> None:
    """The label history decides, not where the entry hangs: a label-less entry on its own
    target that had a label in force clears it (what an earlier renaming got wrong)."""
    m = _manager(_label("l1", "u2", "a1", 4, "keep"), _label("l2", "a1", "a1", 5))
    assert _titles(m, "l2")[0] == "clears the label [keep] of a1"


def test_a_no_op_clear_elsewhere_cleared_nothing() -> None:
    m = _manager(_label("l1", "u2", "a1", 4))
    texts = _titles(m, "l1")
    assert texts[0] == "cleared nothing: a1 had no label"
    assert not any("leaf marker" in t for t in texts)


def test_the_history_follows_an_appended_label() -> None:
    m = _manager(_label("l1", "u2", "a1", 4, "x"))
    m.branch("l1")
    m.append_label_change("a1", None)
    last = m.index.entries[-1]
    assert _titles(m, last.id)[0] == "clears the label [x] of a1"
