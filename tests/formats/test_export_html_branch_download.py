"""The page's "download branch" button, in a real browser (Debian's chromium driven by
playwright): it gives the pi session `loomtui export-branch` writes for the shown branch (for a
Claude Code or Codex session, `--as pi`), under a new session id and with no placeholder dates.

It gave the session's header as it stands (the source's id; Claude Code's version string as a
pi version) and the entries' records as the page holds them: label entries left in place of the
re-created labels, a loom's 1970 ordering keys as times, loomtui's own keys on an adapted entry.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from loomtui.formats.agent.session import AgentSession
from loomtui.formats.detect import open_any
from loomtui.formats.html.export import export_html
from tests.formats.test_export_html_browser import CHROMIUM, browser  # noqa: F401 (fixture)
from tests.shared_material import FIXTURES, require_shared

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium installed (apt-get install chromium)"),
    pytest.mark.xdist_group("html-browser"),
]

T0 = "2026-01-01T00:00:0{}.000Z"


def _usage() -> dict[str, Any]:
    cost = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
    return {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2, "cost": cost}


def labelled_session(path: Path) -> Path:
    """A pi session with label entries inside the branch (its copies are re-linked around them),
    a compaction keeping from a label, a name given off the branch, and a label holding `"`."""
    lines = [
        {"type": "session", "version": 3, "id": "s1", "timestamp": T0.format(0), "cwd": "/w"},
        {"type": "message", "id": "u1", "parentId": None, "timestamp": T0.format(1),
         "message": {"role": "user", "content": "hi", "timestamp": 1}},
        {"type": "label", "id": "l1", "parentId": "u1", "timestamp": T0.format(2), "targetId": "u1",
         "label": 'first "q" \\ é'},
        {"type": "message", "id": "a1", "parentId": "l1", "timestamp": T0.format(3),
         "message": {"role": "assistant", "content": [{"type": "text", "text": "yo"}], "provider": "p",
                     "model": "m", "usage": _usage(), "stopReason": "stop", "timestamp": 2}},
        {"type": "label", "id": "l2", "parentId": "a1", "timestamp": T0.format(4), "targetId": "a1", "label": "x"},
        {"type": "compaction", "id": "c1", "parentId": "l2", "timestamp": T0.format(5), "summary": "sum",
         "firstKeptEntryId": "l2", "tokensBefore": 5},
        {"type": "message", "id": "u2", "parentId": "c1", "timestamp": T0.format(6),
         "message": {"role": "user", "content": "again", "timestamp": 3}},
        {"type": "session_info", "id": "i2", "parentId": "u1", "timestamp": T0.format(7), "name": "The name"},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    return path


def download_branch(browser: Any, manager: Any, tmp_path: Path, leaf: str, name: str) -> tuple[str, list[str]]:
    page_file = tmp_path / "page.html"
    export_html(manager, str(page_file), source_name=name)
    assert "download branch as a pi session (.jsonl)" in page_file.read_text(encoding="utf-8")
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(page_file.as_uri() + f"?leafId={leaf}")
        page.wait_for_selector("html[data-ready='1']", state="attached", timeout=30000)
        with page.expect_download(timeout=90000) as got:  # a loaded CI machine: the wait ends at the download
            page.click("[data-download='branch']")
        file_name = got.value.suggested_filename
        lines = Path(got.value.path()).read_text(encoding="utf-8").splitlines()
    finally:
        page.close()
    assert errors == []
    return file_name, lines


def same_but_new(got: list[str], want: list[str]) -> None:
    """``got`` is ``want`` but for what each export makes afresh: the session id, the export's time
    and the ids of the entries written after the branch."""
    assert len(got) == len(want), ([json.loads(x)["type"] for x in got], [json.loads(x)["type"] for x in want])
    g0, w0 = json.loads(got[0]), json.loads(want[0])
    swap = {g0["timestamp"]: w0["timestamp"], g0["id"]: w0["id"]}
    for g, w in zip(got[1:], want[1:], strict=True):
        gid, wid = json.loads(g)["id"], json.loads(w)["id"]
        if gid != wid:
            swap[gid] = wid
    pattern = re.compile("|".join(re.escape(json.dumps(k)) for k in swap))
    fixed = [pattern.sub(lambda m: json.dumps(swap[json.loads(m.group(0))]), line) for line in got]
    assert fixed == want


def export_branch(manager: Any, leaf: str, where: Path) -> list[str]:
    """What `loomtui export-branch` writes (`--as pi` for a Claude Code or Codex session)."""
    where.mkdir()
    if isinstance(manager, AgentSession):
        out = manager.export_pi(leaf, dir=str(where))
    else:
        out = manager.create_branched_session(leaf, dir=str(where))
    return Path(out).read_text(encoding="utf-8").splitlines()


def shared_branch(browser: Any, tmp_path: Path, rel: str, leaf: str | None = None) -> tuple[Any, list[str]]:
    """A shared fixture's page download of the branch ending at ``leaf`` (the file's leaf when
    None), checked equal to what `export-branch` writes but for what each export makes afresh."""
    src = FIXTURES / rel
    if not src.exists():
        require_shared(str(src))
    manager = open_any(str(src))
    leaf = leaf or manager.get_leaf_id()
    _name, got = download_branch(browser, manager, tmp_path, leaf, src.name)
    same_but_new(got, export_branch(manager, leaf, tmp_path / "want"))
    return manager, got


def test_a_pi_branch_is_what_export_branch_writes(browser: Any, tmp_path: Path) -> None:
    src = labelled_session(tmp_path / "s.jsonl")
    manager = open_any(str(src))
    name, got = download_branch(browser, manager, tmp_path, "u2", src.name)
    want = export_branch(manager, "u2", tmp_path / "want")
    same_but_new(got, want)
    head = json.loads(got[0])
    assert head["id"] != "s1" and head["version"] == 3 and head["parentSession"] == str(src)
    assert name == f"{head['timestamp'].replace(':', '-').replace('.', '-')}_{head['id']}.jsonl"
    types = [json.loads(x)["type"] for x in got]
    assert types == ["session", "message", "message", "compaction", "message", "label", "label", "session_info"]


@pytest.mark.parametrize(
    "rel",
    [
        "claude/claude-code-log__ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl",
        "claude/claude-code-viewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
        "codex/agtrace__codex_session.jsonl",
    ],
)
def test_an_adapted_session_gives_its_pi_copy(browser: Any, tmp_path: Path, rel: str) -> None:
    manager, got = shared_branch(browser, tmp_path, rel)
    head = json.loads(got[0])
    assert head["version"] == 3 and head["id"] != manager.header["id"] and "tool" not in head
    assert not any("agentSource" in json.loads(x) for x in got)


def test_a_loom_branch_has_no_placeholder_dates(browser: Any, tmp_path: Path) -> None:
    leaf = "530a51de-177c-11ec-9e36-acde48001122"  # bookmarked, under bookmarked nodes
    _manager, got = shared_branch(browser, tmp_path, "loom/socketteer-loom_demo.json", leaf)
    assert "1970-" not in "".join(got)
    assert all(json.loads(x).get("timestamp") for x in got)
    assert sum(json.loads(x)["type"] == "label" for x in got) >= 2


def test_a_version_1_session_gives_its_migrated_branch(browser: Any, tmp_path: Path) -> None:
    """A version 1 session's page offered no branch (its export waited for `migrate`); it gives
    the branch as migrated in memory, as `export-branch` now writes it."""
    _manager, got = shared_branch(browser, tmp_path, "pi/pi-mono-large-session.jsonl")
    assert json.loads(got[0])["version"] == 3 and all("id" in json.loads(x) for x in got[1:])
