"""The header's version is read exactly as pi reads it (``version ?? 1``, then JavaScript's
``>=``/``<`` against 3 and 2), checked against the published pi for numbers, strings, floats
and odd values."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fault_helpers import needs_pi, pi_read, run_cli

from loomtui.session.manager import SessionManager

ABSENT = object()
VALUES: list[Any] = [
    3,
    3.0,
    "3",
    "3.0",
    " 3 ",
    "0x3",
    "3e0",
    2,
    2.0,
    "2",
    2.5,
    1,
    "1",
    1.9,
    "abc",
    None,
    ABSENT,
    True,
    False,
    [3],
    [],
    {},
    "",
    4,
    "Infinity",
    -1,
]


def _session(tmp_path: Path, n: int, version: Any) -> Path:
    header: dict[str, Any] = {"type": "session", "id": f"s{n}", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}
    if version is not ABSENT:
        header["version"] = version
    entries = [
        {
            "type": "message",
            "id": "a1",
            "parentId": None,
            "timestamp": "t1",
            "message": {"role": "user", "content": "one"},
        },
        {
            "type": "message",
            "id": "a2",
            "parentId": "a1",
            "timestamp": "t2",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "two"}]},
        },
        {
            "type": "message",
            "id": "a3",
            "parentId": "a1",
            "timestamp": "t3",
            "message": {"role": "hookMessage", "content": "three"},
        },
    ]
    path = tmp_path / f"v{n}.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in [header, *entries]))
    return path


@needs_pi
def test_versions_read_as_pi_reads_them(tmp_path):
    paths = [_session(tmp_path, n, v) for n, v in enumerate(VALUES)]
    for value, path, pi in zip(VALUES, paths, pi_read(*paths)):
        sm = SessionManager.open(str(path))
        ours = sm.index.entries
        what = f"version {value!r}"
        assert len(ours) == len(pi["ids"]), what
        if pi["ids"] == ["a1", "a2", "a3"]:  # pi kept the ids: a version 2 or 3 reading
            assert [e.id for e in ours] == pi["ids"], what
            assert [e.parent_id for e in ours] == pi["parents"], what
            assert sm.version >= 2, what
        else:  # pi migrated from version 1: new ids, one chain
            assert sm.version == 1, what
            assert [e.parent_id for e in ours[1:]] == [e.id for e in ours[:-1]], what
        assert [e.role for e in ours] == pi["roles"], what  # hookMessage renamed below version 3


@pytest.mark.parametrize("value", [3.0, "3", "3.0"])
def test_migrate_does_not_rewrite_a_version_3_written_oddly(tmp_path, value, capsys):
    path = _session(tmp_path, 0, value)
    before = path.read_bytes()
    code, out, err = run_cli(capsys, "migrate", str(path))
    assert code == 2 and "already version 3" in err
    assert path.read_bytes() == before and not (tmp_path / "v0.jsonl.bak").exists()


def test_js_to_number_follows_javascript():
    import math

    from loomtui.session.jsstr import js_to_number, session_version

    assert js_to_number(" 12 ") == 12 and js_to_number("0x10") == 16 and js_to_number("0b11") == 3
    assert js_to_number("") == 0 and js_to_number([]) == 0 and js_to_number([7]) == 7
    assert js_to_number(".5") == 0.5 and js_to_number("5.") == 5 and js_to_number("-Infinity") == -math.inf
    for nan in ("1_0", "inf", "nan", "+0x1", "3 3", {}, [1, 2], "infinity"):
        assert math.isnan(js_to_number(nan)), nan
    assert session_version("abc") == 3 and session_version(None) == 1 and session_version("2.9") == 2
