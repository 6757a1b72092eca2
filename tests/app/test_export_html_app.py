"""The app's "Export HTML": Shift+E and the command palette write the page and say where."""

from __future__ import annotations

import base64
import gzip
import json
import re
from pathlib import Path
from typing import Any

import pytest
from app_helpers import browser, make_app, notices, select

from loomtui.app.commands import LoomCommands
from tests.waits import until


def side_data(page: str) -> dict[str, Any]:
    m = re.search(r'id="d-side">([^<]*)<', page)
    assert m is not None
    return json.loads(gzip.decompress(base64.b64decode(m.group(1))))  # type: ignore[no-any-return]


async def test_shift_h_writes_the_page_at_the_selection(
    fixture_copy: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = fixture_copy("kinds.jsonl")
    out_dir = tmp_path / "cwd"
    out_dir.mkdir()
    monkeypatch.chdir(out_dir)
    (out_dir / "kinds.html").write_text("taken")  # never overwritten: the next free name
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "r1000004")
        await pilot.press("alt+e")
        await until(pilot, lambda: any("Wrote" in n for n in notices(app)), what="the export's notice")
        written = out_dir / "kinds-2.html"
        assert any(str(written) in n for n in notices(app))
        assert (out_dir / "kinds.html").read_text() == "taken"
        side = side_data(written.read_text())
        assert side["ids"][side["target"]] == "r1000004"
        # r1000004 is off the leaf's branch: the page opens on the newest branch through it
        # (as a click on its row in the page does), not on the leaf's, which cannot show it
        assert screen.model.leaf_id == "s1000001"  # type: ignore[union-attr]
        assert side["ids"][side["leaf"]] == "b1000001"
        titles = [t for t, _cb, _help in LoomCommands(app.screen).commands()]
        assert any(t.startswith("export HTML") for t in titles)


async def test_alt_e_on_the_leafs_branch_keeps_the_leaf(
    fixture_copy: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = fixture_copy("kinds.jsonl")
    monkeypatch.chdir(tmp_path)
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "u1000002")
        await pilot.press("alt+e")
        await until(pilot, lambda: any("Wrote" in n for n in notices(app)), what="the export's notice")
        side = side_data((tmp_path / "kinds.html").read_text())
        assert side["ids"][side["target"]] == "u1000002"
        assert side["ids"][side["leaf"]] == screen.model.leaf_id == "s1000001"  # type: ignore[union-attr]


async def test_the_writing_notice_stays_until_the_page_is_written(
    fixture_copy: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a 100k-entry session "Writing the HTML page…" went after 3 s and the page came seconds
    later, with no sign of work meanwhile: the notice stays until the page is written, then goes.
    The export is held until the test lets it go; the notices' clock is moved a minute on."""
    import threading
    import time

    import textual.notifications

    from loomtui.formats.html import export

    started, release = threading.Event(), threading.Event()
    real = export.export_session_to_free_name

    def held(*args: Any, **kwargs: Any) -> str:
        started.set()
        release.wait(60)
        return real(*args, **kwargs)

    monkeypatch.setattr(export, "export_session_to_free_name", held)
    monkeypatch.chdir(tmp_path)
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        await browser(pilot)
        await pilot.press("alt+e")
        await until(pilot, started.is_set, what="the export to start")
        monkeypatch.setattr(textual.notifications, "time", lambda: time.time() + 60)
        await pilot.pause()
        assert "Writing the HTML page…" in notices(app)
        monkeypatch.setattr(textual.notifications, "time", time.time)
        release.set()
        await until(pilot, lambda: any("Wrote" in n for n in notices(app)), what="the export's notice")
        assert "Writing the HTML page…" not in notices(app)
