"""The export's shortcuts give exactly what the full path gives."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loomtui.formats.detect import open_any
from loomtui.formats.html import export as X
from loomtui.formats.html import fast as F
from loomtui.formats.html import render as R
from loomtui.formats.html.export import _row_search_text, build_page
from loomtui.formats.html.render import EntryRenderer, Stats, _markdown_renderer, plain_markdown
from loomtui.formats.html.rows import CONNECTOR, FOLDABLE, filter_rows
from loomtui.view import layout as L
from loomtui.view.filter_modes import FILTER_MODES
from loomtui.view.flat import tool_call_map
from loomtui.view.model import TreeModel
from loomtui.view.text import search_text
from tests.formats.test_export_html import blobs
from tests.shared_material import SHARED, needs_shared, shared_glob, shared_params

MD = _markdown_renderer()

#: characters that matter to Markdown, Unicode spaces, and ordinary text
TRICKY = list("\n\n\n    \t\r\x00\x0b\x0c*_`[]<>&|~\\#+-=!:;.,()\"'{}$^@%?/0123456789aZé—😀") + [
    "\xa0",
    "\x85",
    "\u2028",
    "\u3000",
    "\x1c",
    "\ufeff",
    "\u200b",
    "&amp;",
    "1. ",
    "- ",
    "> ",
    "# ",
    "  \n",
    "```",
    "~~~",
    "===",
    "---",
    "http://x.y",
    "<b>",
    "| a | b |\n|---|---|",
]


def _texts(obj: Any) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [t for v in obj.values() for t in _texts(v)]
    if isinstance(obj, list):
        return [t for v in obj for t in _texts(v)]
    return []


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(TRICKY) | st.text(max_size=3), max_size=30).map("".join))
def test_plain_markdown_is_markdown_its_output_or_nothing(text: str) -> None:
    got = plain_markdown(text)
    if got is not None:
        assert got == MD.render(text)


@needs_shared()
def test_plain_markdown_on_every_fixture_string() -> None:
    """Every string of every fixture session: the shortcut is taken for most prose and always
    agrees with markdown-it."""
    taken = 0
    seen = 0
    for path in sorted((SHARED / "fixtures").rglob("*.jsonl")):
        for line in path.read_bytes().split(b"\n"):
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            for text in _texts(obj):
                if len(text) > 20_000:
                    continue
                seen += 1
                got = plain_markdown(text)
                if got is not None:
                    taken += 1
                    assert got == MD.render(text), text
    assert seen > 1000 and taken > seen // 10


def test_plain_markdown_declines_syntax() -> None:
    for text in (
        "a *b*",
        "1. a",
        "a\n- b",
        "# h",
        "> q",
        "a  \nb",
        "x\n    code",
        "a | b",
        "<b>",
        "a &amp; b",
        "a\n===",
        "a\xa0",
        "\ta",
    ):
        assert plain_markdown(text) is None, text
    assert plain_markdown('say "hi" > 2\n\n\nnext\nline\n') == "<p>say &quot;hi&quot; &gt; 2</p>\n<p>next\nline</p>\n"
    assert plain_markdown("\n\n") == ""


FIXTURES = sorted(str(p) for d in ("pi", "loom") for p in shared_glob(SHARED / "fixtures" / d, "*"))


@pytest.mark.parametrize("path", shared_params(FIXTURES), ids=lambda p: Path(p).name)
def test_sidebar_rows_reuse_prefixes_only_where_layout_draws_the_same(path: str) -> None:
    """``filter_rows`` asks ``layout.prefix`` only at rows whose prefix may differ from the row
    before: every row's prefix and flags are still exactly the layout's."""
    model = TreeModel(open_any(path))
    prefixes: dict[str, int] = {}
    for mode in FILTER_MODES:
        rows = filter_rows(model, mode, prefixes)
        names = list(prefixes)
        lay = model.rows
        assert [names[k] for k in rows["pre"]] == [L.prefix(lay, i, False) for i in range(len(lay))], mode
        assert rows["pos"] == [lay.position(i) for i in range(len(lay))]
        want = [
            (FOLDABLE if lay.is_foldable(i) else 0)
            | (CONNECTOR if lay.connector[i] and not lay.virtual_root_child[i] else 0)
            for i in range(len(lay))
        ]
        assert rows["flags"] == want, mode


@pytest.mark.parametrize("path", shared_params(FIXTURES), ids=lambda p: Path(p).name)
def test_search_texts_left_to_the_page_are_the_rows_text(path: str) -> None:
    """A search text written as 0 is one the page rebuilds from the row's segments, and that
    gives exactly ``search_text`` (the rule is the same in page.js, checked in the browser)."""
    data = blobs(build_page(open_any(path)))
    side, find = data["side"], data["find"]
    model = TreeModel(open_any(path))
    want = [search_text(e) for e in model.flat.entries]
    assert len(find) == len(want)
    for p, got in enumerate(find):
        assert (_row_search_text(side["segs"][p]) if got == 0 else got) == want[p]
    if "pi" in path:
        assert find.count(0) > len(find) // 10


SEP = "\n\n"
#: a plain text the page fills in from the entry's line
_FILL = re.compile(r'<div class="md" data-md="([^"]*)" data-k="(-?[0-9]+)"></div>')


def _filled(html: str | None, manager: Any, records: Any) -> str | None:
    """The HTML with its plain texts filled in as page.js ``plainText`` and ``plainParagraphs``
    do: from the entry's line, the string content (k < 0) or the text blocks from k on."""

    def text(m: re.Match[str]) -> str:
        e = manager.index.by_id[unescape(m.group(1))]
        content = orjson.loads(records.line_of(e))["message"]["content"]
        k = int(m.group(2))
        if k < 0:
            return f'<div class="md">{plain_markdown(content)}</div>'
        run = []
        while k < len(content) and isinstance(content[k], dict) and content[k].get("type") == "text":
            run.append(content[k]["text"])
            k += 1
        return f'<div class="md">{plain_markdown(SEP.join(run))}</div>'

    return None if html is None else _FILL.sub(text, html)


def _both_paths(manager: Any) -> tuple[list[Any], list[Any], int]:
    """Every entry rendered by the export's renderer (plain texts filled in from the lines) and
    by one that always builds the blocks; how many entries the first wrote without them."""
    records, _original = X._records(manager, False)
    calls = tool_call_map(manager.index.entries)
    fast = EntryRenderer(manager, calls, line_of=records.line_of)
    blocks = EntryRenderer(manager, calls, line_of=records.line_of)
    blocks._fast = False
    taken = 0
    real = F.message_html

    def counted(*args: Any) -> Any:
        nonlocal taken
        got = real(*args)
        taken += got is not None
        return got

    got: list[Any] = []
    want: list[Any] = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(R, "message_html", counted)
        for e in records.entry:
            if e is not None:
                html, kind, head = fast.render(e, Stats())
                got.append((_filled(html, manager, records), kind, head))
                want.append(blocks.render(e, Stats()))
    return got, want, taken


@pytest.mark.parametrize(
    "path",
    shared_params(FIXTURES + [str(p) for p in shared_glob(SHARED / "fixtures", "*/*.jsonl") if "/pi/" not in str(p)]),
    ids=lambda p: Path(p).name,
)
def test_messages_written_without_blocks_are_the_blocks_html(path: str) -> None:
    """``html/fast.message_html`` writes what the blocks give, entry by entry (HTML, kind
    and header texts), on every fixture; on pi sessions it takes at least half the messages."""
    got, want, taken = _both_paths(open_any(path))
    for g, w in zip(got, want):
        assert g == w
    if "/pi/" in path:
        assert taken >= sum(1 for g in got if g[1] in ("user", "assistant")) // 2 > 0


_TEXT = st.sampled_from(["", " ", "\n\n", "plain words", "a *b*", "# h", "x < y & z", "two\n\nparas", "é 😀"])
_VALUE = st.one_of(
    st.none(),
    st.integers(-2, 2),
    _TEXT,
    st.lists(st.integers(-9, 9), max_size=2),
    st.dictionaries(st.sampled_from(["a", "b"]), st.integers(-9, 9), max_size=2),
)
_ARGS = st.one_of(
    _VALUE,
    st.fixed_dictionaries(
        {},
        optional={
            "path": st.sampled_from(["/srv/demo/a.py", "", "x.txt"]),
            "file_path": _TEXT,
            "command": _TEXT,
            "content": _TEXT,
            "oldText": _TEXT,
            "newText": _TEXT,
            "pattern": _TEXT,
            "offset": _VALUE,
            "limit": _VALUE,
        },
    ),
)
_GOOD_BLOCK = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": _VALUE}),
    st.fixed_dictionaries({"type": st.just("thinking"), "thinking": _VALUE}, optional={"redacted": _VALUE}),
    st.fixed_dictionaries(
        {
            "type": st.just("toolCall"),
            "id": st.sampled_from(["c1", "c2", "c3"]),
            "name": st.sampled_from(["read", "bash", "edit", "write", "ls", "grep", "find", "mcp", 7]),
            "arguments": _ARGS,
        }
    ),
)
_BLOCK = st.one_of(
    _GOOD_BLOCK,
    st.fixed_dictionaries(
        {"type": st.just("image"), "mimeType": st.just("image/png"), "data": st.just("iVBORw0KGgo=")}
    ),
    st.sampled_from([{"type": "other"}, "text", None]),
)
_RESULT_CONTENT = st.one_of(
    _VALUE,
    st.lists(
        st.one_of(
            st.fixed_dictionaries({"type": st.just("text"), "text": _VALUE}),
            st.just({"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}),
            _VALUE,
        ),
        max_size=3,
    ),
    st.just("many\nlines\n" * 6),
)


@settings(max_examples=300, deadline=None)
@given(
    content=st.one_of(_VALUE, st.lists(_GOOD_BLOCK, max_size=5), st.lists(_BLOCK, max_size=5)),
    user=_VALUE,
    results=st.lists(
        st.tuples(
            st.sampled_from(["c1", "c2", "c4"]),
            _RESULT_CONTENT,
            st.booleans(),
            st.sampled_from([None, {"diff": "-a\n+b"}, {"x": 1}]),
        ),
        max_size=3,
    ),
    extra=st.fixed_dictionaries({}, optional={"errorMessage": _VALUE, "stopReason": st.just("aborted")}),
    agent=st.booleans(),
)
def test_generated_messages_written_without_blocks_are_the_blocks_html(
    tmp_path_factory: pytest.TempPathFactory, content: Any, user: Any, results: list[Any], extra: Any, agent: bool
) -> None:
    """Whatever a user message or an assistant turn (and the results of its calls) hold, the
    shortcut writes what the blocks give, or leaves the entry to them."""
    head = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/srv"}
    turn: dict[str, Any] = {"role": "assistant", "content": content, "provider": "p", "model": "m", **extra}
    lines: list[Any] = [
        head,
        {
            "type": "message",
            "id": "u",
            "parentId": None,
            "timestamp": "2026-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": user},
        },
        {"type": "message", "id": "a", "parentId": "u", "timestamp": "2026-01-01T00:00:02.000Z", "message": turn},
    ]
    if agent:
        lines[2]["agentSource"] = {"tool": "claude", "line": 3, "type": "assistant"}
    parent = "a"
    for k, (call_id, out, is_error, details) in enumerate(results):
        msg = {"role": "toolResult", "toolCallId": call_id, "toolName": "read", "content": out, "isError": is_error}
        if details is not None:
            msg["details"] = details
        lines.append(
            {
                "type": "message",
                "id": f"r{k}",
                "parentId": parent,
                "timestamp": "2026-01-01T00:00:03.000Z",
                "message": msg,
            }
        )
        parent = f"r{k}"
    path = tmp_path_factory.mktemp("fast") / "s.jsonl"
    path.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    got, want, _taken = _both_paths(open_any(str(path)))
    assert got == want
