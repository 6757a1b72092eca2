"""Exports keep the session's name (a pi ``session_info`` entry) even when the branch exported
does not hold the entry that named it: export-branch, the OpenLoom export and the HTML title."""

from __future__ import annotations

import json
import re
from pathlib import Path

from loomtui.cli import main
from loomtui.formats.detect import open_any
from loomtui.session.manager import SessionManager


def msg(
    eid: str, parent: str | None, role: str = "user", text: str = "hi", ts: str = "2026-03-01T09:00:01.000Z"
) -> dict:
    return {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": ts,
        "message": {"role": role, "content": [{"type": "text", "text": text}]},
    }


def info(eid: str, parent: str, name: str, ts: str) -> dict:
    return {"type": "session_info", "id": eid, "parentId": parent, "timestamp": ts, "name": name}


def named_session(write_session) -> Path:
    # the name was given on the branch through b; c is a branch that never saw it
    return write_session(
        [
            msg("a", None),
            msg("b", "a", role="assistant", text="one", ts="2026-03-01T09:00:02.000Z"),
            info("n1", "b", "Refactor the parser", "2026-03-01T09:00:03.000Z"),
            msg("c", "a", text="other", ts="2026-03-01T09:00:04.000Z"),
        ]
    )


def test_export_branch_keeps_the_session_name(write_session, tmp_path: Path) -> None:
    src = named_session(write_session)
    out = tmp_path / "branch.jsonl"
    assert main(["export-branch", str(src), "--leaf", "c", "-o", str(out)]) == 0
    sm = SessionManager.open(str(out))
    assert sm.get_session_name() == "Refactor the parser"
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    # one session_info after the path, at the time the session was named; the context is unchanged
    assert [x["type"] for x in lines] == ["session", "message", "message", "session_info"]
    assert lines[-1]["parentId"] == "c" and lines[-1]["timestamp"] == "2026-03-01T09:00:03.000Z"
    messages = [item.message() for item in sm.session_context_plan().items]
    assert [m["content"][0]["text"] for m in messages if m is not None] == ["hi", "other"]


def test_a_branch_that_names_the_session_gets_no_second_entry(write_session, tmp_path: Path) -> None:
    src = named_session(write_session)
    out = tmp_path / "branch.jsonl"
    assert main(["export-branch", str(src), "--leaf", "n1", "-o", str(out)]) == 0
    types = [json.loads(x)["type"] for x in out.read_text().splitlines()]
    assert types.count("session_info") == 1


def test_openloom_and_html_exports_of_a_branch_keep_the_name(write_session, tmp_path: Path) -> None:
    src = named_session(write_session)
    loom = tmp_path / "branch.openloom.json"
    assert main(["export-openloom", str(src), "--leaf", "c", "-o", str(loom)]) == 0
    assert open_any(str(loom)).get_session_name() == "Refactor the parser"
    page = tmp_path / "branch.html"
    assert main(["export-html", str(src), "--leaf", "c", "-o", str(page)]) == 0
    assert re.search(r"<title>[^<]*Refactor the parser", page.read_text(encoding="utf-8"))
