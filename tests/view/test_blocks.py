"""Entries as typed blocks (view/blocks.py): what the detail pane and the HTML export draw."""

from __future__ import annotations

from pathlib import Path

from loomtui.session.manager import SessionManager
from loomtui.view import blocks as B
from loomtui.view.model import TreeModel

KINDS = Path(__file__).resolve().parents[1] / "app" / "fixtures" / "kinds.jsonl"


def _blocks(manager: SessionManager, entry_id: str, **kw: object) -> list[B.Block]:
    model = TreeModel(manager)
    return B.entry_blocks(manager, manager.index.by_id[entry_id], model.flat.tool_calls, **kw)  # type: ignore[arg-type]


def test_header_says_where_the_entry_sits_and_what_it_cost() -> None:
    m = SessionManager.open(str(KINDS))
    header = _blocks(m, "a1000003")[0]
    assert isinstance(header, B.Header)
    assert (header.entry_id, header.parent_id, header.model) == ("a1000003", "u1000002", "anthropic/claude-sonnet-4-5")
    assert header.usage == B.Usage(input=1210, output=90, cache_read=0, cache_write=0, total=1300, cost=0.0042)
    assert header.usage.text == "↑1,210 ↓90  1,300 tokens  $0.0042"
    assert header.stop_reason == "toolUse"
    assert header.depth == m.index.depth(m.index.by_id["a1000003"]) == len(m.index.path_to("a1000003")) - 1
    assert B.entry_blocks(m, m.index.by_id["a1000003"], header=False)[0] == B.Title("assistant", "success")


def test_tool_call_carries_its_result_and_an_edit_as_a_diff() -> None:
    m = SessionManager.open(str(KINDS))
    body = _blocks(m, "a1000003")[1:]
    assert body[0] == B.Title("assistant", "success")
    call = body[1]
    assert isinstance(call, B.ToolCall)
    assert (call.name, call.call_id, call.found) == ("edit", "call_3", True)
    assert call.args == (
        B.Note("path /home/user/proj/parser.py", "text", bold=True),
        B.Diff("- return parts[1:len(parts) + 1]\n+ return parts[1:]", "edit"),
    )
    assert call.result == B.ToolResult(
        "r1000003",
        False,
        (
            B.Plain("Edited /home/user/proj/parser.py", "output"),
            B.Diff("-    return parts[1:len(parts) + 1]\n+    return parts[1:]"),
        ),
    )


def test_tool_result_entry_shows_its_call() -> None:
    m = SessionManager.open(str(KINDS))
    title, call = _blocks(m, "r1000003")[1:]
    assert title == B.Title("tool result: edit", "muted")
    assert isinstance(call, B.ToolCall) and call.found and call.summary == "[edit: /home/user/proj/parser.py]"
    assert call.result is not None and call.result.entry_id == "r1000003"


def _manager(entries: list[dict[str, object]]) -> SessionManager:
    header = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}
    return SessionManager.from_entries(header, entries)  # type: ignore[arg-type]


def _msg(i: str, parent: str | None, role: str, content: object, **extra: object) -> dict[str, object]:
    return {
        "type": "message",
        "id": i,
        "parentId": parent,
        "timestamp": f"2026-01-01T00:00:0{len(i)}.000Z",
        "message": {"role": role, "content": content, **extra},
    }


def test_thinking_of_a_tool_only_turn_shows_with_the_result() -> None:
    """A turn with thinking and tool calls but no text has no row (as in pi): its thinking is
    shown where its calls' results are read."""
    m = _manager(
        [
            _msg("u", None, "user", "fix it"),
            _msg(
                "a",
                "u",
                "assistant",
                [
                    {"type": "thinking", "thinking": "look at the parser"},
                    {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "p.py"}},
                ],
            ),
            _msg("r", "a", "toolResult", [{"type": "text", "text": "code"}], toolCallId="c1", toolName="read"),
            _msg(
                "a2",
                "r",
                "assistant",
                [
                    {"type": "thinking", "thinking": "now answer"},
                    {"type": "text", "text": "done"},
                    {"type": "toolCall", "id": "c2", "name": "ls", "arguments": {}},
                ],
            ),
            _msg("r2", "a2", "toolResult", "listing", toolCallId="c2", toolName="ls"),
        ]
    )
    call = _blocks(m, "r")[2]
    assert isinstance(call, B.ToolCall) and call.thinking == (B.Thinking("look at the parser"),)
    # a turn with text shows its own thinking on its own row: not repeated
    call2 = _blocks(m, "r2")[2]
    assert isinstance(call2, B.ToolCall) and call2.thinking == ()
    assert call2.result is not None and call2.result.body == (B.Plain("listing", "output"),)
    # the turn itself: thinking, then the call with its result
    a = _blocks(m, "a")
    assert a[2] == B.Thinking("look at the parser")
    assert isinstance(a[3], B.ToolCall) and a[3].result is not None and a[3].result.entry_id == "r"


def test_thinking_on_tool_only_turns_of_a_real_session(pi_dir: Path) -> None:
    m = SessionManager.open(str(pi_dir / "pi-mono-before-compaction.jsonl"))
    model = TreeModel(m)
    shown = 0
    for e in m.index.entries:
        if e.role != "toolResult":
            continue
        for b in B.walk(B.entry_blocks(m, e, model.flat.tool_calls)):
            if isinstance(b, B.ToolCall) and b.thinking:
                assert all(t.text or t.redacted for t in b.thinking)
                shown += 1
    assert shown > 0


def test_blocks_keep_text_raw_and_never_raise_on_odd_entries() -> None:
    m = _manager(
        [
            _msg(
                "u",
                None,
                "user",
                [
                    {"type": "text", "text": "a\x1b[31m<b>"},
                    {"type": "text", "text": " & b"},
                    {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
                    {"type": "video"},
                ],
            ),
            _msg("x", "u", "assistant", None, stopReason="aborted"),
            {"type": "weird", "id": "w", "parentId": "x", "timestamp": "2026-01-01T00:00:09.000Z", "n": 1},
            {"type": "custom", "id": "k", "parentId": "w", "timestamp": "2026-01-01T00:00:09.000Z", "customType": "t"},
            {
                "type": "compaction",
                "id": "c",
                "parentId": "k",
                "timestamp": "2026-01-01T00:00:09.000Z",
                "summary": "s",
                "firstKeptEntryId": "u",
                "tokensBefore": float("inf"),
                "details": {"readFiles": ["a.py"], "other": 1},
            },
        ]
    )
    assert _blocks(m, "u", header=False) == [
        B.Title("user", "accent"),
        B.Markdown("a\x1b[31m<b>\n\n & b"),
        B.Image("image/png", size=8),
        B.Plain('{\n  "type": "video"\n}', "json"),
    ]
    assert B.Image("image/png", size=8).label == "[image image/png, 8 B]"
    assert _blocks(m, "x", header=False) == [B.Title("assistant", "success"), B.Note("(no content)")]
    assert _blocks(m, "w", header=False)[0] == B.Title("weird")
    assert _blocks(m, "k", header=False) == [B.Custom("t", None, False)]
    comp = _blocks(m, "c", header=False)[0]
    assert isinstance(comp, B.Compaction)
    assert (comp.tokens_before, comp.first_kept_id, comp.first_kept_text) == (None, "u", "user: a\x1b[31m<b> & b")
    assert comp.files == (B.Files("read files", ("a.py",)), B.Plain('{\n  "other": 1\n}', "json"))


def test_builders_are_a_table_covering_every_kind_pi_writes() -> None:
    assert set(B.BUILDERS) == {
        "message",
        "compaction",
        "branch_summary",
        "custom_message",
        "custom",
        "model_change",
        "thinking_level_change",
        "label",
        "session_info",
        "context_edit",
        "usage",
    }  # pi 1.6.0's new kinds
    assert set(B.MESSAGE_BUILDERS) == {"user", "assistant", "toolResult", "bashExecution", "system"}


def test_copy_text_is_pis_copy_action() -> None:
    bash = {"type": "message", "message": {"role": "bashExecution", "command": "ls -la", "output": "x"}}
    calls = {
        "type": "message",
        "message": {
            "role": "assistant",
            "content": [{"type": "toolCall", "id": "c", "name": "ls", "arguments": {"path": "."}}],
        },
    }
    assert B.copy_text(bash) == "ls -la"
    assert B.copy_text(calls) == '{\n  "path": "."\n}'
    assert B.copy_text({"type": "compaction", "summary": "sum"}) == "sum"
    assert B.copy_text({"type": "model_change", "model": "m"}) == "m"
    assert B.copy_text({"type": "custom", "data": [1]}) == "[\n  1\n]"


def test_consecutive_text_blocks_stay_apart() -> None:
    m = _manager(
        [
            _msg(
                "a",
                None,
                "assistant",
                [{"type": "text", "text": "Looks fine."}, {"type": "text", "text": "Check the CI cache."}],
            )
        ]
    )
    md = [b for b in _blocks(m, "a", header=False) if isinstance(b, B.Markdown)]
    assert md == [B.Markdown("Looks fine.\n\nCheck the CI cache.")]
