"""The commonest messages as HTML without the typed blocks in between.

A 100k-entry session is mostly user texts and assistant turns made of text, thinking and tool
calls answered by a text result. ``EntryRenderer`` writes every entry from ``view.blocks``;
for these shapes building the block objects and dispatching on them costs more than the HTML
itself, so ``message_html`` writes them directly, reusing the blocks' own helpers for every
rule that is not a plain walk (``args_blocks``, ``result_of``, ``format_tool_call``,
``TEXT_BLOCK_SEP``). Anything else (an error message, images, a diff, a malformed result, an
unknown block, another source's detail, an entry from another tool's file) answers None and
takes the general path. tests/formats/test_export_html_fast.py checks that both paths
write the same HTML, on the fixtures and on generated messages.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any

from loomtui.view import blocks as B
from loomtui.view.text import format_tool_call

if TYPE_CHECKING:
    from loomtui.formats.export_html_render import EntryRenderer
    from loomtui.session.entries import Entry

_REDACTED = '<details class="thinking"><summary>thinking (redacted)</summary></details>'
_EMPTY = '<div class="note r-muted">(empty)</div>'
_NO_RESULT = '<div class="note r-muted">no result in this session</div>'


def message_html(r: EntryRenderer, e: Entry, full: dict[str, Any]) -> str | None:
    """The body HTML of a user message with text content or of an assistant turn of text,
    thinking and tool calls (what the general path writes for it); None for anything else."""
    msg = full.get("message")
    if not isinstance(msg, dict) or "agentSource" in full:
        return None
    role = msg.get("role")
    content = msg.get("content")
    if role == "user":
        return _text_html(r, content) if isinstance(content, str) else None
    if role != "assistant" or not isinstance(content, list) or msg.get("errorMessage"):
        return None
    out: list[str] = []
    run: list[str] = []
    k = 0  # thinking blocks so far: the page finds the k-th one in the entry's line
    for block in content:
        if not isinstance(block, dict):
            return None
        t = block.get("type")
        if t == "text":
            run.append(str(block.get("text") or ""))
            continue
        if run:
            out.append(_text_html(r, B.TEXT_BLOCK_SEP.join(run)))
            run.clear()
        if t == "thinking":
            out.append(_thinking_html(e.id, k, block))
            k += 1
        elif t == "toolCall":
            html = _tool_call_html(r, block)
            if html is None:
                return None
            out.append(html)
        else:
            return None
    if run:
        out.append(_text_html(r, B.TEXT_BLOCK_SEP.join(run)))
    return "".join(out) if out else None  # no content at all: the general path's note


def _text_html(r: EntryRenderer, text: str) -> str:
    return r.markdown(text) if text.strip() else _EMPTY


def _thinking_html(eid: str, k: int, block: dict[str, Any]) -> str:
    """As ``EntryRenderer._Thinking``: the text is filled in by the page from the line when it
    is a string there."""
    if block.get("redacted"):
        return _REDACTED
    value = block.get("thinking")
    text = str(value or "")
    if isinstance(value, str):
        body = f'<div class="think" data-think="{escape(eid)}" data-k="{k}"></div>'
    else:
        body = f'<div class="think">{escape(text)}</div>'
    return f'<details class="thinking"><summary>thinking ({len(text):,} characters)</summary>{body}</details>'


def _tool_call_html(r: EntryRenderer, block: dict[str, Any]) -> str | None:
    """As ``EntryRenderer._ToolCall`` of ``blocks._tool_call``, for a call without a result or
    with a result whose body is its text output alone."""
    name, args, call_id = block.get("name"), block.get("arguments"), block.get("id")
    loader = r.manager
    found = loader.index.tool_result(call_id)
    err = ""
    if found is None:
        result = _NO_RESULT
    else:
        full, _from_line = loader.load_line(found)
        msg = full.get("message") if isinstance(full, dict) else None
        if not isinstance(msg, dict):
            return None
        res = B.result_of(found, msg)
        if len(res.body) != 1:  # images or a diff beside the output
            return None
        out = res.body[0]
        assert isinstance(out, B.Plain)  # result_of ends with the output
        result = _result_html(found.id, out, plain_texts(full))
        if res.is_error:
            err = " err"
    label = format_tool_call(name, args) or (str(name) if name is not None else "") or "tool"
    args_html = "".join([r.block(a) for a in B.args_blocks(name, args)])
    return (f'<div class="tool{err}"><div class="th"><span>{escape(label)}</span><span class="sp"></span>'
            f'<span class="muted">{escape(str(call_id))}</span></div><div class="tb">{args_html}{result}</div></div>')


def _result_html(rid: str, out: B.Plain, from_line: bool) -> str:
    """As ``EntryRenderer._ToolResult`` with one ``Plain`` output: the page fills the output in
    from the result's own line when it can rebuild it exactly."""
    if from_line:
        pre = f'<pre class="plain {out.kind}" data-out="{escape(rid)}"></pre>'
    else:
        pre = f'<pre class="plain {escape(out.kind)}">{escape(out.text)}</pre>'
    attr = f' data-entry="{escape(rid)}"' if rid else ""
    return f'<div class="tool-result"{attr}>{three_state(pre, out.text.count(chr(10)) + 1)}</div>'


def three_state(inner: str, lines: int, cls: str = "") -> str:
    """Tool output the page shows collapsed, as a preview or in full (a button cycles them)."""
    state = "full" if lines <= 8 else "preview"
    label = "less" if state == "full" else "more"
    button = f'<button class="btn tstate" title="collapsed / preview / full">{label}</button>' if lines > 8 else ""
    return f'<div class="tool-out {cls}" data-state="{state}">{button}{inner}</div>'


def plain_texts(full: Any) -> bool:
    """A toolResult whose output the page can rebuild exactly: a string content, or text blocks
    whose texts are all strings (the page joins them with newlines, "(no output)" when empty)."""
    msg = full.get("message") if isinstance(full, dict) else None
    if not isinstance(msg, dict):
        return False
    content = msg.get("content")
    if isinstance(content, str):
        return True
    if not isinstance(content, list):
        return False
    return all(not (isinstance(b, dict) and b.get("type") == "text") or isinstance(b.get("text"), str)
               for b in content)
