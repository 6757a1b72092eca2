"""Shift+E exports what the app shows, not the file read again: a loom's labels not saved yet,
and the OCP run's lineage view when that is the view open."""

from __future__ import annotations

import base64
import gzip
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from app_helpers import browser, make_app, notices, select
from textual.widgets import Input

from loomtui.app.screens.browser import BrowserScreen
from loomtui.app.screens.dialogs import ConfirmDialog, LabelDialog
from tests.shared_material import FIXTURES, needs_shared
from tests.waits import until

ROOT = Path(__file__).resolve().parents[2]
SHARED = FIXTURES


def side_data(page: str) -> dict[str, Any]:
    m = re.search(r'id="d-side">([^<]*)<', page)
    assert m is not None
    return json.loads(gzip.decompress(base64.b64decode(m.group(1))))  # type: ignore[no-any-return]


async def _export(pilot: Any, screen: BrowserScreen, out_dir: Path) -> dict[str, Any]:
    app = pilot.app
    before = set(out_dir.iterdir())
    await screen.run_action("export_html")
    await until(pilot, lambda: any("Wrote" in n for n in notices(app)), what="the export's notice")
    (written,) = set(out_dir.iterdir()) - before
    return side_data(written.read_text(encoding="utf-8"))


@needs_shared()
async def test_a_label_not_saved_yet_is_on_the_exported_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "socketteer-loom_demo.json"
    shutil.copyfile(SHARED / "loom" / "socketteer-loom_demo.json", path)
    path.chmod(0o644)
    out_dir = tmp_path / "cwd"
    out_dir.mkdir()
    monkeypatch.chdir(out_dir)
    app = make_app(path)
    async with app.run_test(size=(140, 34)) as pilot:
        screen = await browser(pilot)
        nid = screen.model.entry_at(2).id
        await select(pilot, screen, nid)
        await screen.run_action("edit_label")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, LabelDialog)
        dialog.query_one(Input).value = "only in memory"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)  # save the bookmarks? no: memory only
        await pilot.press("n")
        await pilot.pause()
        side = await _export(pilot, screen, out_dir)
        labelled = {side["ids"][int(p)]: text for p, text in side["labels"].items()}
        assert labelled.get(nid) == "only in memory"


@needs_shared()
async def test_the_lineage_view_is_what_is_exported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_ocp_app import next_browser

    from loomtui.app.screens.source_actions import palette_commands

    monkeypatch.chdir(tmp_path)
    app = make_app(SHARED / "ocp" / "swarm-v02.ocp.json")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        palette_commands(screen)[0][1]()  # the run's spawn/launch lineage view
        lineage = await next_browser(pilot, screen)
        assert lineage.manager.index.by_id["n:S-rev"].parent_id == "a:S-lead.a1"
        side = await _export(pilot, lineage, tmp_path)
        ids = side["ids"]
        pos = {eid: p for p, eid in enumerate(ids)}
        assert side["parent"][pos["n:S-rev"]] == pos["a:S-lead.a1"]  # the lineage's parent, not the DAG's


async def test_appends_wait_while_the_page_is_made_from_the_open_session(
    fixture_copy: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from app_helpers import append_lines

    from loomtui.formats.html import export as export_html

    release = threading.Event()
    started = threading.Event()
    real = export_html.export_session_to_free_name

    def slow(*args: Any, **kw: Any) -> str:
        started.set()
        assert release.wait(30)
        return real(*args, **kw)

    monkeypatch.setattr(export_html, "export_session_to_free_name", slow)
    monkeypatch.chdir(tmp_path)
    path = fixture_copy("kinds.jsonl")
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        n = len(screen.manager.index.entries)
        await screen.run_action("export_html")
        await until(pilot, started.is_set, what="the export to start reading")
        append_lines(
            path,
            {
                "type": "message",
                "id": "late0001",
                "parentId": screen.manager.index.leaf_id,
                "timestamp": "2025-06-01T11:00:00.000Z",
                "message": {"role": "user", "content": "appended meanwhile", "timestamp": 1},
            },
        )
        screen.apply_appended()  # what the watcher calls
        assert len(screen.manager.index.entries) == n  # not while the export reads the session
        release.set()
        await until(pilot, lambda: any("Wrote" in x for x in notices(app)), what="the export's notice")
        await until(pilot, lambda: "late0001" in screen.manager.index.by_id, what="the held-back append")
        assert screen.model.row_of("late0001") is not None
