"""The exported page in a real browser (Debian's chromium driven by playwright).

One browser for the whole module; every fixture session is exported once. The sidebar is read
from the DOM after scrolling its virtual list, and compared with `loomtui tree`.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from loomtui.cli import main
from loomtui.formats.detect import open_any
from loomtui.formats.html.export import export_html
from loomtui.view.model import TreeModel
from tests.shared_material import SHARED, needs_shared, shared_params

FIXTURES = (
    sorted((SHARED / "fixtures" / "pi").glob("*.jsonl"))
    + sorted((SHARED / "fixtures" / "loom").glob("*.json"))
    + sorted((SHARED / "fixtures" / "claude").glob("*.jsonl"))
    + sorted((SHARED / "fixtures" / "codex").glob("*.jsonl"))
    + sorted((SHARED / "fixtures" / "ocp").glob("*.ocp.json"))
)
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium installed (apt-get install chromium)"),
    # on one xdist worker: the browser is started and every fixture exported once, not once a worker
    pytest.mark.xdist_group("html-browser"),
]

#: reads every row of the virtual list: scroll a screen at a time, collect what is drawn
COLLECT_ROWS = """async () => {
  const box = document.getElementById('rows');
  const out = new Map();
  let most = 0;
  box.scrollTop = 0;
  for (;;) {
    box.dispatchEvent(new Event('scroll'));
    await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
    const drawn = box.querySelectorAll('.row');
    most = Math.max(most, drawn.length);
    for (const el of drawn) out.set(Number(el.dataset.k), el.textContent);
    if (box.scrollTop + box.clientHeight >= box.scrollHeight - 1) break;
    box.scrollTop += box.clientHeight;
  }
  const rows = [];
  for (let k = 0; k < out.size; k++) rows.push(out.get(k));
  return {rows, most, count: document.getElementById('count').textContent};
}"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = {}
    d = tmp_path_factory.mktemp("html")
    for f in FIXTURES:
        target = d / (f.name + ".html")
        export_html(open_any(str(f)), str(target), source_name=f.name)
        out[f.name] = target
    return out


def open_page(browser: Any, path: Path, query: str = "", *, scheme: str = "light", csp: bool = False) -> Any:
    page = browser.new_page(viewport={"width": 1200, "height": 2000}, color_scheme=scheme, bypass_csp=not csp)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri() + query)
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=30000)
    page.errors = errors  # type: ignore[attr-defined]
    return page


def tree_rows(file: Path, *args: str) -> list[str]:
    """`loomtui tree FILE ARGS` rows without the cursor column (and without the footer)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["tree", str(file), "--width", "100000", "--color", "never", *args]) == 0
    lines = buf.getvalue().rstrip("\n").split("\n")[:-1]
    if lines == ["  No entries found"]:
        return []
    return [line[2:] for line in lines]


@pytest.mark.parametrize("fixture", shared_params(FIXTURES), ids=lambda f: f.name)
def test_sidebar_rows_equal_loomtui_tree_for_every_filter(browser: Any, pages: dict[str, Path], fixture: Path) -> None:
    page = open_page(browser, pages[fixture.name])
    try:
        total = len(open_any(str(fixture)).index.entries)
        # every mode the browser offers: pi's five, or an OCP run's own (the page had default alone)
        for mode in TreeModel(open_any(str(fixture))).modes:
            page.click(f"#modes button[data-mode='{mode}']")
            got = page.evaluate(COLLECT_ROWS)
            want = tree_rows(fixture, "--filter", mode)
            assert got["rows"] == want, mode
            assert got["count"] == f"{len(want)} / {total} entries"
            # a virtual list: only about a screen of rows is ever in the DOM
            assert got["most"] <= 2000 // 20 + 25
        assert page.errors == []  # type: ignore[attr-defined]
    finally:
        page.close()


SEARCHES = {
    "dnouri-browse-session.jsonl": ["user", "build fix", "final", "BUILD  log", "nothing-matches-this"],
    "pi-mono-large-session.jsonl": ["bash", "read readme", "release version", "git push"],
    "socketteer-loom_demo.json": ["the", "loom a", "xyzzy"],
    "pi-brain-branch-summary.jsonl": ["branch summary", "assistant"],
}


@needs_shared()
@pytest.mark.parametrize("name", sorted(SEARCHES))
def test_search_narrows_as_loomtui_tree_search(browser: Any, pages: dict[str, Path], name: str) -> None:
    fixture = next(f for f in FIXTURES if f.name == name)
    page = open_page(browser, pages[name])
    try:
        for mode in ("default", "all", "no-tools"):
            page.click(f"#modes button[data-mode='{mode}']")
            for q in SEARCHES[name]:
                page.fill("#search", q)
                got = page.evaluate(COLLECT_ROWS)["rows"]
                assert got == tree_rows(fixture, "--filter", mode, "--search", q), (mode, q)
            page.fill("#search", "")
    finally:
        page.close()


@needs_shared()
def test_search_matches_labels(browser: Any, pages: dict[str, Path]) -> None:
    fixture = FIXTURES[0]  # dnouri-browse-session: labelled entries
    page = open_page(browser, pages[fixture.name])
    try:
        page.fill("#search", "final-answer")
        got = page.evaluate(COLLECT_ROWS)["rows"]
        assert got == tree_rows(fixture, "--search", "final-answer")
        assert got and all("[final-answer]" in r for r in got)
    finally:
        page.close()


@needs_shared()
def test_folding_hides_a_subtree_as_the_tree_model_does(browser: Any, pages: dict[str, Path]) -> None:
    fixture = next(f for f in FIXTURES if f.name == "socketteer-loom_demo.json")
    model = TreeModel(open_any(str(fixture)))
    model.set_filter("all")
    foldable = [i for i in range(len(model)) if model.rows.is_foldable(i) and model.rows.connector[i]]
    row = foldable[1]
    fold_id = model.entry_at(row).id
    model.select_row(row)
    model.fold_or_up()
    assert fold_id in model.folded
    want = [model.row_text(i, cursor=False) for i in range(len(model))]
    page = open_page(browser, pages[fixture.name])
    try:
        page.click("#modes button[data-mode='all']")
        before = page.evaluate(COLLECT_ROWS)["rows"]
        page.evaluate(f"document.getElementById('rows').scrollTop = {max(0, row - 5) * 20}")
        page.click(f".row[data-id='{fold_id}'] .fold")
        after = page.evaluate(COLLECT_ROWS)["rows"]
        assert after == want
        assert len(after) < len(before)
        # the keyboard unfolds it again (→ on the cursor row)
        page.focus("#rows")
        page.keyboard.press("ArrowRight")
        assert page.evaluate(COLLECT_ROWS)["rows"] == before
    finally:
        page.close()


def _newest_leaf(index: Any, entry_id: str) -> str:
    cur = entry_id
    while index.children(cur):
        cur = index.children(cur)[-1].id
    return cur


def _main_ids(page: Any) -> list[str]:
    return page.evaluate("[...document.querySelectorAll('#entries .entry')].map(e => e.id.slice(2))")


def _params(page: Any) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


@needs_shared()
def test_click_shows_the_branch_to_the_newest_leaf(browser: Any, pages: dict[str, Path]) -> None:
    fixture = FIXTURES[0]
    manager = open_any(str(fixture))
    index = manager.index
    # a user message with several branches below it, not on the file's leaf path
    leaf_path = {e.id for e in index.path_to(manager.get_leaf_id())}
    pick = next(e for e in index.entries if e.role == "user" and e.id not in leaf_path)
    newest = _newest_leaf(index, pick.id)
    path = [e.id for e in index.path_to(newest)]
    page = open_page(browser, pages[fixture.name])
    try:
        page.click(f".row[data-id='{pick.id}']")
        page.wait_for_function(f"new URL(location.href).searchParams.get('leafId') === '{newest}'")
        shown = _main_ids(page)
        assert shown == path[path.index(shown[0]) : path.index(shown[0]) + len(shown)]
        assert pick.id in shown and newest in shown
        assert page.evaluate("document.querySelector('.entry.target').id") == "e-" + pick.id
        assert _params(page) == {"leafId": newest, "targetId": pick.id}
        # the sidebar marks the new branch (•) and selects the clicked row
        assert page.evaluate("document.querySelector('.row.sel').dataset.id") == pick.id
        assert page.evaluate(f"document.querySelector(\".row[data-id='{pick.id}']\").textContent").count("• ") == 1
    finally:
        page.close()


@needs_shared()
def test_deep_link_selects_branch_and_entry(browser: Any, pages: dict[str, Path]) -> None:
    fixture = FIXTURES[0]
    manager = open_any(str(fixture))
    index = manager.index
    leaf_path = {e.id for e in index.path_to(manager.get_leaf_id())}
    leaf = next(e.id for e in index.entries if not index.children(e.id) and e.id not in leaf_path)
    path = index.path_to(leaf)
    target = next(e.id for e in path if e.role == "user")
    page = open_page(browser, pages[fixture.name], f"?leafId={leaf}&targetId={target}")
    try:
        shown = _main_ids(page)
        assert target in shown and leaf in shown
        assert page.evaluate("document.querySelector('.entry.target').id") == "e-" + target
        assert _params(page) == {"leafId": leaf, "targetId": target}
        assert page.evaluate("document.querySelector('.row.sel').dataset.id") == target
        # a targetId alone opens the newest branch through it
        page.goto(pages[fixture.name].as_uri() + f"?targetId={target}")
        page.wait_for_selector("html[data-ready='1']", state="attached")
        assert _params(page)["leafId"] == _newest_leaf(index, target)
    finally:
        page.close()


@needs_shared()
def test_a_page_exported_at_an_entry_off_the_leafs_branch_shows_it(browser: Any, tmp_path: Path) -> None:
    """The app's Alt+E passes the tree's leaf with the selection: a selection off that leaf's
    branch opens the page on the newest branch through it, scrolled to it."""
    fixture = FIXTURES[0]
    manager = open_any(str(fixture))
    index = manager.index
    leaf_path = {e.id for e in index.path_to(manager.get_leaf_id())}
    pick = next(e for e in index.entries if e.role == "user" and e.id not in leaf_path)
    out = tmp_path / "at.html"
    export_html(manager, str(out), leaf_id=manager.get_leaf_id(), target_id=pick.id, source_name=fixture.name)
    page = open_page(browser, out)
    try:
        assert pick.id in _main_ids(page)
        assert page.evaluate("document.querySelector('.entry.target').id") == "e-" + pick.id
        assert page.evaluate("document.querySelector('.row.sel').dataset.id") == pick.id
    finally:
        page.close()


HOSTILE = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'


def hostile_session(path: Path) -> Path:
    lines = [
        {
            "type": "session",
            "version": 3,
            "id": "s-1",
            "timestamp": "2026-01-01T00:00:00.000Z",
            "cwd": "/tmp/</title><script>window.__pwned=7</script>",
        },
        {
            "type": "session_info",
            "id": "a0",
            "parentId": None,
            "timestamp": "2026-01-01T00:00:00.500Z",
            "name": "</script><script>window.__pwned = 3</script>",
        },
        {
            "type": "message",
            "id": "a1",
            "parentId": "a0",
            "timestamp": "2026-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": HOSTILE + " [x](javascript:window.__pwned=4) `<b>code</b>`"},
        },
        {
            "type": "message",
            "id": "a2",
            "parentId": "a1",
            "timestamp": "2026-01-01T00:00:02.000Z",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": HOSTILE},
                    {"type": "text", "text": "```html\n" + HOSTILE + "\n```"},
                    {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": HOSTILE}},
                ],
                "stopReason": "toolUse",
                "model": "m<script>",
                "usage": {"input": 1, "output": 2},
            },
        },
        {
            "type": "message",
            "id": "a3",
            "parentId": "a2",
            "timestamp": "2026-01-01T00:00:03.000Z",
            "message": {
                "role": "toolResult",
                "toolCallId": "c1",
                "toolName": "bash",
                "content": [
                    {"type": "text", "text": "</pre>" + HOSTILE},
                    {"type": "image", "mimeType": "image/png", "data": 'x" onerror="window.__pwned=5'},
                ],
                "details": {"diff": "+ " + HOSTILE},
                "isError": False,
            },
        },
        {
            "type": "label",
            "id": "a4",
            "parentId": "a3",
            "timestamp": "2026-01-01T00:00:04.000Z",
            "targetId": "a1",
            "label": HOSTILE,
        },
        {
            "type": "custom",
            "id": "a5",
            "parentId": "a4",
            "timestamp": "2026-01-01T00:00:05.000Z",
            "customType": "<script>",
            "data": {"x": HOSTILE},
        },
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


@pytest.mark.parametrize("csp", [True, False], ids=["with-csp", "escaping-alone"])
def test_a_session_with_script_runs_nothing(browser: Any, tmp_path: Path, csp: bool) -> None:
    src = hostile_session(tmp_path / "hostile.jsonl")
    out = tmp_path / "hostile.html"
    export_html(open_any(str(src)), str(out))
    page = open_page(browser, out, csp=csp)
    try:
        page.click("#modes button[data-mode='all']")
        for eid in page.evaluate("[...document.querySelectorAll('.row')].map(r => r.dataset.id)"):
            page.click(f".row[data-id='{eid}']")
        for b in page.query_selector_all("#entries .tstate"):
            b.click()
        for d in page.query_selector_all("details"):
            d.evaluate("d => d.open = true")
        page.wait_for_timeout(200)
        assert page.evaluate("window.__pwned") is None
        text = page.evaluate("document.getElementById('entries').textContent")
        assert "<script>window.__pwned = 1</script>" in text
        assert page.evaluate("document.querySelectorAll('#entries script, #head script').length") == 0
        assert page.evaluate("[...document.querySelectorAll('#entries img')].every(i => !i.onerror)")
        assert page.evaluate("document.querySelectorAll('a[href^=\"javascript\"]').length") == 0
        assert page.title() == "</script><script>window.__pwned = 3</script>"
        assert page.errors == []  # type: ignore[attr-defined]
    finally:
        page.close()


def _rgb(hex_color: str) -> str:
    h = hex_color.lstrip("#")
    return "rgb({}, {}, {})".format(*(int(h[i : i + 2], 16) for i in (0, 2, 4)))


@needs_shared()
def test_light_and_dark_follow_the_theme_files(browser: Any, pages: dict[str, Path], tmp_path: Path) -> None:
    import tomllib

    root = Path(__file__).resolve().parents[2] / "themes"
    themes = {s: tomllib.loads((root / f"{s}.toml").read_text()) for s in ("light", "dark")}
    keep = os.environ.get("LOOMTUI_SCREENSHOTS")  # a directory to keep the screenshots in, to look at
    for scheme in ("light", "dark"):
        page = open_page(browser, pages["dnouri-browse-session.jsonl"], scheme=scheme)
        try:
            page.set_viewport_size({"width": 1300, "height": 850})
            bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
            assert bg == _rgb(themes[scheme]["background"])
            accent = page.evaluate("getComputedStyle(document.querySelector('.row .s1')).color")
            assert accent == _rgb(themes[scheme]["tree"]["accent"])
            page.screenshot(path=str(tmp_path / f"page-{scheme}.png"))
            if keep:
                page.screenshot(path=str(Path(keep) / f"page-{scheme}.png"))
        finally:
            page.close()


@needs_shared()
def test_theme_option_forces_one_theme(browser: Any, tmp_path: Path) -> None:
    out = tmp_path / "dark.html"
    export_html(open_any(str(FIXTURES[0])), str(out), theme="dark")
    page = open_page(browser, out, scheme="light")
    try:
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(28, 28, 28)"
    finally:
        page.close()


PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def test_main_pane_shows_every_kind(browser: Any, tmp_path: Path) -> None:
    lines = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"},
        {
            "type": "message",
            "id": "u1",
            "parentId": None,
            "timestamp": "2026-01-01T00:00:01.000Z",
            "message": {
                "role": "user",
                "content": [
                    {"type": "text", "text": "# Title\n\n**bold** `code`"},
                    {"type": "image", "mimeType": "image/png", "data": PNG_1PX},
                ],
            },
        },
        {
            "type": "message",
            "id": "a1",
            "parentId": "u1",
            "timestamp": "2026-01-01T00:00:02.000Z",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "first I think\nthen more"},
                    {"type": "text", "text": "```python\ndef f():\n    return 1\n```"},
                    {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "seq 30"}},
                ],
                "stopReason": "toolUse",
                "provider": "p",
                "model": "m1",
                "usage": {"input": 10, "output": 5, "totalTokens": 15, "cost": {"total": 0.25}},
            },
        },
        {
            "type": "message",
            "id": "r1",
            "parentId": "a1",
            "timestamp": "2026-01-01T00:00:03.000Z",
            "message": {
                "role": "toolResult",
                "toolCallId": "c1",
                "toolName": "bash",
                "content": [{"type": "text", "text": "\n".join(str(i) for i in range(1, 31))}],
                "details": {"diff": "-1 old\n+1 new"},
                "isError": False,
            },
        },
        {
            "type": "compaction",
            "id": "k1",
            "parentId": "r1",
            "timestamp": "2026-01-01T00:00:04.000Z",
            "summary": "compacted *so far*",
            "firstKeptEntryId": "u1",
            "tokensBefore": 5000,
        },
        {
            "type": "branch_summary",
            "id": "b1",
            "parentId": "k1",
            "timestamp": "2026-01-01T00:00:05.000Z",
            "fromId": "u1",
            "summary": "tried another way",
        },
        {
            "type": "custom_message",
            "id": "m1",
            "parentId": "b1",
            "timestamp": "2026-01-01T00:00:06.000Z",
            "customType": "note",
            "content": "a custom note",
            "display": True,
        },
        {
            "type": "model_change",
            "id": "mc",
            "parentId": "m1",
            "timestamp": "2026-01-01T00:00:07.000Z",
            "provider": "p",
            "modelId": "m2",
        },
        {
            "type": "thinking_level_change",
            "id": "tl",
            "parentId": "mc",
            "timestamp": "2026-01-01T00:00:08.000Z",
            "thinkingLevel": "high",
        },
        {
            "type": "message",
            "id": "a2",
            "parentId": "tl",
            "timestamp": "2026-01-01T00:00:09.000Z",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "done"}, {"type": "text", "text": 'say "hi" > 2\n\n\nnext\nline'}],
                "stopReason": "stop",
                "provider": "p",
                "model": "m2",
            },
        },
        {
            "type": "message",
            "id": "u2",
            "parentId": "a2",
            "timestamp": "2026-01-01T00:00:10.000Z",
            "message": {"role": "user", "content": "\nplain words > here\n\nsecond"},
        },
    ]
    src = tmp_path / "kinds.jsonl"
    src.write_text("".join(json.dumps(x) + "\n" for x in lines))
    out = tmp_path / "kinds.html"
    export_html(open_any(str(src)), str(out))
    page = open_page(browser, out, "?leafId=u2&targetId=u1")
    try:
        text = page.evaluate("document.getElementById('entries').innerText")
        # plain texts, filled in from the entries' lines: what markdown-it writes for them
        same = (
            "([sel, html]) => { const d = document.createElement('div'); d.innerHTML = html; "
            "return document.querySelector(sel).innerHTML === d.innerHTML; }"
        )
        assert page.evaluate(same, ["#e-a2 .md", "<p>done</p>\n<p>say &quot;hi&quot; &gt; 2</p>\n<p>next\nline</p>\n"])
        assert page.evaluate(same, ["#e-u2 .md", "<p>plain words &gt; here</p>\n<p>second</p>\n"])
        assert page.evaluate("document.querySelectorAll('[data-md]').length") == 0
        assert page.evaluate("document.querySelector('#e-u1 h1').textContent") == "Title"
        assert page.evaluate("document.querySelector('#e-u1 strong').textContent") == "bold"
        assert page.evaluate("document.querySelector('#e-u1 img').naturalWidth") == 1  # inline, decoded
        assert page.evaluate("document.querySelector('#e-a1 pre.hl .k').textContent") == "def"  # Pygments
        # thinking: collapsed, its text filled in from the entry's line
        assert page.evaluate("document.querySelector('#e-a1 details.thinking').open") is False
        assert page.evaluate("document.querySelector('#e-a1 .think').textContent") == "first I think\nthen more"
        # the tool result sits with its call; its own entry is hidden
        out_box = "#e-a1 .tool-out:has(pre.output)"
        assert page.evaluate(f"document.querySelector('{out_box} pre').textContent") == "\n".join(
            str(i) for i in range(1, 31)
        )
        assert page.evaluate("getComputedStyle(document.getElementById('e-r1')).display") == "none"
        heights = []
        for state in ("preview", "full", "collapsed", "preview"):
            assert page.evaluate(f"document.querySelector('{out_box}').dataset.state") == state
            heights.append(page.evaluate(f"document.querySelector('{out_box}').getBoundingClientRect().height"))
            page.click(f"{out_box} .tstate")
        assert heights[2] < heights[0] < heights[1]  # collapsed < preview < full
        assert page.evaluate("document.querySelector('#e-a1 .diff .gd') !== null")  # details.diff, highlighted
        assert "compaction: 5,000 tokens before" in text and "so far" in text
        assert "branch summary (from u1)" in text and "tried another way" in text
        assert "a custom note" in text
        assert "model change: p/m2" in text and "thinking level: high" in text
        assert "p/m1" in text and "$0.2500" in text  # model and usage in the entry header
        # the time, read from the entry's own line
        assert "2026-01-01T00:00:02.000Z" in page.evaluate("document.querySelector('#e-a1 .eh').innerText")
        head = page.evaluate("document.getElementById('head').innerText")
        assert "p/m1" in head and "$0.2500" in head and "cwd /w" in head
        # copy-link gives a link to this view at that entry
        page.context.grant_permissions(["clipboard-read", "clipboard-write"])
        assert page.evaluate("document.querySelector('#e-k1 .copy-link').dataset.id") == "k1"
        assert page.errors == []  # type: ignore[attr-defined]
    finally:
        page.close()


@needs_shared()
def test_downloads_give_the_file_and_the_branch(browser: Any, pages: dict[str, Path]) -> None:
    fixture = FIXTURES[0]
    page = open_page(browser, pages[fixture.name])
    try:
        with page.expect_download() as got:
            page.click("[data-download='file']")
        assert Path(got.value.path()).read_bytes() == fixture.read_bytes()
        manager = open_any(str(fixture))
        with page.expect_download() as got:
            page.click("[data-download='branch']")
        lines = Path(got.value.path()).read_text().splitlines()
        head = json.loads(lines[0])
        assert head["type"] == "session" and head["id"] != manager.header["id"]  # a new session (export-branch's)
        kept = [e.id for e in manager.index.path_to(manager.get_leaf_id()) if e.type != "label"]
        assert [json.loads(x)["id"] for x in lines[1 : 1 + len(kept)]] == kept
    finally:
        page.close()


GIF_1PX = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"


def test_images_are_filled_in_from_the_entry_lines_and_decoded(browser: Any, tmp_path: Path) -> None:
    """The rendered image holds no data (``data-img``: the entry, ``data-i``: its index in the
    content); the page sets ``src`` from the entry's line, under the page's CSP: a user image, a
    GIF in a tool result shown with its call (read from the result's line), and a type the page
    does not show inline (a placeholder, no ``img``)."""
    lines = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"},
        {
            "type": "message",
            "id": "u1",
            "parentId": None,
            "timestamp": "2026-01-01T00:00:01.000Z",
            "message": {
                "role": "user",
                "content": [
                    {"type": "text", "text": "look"},
                    {"type": "image", "mimeType": "image/svg+xml", "data": PNG_1PX},
                    {"type": "image", "mimeType": "image/png", "data": PNG_1PX},
                ],
            },
        },
        {
            "type": "message",
            "id": "a1",
            "parentId": "u1",
            "timestamp": "2026-01-01T00:00:02.000Z",
            "message": {
                "role": "assistant",
                "content": [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "x.gif"}}],
                "stopReason": "toolUse",
                "provider": "p",
                "model": "m",
            },
        },
        {
            "type": "message",
            "id": "r1",
            "parentId": "a1",
            "timestamp": "2026-01-01T00:00:03.000Z",
            "message": {
                "role": "toolResult",
                "toolCallId": "c1",
                "toolName": "read",
                "isError": False,
                "content": [
                    {"type": "text", "text": "Read image file [image/gif]"},
                    {"type": "image", "mimeType": "image/gif", "data": GIF_1PX[:20] + "\n" + GIF_1PX[20:]},
                ],
            },
        },
    ]
    src = tmp_path / "images.jsonl"
    src.write_text("".join(json.dumps(x) + "\n" for x in lines))
    out = tmp_path / "images.html"
    export_html(open_any(str(src)), str(out))
    assert "src=" not in out.read_text().split("<body", 1)[1].replace("<script nonce", "")
    page = open_page(browser, out, "?leafId=r1", csp=True)
    try:
        page.wait_for_function("[...document.querySelectorAll('#entries img')].every(i => i.complete)")
        imgs = page.evaluate(
            "[...document.querySelectorAll('#entries img')].map(i => "
            "[i.closest('.entry').id, i.dataset.img, i.dataset.i, i.naturalWidth, i.src.slice(0, 22)])"
        )
        assert imgs == [
            ["e-u1", "u1", "2", 1, "data:image/png;base64,"],
            ["e-a1", "r1", "1", 1, "data:image/gif;base64,"],
        ]
        assert "[image image/svg+xml" in page.evaluate("document.querySelector('#e-u1').innerText")
        assert page.errors == []  # type: ignore[attr-defined]
    finally:
        page.close()
