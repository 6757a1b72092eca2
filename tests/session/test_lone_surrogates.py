"""A session whose messages hold a lone surrogate (``\\ud800`` escaped in its JSON, which pi's
``JSON.parse`` reads): the picker's summary shows the first message, full-text search finds
words around it, and the catalog cache still saves (small files and the windows of huge ones)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loomtui.session import catalog, catalog_window
from loomtui.session.fulltext import SearchHit, search_sessions


def write(path: Path, text_json: str) -> None:
    """``text_json``: the first message's text as JSON string contents (escapes kept)."""
    lines = [
        '{"type":"session","version":3,"id":"s1","timestamp":"2026-03-01T09:00:00.000Z","cwd":"/w"}',
        '{"type":"message","id":"e1","parentId":null,"timestamp":"2026-03-01T09:00:01.000Z",'
        f'"message":{{"role":"user","content":"{text_json}"}}}}',
        '{"type":"message","id":"e2","parentId":"e1","timestamp":"2026-03-01T09:00:02.000Z",'
        '"message":{"role":"assistant","content":[{"type":"text","text":"ok"}]}}',
    ]
    path.write_text("\n".join(lines) + "\n")


def hits(path: Path, query: str) -> list[SearchHit]:
    return [h for h in search_sessions([str(path)], query) if isinstance(h, SearchHit)]


@pytest.mark.parametrize("windows", [False, True])
@pytest.mark.parametrize("lone", ["\\ud800", "\\udfff", "\\ud83d", "\\udc00\\ud800"])
def test_summary_and_search_see_the_message(
    tmp_path: Path, lone: str, windows: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if windows:
        monkeypatch.setattr(catalog_window, "WINDOW_LIMIT", 100)
    path = tmp_path / "s.jsonl"
    write(path, f"hello {lone} needle world")
    s = catalog.summarize(str(path))
    assert s is not None and s.first_message.startswith("hello") and "needle" in s.first_message
    assert s.message_count == 2
    assert hits(path, "needle"), "full-text search finds the message"
    cache = catalog.SummaryCache(str(tmp_path / "cache.json"))
    cache.dirty = True
    cache.rows[str(path)] = [0, 0, 0, s.first_message]
    cache.save()  # never raises for a lone surrogate
    assert (tmp_path / "cache.json").is_file()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    before=st.text(alphabet="abc ", max_size=6),
    code=st.integers(0xD800, 0xDFFF),
    after=st.text(alphabet="xyz ", max_size=6),
)
def test_any_lone_surrogate(tmp_path: Path, before: str, code: int, after: str) -> None:
    path = tmp_path / "s.jsonl"
    write(path, f"{before}\\u{code:04x} needle{after}")
    s = catalog.summarize(str(path))
    assert s is not None and "needle" in s.first_message
    assert hits(path, "needle")
    assert json.loads(f'"\\u{code:04x}"') in s.first_message
