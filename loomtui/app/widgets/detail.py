"""The detail pane: the selected entry in full, one layout per kind.

User and assistant text render as Markdown; thinking blocks are collapsible; each tool call
shows its arguments next to its result (found by ``toolCallId``); images show as
``[image mime, size]``. A header line says what the entry is and where it sits.

Nothing here may freeze the UI on a big entry: text beyond a few thousand characters is cut
with a "show all" button (``x`` expands every cut block); a very long text expands into a
``LineViewer``, which draws only the visible lines.
"""

from __future__ import annotations

import math
import re
from typing import Any

import orjson
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Button, Collapsible, Markdown, Static

from loomtui.app import keymap
from loomtui.session.entries import Entry
from loomtui.session.manager import SessionManager
from loomtui.view.model import TreeModel
from loomtui.view.text import display_text, format_tool_call

#: longest text rendered as Markdown (beyond: plain text with "show all")
MARKDOWN_LIMIT = 12_000
#: a cut block shows this many lines / characters
HEAD_LINES = 40
HEAD_CHARS = 4_000
#: expanded text up to this size renders as a Static; beyond it, a virtualised TextArea
STATIC_LIMIT = 60_000

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_CONTROL = {c: chr(0x2400 + c) for c in range(32) if c not in (9, 10)} | {0x7F: "\u2421", 13: None}


def clean(text: str) -> str:
    """Text safe to draw: ANSI escapes removed, other control characters made visible."""
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if text.isprintable():
        return text
    return text.translate(_CONTROL)


def human_size(n: float) -> str:
    if n < 1024:
        return f"{int(n)} B"
    for unit in ("KB", "MB", "GB"):
        n /= 1024
        if n < 1024 or unit == "GB":
            return f"{n:.1f} {unit}"
    return f"{n:.1f} GB"


def image_text(block: dict[str, Any]) -> str:
    mime = block.get("mimeType") or block.get("mime_type") or "image"
    data = block.get("data")
    if isinstance(data, str):
        if data.startswith("blob:"):
            return f"[image {mime}, {data[:24]}…]"
        size = len(data) * 3 / 4 - data[-2:].count("=")
        return f"[image {mime}, {human_size(size)}]"
    return f"[image {mime}]"


def pretty_json(value: Any) -> str:
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return repr(value)


def text_of(content: Any, sep: str = "\n") -> str:
    """All text blocks of a content value (a string, or a list of blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return sep.join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
                        and isinstance(b.get("text"), str))
    return ""


def entry_full_text(entry: dict[str, Any]) -> str:
    """What Ctrl+Y copies: pi's copy action (command for bash, summary for summaries)."""
    t = entry.get("type")
    if t == "message":
        msg = entry.get("message") or {}
        role = msg.get("role")
        if role == "bashExecution":
            return str(msg.get("command") or "")
        if role == "assistant":
            parts = []
            for b in msg.get("content") or []:
                if isinstance(b, dict) and b.get("type") == "text":
                    parts.append(b.get("text") or "")
            if parts:
                return "\n".join(parts)
            calls = [b for b in msg.get("content") or [] if isinstance(b, dict) and b.get("type") == "toolCall"]
            return "\n".join(pretty_json(c.get("arguments")) for c in calls)
        return text_of(msg.get("content"))
    if t in ("compaction", "branch_summary"):
        return str(entry.get("summary") or "")
    if t == "custom_message":
        return text_of(entry.get("content"))
    if t == "label":
        return str(entry.get("label") or "")
    if t == "session_info":
        return str(entry.get("name") or "")
    if t == "model_change":
        return str(entry.get("modelId") or entry.get("model") or "")
    if t == "thinking_level_change":
        return str(entry.get("thinkingLevel") or "")
    if t == "custom":
        return pretty_json(entry.get("data"))
    return pretty_json(entry)


class LineViewer(ScrollView, can_focus=True):
    """A long text as a Line-API view: only the visible lines become strips (a 1 MB output
    costs one ``str.split``; Textual's TextArea re-wraps every line several times)."""

    DEFAULT_CSS = """
    LineViewer { height: 30; scrollbar-size: 1 1; background: $background; }
    LineViewer:focus { background-tint: $foreground 4%; }
    """

    def __init__(self, text: str, style: str = "") -> None:
        super().__init__()
        self.lines = text.split("\n")
        self._line_style = Style.parse(style) if style else Style()
        width = max((len(line) for line in self.lines), default=0)
        self.virtual_size = Size(width + 1, len(self.lines))

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        i = y + scroll_y
        width = self.scrollable_content_region.width
        if i >= len(self.lines):
            return Strip.blank(width)
        line = self.lines[i]
        chunk = line[scroll_x : scroll_x + width + 8]
        return Strip([Segment(chunk, self._line_style)]).crop(0, width).adjust_cell_length(width)


class LongText(Vertical):
    """Text that shows its head and a button to show all of it (cheap to mount at any size)."""

    DEFAULT_CSS = """
    LongText { height: auto; }
    LongText > .body { height: auto; }
    LongText > Button { margin: 0 0 0 0; min-width: 20; height: 1; border: none; }
    LongText > LineViewer { height: 30; }
    """

    def __init__(self, text: str, *, style: str = "", classes: str = "") -> None:
        super().__init__(classes=classes)
        self.full = text
        self.style_name = style
        self.expanded = False
        lines = text.count("\n") + 1
        head = text
        if len(head) > HEAD_CHARS:
            head = head[:HEAD_CHARS]
        if head.count("\n") >= HEAD_LINES:
            head = "\n".join(head.split("\n", HEAD_LINES)[:HEAD_LINES])
        self.head = head
        self.cut = len(head) < len(text)
        self.lines = lines

    def compose(self) -> ComposeResult:
        yield Static(Text(clean(self.head), style=self.style_name), classes="body")
        if self.cut:
            hidden = len(self.full) - len(self.head)
            yield Button(
                f"▼ show all ({self.lines:,} lines, {human_size(len(self.full.encode('utf-8', 'replace')))};"
                f" {hidden:,} more characters) [x]",
                classes="expand",
                compact=True,
            )

    @on(Button.Pressed, ".expand")
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.expand()

    def expand(self) -> None:
        if not self.cut or self.expanded:
            return
        self.expanded = True
        self.query(".expand").remove()
        body = self.query_one(".body", Static)
        if len(self.full) <= STATIC_LIMIT:
            body.update(Text(clean(self.full), style=self.style_name))
        else:
            body.remove()
            self.mount(LineViewer(clean(self.full), self.style_name))


class DetailPane(VerticalScroll, can_focus=True):
    """The selected entry in full; rebuilt when the selection changes."""

    BINDINGS = keymap.bindings("detail")

    DEFAULT_CSS = """
    DetailPane {
        padding: 0 1;
        background: $surface;
        scrollbar-size-vertical: 1;
    }
    DetailPane:focus { background-tint: $foreground 3%; }
    DetailPane > .header { color: $text-muted; height: auto; }
    DetailPane > .kind { text-style: bold; height: auto; margin-top: 1; }
    DetailPane .role-user { color: $accent; }
    DetailPane .role-assistant { color: $success; }
    DetailPane .error { color: $error; }
    DetailPane .muted { color: $text-muted; }
    DetailPane .section { height: auto; margin-top: 1; }
    DetailPane .tool { height: auto; border-left: outer $primary 50%; padding-left: 1; margin-top: 1; }
    DetailPane .tool-error { border-left: outer $error; }
    DetailPane .args { color: $text-muted; height: auto; }
    DetailPane Markdown { margin: 0; padding: 0; }
    DetailPane Collapsible { padding: 0; border-top: none; margin-top: 1; background: $surface; }
    DetailPane Collapsible > Contents { padding: 0 0 0 2; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entry_id: str | None = None
        self._results: dict[Any, Entry] = {}
        self._results_scanned = 0
        self._results_manager: SessionManager | None = None
        self._depth: dict[str, int] = {}

    # public --------------------------------------------------------------------------------
    def show(self, manager: SessionManager | None, model: TreeModel | None, entry: Entry | None,
             *, force: bool = False) -> None:
        """Show ``entry`` (None: an empty pane). Cheap when the entry did not change."""
        new_id = entry.id if entry is not None else None
        if new_id == self.entry_id and not force:
            return
        self.entry_id = new_id
        with self.app.batch_update():
            self.remove_children()
            if manager is None or entry is None:
                self.mount(Static("No entry selected.", classes="muted"))
                return
            try:
                widgets = list(self._build(manager, model, entry))
            except Exception as exc:  # a malformed entry: say so, never crash
                widgets = [Static(Text(f"Cannot show entry {entry.id}: {exc}"), classes="error")]
            self.mount_all(widgets)
            self.scroll_home(animate=False)

    def action_expand_all(self) -> None:
        for block in self.query(LongText):
            block.expand()

    # header ----------------------------------------------------------------------------------
    def _depth_of(self, manager: SessionManager, e: Entry) -> int:
        """Entries above ``e`` (memoised walk: chains are tens of thousands deep)."""
        cache = self._depth
        if self._results_manager is not manager:
            self._reset_cache(manager)
        chain: list[Entry] = []
        cur: Entry | None = e
        base = -1
        while cur is not None:
            d = cache.get(cur.id)
            if d is not None:
                base = d
                break
            chain.append(cur)
            cur = manager.index.parent_of(cur)
        for node in reversed(chain):
            base += 1
            cache[node.id] = base
        return cache[e.id]

    def _reset_cache(self, manager: SessionManager) -> None:
        self._results_manager = manager
        self._results = {}
        self._results_scanned = 0
        self._depth = {}

    def _header(self, manager: SessionManager, e: Entry, full: dict[str, Any]) -> Text:
        idx = manager.index
        t = Text(no_wrap=False)
        t.append(f"id {e.id}", style="bold")
        t.append(f"  parent {e.parent_id or '—'}")
        ts = full.get("timestamp")
        if ts is not None:
            t.append(f"  {ts}")
        msg = full.get("message") if isinstance(full.get("message"), dict) else None
        if msg and msg.get("role") == "assistant":
            model = msg.get("model")
            provider = msg.get("provider")
            if model:
                t.append(f"\nmodel {provider + '/' if provider else ''}{model}")
            usage = msg.get("usage")
            if isinstance(usage, dict):
                t.append("  " + usage_text(usage))
            stop = msg.get("stopReason")
            if stop:
                t.append(f"  stop {stop}")
        depth = self._depth_of(manager, e)
        parent = idx.parent_of(e)
        siblings = idx.children(parent.id) if parent is not None else idx.roots
        try:
            pos = next(i for i, s in enumerate(siblings) if s is e) + 1
        except StopIteration:
            pos = 0
        kids = len(idx.children(e.id))
        t.append(f"\ndepth {depth}  sibling {pos}/{len(siblings)}  children {kids}  line {e.line}")
        label = idx.label_of(e.id)
        if label is not None:
            t.append("\n")
            t.append(f"[{label}]", style="bold")
            lts = idx.label_timestamp(e.id)
            if lts:
                t.append(f" labelled {lts}")
        return t

    # body ------------------------------------------------------------------------------------
    def _build(self, manager: SessionManager, model: TreeModel | None, e: Entry) -> list[Widget]:
        full = manager.load(e)
        if not isinstance(full, dict):
            full = {}
        out: list[Widget] = [Static(self._header(manager, e, full), classes="header")]
        t = full.get("type", e.type)
        builder = getattr(self, f"_build_{t}", None)
        if builder is None:
            out.append(Static(Text(f"{t or 'entry'}"), classes="kind"))
            out.append(LongText(pretty_json(full)))
            return out
        out.extend(builder(manager, model, e, full))
        return out

    def _kind(self, text: str, cls: str = "") -> Static:
        return Static(Text(text), classes=f"kind {cls}".strip())

    def _markdown(self, text: str) -> Widget:
        text = clean(text)
        if not text.strip():
            return Static(Text("(empty)"), classes="muted")
        if len(text) > MARKDOWN_LIMIT:
            return LongText(text)
        return Markdown(text)

    def _build_message(self, manager: SessionManager, model: TreeModel | None, e: Entry,
                       full: dict[str, Any]) -> list[Widget]:
        msg = full.get("message")
        if not isinstance(msg, dict):
            return [self._kind("message (no message object)", "error"), LongText(pretty_json(full))]
        role = msg.get("role")
        if role == "user":
            return [self._kind("user", "role-user"), *self._content(msg.get("content"))]
        if role == "assistant":
            return self._assistant(manager, msg)
        if role == "toolResult":
            return self._tool_result(manager, model, e, msg)
        if role == "bashExecution":
            return self._bash(msg)
        kind = f"{role or 'message'}"
        if msg.get("customType"):
            kind += f" [{msg.get('customType')}]"
        out: list[Widget] = [self._kind(kind)]
        content = msg.get("content")
        if content is not None:
            out.extend(self._content(content))
        extra = {k: v for k, v in msg.items() if k not in ("role", "content", "timestamp")}
        if extra:
            out.append(LongText(pretty_json(extra), classes="section"))
        return out

    def _content(self, content: Any) -> list[Widget]:
        """Text blocks as Markdown, images as ``[image mime, size]``."""
        if isinstance(content, str):
            return [self._markdown(content)]
        out: list[Widget] = []
        if not isinstance(content, list):
            return [Static(Text("(no content)"), classes="muted")] if content is None else [LongText(pretty_json(content))]
        text_run: list[str] = []

        def flush() -> None:
            if text_run:
                out.append(self._markdown("".join(text_run)))
                text_run.clear()

        for block in content:
            if not isinstance(block, dict):
                continue
            bt = block.get("type")
            if bt == "text":
                text_run.append(str(block.get("text") or ""))
            elif bt == "image":
                flush()
                out.append(Static(Text(image_text(block)), classes="muted"))
            else:
                flush()
                out.append(LongText(pretty_json(block)))
        flush()
        if not out:
            out.append(Static(Text("(no content)"), classes="muted"))
        return out

    def _assistant(self, manager: SessionManager, msg: dict[str, Any]) -> list[Widget]:
        out: list[Widget] = [self._kind("assistant", "role-assistant")]
        err = msg.get("errorMessage")
        if err:
            out.append(Static(Text(clean(f"error: {err}")), classes="error"))
        content = msg.get("content")
        if isinstance(content, str):
            out.append(self._markdown(content))
            return out
        if not isinstance(content, list):
            out.append(Static(Text("(no content)"), classes="muted"))
            return out
        text_run: list[str] = []

        def flush() -> None:
            if text_run:
                out.append(self._markdown("".join(text_run)))
                text_run.clear()

        for block in content:
            if not isinstance(block, dict):
                continue
            bt = block.get("type")
            if bt == "text":
                text_run.append(str(block.get("text") or ""))
            elif bt == "thinking":
                flush()
                thinking = block.get("thinking")
                if block.get("redacted"):
                    body: Widget = Static(Text("(redacted thinking)"), classes="muted")
                    title = "thinking (redacted)"
                else:
                    thinking = str(thinking or "")
                    body = LongText(thinking, style="italic")
                    title = f"thinking ({len(thinking):,} characters)"
                out.append(Collapsible(body, title=title, collapsed=True))
            elif bt == "toolCall":
                flush()
                out.append(self._tool_call(manager, block))
            elif bt == "image":
                flush()
                out.append(Static(Text(image_text(block)), classes="muted"))
            else:
                flush()
                out.append(LongText(pretty_json(block)))
        flush()
        if len(out) == 1 + (1 if err else 0):
            stop = msg.get("stopReason")
            out.append(Static(Text("(aborted)" if stop == "aborted" else "(no content)"), classes="muted"))
        return out

    def _result_for(self, manager: SessionManager, call_id: Any) -> Entry | None:
        if self._results_manager is not manager:
            self._reset_cache(manager)
        entries = manager.index.entries
        if self._results_scanned < len(entries):
            results = self._results
            for e in entries[self._results_scanned :]:
                if e.role == "toolResult" and e.type == "message" and e.aux is not None:
                    try:
                        results.setdefault(e.aux, e)
                    except TypeError:
                        pass
            self._results_scanned = len(entries)
        try:
            return self._results.get(call_id)
        except TypeError:
            return None

    def _args_widgets(self, name: Any, args: Any) -> list[Widget]:
        if isinstance(args, dict):
            if name == "bash" and isinstance(args.get("command"), str):
                rest = {k: v for k, v in args.items() if k != "command"}
                out: list[Widget] = [LongText("$ " + args["command"], style="bold")]
                if rest:
                    out.append(LongText(pretty_json(rest), classes="args"))
                return out
            if name in ("read", "write", "edit", "ls", "grep", "find"):
                path = args.get("path") or args.get("file_path")
                rest = {k: v for k, v in args.items() if k not in ("path", "file_path")}
                out = []
                if path:
                    out.append(Static(Text(f"path {path}", style="bold")))
                if name == "write" and isinstance(rest.get("content"), str):
                    content = rest.pop("content")
                    if rest:
                        out.append(LongText(pretty_json(rest), classes="args"))
                    out.append(LongText(content))
                    return out
                if name == "edit" and ("oldText" in rest or "old_string" in rest):
                    old = rest.pop("oldText", rest.pop("old_string", ""))
                    new = rest.pop("newText", rest.pop("new_string", ""))
                    diff = "\n".join(["- " + ln for ln in str(old).split("\n")] + ["+ " + ln for ln in str(new).split("\n")])
                    if rest:
                        out.append(LongText(pretty_json(rest), classes="args"))
                    out.append(LongText(diff))
                    return out
                if rest:
                    out.append(LongText(pretty_json(rest), classes="args"))
                return out
        return [LongText(pretty_json(args), classes="args")]

    def _result_widgets(self, manager: SessionManager, result: Entry | None) -> list[Widget]:
        if result is None:
            return [Static(Text("no result in this session (yet)"), classes="muted")]
        full = manager.load(result)
        msg = full.get("message") if isinstance(full, dict) else None
        if not isinstance(msg, dict):
            return [Static(Text("result entry is malformed"), classes="error")]
        return self._result_body(result, msg)

    def _result_body(self, result: Entry, msg: dict[str, Any]) -> list[Widget]:
        is_error = bool(msg.get("isError"))
        head = Text()
        head.append("result", style="bold")
        head.append(f"  (entry {result.id})")
        if is_error:
            head.append("  error", style="bold red")
        out: list[Widget] = [Static(head, classes="error" if is_error else "")]
        content = msg.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}] if isinstance(content, str) else []
        texts = []
        for b in blocks:
            if not isinstance(b, dict):
                continue
            if b.get("type") == "text":
                texts.append(str(b.get("text") or ""))
            elif b.get("type") == "image":
                out.append(Static(Text(image_text(b)), classes="muted"))
        text = "\n".join(texts)
        out.append(LongText(text if text else "(no output)", classes="error" if is_error else ""))
        details = msg.get("details")
        if isinstance(details, dict) and isinstance(details.get("diff"), str):
            out.append(Static(Text("diff", style="bold")))
            out.append(LongText(details["diff"]))
        return out

    def _tool_call(self, manager: SessionManager, block: dict[str, Any]) -> Widget:
        name = block.get("name")
        args = block.get("arguments")
        call_id = block.get("id")
        result = self._result_for(manager, call_id)
        title = Text()
        title.append(format_tool_call(name, args), style="bold")
        title.append(f"  call {call_id}", style="dim")
        children: list[Widget] = [Static(title)]
        children.extend(self._args_widgets(name, args))
        children.extend(self._result_widgets(manager, result))
        is_error = False
        if result is not None:
            full = manager.load(result)
            m = full.get("message") if isinstance(full, dict) else None
            is_error = bool(isinstance(m, dict) and m.get("isError"))
        return Vertical(*children, classes="tool tool-error" if is_error else "tool")

    def _tool_result(self, manager: SessionManager, model: TreeModel | None, e: Entry,
                     msg: dict[str, Any]) -> list[Widget]:
        call_id = msg.get("toolCallId")
        name = msg.get("toolName")
        out: list[Widget] = [self._kind(f"tool result: {name or 'tool'}")]
        call = self._find_call(manager, e, call_id)
        children: list[Widget] = []
        if call is not None:
            title = Text()
            title.append(format_tool_call(call.get("name"), call.get("arguments")), style="bold")
            title.append(f"  call {call_id}", style="dim")
            children.append(Static(title))
            children.extend(self._args_widgets(call.get("name"), call.get("arguments")))
        else:
            children.append(Static(Text(f"call {call_id} not found in this session"), classes="muted"))
        children.extend(self._result_body(e, msg))
        out.append(Vertical(*children, classes="tool tool-error" if msg.get("isError") else "tool"))
        return out

    def _find_call(self, manager: SessionManager, e: Entry, call_id: Any) -> dict[str, Any] | None:
        """The toolCall block answered by ``e``: usually a few entries up the chain."""
        idx = manager.index
        cur = idx.parent_of(e)
        steps = 0
        while cur is not None and steps < 200:
            if cur.tool_calls:
                for cid, _name, _args in cur.tool_calls:
                    if cid == call_id:
                        full = manager.load(cur)
                        for block in (full.get("message") or {}).get("content") or []:
                            if isinstance(block, dict) and block.get("type") == "toolCall" and block.get("id") == call_id:
                                return block
            cur = idx.parent_of(cur)
            steps += 1
        return None

    def _bash(self, msg: dict[str, Any]) -> list[Widget]:
        out: list[Widget] = [self._kind("bash (user ! command)")]
        out.append(LongText("$ " + str(msg.get("command") or ""), style="bold"))
        facts = []
        code = msg.get("exitCode")
        facts.append(f"exit code {code if code is not None else '—'}")
        if msg.get("cancelled"):
            facts.append("cancelled")
        if msg.get("truncated"):
            facts.append("output truncated")
        if msg.get("excludeFromContext"):
            facts.append("not sent to the model (!!)")
        if msg.get("fullOutputPath"):
            facts.append(f"full output: {msg.get('fullOutputPath')}")
        out.append(Static(Text("  ".join(facts)), classes="error" if code not in (0, None) else "muted"))
        output = msg.get("output")
        out.append(LongText(str(output) if output else "(no output)"))
        return out

    def _build_compaction(self, manager: SessionManager, model: TreeModel | None, e: Entry,
                          full: dict[str, Any]) -> list[Widget]:
        tokens = full.get("tokensBefore")
        head = "compaction"
        if isinstance(tokens, (int, float)) and not isinstance(tokens, bool) and math.isfinite(tokens):
            head += f": {int(tokens):,} tokens before"
        out: list[Widget] = [self._kind(head)]
        first = full.get("firstKeptEntryId")
        facts = [f"first kept entry {first}"]
        kept = manager.index.by_id.get(first) if isinstance(first, str) else None
        if kept is not None and model is not None:
            facts.append(display_text(kept, model.flat.tool_calls))
        if full.get("fromHook") or full.get("fromExtension"):
            facts.append("made by an extension")
        for k in ("tokensAfter", "method", "shortSummary"):
            if full.get(k) is not None:
                facts.append(f"{k} {full.get(k)}")
        out.append(Static(Text(clean("  ".join(str(f) for f in facts))), classes="muted"))
        out.append(self._markdown(str(full.get("summary") or "")))
        out.extend(self._files(full.get("details")))
        return out

    def _files(self, details: Any) -> list[Widget]:
        if not isinstance(details, dict):
            return [] if details is None else [LongText(pretty_json(details), classes="section")]
        out: list[Widget] = []
        for key, title in (("readFiles", "read files"), ("modifiedFiles", "modified files")):
            files = details.get(key)
            if isinstance(files, list) and files:
                out.append(Static(Text(f"{title}:\n" + "\n".join(f"  {f}" for f in files)), classes="section"))
        rest = {k: v for k, v in details.items() if k not in ("readFiles", "modifiedFiles")}
        if rest:
            out.append(LongText(pretty_json(rest), classes="section"))
        return out

    def _build_branch_summary(self, manager: SessionManager, model: TreeModel | None, e: Entry,
                              full: dict[str, Any]) -> list[Widget]:
        out: list[Widget] = [self._kind(f"branch summary (from {full.get('fromId', '—')})")]
        if full.get("fromHook") or full.get("fromExtension"):
            out.append(Static(Text("made by an extension"), classes="muted"))
        out.append(self._markdown(str(full.get("summary") or "")))
        out.extend(self._files(full.get("details")))
        return out

    def _build_custom_message(self, manager: SessionManager, model: TreeModel | None, e: Entry,
                              full: dict[str, Any]) -> list[Widget]:
        shown = "shown in the chat" if full.get("display") else "hidden from the chat"
        out: list[Widget] = [self._kind(f"[{full.get('customType')}] custom message ({shown})")]
        out.extend(self._content(full.get("content")))
        if full.get("details") is not None:
            out.append(Static(Text("details", style="bold"), classes="section"))
            out.append(LongText(pretty_json(full.get("details"))))
        return out

    def _build_custom(self, manager: SessionManager, model: TreeModel | None, e: Entry,
                      full: dict[str, Any]) -> list[Widget]:
        out: list[Widget] = [self._kind(f"custom entry: {full.get('customType')} (extension state, not in context)")]
        out.append(LongText(pretty_json(full.get("data")) if "data" in full else "(no data)"))
        return out

    def _build_model_change(self, manager: SessionManager, model: TreeModel | None, e: Entry,
                            full: dict[str, Any]) -> list[Widget]:
        if "modelId" in full:
            name = f"{full.get('provider')}/{full.get('modelId')}" if full.get("provider") else str(full.get("modelId"))
        else:
            name = str(full.get("model"))
        out: list[Widget] = [self._kind(f"model change: {name}")]
        if full.get("role"):
            out.append(Static(Text(f"role {full.get('role')}"), classes="muted"))
        return out

    def _build_thinking_level_change(self, manager: SessionManager, model: TreeModel | None, e: Entry,
                                     full: dict[str, Any]) -> list[Widget]:
        return [self._kind(f"thinking level: {full.get('thinkingLevel')}")]

    def _build_label(self, manager: SessionManager, model: TreeModel | None, e: Entry,
                     full: dict[str, Any]) -> list[Widget]:
        label = full.get("label")
        target = full.get("targetId")
        out: list[Widget] = [self._kind(f"label: {label}" if label else "label cleared")]
        t = manager.index.by_id.get(target) if isinstance(target, str) else None
        desc = f"on entry {target}"
        if t is not None and model is not None:
            desc += ": " + display_text(t, model.flat.tool_calls)
        elif t is None:
            desc += " (not in this session)"
        out.append(Static(Text(clean(desc)), classes="muted"))
        return out

    def _build_session_info(self, manager: SessionManager, model: TreeModel | None, e: Entry,
                            full: dict[str, Any]) -> list[Widget]:
        name = full.get("name")
        return [self._kind(f"session name: {name}" if name else "session name cleared")]


def usage_text(usage: dict[str, Any]) -> str:
    def num(k: str) -> Any:
        v = usage.get(k)
        return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    parts = []
    total = num("totalTokens")
    inp, outp = num("input"), num("output")
    if inp is not None or outp is not None:
        parts.append(f"↑{int(inp or 0):,} ↓{int(outp or 0):,}")
    cr, cw = num("cacheRead"), num("cacheWrite")
    if cr or cw:
        parts.append(f"R{int(cr or 0):,} W{int(cw or 0):,}")
    if total is not None:
        parts.append(f"{int(total):,} tokens")
    cost = usage.get("cost")
    if isinstance(cost, dict):
        c = cost.get("total")
        if isinstance(c, (int, float)) and not isinstance(c, bool):
            parts.append(f"${c:.4f}")
    return "  ".join(parts)


__all__ = ["DetailPane", "LineViewer", "LongText", "entry_full_text"]
