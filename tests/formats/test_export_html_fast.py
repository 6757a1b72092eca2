"""The export's shortcuts give exactly what the full path gives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loomtui.formats.detect import open_any
from loomtui.formats.export_html import _row_search_text, build_page
from loomtui.formats.export_html_render import _markdown_renderer, plain_markdown
from loomtui.formats.export_html_rows import CONNECTOR, FOLDABLE, filter_rows
from loomtui.view import layout as L
from loomtui.view.flat import FILTER_MODES
from loomtui.view.model import TreeModel
from loomtui.view.text import search_text
from tests.formats.test_export_html import blobs

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
MD = _markdown_renderer()

#: characters that matter to Markdown, Unicode spaces, and ordinary text
TRICKY = list("\n\n\n    \t\r\x00\x0b\x0c*_`[]<>&|~\\#+-=!:;.,()\"'{}$^@%?/0123456789aZé—😀") + [
    "\xa0", "\x85", "\u2028", "\u3000", "\x1c", "\ufeff", "\u200b", "&amp;", "1. ", "- ", "> ", "# ", "  \n",
    "```", "~~~", "===", "---", "http://x.y", "<b>", "| a | b |\n|---|---|",
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
    for text in ("a *b*", "1. a", "a\n- b", "# h", "> q", "a  \nb", "x\n    code", "a | b", "<b>", "a &amp; b",
                 "a\n===", "a\xa0", "\ta"):
        assert plain_markdown(text) is None, text
    assert plain_markdown('say "hi" > 2\n\n\nnext\nline\n') == '<p>say &quot;hi&quot; &gt; 2</p>\n<p>next\nline</p>\n'
    assert plain_markdown("\n\n") == ""


FIXTURES = sorted(str(p) for d in ("pi", "loom") for p in (SHARED / "fixtures" / d).iterdir())


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: Path(p).name)
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
        want = [(FOLDABLE if lay.is_foldable(i) else 0)
                | (CONNECTOR if lay.connector[i] and not lay.virtual_root_child[i] else 0) for i in range(len(lay))]
        assert rows["flags"] == want, mode


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: Path(p).name)
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
