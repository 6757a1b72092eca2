"""The bundled samples are never written: on a machine without sessions the picker lists the
user's copies (``$XDG_DATA_HOME/loomtui/samples``), a label, a persisted leaf and an archive go
into the copy, the copy keeps them from one run to the next, a bundled file opened by its path
opens the copy, and an unwritable data directory falls back to a temporary copy, said so."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import pytest
from app_helpers import browser, notices, select
from textual.widgets import Input, Static

from loomtui.app.app import LoomApp
from loomtui.app.screens.dialogs import ConfirmDialog, LabelDialog
from loomtui.app.screens.picker import PickerScreen
from loomtui.session.locations import sample_dir
from tests.waits import until

WEATHER = "2026-03-02T09-14-05-120Z_5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19.jsonl"


def _package_state() -> dict[str, str]:
    """Every bundled file and its digest."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(Path(sample_dir()).iterdir())}


@pytest.fixture
def no_sessions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A machine without sessions of any agent; the copies go to the data directory."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    return tmp_path / "data" / "loomtui" / "samples"


async def _open_weather_from_the_picker(pilot) -> object:  # type: ignore[no-untyped-def]
    app = pilot.app
    await until(pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen.samples, what="the samples")
    picker = app.screen
    picker.session_list.select_where(lambda r: r.session is not None and r.session.path.endswith(WEATHER))
    await pilot.press("enter")
    return await browser(pilot)


async def test_labels_persists_and_archives_go_into_the_user_s_copy(no_sessions: Path) -> None:
    package = _package_state()
    app = LoomApp(watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await _open_weather_from_the_picker(pilot)
        assert screen.path == str(no_sessions / WEATHER)
        note = str(app.screen_stack[-2].query_one("#picker-note", Static).render())
        assert "copies of loomtui's sample sessions" in note and "never into loomtui itself" in note
        labelled = screen.model.selected_id
        await pilot.press("alt+l")
        await until(pilot, lambda: isinstance(app.screen, LabelDialog), what="the label dialog")
        app.screen.query_one(Input).value = "good one"
        await pilot.press("enter")
        await until(pilot, lambda: any("Label set: good one" in n for n in notices(app)), what="the label")
        await select(pilot, screen, "c0d4e5f6")  # the aborted first try, off the active path
        await pilot.press("enter", "ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog), what="the persist question")
        await pilot.press("y")
        await until(pilot, lambda: any("Leaf persisted" in n for n in notices(app)), what="the persist")
        await pilot.press("ctrl+a")  # every entry shown: a branch off the new leaf's path
        await select(pilot, screen, "e1f2a3b4")
        await pilot.press("alt+a")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog), what="the archive question")
        await pilot.press("y")
        await until(pilot, lambda: any("archived" in n for n in notices(app)), what="the archive")
    assert _package_state() == package  # the package's samples are as they were
    written = (no_sessions / WEATHER).read_text()
    assert '"label":"good one"' in written and "loomtui.archive" in written

    # the next run lists the same copy, with what was written, not a fresh one
    app = LoomApp(watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await _open_weather_from_the_picker(pilot)
        assert screen.manager.get_label(labelled) == "good one"
    assert (no_sessions / WEATHER).read_text() == written and _package_state() == package


async def test_a_bundled_sample_opened_by_its_path_opens_the_copy(no_sessions: Path) -> None:
    bundled = os.path.join(sample_dir(), WEATHER)
    app = LoomApp(bundled, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await browser(pilot)
        assert screen.path == str(no_sessions / WEATHER)
        assert any(f"opened your copy, {no_sessions / WEATHER}" in n for n in notices(app))


async def test_an_unwritable_data_directory_gives_a_temporary_copy(
    no_sessions: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "not-a-dir").write_text("")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "not-a-dir"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    package = _package_state()
    app = LoomApp(watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await _open_weather_from_the_picker(pilot)
        assert Path(screen.path).parent.parent == tmp_path and Path(screen.path).parent.name.startswith("loomtui-")
        note = str(app.screen_stack[-2].query_one("#picker-note", Static).render())
        assert "could not be written" in note
    assert _package_state() == package
