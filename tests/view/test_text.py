"""One-line texts and tool-call formatting (pi-session-spec §9.4–§9.5, §16.10)."""

from __future__ import annotations

from datetime import datetime

from loomtui.view.text import format_label_time, format_tool_call, normalize
from loomtui.view.width import text_width, truncate_to_width

HOME = "/home/user"


def test_read_with_offset_and_limit() -> None:
    assert (
        format_tool_call("read", {"path": "/home/user/x.py", "offset": 10, "limit": 20}, HOME) == "[read: ~/x.py:10-29]"
    )
    assert format_tool_call("read", {"file_path": "/etc/h", "offset": 5}, HOME) == "[read: /etc/h:5]"
    assert format_tool_call("read", {"path": "/a", "limit": 3}, HOME) == "[read: /a:1-3]"


def test_bash_is_cut_at_fifty_units_with_ellipsis() -> None:
    cmd = "echo " + "x" * 60
    assert format_tool_call("bash", {"command": cmd}, HOME) == f"[bash: {cmd[:50]}...]"
    assert format_tool_call("bash", {"command": "a\tb\nc"}, HOME) == "[bash: a b c]"


def test_grep_find_ls_defaults() -> None:
    assert format_tool_call("grep", {"pattern": "TODO"}, HOME) == "[grep: /TODO/ in .]"
    assert format_tool_call("find", {"pattern": "*.py", "path": "/home/user/p"}, HOME) == "[find: *.py in ~/p]"
    assert format_tool_call("ls", {}, HOME) == "[ls: .]"


def test_unknown_tool_shows_json_cut_at_forty() -> None:
    assert format_tool_call("web", {"url": "https://example.com/a/very/long/path/here"}, HOME) == (
        '[web: {"url":"https://example.com/a/very/long/...]'
    )
    assert format_tool_call("x", {"n": 1.0, "ok": True}, HOME) == '[x: {"n":1,"ok":true}]'


def test_utf16_cut_replaces_half_surrogate() -> None:
    cmd = "a" * 49 + "🎉tail"
    assert format_tool_call("bash", {"command": cmd}, HOME) == "[bash: " + "a" * 49 + "\ufffd...]"


def test_normalize_replaces_newlines_and_tabs_and_trims() -> None:
    assert normalize("  a\nb\tc  ") == "a b c"


def test_width_counts_wide_characters() -> None:
    assert text_width("東京") == 4
    assert truncate_to_width("東京東京", 7) == "東京..."
    assert truncate_to_width("abcdef", 5) == "ab..."
    assert truncate_to_width("abc", 5) == "abc"


def test_label_time_formats() -> None:
    now = datetime(2026, 5, 6, 12, 0).astimezone()
    today = datetime(2026, 5, 6, 9, 5).astimezone()
    assert format_label_time(today.isoformat(), now) == "09:05"
    assert format_label_time(datetime(2026, 1, 2, 3, 4).astimezone().isoformat(), now) == "1/2 03:04"
    assert format_label_time(datetime(2024, 1, 2, 3, 4).astimezone().isoformat(), now) == "24/1/2 03:04"
