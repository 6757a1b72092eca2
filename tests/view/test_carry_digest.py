"""The digest a carry prefills is Markdown that reads as its parts: pi draws a branch summary as
Markdown, and so does the detail pane (Rich's Markdown, on markdown-it, parsed here the same way)."""

from __future__ import annotations

from typing import Any

from markdown_it import MarkdownIt

from loomtui.view.carry_digest import branch_digest, closed_fences, code
from tests.view.helpers import assistant, session, tool_call, tool_result, user


def _blocks(markdown: str) -> list[tuple[str, str]]:
    """The top-level blocks as a Markdown reader sees them: ("p", text), ("li", text) for each
    item of a list, ("code", text) for a code block; inline code as its text."""
    out: list[tuple[str, str]] = []
    depth = 0  # inside a list
    tokens = MarkdownIt().enable("strikethrough").enable("table").parse(markdown)  # as rich.markdown does
    for i, tok in enumerate(tokens):
        if tok.type in ("bullet_list_open", "ordered_list_open"):
            depth += 1
        elif tok.type in ("bullet_list_close", "ordered_list_close"):
            depth -= 1
        elif tok.type == "inline" and tokens[i - 1].type == "paragraph_open":
            text = "".join(c.content if c.type in ("text", "code_inline") else " " for c in tok.children or [])
            out.append(("li" if depth else "p", text))
        elif tok.type in ("fence", "code_block"):
            out.append(("code", tok.content))
        elif tok.type in ("html_block", "html_inline", "heading_open"):
            out.append((tok.type, tok.content))
    return out


def _tried() -> Any:
    """Branch A (ending at a4): two prompts, an edit of ``src/__init__.py``, a failed command, and
    a last answer cut short inside a code block; branch B (ending at b1) leaves it after a0."""
    answer = "Here is the fix:\n\n```python\n" + "value = compute(value)\n" * 60 + "```\nDone."
    return session(
        [
            user("u0", None, "start", 1),
            assistant("a0", "u0", "ready", 2),
            user("u1", "a0", "rename the *old* helper", 3),
            assistant(
                "a1", "u1", "", 4, blocks=[tool_call("c1", "edit", path="src/__init__.py", oldText="a", newText="b")]
            ),
            tool_result("r1", "a1", "c1", "edit", "ok", 5),
            user("u2", "r1", "now run it", 6),
            assistant("a2", "u2", "", 7, blocks=[tool_call("c2", "bash", command="python -")]),
            tool_result("r2", "a2", "c2", "bash", 'File "<stdin>", line 1: __init__ failed', 8, error=True),
            assistant("a4", "r2", answer, 9),
            user("v1", "a0", "try the other way", 10),
            assistant("b1", "v1", "other", 11),
        ]
    )


def test_the_digest_reads_as_its_parts_in_a_markdown_reader() -> None:
    text = branch_digest(_tried(), "a4", "b1")
    blocks = _blocks(text)
    kinds = [k for k, _ in blocks]
    assert kinds == ["p", "p", "li", "li", "p", "p", "li", "p", "p", "code", "p"], blocks
    said = [t for _, t in blocks]
    assert said[0] == "Another branch of this session (ending at a4, after a0) was tried. What it did:"
    assert said[1:4] == ["Prompts:", "rename the  old  helper", "now run it"]  # the prompt's own emphasis
    assert said[4] == "Files touched: src/__init__.py"  # a path as written, not "src/init.py" in bold
    assert said[5:7] == ["Errors:", 'bash result: File "<stdin>", line 1: __init__ failed']
    assert said[7:9] == ["Last answer:", "Here is the fix:"]
    assert said[9].startswith("value = compute(value)\n")  # cut short inside the block, which is closed
    assert said[10].startswith("Totals: 3 turns, 2 user messages, 2 tool calls, 1 error; ")
    assert said[10].endswith("; 1 file touched: src/__init__.py.")


def test_the_digest_of_a_plain_branch_keeps_the_last_answer_out_of_the_prompt_list() -> None:
    sm = session(
        [
            user("u0", None, "start", 1),
            assistant("a0", "u0", "ready", 2),
            user("u1", "a0", "Check the CI cache.", 3),
            assistant("a1", "u1", "Clearing the CI cache now.", 4),
            user("v1", "a0", "other", 5),
            assistant("b1", "v1", "other answer", 6),
        ]
    )
    blocks = _blocks(branch_digest(sm, "a1", "b1"))
    assert [t for _, t in blocks[1:]] == [
        "Prompts:",
        "Check the CI cache.",
        "Last answer:",
        "Clearing the CI cache now.",
        "Totals: 1 turn, 1 user message, 0 tool calls, 0 errors; no tokens recorded; 2s of wall time; "
        "no files touched.",
    ]
    assert [k for k, _ in blocks] == ["p", "p", "li", "p", "p", "p"]


def test_inline_code_and_closed_fences() -> None:
    assert code("a`b") == "``a`b``" and code("`x") == "`` `x ``" and code("__init__.py") == "`__init__.py`"
    assert closed_fences("x\n```py\ny") == "x\n```py\ny\n```"
    assert closed_fences("x\n~~~~\ny\n~~~") == "x\n~~~~\ny\n~~~\n~~~~"  # a shorter fence does not close it
    assert closed_fences("```\na\n```\nb") == "```\na\n```\nb"
    assert closed_fences("``` not a `fence\nb") == "``` not a `fence\nb"
