"""The commonest messages as HTML without the typed blocks in between.

A 100k-entry session is mostly user texts and assistant turns made of text, thinking and tool
calls answered by a text result. ``EntryRenderer`` writes every entry from ``view.blocks``;
for these shapes building the block objects and dispatching on them costs more than the HTML
itself, so ``message_html`` writes them directly, reusing the blocks' own helpers for every
rule that is not a plain walk (``args_blocks``, ``result_of``, ``format_tool_call``,
``TEXT_BLOCK_SEP``). Anything else (an error message, images, a diff, a malformed result, an
unknown block, another source's detail, an entry from another tool's file) answers None and
takes the general path. A plain text (no Markdown syntax) is not written at all: the page
fills it in from the entry's line, where it is anyway. tests/formats/test_export_html_fast.py
checks that both paths give the same HTML (the plain texts filled in as the page does), on the
fixtures and on generated messages.
"""

from __future__ import annotations

import re
from html import escape
from typing import TYPE_CHECKING, Any

import orjson

from loomtui.view import blocks as B
from loomtui.view.text import format_tool_call

#: the most distinct (tool name, arguments) whose HTML a renderer keeps (``_call_html``)
CALL_MEMO = 4096
#: longer texts are shown preformatted, not parsed as Markdown (``EntryRenderer.markdown``)
MARKDOWN_LIMIT = 200_000
#: a text markdown-it renders as plain paragraphs: no character that starts any Markdown
#: construct (``*_`[]<>&|~\``, tabs, controls), no Unicode space (paragraphs are stripped of it);
#: ``>`` ``#`` ``+`` ``-`` ``=`` and digits only inside a line (``_MD_LINE_START`` below)
_MD_PLAIN = re.compile(
    "[\n !\"#$%'()+,\\-./0-9:;=>?@A-Z^a-z{}"
    "\u00a1-\u167f\u1681-\u1fff\u200b-\u2027\u202a-\u202e\u2030-\u205e\u2060-\u2fff\u3001-\U0010ffff]*"
)
#: a line that could open a block (heading, quote, list, setext underline, indented code): the
#: first line starting with one of these, or a later one (a search for a newline, which the
#: regex engine scans for quickly, unlike ``(?:^|\n)``)
_MD_LINE_OPENERS = frozenset("#>+-=0123456789 ")
_MD_LINE_START = re.compile(r"\n[#>+\-=0-9 ]")
_MD_PARAGRAPHS = re.compile(r"\n\n+")

if TYPE_CHECKING:
    from loomtui.formats.html.render import EntryRenderer
    from loomtui.session.entries import Entry

_REDACTED = '<details class="thinking"><summary>thinking (redacted)</summary></details>'
_EMPTY = '<div class="note r-muted">(empty)</div>'
_NO_RESULT = '<div class="note r-muted">no result in this session</div>'
#: a value ``escape`` leaves as it is (most ids)
_PLAIN_ID = re.compile(r"[\w.:-]*", re.ASCII)


def attr(value: str) -> str:
    """``escape(value)``, without its five replacements for an id made of word characters."""
    return value if _PLAIN_ID.fullmatch(value) else escape(value)


def message_html(r: EntryRenderer, e: Entry, full: dict[str, Any], from_line: bool) -> str | None:
    """The body HTML of a user message with text content or of an assistant turn of text,
    thinking and tool calls (what the general path writes for it, but for plain text read from
    the entry's line: see ``_text_html``); None for anything else."""
    msg = full.get("message")
    if not isinstance(msg, dict) or "agentSource" in full:
        return None
    role = msg.get("role")
    content = msg.get("content")
    if role == "user":
        return _text_html(r, content, e.id if from_line else None, -1) if isinstance(content, str) else None
    if role != "assistant" or not isinstance(content, list) or msg.get("errorMessage"):
        return None
    return _assistant_html(r, e.id, content, from_line)


def _assistant_html(r: EntryRenderer, eid: str, content: list[Any], from_line: bool) -> str | None:
    """An assistant turn's content: runs of text, thinking, tool calls (None: another block)."""
    out: list[str] = []
    run: list[str] = []
    start = 0  # where the run of text blocks starts in the content
    fill: str | None = eid if from_line else None  # None once a text in the run is not a string
    k = 0  # thinking blocks so far: the page finds the k-th one in the entry's line
    for i, block in enumerate(content):
        if not isinstance(block, dict):
            return None
        t = block.get("type")
        if t == "text":
            if not run:
                start, fill = i, eid if from_line else None
            text = block.get("text")
            if not isinstance(text, str):
                fill = None
            run.append(str(text or ""))
            continue
        if run:
            out.append(_text_html(r, B.TEXT_BLOCK_SEP.join(run), fill, start))
            run.clear()
        if t == "thinking":
            out.append(_thinking_html(eid, k, block))
            k += 1
        elif t == "toolCall":
            html = _tool_call_html(r, block)
            if html is None:
                return None
            out.append(html)
        else:
            return None
    if run:
        out.append(_text_html(r, B.TEXT_BLOCK_SEP.join(run), fill, start))
    return "".join(out) if out else None  # no content at all: the general path's note


def _text_html(r: EntryRenderer, text: str, eid: str | None, k: int) -> str:
    """``r.markdown(text)``; but a plain text (``plain_markdown``) the page can read from the
    entry's line (``eid``: the entry, ``k``: -1 for a string content, else the index of the
    first of the text blocks joined) is an empty ``div.md`` the page fills in (page.js
    ``plainParagraphs``): the record does not hold the text twice."""
    if not text.strip():
        return _EMPTY
    if eid is not None and len(text) <= MARKDOWN_LIMIT and plain_markdown(text) is not None:
        return f'<div class="md" data-md="{attr(eid)}" data-k="{k}"></div>'
    return r.markdown(text)


def _thinking_html(eid: str, k: int, block: dict[str, Any]) -> str:
    """As ``EntryRenderer._Thinking``: the text is filled in by the page from the line when it
    is a string there."""
    if block.get("redacted"):
        return _REDACTED
    value = block.get("thinking")
    text = str(value or "")
    if isinstance(value, str):
        body = f'<div class="think" data-think="{attr(eid)}" data-k="{k}"></div>'
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
        lines = _output_lines(msg)
        if lines is not None:  # the page fills the output in from the result's line
            kind = "error" if msg.get("isError") else "output"
            pre = f'<pre class="plain {kind}" data-out="{attr(found.id)}"></pre>'
            result = _result_html(found.id, pre, lines)
        else:
            res = B.result_of(found, msg)
            if len(res.body) != 1:  # images or a diff beside the output
                return None
            out = res.body[0]
            assert isinstance(out, B.Plain)  # result_of ends with the output
            if plain_texts(full):
                pre = f'<pre class="plain {out.kind}" data-out="{attr(found.id)}"></pre>'
            else:
                pre = f'<pre class="plain {escape(out.kind)}">{escape(out.text)}</pre>'
            result = _result_html(found.id, pre, out.text.count("\n") + 1)
        if msg.get("isError"):
            err = " err"
    label, args_html = _call_html(r, name, args)
    return (
        f'<div class="tool{err}"><div class="th"><span>{label}</span><span class="sp"></span>'
        f'<span class="muted">{attr(str(call_id))}</span></div><div class="tb">{args_html}{result}</div></div>'
    )


def _call_html(r: EntryRenderer, name: Any, args: Any) -> tuple[str, str]:
    """A call's one-line text (escaped) and its arguments' HTML, made once per distinct tool
    name and arguments (a session reads and lists the same paths again and again)."""
    try:
        key: bytes | None = orjson.dumps([name, args])
    except TypeError:  # a value orjson cannot write: made each time
        key = None
    got = r.call_memo.get(key) if key is not None else None
    if got is None:
        shown, shown_args = r.manager.tool_call_view(name, args)  # another agent's tool as pi's
        label = format_tool_call(shown, shown_args, r.home) or (str(name) if name is not None else "") or "tool"
        _summary, arg_blocks = B.call_view(r.manager, name, args)
        got = (escape(label), "".join([r.block(a) for a in arg_blocks]))
        if key is not None:
            if len(r.call_memo) >= CALL_MEMO:
                r.call_memo.clear()
            r.call_memo[key] = got
    return got


def _output_lines(msg: dict[str, Any]) -> int | None:
    """The lines of a tool result's output (``blocks.result_of``: its text blocks joined with
    newlines, "(no output)" when that is empty) when the result is that output alone and every
    text is a string (``plain_texts``: the page rebuilds it); else None."""
    details = msg.get("details")
    if isinstance(details, dict) and isinstance(details.get("diff"), str):
        return None
    content = msg.get("content")
    if isinstance(content, str):
        return content.count("\n") + 1
    if not isinstance(content, list):
        return None
    texts = 0
    lines = 1
    empty = True
    for b in content:
        if isinstance(b, dict):
            t = b.get("type")
            if t == "text":
                text = b.get("text")
                if not isinstance(text, str):
                    return None
                lines += text.count("\n") + (texts > 0)
                empty = empty and not text and not texts
                texts += 1
            elif t == "image":
                return None
    return 1 if empty else lines


def _result_html(rid: str, pre: str, lines: int) -> str:
    """As ``EntryRenderer._ToolResult`` with one ``Plain`` output (``pre``, of ``lines``)."""
    entry = f' data-entry="{attr(rid)}"' if rid else ""
    return f'<div class="tool-result"{entry}>{three_state(pre, lines)}</div>'


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
    return all(not (isinstance(b, dict) and b.get("type") == "text") or isinstance(b.get("text"), str) for b in content)


def plain_markdown(text: str) -> str | None:
    """What markdown-it renders for a text without Markdown syntax (paragraphs split at blank
    lines, ``"`` and ``>`` escaped), without parsing it; None for any other text."""
    if (
        " \n" in text
        or text.endswith(" ")
        or (text and text[0] in _MD_LINE_OPENERS)
        or _MD_PLAIN.fullmatch(text) is None
        or _MD_LINE_START.search(text)
    ):
        return None
    text = text.strip("\n").replace('"', "&quot;").replace(">", "&gt;")
    if not text:
        return ""
    return "".join([f"<p>{p}</p>\n" for p in _MD_PARAGRAPHS.split(text)])
