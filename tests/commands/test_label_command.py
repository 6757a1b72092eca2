"""`loomtui label`: what TEXT may hold, what it says it did, and when it writes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from loomtui.cli import main


def msg(entry_id: str, parent: str | None, role: str, text: str, n: int) -> dict[str, Any]:
    content: Any = text if role == "user" else [{"type": "text", "text": text}]
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": f"2026-03-01T09:00:0{n}.000Z",
        "message": {"role": role, "content": content, "timestamp": n},
    }


#: a user message, an answer labelled ``break``, a second answer
ENTRIES = [
    msg("u1000001", None, "user", "Fix the build, please.", 1),
    msg("a1000001", "u1000001", "assistant", "Looking at the Makefile.", 2),
    {
        "type": "label",
        "id": "l1000001",
        "parentId": "a1000001",
        "timestamp": "2026-03-01T09:00:03.000Z",
        "targetId": "a1000001",
        "label": "break",
    },
    msg("a1000002", "l1000001", "assistant", "Fixed.", 4),
]


@pytest.fixture
def session(write_session) -> Path:
    return write_session(ENTRIES)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("two\nlines\x1b[31m", "a newline (U+000A)"),
        ("red\x1b[31m", "an escape character (ESC) (U+001B)"),
        ("a\tb", "a tab (U+0009)"),
        ("a\rb", "a carriage return (U+000D)"),
        ("bell\x07", "a control character (U+0007)"),
        ("del\x7f", "a delete character (DEL) (U+007F)"),
        ("c1\x9b31m", "a control character (U+009B)"),
    ],
)
def test_a_label_holding_a_control_character_is_refused_and_nothing_written(capsys, session, text, named) -> None:
    before = session.read_bytes()
    code, out, err = run(capsys, "label", str(session), "u1000001", text)
    assert (code, out) == (2, "")
    assert err == (
        f"loomtui: the label holds {named}; a label is one line of printable text, as pi's label editor "
        "takes it; nothing was written\n"
    )
    assert session.read_bytes() == before


def test_whitespace_around_the_label_is_trimmed_not_refused(capsys, session) -> None:
    """A trailing newline (``$(cmd)`` keeps none, but a quoted one) or tab is trimmed, as pi trims."""
    code, out, _ = run(capsys, "label", str(session), "u1000001", "\t start \n")
    assert code == 0
    assert session.read_text().splitlines()[-1].endswith('"targetId":"u1000001","label":"start"}')
