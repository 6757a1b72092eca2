"""The HTML page's entry header keeps each fact whole: a labelled entry's time and model broke
mid-word (`2026-03-` / `02T09:32:50.625Z`, `claude-sonnet-` / `4-5`) when the line was full."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from loomtui.formats.detect import open_any
from loomtui.formats.html.export import export_html
from loomtui.session.locations import sample_dir
from tests.formats.test_export_html_browser import CHROMIUM, browser, open_page  # noqa: F401 (fixture)

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium installed (apt-get install chromium)")

WEATHER = "2026-03-02T09-14-05-120Z_5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19.jsonl"


def test_header_facts_never_break_inside_a_word(browser: Any, tmp_path: Path) -> None:
    target = tmp_path / "weather.html"
    export_html(open_any(str(Path(sample_dir()) / WEATHER)), str(target), source_name=WEATHER)
    page = browser.new_page(viewport={"width": 1100, "height": 900}, color_scheme="light")
    try:
        page.goto(target.as_uri() + "?leafId=8e4f5a6c&targetId=8e4f5a6c")
        page.wait_for_selector("html[data-ready='1']", state="attached", timeout=30000)
        page.wait_for_selector("#e-8e4f5a6c .eh", timeout=30000)
        lines = page.evaluate("""() => [...document.querySelectorAll('#e-8e4f5a6c .eh > span')]
            .filter(s => s.textContent && !s.classList.contains('usage'))
            .map(s => [s.textContent, s.getClientRects().length, s.getBoundingClientRect().height])""")
        assert lines and any(text.startswith("2026-03-02T09:32") for text, _n, _h in lines)
        one_line = min(h for _t, _n, h in lines)
        assert [(t, h) for t, _n, h in lines if h > one_line * 1.5] == []
    finally:
        page.close()
