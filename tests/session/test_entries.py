"""The per-entry skeleton: what ``fill`` keeps, and that the fast assistant path agrees with the
general helpers."""

from __future__ import annotations

import pytest

from loomtui.session.entries import Entry, content_text, fill, has_text_content


def assistant(content):
    e = Entry("x", None, "message")
    fill(
        e,
        {
            "type": "message",
            "id": "x",
            "parentId": None,
            "timestamp": "t",
            "message": {"role": "assistant", "content": content, "stopReason": "toolUse"},
        },
    )
    return e


CONTENTS = [
    [],
    [{"type": "text", "text": "hello"}],
    [{"type": "text", "text": "  "}, {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "ls"}}],
    [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
    [{"type": "text", "text": "x" * 150}, {"type": "text", "text": "y" * 150}, {"type": "text", "text": "z"}],
    [{"type": "text", "text": "😀" * 150}, {"type": "text", "text": "tail"}],
    [
        {"type": "text", "text": None},
        {"type": "text", "text": 5},
        {"type": "text"},
        "junk",
        {"type": "text", "text": " k "},
    ],
    [{"type": "text", "text": "x" * 250}, {"type": "text", "text": 7}],
]


@pytest.mark.parametrize("content", CONTENTS)
def test_assistant_fast_path_agrees_with_content_helpers(content):
    e = assistant(content)
    assert e.text == content_text(content)
    assert e.has_text == has_text_content(content)
    calls = [
        (b.get("id"), b.get("name"), b.get("arguments"))
        for b in content
        if isinstance(b, dict) and b.get("type") == "toolCall"
    ]
    assert e.tool_calls == (tuple(calls) if calls else None)
    assert e.stop_reason == "toolUse"


def test_assistant_with_string_content():
    e = assistant("plain reply")
    assert (e.text, e.has_text, e.tool_calls) == ("plain reply", True, None)


def test_tool_only_assistant_is_recognised():
    assert assistant([{"type": "toolCall", "id": "c", "name": "read", "arguments": {}}]).is_tool_only_assistant
    assert not assistant([{"type": "text", "text": "hi"}]).is_tool_only_assistant


def test_long_tool_arguments_are_cut_but_short_ones_kept_as_is():
    args = {"path": "/a", "limit": 3}
    e = assistant([{"type": "toolCall", "id": "c", "name": "read", "arguments": args}])
    assert e.tool_calls[0][2] is args
    long = {"command": "x" * 5000, "nested": {"deep": "y" * 5000}}
    e = assistant([{"type": "toolCall", "id": "c", "name": "bash", "arguments": long}])
    kept = e.tool_calls[0][2]
    assert kept["command"] == "x" * len(kept["command"]) and 50 <= len(kept["command"]) < 5000
    assert 50 <= len(kept["nested"]["deep"]) < 5000


def test_user_entry_keeps_text_and_role():
    e = Entry("u", None, "message")
    fill(e, {"type": "message", "message": {"role": "user", "content": "  "}, "timestamp": "t"})
    assert (e.role, e.text, e.has_text, e.timestamp) == ("user", "  ", False, "t")


def test_an_entry_is_small_untracked_and_equal_only_to_itself():
    import gc
    import sys

    e = Entry("a", "p", "message")
    assert (e.role, e.stamp, e.index, e.span, e.text, e.aux, e.has_text, e.data) == (
        None,
        None,
        -1,
        0,
        None,
        None,
        False,
        None,
    )
    # no GC header: an entry refers to strings, ints and tuples, never back to itself
    assert not gc.is_tracked(e)
    assert sys.getsizeof(e) <= 16 * 8 + 16  # sixteen fields and the object header
    same = Entry("a", "p", "message")
    assert e != same and e == e and len({e, same}) == 2
    # every field in one call, in the order of the fields
    full = Entry("b", None, "message", "user", 5, 3, 7, "hi", "x", True, "stop", "bash", (), True, "h", {})
    assert [getattr(full, f) for f in Entry.__struct_fields__] == [
        "b",
        None,
        "message",
        "user",
        5,
        3,
        7,
        "hi",
        "x",
        True,
        "stop",
        "bash",
        (),
        True,
        "h",
        {},
    ]
