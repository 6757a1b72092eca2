"""The detail pane (and the HTML page, which renders the same blocks) names the file an entry of
another tool came from by the tool's name: it read "from the claude-code file: line 180, user"
and "from the codex file", loomtui's own ids for the formats."""

from __future__ import annotations

from pathlib import Path

import pytest

from loomtui.formats.detect import open_any
from loomtui.view import blocks as B


@pytest.mark.parametrize(
    ("name", "words"),
    [
        (
            "claude/claude-code-log__ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl",
            "from the Claude Code session file: line ",
        ),
        ("codex/agtrace__codex_session.jsonl", "from the Codex session file: line "),
    ],
)
def test_an_entrys_origin_names_the_tool(shared_dir: Path, name: str, words: str) -> None:
    manager = open_any(str(shared_dir / "fixtures" / name))
    leaf = manager.index.by_id[manager.get_leaf_id()]
    notes = [b.text for b in B.entry_blocks(manager, leaf) if isinstance(b, B.Note)]
    assert any(n.startswith(words) for n in notes), notes
    assert not any("claude-code file" in n or "codex file" in n for n in notes)
