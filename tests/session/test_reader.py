"""Reader rules: pi's tolerant JSONL reading (pi-session-spec §2), plus what loomtui keeps."""

from __future__ import annotations

import pytest
from session_helpers import HEADER, dumps, msg

from loomtui.session.errors import SessionFormatError
from loomtui.session.manager import SessionManager


def ids(sm: SessionManager) -> list[str]:
    return [e.id for e in sm.index.entries]


def diags(sm: SessionManager) -> list[tuple[int, str]]:
    return [(d.line, d.reason) for d in sm.diagnostics]


def test_utf8_bom_before_header_is_accepted(write_session):
    path = write_session([msg("a1", None)], header=None)
    path.write_bytes(b"\xef\xbb\xbf" + (dumps(HEADER) + "\n").encode() + path.read_bytes())
    sm = SessionManager.open(str(path))
    assert sm.header["id"] == "sess-0001"
    assert ids(sm) == ["a1"]
    assert sm.diagnostics == []


def test_crlf_line_endings_are_read_and_spans_exclude_the_cr(write_session):
    path = write_session([])
    lines = [dumps(HEADER), dumps(msg("a1", None)), dumps(msg("a2", "a1"))]
    path.write_bytes(b"\r\n".join(x.encode() for x in lines) + b"\r\n")
    sm = SessionManager.open(str(path))
    assert ids(sm) == ["a1", "a2"]
    assert sm.get_entry("a2")["parentId"] == "a1"
    assert sm.raw_line(sm.index.by_id["a2"]) == dumps(msg("a2", "a1")).encode()
    assert sm.diagnostics == []


def test_blank_and_whitespace_lines_are_skipped_without_diagnostic(write_session):
    path = write_session(["", msg("a1", None), "   ", "\t", msg("a2", "a1"), ""])
    sm = SessionManager.open(str(path))
    assert ids(sm) == ["a1", "a2"]
    assert sm.diagnostics == []
    assert sm.state.lines[0].kind == "header"
    assert len(sm.state.lines) == 1


def test_torn_last_line_without_newline_is_kept_unread_with_diagnostic(write_session):
    path = write_session([msg("a1", None), b'{"type":"message","id":"a2","parentId":"a1","times'])
    sm = SessionManager.open(str(path))
    assert ids(sm) == ["a1"]
    assert diags(sm) == [(3, "torn last line (no newline, not valid JSON): kept as is")]
    assert sm.get_leaf_id() == "a1"


def test_complete_last_line_without_newline_is_read_like_pi(write_session):
    path = write_session([msg("a1", None), msg("a2", "a1")], trailing_newline=False)
    sm = SessionManager.open(str(path))
    assert ids(sm) == ["a1", "a2"]
    assert sm.diagnostics == []


def test_non_json_lines_become_opaque_lines_with_line_numbers(write_session):
    path = write_session([msg("a1", None), "this is not json", "{broken", msg("a2", "a1")])
    sm = SessionManager.open(str(path))
    assert ids(sm) == ["a1", "a2"]
    assert [(d.line, d.reason.split(" (")[0]) for d in sm.diagnostics] == [(3, "not valid JSON"), (4, "not valid JSON")]
    assert [(li.line, li.kind) for li in sm.state.lines] == [(1, "header"), (3, "opaque"), (4, "opaque")]
    # the opaque line's span is exactly its bytes
    raw = path.read_bytes()
    li = sm.state.lines[1]
    assert raw[li.offset : li.offset + li.size] == b"this is not json"
    assert sm.get_entry("a2")["parentId"] == "a1"


def test_json_lines_that_are_not_objects_are_opaque(write_session):
    path = write_session([msg("a1", None), "[1, 2]", "42", '"text"', "null", "true"])
    sm = SessionManager.open(str(path))
    assert ids(sm) == ["a1"]
    assert diags(sm) == [
        (3, "not a JSON object (list)"),
        (4, "not a JSON object (int)"),
        (5, "not a JSON object (str)"),
        (6, "not a JSON object (NoneType)"),
        (7, "not a JSON object (bool)"),
    ]
    assert [li.line for li in sm.state.lines if li.kind == "opaque"] == [3, 4, 5, 6, 7]


def test_entry_without_string_id_is_opaque_with_diagnostic(write_session):
    path = write_session(
        [
            msg("a1", None),
            {"type": "message", "parentId": "a1", "timestamp": "x"},
            {"type": "custom", "id": 7, "parentId": "a1"},
        ]
    )
    sm = SessionManager.open(str(path))
    assert ids(sm) == ["a1"]
    assert diags(sm) == [(3, "entry without a string id"), (4, "entry without a string id")]


def test_non_string_parent_id_makes_a_root_with_diagnostic(write_session):
    path = write_session([msg("a1", None), {**msg("a2", None), "parentId": 5}])
    sm = SessionManager.open(str(path))
    assert [r.id for r in sm.index.roots] == ["a1", "a2"]
    assert diags(sm) == [(3, "entry a2: parentId is not a string; treated as a root")]


def test_omp_title_slot_line_before_header_is_folded(write_session):
    title = {
        "type": "title",
        "v": 1,
        "title": "Fix the build",
        "source": "auto",
        "updatedAt": "2026-03-01T09:00:00.000Z",
    }
    line = dumps({**title, "pad": ""})
    line = dumps({**title, "pad": " " * (255 - len(line.encode()))})
    assert len(line.encode()) + 1 == 256
    path = write_session([line, dumps(HEADER), msg("a1", None)], header=None)
    sm = SessionManager.open(str(path))
    assert sm.title is not None and sm.title["title"] == "Fix the build"
    assert sm.header["id"] == "sess-0001"
    assert ids(sm) == ["a1"]
    assert [(li.line, li.kind) for li in sm.state.lines] == [(1, "title"), (2, "header")]
    assert sm.diagnostics == []


def test_pi_v4_header_is_a_clear_error(write_session):
    path = write_session(
        [{"kind": "entry", "seq": 1}], header={"kind": "header", "version": 4, "id": "x", "createdAt": 1, "cwd": "/"}
    )
    with pytest.raises(SessionFormatError, match=r"pi v4 session log .*kind:\"header\".*v1-v3 session files only"):
        SessionManager.open(str(path))


def test_file_without_session_header_is_a_clear_error(write_session):
    path = write_session([msg("a1", None)], header=None)
    with pytest.raises(SessionFormatError, match=r"^line 1: no session header"):
        SessionManager.open(str(path))


def test_header_without_string_id_is_not_a_header(write_session):
    path = write_session([msg("a1", None)], header={"type": "session", "version": 3, "id": 12})
    with pytest.raises(SessionFormatError, match="no session header"):
        SessionManager.open(str(path))


def test_empty_file_is_a_clear_error(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    with pytest.raises(SessionFormatError, match="no session header"):
        SessionManager.open(str(path))


def test_missing_file_and_directory_are_clear_errors(tmp_path):
    with pytest.raises(SessionFormatError, match="cannot open"):
        SessionManager.open(str(tmp_path / "nope.jsonl"))
    with pytest.raises(SessionFormatError, match="is a directory"):
        SessionManager.open(str(tmp_path))


def test_second_session_header_is_ignored_as_entry(write_session):
    second = {**HEADER, "id": "sess-0002"}
    path = write_session([msg("a1", None), second, msg("a2", "a1")])
    sm = SessionManager.open(str(path))
    assert sm.header["id"] == "sess-0001"
    assert ids(sm) == ["a1", "a2"]
    assert diags(sm) == [(3, "second session header ignored")]
    assert [(li.line, li.kind) for li in sm.state.lines] == [(1, "header"), (3, "opaque")]


def test_garbage_before_the_header_is_kept_as_opaque(write_session):
    path = write_session(["garbage", dumps(HEADER), msg("a1", None)], header=None)
    sm = SessionManager.open(str(path))
    assert ids(sm) == ["a1"]
    assert [(d.line, d.reason.split(" (")[0]) for d in sm.diagnostics] == [(1, "not valid JSON")]


def test_unknown_entry_types_and_keys_are_kept(write_session):
    odd = {
        "type": "ttsr_injection",
        "id": "a2",
        "parentId": "a1",
        "timestamp": "2026-03-01T09:00:02.000Z",
        "injectedRules": ["r1"],
        "zzz": {"nested": True},
    }
    path = write_session([msg("a1", None), odd])
    sm = SessionManager.open(str(path))
    assert sm.get_entry("a2") == odd
    assert sm.index.by_id["a2"].type == "ttsr_injection"


def test_entry_spans_point_at_the_exact_line_bytes(pi_dir):
    path = pi_dir / "dnouri-browse-session.jsonl"
    sm = SessionManager.open(str(path))
    lines = path.read_bytes().split(b"\n")
    for e in sm.index.entries:
        assert sm.raw_line(e) == lines[e.line - 1]
