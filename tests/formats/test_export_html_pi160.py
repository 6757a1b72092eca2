"""The HTML page as pi 1.6.0's export: system prompts and tools shown, custom messages marked
hidden behind a toggle (H), and pi's URL allow-list for Markdown links and images (checked
against the allow-list function in pi's own page template, run in node)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from loomtui.formats.detect import open_any
from loomtui.formats.html.export import build_page, export_html
from loomtui.formats.html.markdown import _markdown_renderer, safe_url
from tests.formats.test_export_html import blobs, records
from tests.shared_material import needs

NEW_KINDS = Path(__file__).resolve().parents[1] / "fixtures" / "pi160" / "new-kinds.jsonl"
PEER = Path(os.environ.get("PI_PEER", "/tmp/peer"))
TEMPLATE = (
    PEER / "node_modules" / "@earendil-works" / "pi-coding-agent" / "dist" / "core" / "export-html" / "template.js"
)
NODE = str(PEER / "bin" / "node") if (PEER / "bin" / "node").exists() else shutil.which("node")
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)

URLS = [
    "https://example.org/a?b=c",
    "HTTP://x",
    "mailto:a@b.c",
    "tel:+1234",
    "ftp://files",
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "java\tscript:alert(1)",
    "java\nscript:x",
    "\x01javascript:x",
    " javascript:x ",
    "data:text/html,<b>x</b>",
    "data:image/png;base64,AAAA",
    "vbscript:x",
    "file:///etc/passwd",
    "ssh://host",
    "blob:https://x/y",
    "/relative/path",
    "relative.html",
    "#fragment",
    "?q=1",
    "",
    "a:b",
    "x+y.z-w:rest",
    "1abc:notascheme",
    "https\x00://x",
]


def pi_sanitize(urls: list[str]) -> list[str | None]:
    """pi's ``sanitizeMarkdownUrl``, taken from its page template and run as it is."""
    src = TEMPLATE.read_text(encoding="utf-8")
    start = src.index("function sanitizeMarkdownUrl(")
    end = src.index("\n      }\n", start) + len("\n      }\n")
    script = (
        src[start:end] + "\nconst urls = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n"
        "process.stdout.write(JSON.stringify(urls.map(sanitizeMarkdownUrl)));\n"
    )
    out = subprocess.run(
        [str(NODE), "-e", script], input=json.dumps(urls), capture_output=True, text=True, check=True, timeout=60
    )
    return json.loads(out.stdout)  # type: ignore[no-any-return]


@needs("node and pi 1.6.0 in $PI_PEER" if NODE is None or not TEMPLATE.exists() else None)
def test_the_url_allow_list_is_pis() -> None:
    assert [safe_url(u) for u in URLS] == pi_sanitize(URLS)


def test_a_refused_link_keeps_its_text_and_a_refused_image_its_alt_text() -> None:
    md = _markdown_renderer()
    assert md.render("[click **me**](javascript:alert(1))").strip() == "<p>click <strong>me</strong></p>"
    assert md.render("[x](<java\tscript:alert(1)>)").strip() == "<p>x</p>"
    assert md.render("![a chart](data:image/svg+xml,<svg/>)").strip() == "<p>a chart</p>"
    assert md.render("[docs](https://example.org)").strip() == '<p><a href="https://example.org">docs</a></p>'
    assert md.render("[up](../README.md)").strip() == '<p><a href="../README.md">up</a></p>'
    assert md.render("[ssh](ssh://host)").strip() == "<p>ssh</p>"


def test_system_prompts_and_tools_are_on_the_page() -> None:
    data = blobs(build_page(open_any(str(NEW_KINDS))))
    by_id = {json.loads(r[0]).get("id"): r for r in records(data) if r[0]}
    lead, update = by_id["sys00001"], by_id["sys00002"]
    assert lead[3] == "system" and lead[4][0] == "system prompt"
    for text in (
        "You are an expert coding assistant.",
        "section preamble",
        "Be brief.",
        "tools added (2): read, write",
        "Read a file from disk.",
    ):
        assert text in lead[1]
    assert update[4][0] == "system prompt update"
    assert "section skills: removed" in update[1] and "tools removed (1): write" in update[1]
    edit = by_id["ced00001"]
    assert "context edit: omits entry ast00001" in edit[4][0]


def test_no_system_context_leaves_out_system_messages_too() -> None:
    page = build_page(open_any(str(NEW_KINDS)), no_system_context=True)
    data = blobs(page)
    everything = json.dumps(records(data)) + json.dumps(data["side"]) + json.dumps(data.get("find")) + page
    for secret in ("You are an expert coding assistant.", "Be brief.", "Read a file from disk.", "<skills>"):
        assert secret not in everything


def hidden_session(tmp_path: Path) -> Path:
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "h", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"},
        {
            "type": "message",
            "id": "u1",
            "parentId": None,
            "timestamp": "2026-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": "hello", "timestamp": 1},
        },
        {
            "type": "custom_message",
            "id": "c1",
            "parentId": "u1",
            "timestamp": "2026-01-01T00:00:02.000Z",
            "customType": "reminder",
            "content": "THE HIDDEN REMINDER",
            "display": False,
        },
        {
            "type": "custom_message",
            "id": "c2",
            "parentId": "c1",
            "timestamp": "2026-01-01T00:00:03.000Z",
            "customType": "note",
            "content": "THE SHOWN NOTE",
            "display": True,
        },
        {
            "type": "message",
            "id": "a1",
            "parentId": "c2",
            "timestamp": "2026-01-01T00:00:04.000Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "hi"}], "stopReason": "stop"},
        },
    ]
    path = tmp_path / "hidden.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def test_hidden_custom_messages_are_marked_for_the_toggle(tmp_path: Path) -> None:
    page = build_page(open_any(str(hidden_session(tmp_path))))
    lines = [(json.loads(r[0]), r) for r in records(blobs(page)) if r[0]]
    kinds = {obj["id"]: r[3] for obj, r in lines if obj.get("type") == "custom_message"}
    assert kinds == {"c1": "custom-hidden", "c2": "custom"}
    assert re.search(
        r'<button class="btn" data-toggle="hidden" aria-pressed="false"[^>]*>show hidden messages \(H\)', page
    )


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium installed (apt-get install chromium)")
def test_hidden_messages_in_a_browser_h_and_the_sidebar_show_them(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    out = tmp_path / "hidden.html"
    export_html(open_any(str(hidden_session(tmp_path))), str(out))
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 1200})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(out.as_uri())
            page.wait_for_selector("html[data-ready='1']", state="attached", timeout=30000)
            assert page.is_visible("#e-c2") and not page.is_visible("#e-c1")  # hidden by default
            page.click("#head")  # focus on the page, not the search box
            page.keyboard.press("h")
            assert page.is_visible("#e-c1")
            assert page.get_attribute("[data-toggle=hidden]", "aria-pressed") == "true"
            page.keyboard.press("H")
            assert not page.is_visible("#e-c1")
            page.fill("#search", "h")  # typing h in the search box searches; it toggles nothing
            assert not page.is_visible("#e-c1")
            page.fill("#search", "")
            page.click("[data-toggle=hidden]")
            assert page.is_visible("#e-c1")
            page.click("[data-toggle=hidden]")
            page.click("#modes button[data-mode='all']")
            page.click("#rows .row:has-text('THE HIDDEN REMINDER')")  # the sidebar shows the one picked
            page.wait_for_selector("#e-c1.target", state="visible", timeout=10000)
            assert errors == []
        finally:
            browser.close()


ANSI_OUT = (
    "see \x1b]8;;https://example.org/docs\x07the docs\x1b]8;;\x07, \x1b[31mred\x1b[0m text, "
    "\x1b]8;id=1;javascript:alert(1)\x1b\\bad link\x1b]8;;\x1b\\ and \x1b]8;;mailto:a@b.c\x07mail\x1b]8;;\x07"
    "\x1b[2K\x1b_apc\x07 end\x1b"
)
ANSI_TO_HTML = TEMPLATE.with_name("ansi-to-html.js")


def pi_ansi(text: str) -> tuple[str, list[tuple[str, str]]]:
    """pi's ``ansiToHtml`` of ``text``, as (visible text, [(href, link text)])."""
    from html.parser import HTMLParser

    script = (
        f"import({json.dumps(ANSI_TO_HTML.as_uri())}).then(m => process.stdout.write("
        "m.ansiToHtml(require('fs').readFileSync(0, 'utf8'))));"
    )
    html = subprocess.run(
        [str(NODE), "-e", script], input=text, capture_output=True, text=True, check=True, timeout=60
    ).stdout
    got: list[str] = []
    links: list[tuple[str, str]] = []
    state: dict[str, Any] = {"href": None, "text": ""}

    class P(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag == "a":
                state["href"], state["text"] = dict(attrs)["href"], ""

        def handle_endtag(self, tag: str) -> None:
            if tag == "a":
                links.append((state["href"], state["text"]))
                state["href"] = None

        def handle_data(self, data: str) -> None:
            got.append(data)
            if state["href"] is not None:
                state["text"] += data

    P().feed(html)
    return "".join(got), links


@pytest.mark.skipif(
    CHROMIUM is None or NODE is None or not ANSI_TO_HTML.exists(),
    reason="needs chromium, node and pi 1.6.0 in $PI_PEER",
)
def test_terminal_hyperlinks_in_tool_output_are_links_as_in_pis_page(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "t", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"},
        {
            "type": "message",
            "id": "u1",
            "parentId": None,
            "timestamp": "2026-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": "run it", "timestamp": 1},
        },
        {
            "type": "message",
            "id": "a1",
            "parentId": "u1",
            "timestamp": "2026-01-01T00:00:02.000Z",
            "message": {
                "role": "assistant",
                "stopReason": "toolUse",
                "content": [{"type": "toolCall", "id": "call1", "name": "docs", "arguments": {"q": "x"}}],
            },
        },
        {
            "type": "message",
            "id": "r1",
            "parentId": "a1",
            "timestamp": "2026-01-01T00:00:03.000Z",
            "message": {
                "role": "toolResult",
                "toolCallId": "call1",
                "toolName": "docs",
                "isError": False,
                "content": [{"type": "text", "text": ANSI_OUT}],
            },
        },
    ]
    src = tmp_path / "ansi.jsonl"
    src.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    out = tmp_path / "ansi.html"
    export_html(open_any(str(src)), str(out))
    want_text, want_links = pi_ansi(ANSI_OUT)
    assert want_links == [("https://example.org/docs", "the docs"), ("mailto:a@b.c", "mail")]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 1200})
            page.goto(out.as_uri())
            page.wait_for_selector("html[data-ready='1']", state="attached", timeout=30000)
            pre = page.locator("pre[data-out]").first
            got_text = pre.evaluate("el => el.textContent")
            got_links = pre.evaluate(
                "el => [...el.querySelectorAll('a')].map(a => [a.getAttribute('href'), a.textContent])"
            )
            assert got_text == want_text and "\x1b" not in got_text
            assert [tuple(x) for x in got_links] == want_links
        finally:
            browser.close()


SAMPLE = (
    Path(__file__).resolve().parents[2]
    / "sample_sessions"
    / "2026-03-02T09-14-05-120Z_5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19.jsonl"
)
EXPORT_JS = TEMPLATE.parent / "index.js"


def pi_file_export_data(session: Path, out: Path) -> dict[str, Any]:
    """The session data pi 1.6.0's ``exportFromFile`` (``pi --export FILE``) embeds in its page."""
    import base64

    script = (
        f"import {{ exportFromFile }} from {json.dumps(EXPORT_JS.as_uri())};\n"
        "await exportFromFile(process.argv[1], process.argv[2]);\n"
    )
    subprocess.run(
        [str(NODE), "--input-type=module", "-e", script, str(session), str(out)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    m = re.search(r'id="session-data" type="application/json">([^<]*)<', out.read_text(encoding="utf-8"))
    assert m is not None
    return json.loads(base64.b64decode(m.group(1)))  # type: ignore[no-any-return]


@pytest.mark.skipif(NODE is None or not EXPORT_JS.exists(), reason="needs node and pi 1.6.0 in $PI_PEER")
def test_a_session_without_system_messages_has_no_fallback_prompt_and_says_so(tmp_path: Path) -> None:
    # pi 1.6.0 falls back to the running agent's current prompt and tools; from a file it has none
    data = pi_file_export_data(SAMPLE, tmp_path / "pi.html")
    assert "systemPrompt" not in data and "tools" not in data
    page = build_page(open_any(str(SAMPLE)))
    assert "no system prompt in the file" in page
    # a session that records its prompt shows it where it occurs, without the note
    assert "no system prompt in the file" not in build_page(open_any(str(NEW_KINDS)))
