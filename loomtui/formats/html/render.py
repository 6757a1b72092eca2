"""Entries as HTML for the export: the typed blocks of ``view.blocks`` (the same ones the
detail pane draws), written as HTML at export time.

Markdown goes through markdown-it-py with raw HTML off (any ``<script>`` in a message comes out
as text) and code through Pygments; every other string is escaped here. Tool output is
wrapped for the page's three states (collapsed / preview / full).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC
from html import escape
from typing import Any

import orjson

from loomtui.formats.html.branch_file import WORDS as BRANCH_WORDS
from loomtui.formats.html.fast import MARKDOWN_LIMIT, message_html, plain_markdown, plain_texts, three_state
from loomtui.formats.html.markdown import HIGHLIGHT_LIMIT, _markdown_renderer, highlight, safe_url  # noqa: F401
from loomtui.formats.html.stats import UNKNOWN_MODEL, ModelStats, Stats
from loomtui.session.entries import Entry
from loomtui.session.errors import WriteConflict
from loomtui.session.jsonvalue import deep_call
from loomtui.session.locations import home_dir
from loomtui.session.manager import SessionManager
from loomtui.session.source import EXPORT, Source
from loomtui.view import blocks as B
from loomtui.view.entry_time import entry_time
from loomtui.view.words import counted

#: images the page may show inline (as data: URIs)
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
#: the lines of the entries a renderer keeps parsed (an entry and the results of its calls are
#: asked for more than once) stay under this many bytes together, or are only the latest one
RECENT_BYTES = 4 << 20
#: the bytes a memo of JSON values is keyed by (equal values, equal keys)
_json_key = orjson.dumps
#: the most distinct (provider, model, usage) values a renderer keeps made
USAGE_MEMO = 4096
_B64 = re.compile(r"^[A-Za-z0-9+/=\s]*$")


def _diff_html(text: str) -> str:
    if len(text) > HIGHLIGHT_LIMIT:
        return f'<pre class="diff">{escape(text)}</pre>'
    from pygments import highlight as pyg
    from pygments.formatters import HtmlFormatter
    from pygments.lexers.diff import DiffLexer

    return f'<div class="diff">{pyg(text, DiffLexer(), HtmlFormatter(cssclass="hl"))}</div>'


_MESSAGE_KINDS = {
    "user": "user",
    "assistant": "assistant",
    "toolResult": "tool",
    "bashExecution": "tool",
    "system": "system",
}
_ENTRY_KINDS = {
    "compaction": "compaction",
    "branch_summary": "summary",
    "custom_message": "custom",
    "custom": "meta",
    "model_change": "meta",
    "thinking_level_change": "meta",
    "label": "meta",
    "session_info": "meta",
    "context_edit": "meta",
    "usage": "meta",
}
#: the kind of a custom message marked ``display: false``: hidden until the page's toggle (H)
HIDDEN_CUSTOM = "custom-hidden"


def _hidden_or(kind: str, full: Any) -> str:
    """``HIDDEN_CUSTOM`` for a custom message marked ``display: false`` (as pi's export hides
    exactly those), else ``kind``."""
    if kind == "custom" and isinstance(full, dict) and full.get("display") is False:
        return HIDDEN_CUSTOM
    return kind


def kind_of(e: Entry) -> str:
    if e.type == "message":
        return _MESSAGE_KINDS.get(e.role or "", "other")
    return _ENTRY_KINDS.get(e.type, "other")


class RawLoader:
    """``SessionManager.load`` from the lines the export already holds (no file read per entry;
    ``line_of`` gives an entry's line, or None); what the blocks ask of a manager: ``index``
    and ``load``."""

    def __init__(self, manager: SessionManager, line_of: Callable[[Entry], bytes | None]) -> None:
        self.manager = manager
        self.index = manager.index
        self.source = manager.source  # asked once per entry: not through ``__getattr__``
        self.line_of = line_of
        self._recent: dict[int, Any] = {}
        #: the bytes of the lines behind ``_recent`` (kept under ``RECENT_BYTES``)
        self._recent_bytes = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.manager, name)  # everything else (the source, the header…) as it is

    def load(self, e: Entry) -> Any:
        return self.load_line(e)[0]

    def load_line(self, e: Entry, line: bytes | None = None) -> tuple[Any, bool]:
        """The entry, and whether it was read from its line (which the page has too); ``line``
        is that line when the caller holds it already (else ``line_of`` finds it)."""
        hit = self._recent.get(id(e))
        if hit is not None:
            return hit
        raw = self.line_of(e) if line is None else line
        obj: Any = None
        if raw is not None and e.data is None:
            try:
                obj = orjson.loads(raw)
            except orjson.JSONDecodeError:
                obj = None
        if isinstance(obj, dict) and obj.get("id") != e.id:  # the file changed since it was read
            path = self.manager.path or ""
            raise WriteConflict(
                f"{path} changed since it was read (line {e.line} no longer holds entry {e.id}); "
                "reopen it; nothing was written"
            )
        got = (obj, True) if isinstance(obj, dict) else (self.manager.load(e), False)
        size = len(raw) if raw is not None else 0
        if len(self._recent) > 64 or self._recent_bytes + size > RECENT_BYTES:
            self._recent.clear()  # an image-heavy session: only the entries of one render stay
            self._recent_bytes = 0
        self._recent[id(e)] = got
        self._recent_bytes += size
        return got


class EntryRenderer:
    """Turns entries into HTML records (one renderer per export; markdown-it loaded once)."""

    def __init__(
        self,
        manager: SessionManager,
        tool_calls: Any,
        *,
        no_system_context: bool = False,
        line_of: Callable[[Entry], bytes | None] | None = None,
    ) -> None:
        self.manager: Any = RawLoader(manager, line_of or _no_line)
        self.tool_calls = tool_calls
        self.no_system_context = no_system_context
        self._md: Any = None  # markdown-it, loaded on the first text that needs it
        #: the images of the entry being rendered, in the order its Image blocks come: (the id of
        #: the entry whose line the page reads it from or None, index in its content, data)
        self._images: list[list[tuple[str | None, int, Any]]] = []
        #: the tool result entry whose output the page fills in (see ``_ToolResult``)
        self._output_from: str | None = None
        self._thinking: tuple[str, list[Any], list[int]] = ("", [], [0])
        #: the method writing each block type (``_Title`` for ``Title``…)
        self._by_type: dict[type, Any] = {}
        #: the commonest messages skip the blocks (``html/fast.py``); not for a source that
        #: writes its own detail
        self._fast = manager.source.describe is None
        #: the home directory tool calls shorten paths with (as ``format_tool_call`` reads it)
        self.home = home_dir()
        #: a call's text and arguments' HTML by its JSON (``html/fast._call_html``)
        self.call_memo: dict[bytes, tuple[str, str]] = {}
        #: ``_model_usage`` by its JSON inputs (``USAGE_MEMO`` at most)
        self._usage_memo: dict[bytes, tuple[Any, str | None, B.Usage | None, str]] = {}

    def render(self, e: Entry, stats: Stats, line: bytes | None = None) -> tuple[str | None, str, list[str | None]]:
        """The entry's HTML body, its kind and its header texts (see ``_render``); ``line`` is
        the entry's line in the file when the caller holds it."""
        try:
            return self._render(e, stats, line)
        except RecursionError:  # a value nested thousands deep: again, with a deep stack
            return deep_call(self._render, e, stats, line)  # type: ignore[no-any-return]

    def _render(self, e: Entry, stats: Stats, line: bytes | None = None) -> tuple[str | None, str, list[str | None]]:
        """The entry's HTML body, its kind (user, assistant, tool, compaction, summary, meta…) and
        its header texts (title, time, model, usage), which the page writes with textContent
        (the time is null where the page reads it from the entry's line).
        The body is None for a tool result shown with its call (an ancestor): the page hides
        that entry."""
        kind = kind_of(e)
        left_out = self._left_out(e)
        if left_out is not None:
            return "", kind, [left_out, _time(e.timestamp), "", ""]
        if e.type == "message" and e.role == "toolResult" and self._caller_above(e):
            # shown with its call (in the assistant turn above); the page hides this stub
            return None, kind, ["tool result (shown with its call)", _line_time(e, line), "", ""]
        # the entry's own line, parsed once: the blocks load it from the renderer's cache
        full, from_line = self.manager.load_line(e, line)
        key, model, usage, usage_text = self._model_usage(full)
        if e.type == "message" and e.role == "assistant":
            if key is not None:
                stats.count(key, model, usage)
            else:
                stats.add(model, usage)
        when = self._when(e, full, from_line)
        fast = self._fast and isinstance(full, dict) and full.get("type") == "message"
        html = message_html(self, e, full, from_line) if fast else None
        if html is not None:  # the commonest messages, written without the blocks in between
            return html, kind, [full["message"]["role"], when, model or "", usage_text]
        title, html = self._blocks_html(e, full, from_line)
        kind = _hidden_or(kind, full)
        stats.hidden += kind == HIDDEN_CUSTOM
        return html, kind, [title or self._kind_title(full) or kind, when, model or "", usage_text]

    def _kind_title(self, full: Any) -> str | None:
        """The head of an entry the source describes itself (an OCP run's run, node or attempt),
        in the source's word for it as its row says it (``[attempt]``), not pi's entry type."""
        if self.manager.source.describe is None or not isinstance(full, dict):
            return None
        what = full.get("customType")
        return f"[{what}]" if isinstance(what, str) and what else None

    def _left_out(self, e: Entry) -> str | None:
        """The title of an entry whose text ``--no-system-context`` leaves out, else None."""
        if not self.no_system_context:
            return None
        if e.type == "custom_message" and e.aux == "system":
            return "system context (left out)"
        if e.type == "message" and e.role == "system":
            return "system prompt (left out)"
        return None

    def _when(self, e: Entry, full: Any, from_line: bool) -> str | None:
        """The entry's time for its header: a time written as it stands in the line is read by
        the page there (null here); a loom's entry timestamps only keep its order (none)."""
        if not self.manager.source.keeps_times:
            # what the source knows of the entry's time (an OCP run's start), else none
            return _time(entry_time(self.manager, e, full if isinstance(full, dict) else {})) or ""
        ts = full.get("timestamp") if isinstance(full, dict) else e.timestamp
        return None if from_line and isinstance(ts, str) else _time(ts)

    def _blocks_html(self, e: Entry, full: Any, from_line: bool) -> tuple[str, str]:
        """The entry's title and body HTML from its blocks (the general path)."""
        # the page's entry header needs only the time, model and usage: not the full Header
        # (depth, siblings), which is the costly part of the blocks on a 100k-entry session
        body = B.entry_blocks(self.manager, e, self.tool_calls, header=False)
        title = ""
        if body and isinstance(body[0], B.Title):
            title, body = body[0].text, body[1:]
        images, thinking = _images_and_thinking(full, e.id if from_line else None)
        self._images = [images]
        # the entry's own thinking blocks, in order: the page fills their text in from the line
        self._thinking = (e.id, thinking, [0])
        return title, "".join([self.block(b) for b in body])

    def _model_usage(self, full: Any) -> tuple[Any, str | None, B.Usage | None, str]:
        """A key for the turn's model and usage (None if it has none), ``_model_usage`` and the
        usage's text, made once per distinct provider, model and usage (a session repeats a
        few models, and often the same figures)."""
        msg = full.get("message") if isinstance(full, dict) else None
        if not isinstance(msg, dict) or msg.get("role") != "assistant":
            return None, None, None, ""
        try:
            key = _json_key([msg.get("provider"), msg.get("model"), msg.get("usage")])
        except TypeError:  # a value orjson cannot write (an integer over 64 bits)
            model, usage = _model_usage(full, self.manager.source.keeps_cache_write)
            return None, model, usage, usage.text if usage is not None else ""
        got = self._usage_memo.get(key)
        if got is None:
            if len(self._usage_memo) >= USAGE_MEMO:
                self._usage_memo.clear()
            model, usage = _model_usage(full, self.manager.source.keeps_cache_write)
            got = self._usage_memo[key] = (key, model, usage, usage.text if usage is not None else "")
        return got

    def _caller_above(self, e: Entry) -> bool:
        call_id = e.aux
        idx = self.manager.index
        cur = idx.parent_of(e)
        for _ in range(200):
            if cur is None:
                return False
            if cur.tool_calls and any(c[0] == call_id for c in cur.tool_calls):
                return True
            cur = idx.parent_of(cur)
        return False

    # blocks ------------------------------------------------------------------------------------
    def block(self, b: Any) -> str:
        fn = self._by_type.get(type(b))
        if fn is None:
            fn = self._by_type[type(b)] = getattr(self, "_" + type(b).__name__, _nothing)
        return fn(b)  # type: ignore[no-any-return]

    def _Title(self, b: B.Title) -> str:
        return f'<div class="title r-{escape(b.role)}">{escape(b.text)}</div>'

    def _Note(self, b: B.Note) -> str:
        bold = " bold" if b.bold else ""
        return f'<div class="note r-{escape(b.role)}{bold}">{escape(b.text)}</div>'

    def markdown(self, text: str) -> str:
        if len(text) > MARKDOWN_LIMIT:
            return f'<pre class="plain">{escape(text)}</pre>'
        plain = plain_markdown(text)
        if plain is None:
            if self._md is None:
                self._md = _markdown_renderer()
            plain = self._md.render(text)
        return f'<div class="md">{plain}</div>'

    def _Markdown(self, b: B.Markdown) -> str:
        return self.markdown(b.text)

    def _Plain(self, b: B.Plain) -> str:
        if b.kind in ("output", "error") and self._output_from is not None:
            pre = f'<pre class="plain {b.kind}" data-out="{escape(self._output_from)}"></pre>'
        else:
            pre = f'<pre class="plain {escape(b.kind)}">{escape(b.text)}</pre>'
        if b.kind in ("output", "error"):
            return three_state(pre, b.text.count("\n") + 1)
        return pre

    def _Thinking(self, b: B.Thinking) -> str:
        """Plain text, as pi's page shows thinking; collapsed. The entry's own thinking is
        filled in by the page from the entry's line (the record does not hold it twice)."""
        eid, texts, counter = self._thinking
        k = counter[0]
        counter[0] += 1
        if b.redacted:
            return '<details class="thinking"><summary>thinking (redacted)</summary></details>'
        if k < len(texts) and texts[k] == b.text:
            body = f'<div class="think" data-think="{escape(eid)}" data-k="{k}"></div>'
        else:
            body = f'<div class="think">{escape(b.text)}</div>'
        return f'<details class="thinking"><summary>thinking ({len(b.text):,} characters)</summary>{body}</details>'

    def _Image(self, b: B.Image) -> str:
        """An image the page shows from its base64 data: filled in by the page from the entry's
        line (``data-img``: the entry, ``data-i``: the index in its content), so the page holds
        the data once; inline only when the page has no such line."""
        queue = self._images[-1] if self._images else []
        eid, i, data = queue.pop(0) if queue else (None, 0, None)
        if isinstance(data, str) and b.mime in IMAGE_TYPES and _B64.match(data):
            alt = escape(b.label)
            if eid is not None:
                return f'<img class="inline" alt="{alt}" data-img="{escape(eid)}" data-i="{i}">'
            return f'<img class="inline" alt="{alt}" src="data:{b.mime};base64,{"".join(data.split())}">'
        return f'<div class="note r-muted">{escape(b.label)}</div>'

    def _Diff(self, b: B.Diff) -> str:
        return three_state(_diff_html(b.text), b.text.count("\n") + 1, "diff")

    def _Files(self, b: B.Files) -> str:
        items = "".join(f"<li>{escape(p)}</li>" for p in b.paths)
        return f'<div class="files"><div class="title">{escape(b.title)}</div><ul>{items}</ul></div>'

    def _ToolCall(self, b: B.ToolCall) -> str:
        err = " err" if b.result is not None and b.result.is_error else ""
        head = (
            f'<div class="th"><span>{escape(b.summary or (b.name or "tool"))}</span><span class="sp"></span>'
            f'<span class="muted">{escape(str(b.call_id))}</span></div>'
        )
        own = self._thinking
        self._thinking = ("", [], [0])
        body = [self.block(t) for t in b.thinking]
        self._thinking = own
        body += [self.block(a) for a in b.args]
        if not b.found:
            body.append('<div class="note r-muted">the call is not in this session</div>')
        if b.result is None:
            body.append('<div class="note r-muted">no result in this session</div>')
        else:
            body.append(self._ToolResult(b.result))
        return f'<div class="tool{err}">{head}<div class="tb">{"".join(body)}</div></div>'

    def _ToolResult(self, b: B.ToolResult) -> str:
        if b.malformed:
            return '<div class="note r-error">the result entry is malformed</div>'
        found = self.manager.index.by_id.get(b.entry_id) if b.entry_id else None
        full, from_line = self.manager.load_line(found) if found is not None else (None, False)
        self._images.append(_image_data(full, found.id if found is not None and from_line else None))
        # the output's text is in the result's own line, which the page has anyway: the page
        # fills it in (textContent) instead of the record holding it twice
        self._output_from = found.id if found is not None and plain_texts(full) else None
        try:
            inner = "".join(self.block(x) for x in b.body)
        finally:
            self._images.pop()
            self._output_from = None
        rid = f' data-entry="{escape(b.entry_id)}"' if b.entry_id else ""
        return f'<div class="tool-result"{rid}>{inner}</div>'

    def _Compaction(self, b: B.Compaction) -> str:
        head = "compaction" + (f": {b.tokens_before:,} tokens before" if b.tokens_before is not None else "")
        facts = [f"first kept entry {b.first_kept_id}"]
        if b.first_kept_text:
            facts.append(b.first_kept_text)
        if b.by_extension:
            facts.append("made by an extension")
        facts += [f"{k} {v}" for k, v in b.facts]
        return (
            f'<div class="title r-borderAccent">{escape(head)}</div>'
            f'<div class="note r-muted">{escape("  ".join(str(f) for f in facts))}</div>'
            + self.markdown(b.summary)
            + "".join(self.block(f) for f in b.files)
        )

    def _Summary(self, b: B.Summary) -> str:
        head = f"branch summary (from {b.from_id if b.from_id is not None else '—'})"
        ext = '<div class="note r-muted">made by an extension</div>' if b.by_extension else ""
        return (
            f'<div class="title r-warning">{escape(head)}</div>{ext}'
            + self.markdown(b.summary)
            + "".join(self.block(f) for f in b.files)
        )

    def _Custom(self, b: B.Custom) -> str:
        head = f"custom entry: {b.custom_type} (extension state, not in context)"
        body = B.pretty_json(b.data) if b.has_data else "(no data)"
        return f'<div class="title r-dim">{escape(head)}</div><pre class="plain json">{escape(body)}</pre>'

    def _Usage(self, b: B.Usage) -> str:
        return f'<div class="note r-muted">{escape(b.text)}</div>'

    def _Header(self, b: B.Header) -> str:
        return ""


def _no_line(_e: Entry) -> None:
    return None


def _nothing(_b: Any) -> str:
    return ""


def _model_usage(full: Any, keeps_cache_write: bool = True) -> tuple[str | None, B.Usage | None]:
    """An assistant turn's model (``provider/model``) and usage, as the blocks' header names them
    (``view/blocks.header_of``): without a cache-write figure where the source keeps none
    (``Source.keeps_cache_write``), never a 0."""
    msg = full.get("message") if isinstance(full, dict) else None
    if not isinstance(msg, dict) or msg.get("role") != "assistant":
        return None, None
    name, provider = msg.get("model"), msg.get("provider")
    model = (f"{provider}/{name}" if provider else str(name)) if name else None
    usage = B.usage_of(msg.get("usage"))
    if usage is not None and not keeps_cache_write:
        usage = replace(usage, cache_write=None)
    return model, usage


def _images_and_thinking(full: Any, eid: str | None) -> tuple[list[tuple[str | None, int, Any]], list[Any]]:
    """``_image_data`` of the entry, and what the page reads for each of its thinking blocks, in
    order: its ``thinking`` when that is a string (``None`` otherwise: the export then writes
    the text itself); one walk over the content."""
    if not isinstance(full, dict):
        return [], []
    msg = full.get("message")
    in_message = isinstance(msg, dict)
    content = msg.get("content") if isinstance(msg, dict) else full.get("content")
    if not isinstance(content, list):
        return [], []
    images: list[tuple[str | None, int, Any]] = []
    thinking: list[Any] = []
    at = eid if in_message else None
    for i, b in enumerate(content):
        if isinstance(b, dict):
            t = b.get("type")
            if t == "image":
                images.append((at, i, b.get("data")))
            elif t == "thinking" and in_message:
                text = b.get("thinking")
                thinking.append(text if isinstance(text, str) and not b.get("redacted") else None)
    return images, thinking


def _image_data(full: Any, eid: str | None) -> list[tuple[str | None, int, Any]]:
    """Every image block of an entry's content, in order (the blocks carry only the image's
    type and size): (``eid`` where the page finds the block at ``message.content[index]`` of
    that entry's line, else None; the index; the ``data``)."""
    if not isinstance(full, dict):
        return []
    in_message = isinstance(full.get("message"), dict)
    msg = full["message"] if in_message else full
    content = msg.get("content")
    if not isinstance(content, list):
        return []
    at = eid if in_message else None
    return [(at, i, b.get("data")) for i, b in enumerate(content) if isinstance(b, dict) and b.get("type") == "image"]


def _line_time(e: Entry, line: bytes | None) -> str | None:
    """An entry's time for its header without parsing its line: null when its line (which the
    page reads it from) holds it as a string, as for the entries rendered from their lines."""
    ts = e.timestamp
    return None if line is not None and e.data is None and isinstance(ts, str) else _time(ts)


def _time(ts: Any) -> str:
    if ts is None:
        return ""
    if isinstance(ts, (int, float)) and not isinstance(ts, bool) and math.isfinite(ts):
        from datetime import datetime

        try:
            return datetime.fromtimestamp(ts / 1000, tz=UTC).isoformat(timespec="seconds")
        except (OverflowError, OSError, ValueError):
            return str(ts)
    return str(ts)


def _figures(m: ModelStats, tokens: bool, cost: bool, write: bool = True) -> str:
    """One row's cells of the header's table: turns, the tokens and the cost the file keeps
    (``write``: its usage has a cache-write figure)."""
    cells = [m.turns]
    if tokens:
        cells += [m.input, m.output, m.cache_read, m.cache_write] if write else [m.input, m.output, m.cache_read]
    out = "".join(f"<td class=n>{n:,}</td>" for n in cells)
    return out + (f"<td class=n>${m.cost:,.4f}</td>" if cost else "")


def _facts(
    manager: SessionManager, entries: int, no_system_context: bool, tokens: bool, cost: bool, replies: bool
) -> list[str]:
    """The header's line of facts: cwd, start, counts, the format, the figures it lacks."""
    h = manager.header if isinstance(manager.header, dict) else {}
    facts = []
    if h.get("cwd"):  # the map's is the directory it reads (``Source.cwd_word``)
        facts.append(f"{manager.source.cwd_word} {h.get('cwd')}")
    if h.get("timestamp"):
        facts.append(f"started {_time(h.get('timestamp'))}")
    facts.append(counted(entries, "entry", "entries"))
    facts.append(manager.source.display_name)
    if not replies:
        pass  # no replies to count (an OCP run: its totals are the run's own row)
    elif not tokens:
        facts.append("tokens and cost not in the file")
    elif not cost:
        facts.append("cost not in the file")
    if no_system_context:
        facts.append("system context left out")
    elif manager.source_format == "pi" and not any(e.role == "system" for e in manager.index.entries):
        # pi 1.6.0 shows its running agent's current prompt and tools instead; exported from the
        # file (pi's --export as well) there is none to show: the page says so (docs/pi-releases.md)
        facts.append("no system prompt in the file")
    return facts


def _hidden_are(source: Source) -> str:
    """The hidden-messages toggle's tooltip: what the page hides, in the source's words."""
    words = source.entry_words
    if words is None:  # pi and omp: their own custom messages
        return "Show custom messages marked as hidden in the terminal (H)"
    return f"Show the {words.hidden} (H)" if words.hidden else "Show hidden entries (H)"


def header_html(
    manager: SessionManager, title: Any, stats: Stats, entries: int, no_system_context: bool, download: str | None
) -> str:
    """The page header: name, cwd, when, counts, tokens and cost per model, downloads (``download_words``)."""
    source = manager.source
    models = stats.models
    # a figure the format does not keep is not a 0 (as `info` says it): no token columns where
    # the file has no counts, no cost column where it has no price
    tokens = source.keeps_usage and any(m.input or m.output or m.cache_read or m.cache_write for m in models.values())
    cost = tokens and source.counts_cost
    facts = _facts(manager, entries, no_system_context, tokens, cost, bool(models))
    out = [f"<h1>{escape(str(title))}</h1>", f'<div class="facts">{escape("  ·  ".join(facts))}</div>']
    if models and (tokens or set(models) != {UNKNOWN_MODEL}):
        write = source.keeps_cache_write  # Codex records no cache write: no column of 0s
        heads = ["model", "turns"]
        if tokens:
            heads += ["input", "output", "cache read", "cache write"] if write else ["input", "output", "cache read"]
        heads += ["cost"] if cost else []
        rows = ["<tr>" + "".join(f"<th>{h}</th>" for h in heads) + "</tr>"]
        total = ModelStats()
        for name, m in sorted(models.items(), key=lambda kv: -kv[1].turns):
            rows.append(f"<tr><td>{escape(name)}</td>{_figures(m, tokens, cost, write)}</tr>")
            total.turns += m.turns
            total.input += m.input
            total.output += m.output
            total.cache_read += m.cache_read
            total.cache_write += m.cache_write
            total.cost += m.cost
        if len(models) > 1:
            rows.append(f"<tr><th>total</th>{_figures(total, tokens, cost, write)}</tr>")
        out.append(f'<table class="models">{"".join(rows)}</table>')
    actions: list[str] = []
    if stats.hidden:  # the toggle only where it shows something
        actions.append(
            f'<button class="btn" data-toggle="hidden" aria-pressed="false" title="{escape(_hidden_are(source))}">'
            "show hidden messages (H)</button>"
        )
    if source.offers(EXPORT):  # what `export-branch` (--as pi) writes: not for a run, which has no branch
        actions.insert(0, f'<button class="btn" data-download="branch">{escape(BRANCH_WORDS)}</button>')
    if download is not None:
        actions.insert(0, f'<button class="btn" data-download="file">{escape(download)}</button>')
    out.append(f'<div class="actions">{"".join(actions)}</div>')
    return "".join(out)
