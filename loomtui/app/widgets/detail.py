"""The detail pane: the selected entry in full, one layout per kind.

User and assistant text render as Markdown; thinking blocks are collapsible; each tool call
shows its arguments next to its result (found by ``toolCallId``); images show as
``[image mime, size]``. A header line says what the entry is and where it sits.

The pane is one Line-API widget (like the tree): the entry becomes a list of blocks, each
rendered to strips once per width, and only the visible lines are drawn. Selecting another
entry re-renders the pane, not the screen's layout (a pane of Textual widgets cost 70-150 ms per
selection at 100k entries; this costs a few). Nothing may freeze the UI on a big entry: text
beyond a few thousand characters is cut with a "show all" line (click it, or ``x`` expands every
cut block); a very long text expands into raw lines drawn only when visible. ``t`` opens or
closes the thinking blocks.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from typing import Any, Protocol

import orjson
from rich.console import RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from loomtui.app import keymap
from loomtui.app.themes import tree_colors
from loomtui.app.widgets.tree_view import set_virtual_size
from loomtui.session.entries import Entry
from loomtui.session.manager import SessionManager
from loomtui.view.model import TreeModel
from loomtui.view.text import display_text, format_tool_call

#: longest text rendered as Markdown (beyond: plain text with "show all")
MARKDOWN_LIMIT = 12_000
#: a cut block shows this many lines / characters
HEAD_LINES = 40
HEAD_CHARS = 4_000
#: expanded text up to this size is wrapped; beyond it, raw lines drawn only when visible
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


# --- blocks: the pane's content as line sources ---------------------------------------------


class Lines(Protocol):
    def __len__(self) -> int: ...
    def __getitem__(self, i: int) -> Strip: ...


class RawLines:
    """A long text's lines, drawn without wrapping (a 1 MB output costs one ``str.split``)."""

    def __init__(self, lines: list[str], style: Style, width: int) -> None:
        self.lines, self.style, self.width = lines, style, width

    def __len__(self) -> int:
        return len(self.lines)

    def __getitem__(self, i: int) -> Strip:
        text = self.lines[i][: self.width * 2]
        return Strip([Segment(text, self.style)]).crop(0, self.width)


class Concat:
    """Several line sources one after another (bisect on their offsets)."""

    def __init__(self, parts: list[Lines]) -> None:
        self.parts = [p for p in parts if len(p)]
        self.starts: list[int] = []
        n = 0
        for p in self.parts:
            self.starts.append(n)
            n += len(p)
        self.total = n

    def __len__(self) -> int:
        return self.total

    def __getitem__(self, i: int) -> Strip:
        k = bisect_right(self.starts, i) - 1
        return self.parts[k][i - self.starts[k]]


class Prefixed:
    """A line source drawn behind a left bar (tool calls)."""

    def __init__(self, inner: Lines, bar: Segment) -> None:
        self.inner, self.bar = inner, bar

    def __len__(self) -> int:
        return len(self.inner)

    def __getitem__(self, i: int) -> Strip:
        return Strip([self.bar, *self.inner[i]])


class Block:
    """One piece of the detail pane; ``lines(width)`` is cached per width."""

    toggle_id = -1

    def __init__(self) -> None:
        self._cache: tuple[int, Lines] | None = None

    def lines(self, pane: "DetailPane", width: int) -> Lines:
        if self._cache is None or self._cache[0] != width:
            self._cache = (width, self.render(pane, width))
        return self._cache[1]

    def render(self, pane: "DetailPane", width: int) -> Lines:
        raise NotImplementedError

    def invalidate(self) -> None:
        self._cache = None

    def toggle(self) -> None:
        """Clicked (foldable and cut blocks)."""


class RenderBlock(Block):
    """A Rich renderable (Text, Markdown, a table), wrapped to the pane."""

    def __init__(self, renderable: RenderableType, *, top: int = 0) -> None:
        super().__init__()
        self.renderable = renderable
        self.top = top

    def render(self, pane: "DetailPane", width: int) -> Lines:
        strips = [Strip.blank(0)] * self.top
        return strips + pane.render_renderable(self.renderable, width)


class LongText(Block):
    """Text that shows its head and a line to show all of it (cheap at any size)."""

    def __init__(self, text: str, *, style: str = "") -> None:
        super().__init__()
        self.full = text
        self.style_name = style
        self.expanded = False
        self.lines_count = text.count("\n") + 1
        head = text if len(text) <= HEAD_CHARS else text[:HEAD_CHARS]
        if head.count("\n") >= HEAD_LINES:
            head = "\n".join(head.split("\n", HEAD_LINES)[:HEAD_LINES])
        self.head = head
        self.cut = len(head) < len(text)

    def toggle(self) -> None:
        self.expand()

    def expand(self) -> None:
        if self.cut and not self.expanded:
            self.expanded = True
            self.invalidate()

    def render(self, pane: "DetailPane", width: int) -> Lines:
        style = Style.parse(self.style_name) if self.style_name else Style()
        if not self.expanded:
            strips = pane.render_renderable(Text(clean(self.head), style=style), width)
            if self.cut:
                hidden = len(self.full) - len(self.head)
                size = human_size(len(self.full.encode("utf-8", "replace")))
                label = Text(f"▼ show all ({self.lines_count:,} lines, {size}; {hidden:,} more characters)  [x]",
                             style=pane.role_style("accent") + Style(bold=True))
                meta = Style.from_meta({"loom_toggle": self.toggle_id})
                strips += [s.apply_style(meta) for s in pane.render_renderable(label, width)]
            return strips
        if len(self.full) <= STATIC_LIMIT:
            return pane.render_renderable(Text(clean(self.full), style=style), width)
        return RawLines(clean(self.full).split("\n"), style, width)


class Fold(Block):
    """A collapsible section (thinking): a clickable title, the body when open."""

    def __init__(self, title: str, body: list[Block]) -> None:
        super().__init__()
        self.title = title
        self.body = body
        self.open = False

    def toggle(self) -> None:
        self.open = not self.open
        self.invalidate()

    def render(self, pane: "DetailPane", width: int) -> Lines:
        marker = "▼" if self.open else "▶"
        title = Text(f"{marker} {self.title}", style=pane.role_style("muted") + Style(italic=True))
        meta = Style.from_meta({"loom_toggle": self.toggle_id})
        head = [Strip.blank(0)] + [s.apply_style(meta) for s in pane.render_renderable(title, width)]
        if not self.open:
            return head
        inner = Concat([b.lines(pane, max(1, width - 2)) for b in self.body])
        return Concat([head, Prefixed(inner, Segment("  "))])


class Indent(Block):
    """Blocks behind a coloured bar (a tool call with its result)."""

    def __init__(self, body: list[Block], role: str = "borderAccent") -> None:
        super().__init__()
        self.body = body
        self.role = role

    def render(self, pane: "DetailPane", width: int) -> Lines:
        inner = Concat([b.lines(pane, max(1, width - 2)) for b in self.body])
        bar = Segment("▌ ", pane.role_style(self.role))
        return Concat([[Strip.blank(0)], Prefixed(inner, bar)])


def walk(blocks: list[Block]) -> list[Block]:
    out: list[Block] = []
    stack = list(reversed(blocks))
    while stack:
        b = stack.pop()
        out.append(b)
        if isinstance(b, (Fold, Indent)):
            stack.extend(reversed(b.body))
    return out


class DetailPane(ScrollView, can_focus=True):
    """The selected entry in full, drawn with the Line API: one widget, no re-layout of the
    screen when the selection changes; only the visible lines become strips."""

    BINDINGS = keymap.bindings("detail")

    DEFAULT_CSS = """
    DetailPane {
        padding: 0 1;
        background: $surface;
        scrollbar-size-vertical: 1;
        overflow-x: hidden;
        overflow-y: scroll;
    }
    DetailPane:focus { background-tint: $foreground 3%; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entry_id: str | None = None
        self.blocks: list[Block] = []
        self._toggles: list[Block] = []
        self._source: Lines = Concat([])
        self._width = 0
        self._results: dict[Any, Entry] = {}
        self._results_scanned = 0
        self._results_manager: SessionManager | None = None
        self._depth: dict[str, int] = {}
        self._roles: dict[str, Style] = {}

    # public --------------------------------------------------------------------------------
    def show(self, manager: SessionManager | None, model: TreeModel | None, entry: Entry | None,
             *, force: bool = False) -> None:
        """Show ``entry`` (None: an empty pane). Cheap when the entry did not change."""
        new_id = entry.id if entry is not None else None
        if new_id == self.entry_id and not force:
            return
        self.entry_id = new_id
        self._roles = {}
        if manager is None or entry is None:
            blocks: list[Block] = [RenderBlock(Text("No entry selected.", style=self.role_style("muted")))]
        else:
            try:
                blocks = self._build(manager, model, entry)
            except Exception as exc:  # a malformed entry: say so, never crash
                blocks = [RenderBlock(Text(f"Cannot show entry {entry.id}: {exc}", style=self.role_style("error")))]
        self.blocks = blocks
        self._toggles = []
        for b in walk(blocks):
            if isinstance(b, (LongText, Fold)):
                b.toggle_id = len(self._toggles)
                self._toggles.append(b)
        self._relayout()
        self.scroll_to(0, 0, animate=False, immediate=True)

    @property
    def long_texts(self) -> list[LongText]:
        return [b for b in walk(self.blocks) if isinstance(b, LongText)]

    @property
    def folds(self) -> list[Fold]:
        return [b for b in walk(self.blocks) if isinstance(b, Fold)]

    @property
    def text(self) -> str:
        """Everything the pane shows, as plain text (tests)."""
        return "\n".join("".join(seg.text for seg in self._source[i]).rstrip() for i in range(len(self._source)))

    def action_expand_all(self) -> None:
        for block in self.long_texts:
            block.expand()
        self._relayout(invalidate=True)

    def action_toggle_folds(self) -> None:
        folds = self.folds
        want = not any(f.open for f in folds)
        for f in folds:
            if f.open != want:
                f.toggle()
        self._relayout(invalidate=True)

    # drawing ---------------------------------------------------------------------------------
    def role_style(self, role: str) -> Style:
        if not self._roles:
            try:
                colors = tree_colors(self.app.current_theme)
            except Exception:
                colors = {}
            self._roles = {k: Style(color=v) for k, v in colors.items() if k != "selectedBg"}
        return self._roles.get(role, Style())

    def render_renderable(self, renderable: RenderableType, width: int) -> list[Strip]:
        console = self.app.console
        options = console.options.update(width=max(1, width), height=None, highlight=False)
        return [Strip(line) for line in console.render_lines(renderable, options, pad=False)]

    def _relayout(self, *, invalidate: bool = False) -> None:
        width = self.scrollable_content_region.width
        if width <= 0:
            width = max(1, self.size.width - 2) if self.size.width else 40
        if invalidate:
            for b in walk(self.blocks):
                b.invalidate()
        self._width = width
        self._source = Concat([b.lines(self, width) for b in self.blocks])
        set_virtual_size(self, Size(width, len(self._source)))
        self.refresh()

    def on_resize(self) -> None:
        if self.scrollable_content_region.width != self._width:
            self._relayout()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        i = y + int(self.scroll_offset.y)
        if i >= len(self._source):
            return Strip.blank(width)
        try:
            strip = self._source[i]
        except Exception as exc:  # never a traceback on screen
            strip = Strip([Segment(f"(cannot draw: {exc})")])
        return strip.crop(0, width).extend_cell_length(width)

    def on_click(self, event: events.Click) -> None:
        toggle = event.style.meta.get("loom_toggle") if event.style else None
        if isinstance(toggle, int) and 0 <= toggle < len(self._toggles):
            event.stop()
            self._toggles[toggle].toggle()
            self._relayout(invalidate=False)

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._theme_changed())

    def _theme_changed(self) -> None:
        self._roles = {}
        if self.blocks:
            self._relayout(invalidate=True)

    # header ----------------------------------------------------------------------------------
    def _depth_of(self, manager: SessionManager, e: Entry) -> int:
        """Entries above ``e`` (memoised walk: chains are tens of thousands deep)."""
        if self._results_manager is not manager:
            self._reset_cache(manager)
        cache = self._depth
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
        muted = self.role_style("muted")
        t = Text(style=muted)
        t.append(f"id {e.id}", style=Style(bold=True))
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
        pos = 0
        for i, s in enumerate(siblings):
            if s is e:
                pos = i + 1
                break
        kids = len(idx.children(e.id))
        t.append(f"\ndepth {depth}  sibling {pos}/{len(siblings)}  children {kids}  line {e.line}")
        label = idx.label_of(e.id)
        if label is not None:
            t.append("\n")
            t.append(f"[{label}]", style=self.role_style("warning") + Style(bold=True))
            lts = idx.label_timestamp(e.id)
            if lts:
                t.append(f" labelled {lts}")
        return t

    # body ------------------------------------------------------------------------------------
    def _build(self, manager: SessionManager, model: TreeModel | None, e: Entry) -> list[Block]:
        full = manager.load(e)
        if not isinstance(full, dict):
            full = {}
        out: list[Block] = [RenderBlock(self._header(manager, e, full))]
        t = full.get("type", e.type)
        builder = getattr(self, f"_build_{t}", None)
        if builder is None:
            out.append(self._kind(f"{t or 'entry'}"))
            out.append(LongText(pretty_json(full)))
            return out
        out.extend(builder(manager, model, e, full))
        return out

    def _kind(self, text: str, role: str = "text") -> Block:
        return RenderBlock(Text(text, style=self.role_style(role) + Style(bold=True)), top=1)

    def _note(self, text: str, role: str = "muted", *, bold: bool = False) -> Block:
        style = self.role_style(role) + (Style(bold=True) if bold else Style())
        return RenderBlock(Text(clean(text), style=style))

    def _markdown(self, text: str) -> Block:
        text = clean(text)
        if not text.strip():
            return self._note("(empty)")
        if len(text) > MARKDOWN_LIMIT:
            return LongText(text)
        from rich.markdown import Markdown  # markdown-it loads on the first detail, after first paint

        theme = self.app.current_theme
        code_theme = "monokai" if theme is None or theme.dark else "friendly"
        return RenderBlock(Markdown(text, code_theme=code_theme, hyperlinks=False))

    def _build_message(self, manager: SessionManager, model: TreeModel | None, e: Entry,
                       full: dict[str, Any]) -> list[Block]:
        msg = full.get("message")
        if not isinstance(msg, dict):
            return [self._kind("message (no message object)", "error"), LongText(pretty_json(full))]
        role = msg.get("role")
        if role == "user":
            return [self._kind("user", "accent"), *self._content(msg.get("content"))]
        if role == "assistant":
            return self._assistant(manager, msg)
        if role == "toolResult":
            return self._tool_result(manager, model, e, msg)
        if role == "bashExecution":
            return self._bash(msg)
        kind = f"{role or 'message'}"
        if msg.get("customType"):
            kind += f" [{msg.get('customType')}]"
        out: list[Block] = [self._kind(kind)]
        content = msg.get("content")
        if content is not None:
            out.extend(self._content(content))
        extra = {k: v for k, v in msg.items() if k not in ("role", "content", "timestamp")}
        if extra:
            out.append(LongText(pretty_json(extra)))
        return out

    def _content(self, content: Any) -> list[Block]:
        """Text blocks as Markdown, images as ``[image mime, size]``."""
        if isinstance(content, str):
            return [self._markdown(content)]
        if not isinstance(content, list):
            return [self._note("(no content)")] if content is None else [LongText(pretty_json(content))]
        return self._blocks(content, None) or [self._note("(no content)")]

    def _blocks(self, content: list[Any], manager: SessionManager | None) -> list[Block]:
        """Content blocks in order: runs of text as one Markdown block, thinking folded, tool
        calls next to their results (with a manager), images as placeholders, others as JSON."""
        out: list[Block] = []
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
                continue
            flush()
            if bt == "thinking":
                if block.get("redacted"):
                    out.append(Fold("thinking (redacted)", [self._note("(redacted thinking)")]))
                else:
                    thinking = str(block.get("thinking") or "")
                    out.append(Fold(f"thinking ({len(thinking):,} characters)", [LongText(thinking, style="italic")]))
            elif bt == "toolCall" and manager is not None:
                out.append(self._tool_call(manager, block))
            elif bt == "image":
                out.append(self._note(image_text(block)))
            else:
                out.append(LongText(pretty_json(block)))
        flush()
        return out

    def _assistant(self, manager: SessionManager, msg: dict[str, Any]) -> list[Block]:
        out: list[Block] = [self._kind("assistant", "success")]
        err = msg.get("errorMessage")
        if err:
            out.append(self._note(f"error: {err}", "error"))
        content = msg.get("content")
        if isinstance(content, str):
            out.append(self._markdown(content))
            return out
        if not isinstance(content, list):
            out.append(self._note("(no content)"))
            return out
        blocks = self._blocks(content, manager)
        out.extend(blocks)
        if not blocks and not err:
            stop = msg.get("stopReason")
            out.append(self._note("(aborted)" if stop == "aborted" else "(no content)"))
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

    def _args_blocks(self, name: Any, args: Any) -> list[Block]:
        if isinstance(args, dict):
            if name == "bash" and isinstance(args.get("command"), str):
                rest = {k: v for k, v in args.items() if k != "command"}
                out: list[Block] = [LongText("$ " + args["command"], style="bold")]
                if rest:
                    out.append(LongText(pretty_json(rest)))
                return out
            if name in ("read", "write", "edit", "ls", "grep", "find"):
                path = args.get("path") or args.get("file_path")
                rest = {k: v for k, v in args.items() if k not in ("path", "file_path")}
                out = []
                if path:
                    out.append(self._note(f"path {path}", "text", bold=True))
                if name == "write" and isinstance(rest.get("content"), str):
                    content = rest.pop("content")
                    if rest:
                        out.append(LongText(pretty_json(rest)))
                    out.append(LongText(content))
                    return out
                if name == "edit" and ("oldText" in rest or "old_string" in rest):
                    old = rest.pop("oldText", rest.pop("old_string", ""))
                    new = rest.pop("newText", rest.pop("new_string", ""))
                    diff = "\n".join(["- " + ln for ln in str(old).split("\n")] + ["+ " + ln for ln in str(new).split("\n")])
                    if rest:
                        out.append(LongText(pretty_json(rest)))
                    out.append(LongText(diff))
                    return out
                if rest:
                    out.append(LongText(pretty_json(rest)))
                return out
        return [LongText(pretty_json(args))]

    def _result_blocks(self, manager: SessionManager, result: Entry | None) -> tuple[list[Block], bool]:
        if result is None:
            return [self._note("no result in this session (yet)")], False
        full = manager.load(result)
        msg = full.get("message") if isinstance(full, dict) else None
        if not isinstance(msg, dict):
            return [self._note("result entry is malformed", "error")], True
        return self._result_body(result, msg), bool(msg.get("isError"))

    def _result_body(self, result: Entry, msg: dict[str, Any]) -> list[Block]:
        is_error = bool(msg.get("isError"))
        head = Text(style=self.role_style("muted"))
        head.append("result", style=self.role_style("text") + Style(bold=True))
        head.append(f"  (entry {result.id})")
        if is_error:
            head.append("  error", style=self.role_style("error") + Style(bold=True))
        out: list[Block] = [RenderBlock(head)]
        content = msg.get("content")
        blocks = (content if isinstance(content, list)
                  else [{"type": "text", "text": content}] if isinstance(content, str) else [])
        texts = []
        for b in blocks:
            if not isinstance(b, dict):
                continue
            if b.get("type") == "text":
                texts.append(str(b.get("text") or ""))
            elif b.get("type") == "image":
                out.append(self._note(image_text(b)))
        text = "\n".join(texts)
        out.append(LongText(text if text else "(no output)", style="red" if is_error else ""))
        details = msg.get("details")
        if isinstance(details, dict) and isinstance(details.get("diff"), str):
            out.append(self._note("diff", "text", bold=True))
            out.append(LongText(details["diff"]))
        return out

    def _tool_call(self, manager: SessionManager, block: dict[str, Any]) -> Block:
        name = block.get("name")
        args = block.get("arguments")
        call_id = block.get("id")
        result = self._result_for(manager, call_id)
        title = Text()
        title.append(format_tool_call(name, args), style=Style(bold=True))
        title.append(f"  call {call_id}", style=self.role_style("muted"))
        body: list[Block] = [RenderBlock(title), *self._args_blocks(name, args)]
        results, is_error = self._result_blocks(manager, result)
        body.extend(results)
        return Indent(body, "error" if is_error else "borderAccent")

    def _tool_result(self, manager: SessionManager, model: TreeModel | None, e: Entry,
                     msg: dict[str, Any]) -> list[Block]:
        call_id = msg.get("toolCallId")
        name = msg.get("toolName")
        out: list[Block] = [self._kind(f"tool result: {name or 'tool'}", "muted")]
        call = self._find_call(manager, e, call_id)
        body: list[Block] = []
        if call is not None:
            title = Text()
            title.append(format_tool_call(call.get("name"), call.get("arguments")), style=Style(bold=True))
            title.append(f"  call {call_id}", style=self.role_style("muted"))
            body.append(RenderBlock(title))
            body.extend(self._args_blocks(call.get("name"), call.get("arguments")))
        else:
            body.append(self._note(f"call {call_id} not found in this session"))
        body.extend(self._result_body(e, msg))
        out.append(Indent(body, "error" if msg.get("isError") else "borderAccent"))
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

    def _bash(self, msg: dict[str, Any]) -> list[Block]:
        out: list[Block] = [self._kind("bash (user ! command)", "dim")]
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
        out.append(self._note("  ".join(facts), "error" if code not in (0, None) else "muted"))
        output = msg.get("output")
        out.append(LongText(str(output) if output else "(no output)"))
        return out

    def _build_compaction(self, manager: SessionManager, model: TreeModel | None, e: Entry,
                          full: dict[str, Any]) -> list[Block]:
        tokens = full.get("tokensBefore")
        head = "compaction"
        if isinstance(tokens, (int, float)) and not isinstance(tokens, bool) and math.isfinite(tokens):
            head += f": {int(tokens):,} tokens before"
        out: list[Block] = [self._kind(head, "borderAccent")]
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
        out.append(self._note("  ".join(str(f) for f in facts)))
        out.append(self._markdown(str(full.get("summary") or "")))
        out.extend(self._files(full.get("details")))
        return out

    def _files(self, details: Any) -> list[Block]:
        if not isinstance(details, dict):
            return [] if details is None else [LongText(pretty_json(details))]
        out: list[Block] = []
        for key, title in (("readFiles", "read files"), ("modifiedFiles", "modified files")):
            files = details.get(key)
            if isinstance(files, list) and files:
                out.append(RenderBlock(Text(clean(f"{title}:\n" + "\n".join(f"  {f}" for f in files)),
                                            style=self.role_style("muted")), top=1))
        rest = {k: v for k, v in details.items() if k not in ("readFiles", "modifiedFiles")}
        if rest:
            out.append(LongText(pretty_json(rest)))
        return out

    def _build_branch_summary(self, manager: SessionManager, model: TreeModel | None, e: Entry,
                              full: dict[str, Any]) -> list[Block]:
        out: list[Block] = [self._kind(f"branch summary (from {full.get('fromId', '—')})", "warning")]
        if full.get("fromHook") or full.get("fromExtension"):
            out.append(self._note("made by an extension"))
        out.append(self._markdown(str(full.get("summary") or "")))
        out.extend(self._files(full.get("details")))
        return out

    def _build_custom_message(self, manager: SessionManager, model: TreeModel | None, e: Entry,
                              full: dict[str, Any]) -> list[Block]:
        shown = "shown in the chat" if full.get("display") else "hidden from the chat"
        out: list[Block] = [self._kind(f"[{full.get('customType')}] custom message ({shown})", "customMessageLabel")]
        out.extend(self._content(full.get("content")))
        if full.get("details") is not None:
            out.append(self._kind("details"))
            out.append(LongText(pretty_json(full.get("details"))))
        return out

    def _build_custom(self, manager: SessionManager, model: TreeModel | None, e: Entry,
                      full: dict[str, Any]) -> list[Block]:
        out: list[Block] = [self._kind(f"custom entry: {full.get('customType')} (extension state, not in context)",
                                       "dim")]
        out.append(LongText(pretty_json(full.get("data")) if "data" in full else "(no data)"))
        return out

    def _build_model_change(self, manager: SessionManager, model: TreeModel | None, e: Entry,
                            full: dict[str, Any]) -> list[Block]:
        if "modelId" in full:
            name = f"{full.get('provider')}/{full.get('modelId')}" if full.get("provider") else str(full.get("modelId"))
        else:
            name = str(full.get("model"))
        out: list[Block] = [self._kind(f"model change: {name}", "dim")]
        if full.get("role"):
            out.append(self._note(f"role {full.get('role')}"))
        return out

    def _build_thinking_level_change(self, manager: SessionManager, model: TreeModel | None, e: Entry,
                                     full: dict[str, Any]) -> list[Block]:
        return [self._kind(f"thinking level: {full.get('thinkingLevel')}", "dim")]

    def _build_label(self, manager: SessionManager, model: TreeModel | None, e: Entry,
                     full: dict[str, Any]) -> list[Block]:
        label = full.get("label")
        target = full.get("targetId")
        out: list[Block] = [self._kind(f"label: {label}" if label else "label cleared", "warning")]
        t = manager.index.by_id.get(target) if isinstance(target, str) else None
        desc = f"on entry {target}"
        if t is not None and model is not None:
            desc += ": " + display_text(t, model.flat.tool_calls)
        elif t is None:
            desc += " (not in this session)"
        out.append(self._note(desc))
        return out

    def _build_session_info(self, manager: SessionManager, model: TreeModel | None, e: Entry,
                            full: dict[str, Any]) -> list[Block]:
        name = full.get("name")
        return [self._kind(f"session name: {name}" if name else "session name cleared", "dim")]


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


__all__ = ["DetailPane", "Fold", "LongText", "entry_full_text"]
