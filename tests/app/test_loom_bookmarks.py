"""Label edits on OpenLoom and socketteer looms are saved back as bookmarks after confirmation
(issue 6): an atomic rewrite that keeps FILE.bak; declining keeps the label in memory only."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from app_helpers import browser, make_app, notices, select
from textual.widgets import Input

from loomtui.app.screens.browser import BrowserScreen
from loomtui.app.screens.dialogs import ConfirmDialog, LabelDialog
from loomtui.formats.base.common import loom_source
from loomtui.formats.detect import open_any
from loomtui.formats.looms import socketteer
from loomtui.formats.looms.bookmarks import pending_changes
from loomtui.formats.looms.export import export_openloom

SOCKETTEER = "socketteer-loom_demo.json"
OPENLOOM_V1 = "openloom-v1-existence-of-claude.openloom.json"
FORMATS = ["socketteer", "openloom-v1", "openloom-v2"]


@pytest.fixture
def loom_file(shared_dir: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    """A writable copy of a shared loom fixture (v2: the v1 fixture exported as OpenLoom v2)."""

    def make(fmt: str) -> Path:
        src = shared_dir / "fixtures" / "loom"
        if fmt == "socketteer":
            dst = tmp_path / SOCKETTEER
            shutil.copyfile(src / SOCKETTEER, dst)
        else:
            dst = tmp_path / OPENLOOM_V1
            shutil.copyfile(src / OPENLOOM_V1, dst)
            if fmt == "openloom-v2":
                v2 = tmp_path / "existence-of-claude.v2.openloom.json"
                export_openloom(open_any(str(dst)), str(v2))
                dst.unlink()
                dst = v2
        dst.chmod(0o644)
        return dst

    return make


def unlabelled_node(screen: BrowserScreen) -> str:
    """The first row (default filter) whose node has no bookmark in the file."""
    assert screen.model is not None and screen.manager is not None
    src = loom_source(screen.manager)
    assert src is not None
    nodes = set(src.node_ids)
    for i in range(1, len(screen.model)):
        nid = screen.model.entry_at(i).id
        if nid in nodes and nid not in src.labels:
            return nid
    raise AssertionError("every node is bookmarked")


def expected_document(fmt: str, original: bytes, nid: str, label: str) -> Any:
    """The original document with ``nid`` bookmarked as ``label``, as each format stores it."""
    doc = json.loads(original)
    if fmt == "socketteer":
        node = next(n for rid, n, _p, _raw in socketteer.walk(doc) if rid == nid)
        node["tags"] = [*(node.get("tags") or []), "bookmark"]
        node["loomtui_label"] = label
    elif fmt == "openloom-v1":
        node = doc["nodes"][nid]
        node["isBookmarked"] = True
        node["bookmarkTitle"] = label
        doc["bookmarkedNodes"][nid] = copy.deepcopy(node)
    else:
        node = doc["trees"][0]["nodes"][nid]
        node["meta"] = {**node.get("meta", {}), "bookmarked": True, "bookmarkLabel": label}
    return doc


async def label_with_keys(pilot: Any, screen: BrowserScreen, nid: str, text: str) -> None:
    await select(pilot, screen, nid)
    await pilot.press("alt+l")
    dialog = pilot.app.screen
    assert isinstance(dialog, LabelDialog)
    dialog.query_one(Input).value = text
    await pilot.press("enter")
    await pilot.pause()


@pytest.mark.parametrize("fmt", FORMATS)
async def test_label_on_a_loom_is_saved_as_a_bookmark_after_confirmation(loom_file, fmt: str) -> None:
    path = loom_file(fmt)
    original = path.read_bytes()
    app = make_app(path)
    async with app.run_test(size=(140, 34)) as pilot:
        screen = await browser(pilot)
        nid = unlabelled_node(screen)
        await label_with_keys(pilot, screen, nid, "keep me")
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        assert dialog.title_text == "Save bookmarks?"
        assert (
            f"Label set: keep me on {nid}.\n\nSave bookmarks to {path}? (the original is kept as {path}.bak)"
            in dialog.body
        )
        assert path.read_bytes() == original  # nothing written before the answer
        await pilot.press("enter")  # the Save button has focus
        await pilot.pause()
        assert isinstance(app.screen, BrowserScreen)
        backup = Path(str(path) + ".bak")
        assert backup.read_bytes() == original
        assert json.loads(path.read_bytes()) == expected_document(fmt, original, nid, "keep me")
        assert f"Saved 1 bookmark change to {path}; the original is kept as {backup}." in notices(app)
        assert pending_changes(screen.manager) == {}
        assert "[keep me]" in screen.model.row_text(screen.model.selected)
    reopened = open_any(str(path))
    assert reopened.index.label_of(nid) == "keep me"
    assert sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name)) == [
        path.name,
        path.name + ".bak",
    ]


@pytest.mark.parametrize("fmt", ["socketteer", "openloom-v1"])
async def test_declining_keeps_the_label_in_memory_and_ctrl_s_saves_it_later(loom_file, fmt: str) -> None:
    path = loom_file(fmt)
    original = path.read_bytes()
    app = make_app(path)
    async with app.run_test(size=(140, 34)) as pilot:
        screen = await browser(pilot)
        nid = unlabelled_node(screen)
        await label_with_keys(pilot, screen, nid, "later")
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, BrowserScreen)
        assert path.read_bytes() == original
        assert not Path(str(path) + ".bak").exists()
        assert f"Not saved: the label stays in memory only (^S saves the bookmarks to {path.name} later)." in notices(
            app
        )
        assert "[later]" in screen.model.row_text(screen.model.selected)
        assert pending_changes(screen.manager) == {nid: "later"}

        # Ctrl+S on a loom with label changes offers the same save
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, ConfirmDialog)
        assert f"Save bookmarks to {path}? (the original is kept as {path}.bak)" in app.screen.body
        await pilot.press("escape")
        await pilot.pause()
        assert path.read_bytes() == original
        await pilot.press("ctrl+s")
        await pilot.press("y")
        await pilot.pause()
        assert Path(str(path) + ".bak").read_bytes() == original
        assert json.loads(path.read_bytes()) == expected_document(fmt, original, nid, "later")
        # nothing left to save: Ctrl+S says what a loom cannot do instead of asking again
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, BrowserScreen)
        assert any(n.startswith("No bookmarks to save") and "pi session file" not in n for n in notices(app))
        # clearing it again: the first backup stays, the next one is FILE.bak.2
        saved = path.read_bytes()
        await label_with_keys(pilot, screen, nid, "")
        assert isinstance(app.screen, ConfirmDialog)
        assert (
            f"Label cleared on {nid}.\n\nSave bookmarks to {path}? (the original is kept as {path}.bak.2)"
            in app.screen.body
        )
        await pilot.press("enter")
        await pilot.pause()
        assert Path(str(path) + ".bak").read_bytes() == original
        assert Path(str(path) + ".bak.2").read_bytes() == saved
        assert open_any(str(path)).index.label_of(nid) is None


async def test_a_file_changed_on_disk_is_not_overwritten_and_the_label_stays(loom_file) -> None:
    path = loom_file("openloom-v1")
    app = make_app(path)
    async with app.run_test(size=(140, 34)) as pilot:
        screen = await browser(pilot)
        nid = unlabelled_node(screen)
        await label_with_keys(pilot, screen, nid, "mine")
        assert isinstance(app.screen, ConfirmDialog)
        changed = path.read_bytes().replace(b"The Existence of Claude", b"The Existence of Claude (edited)", 1)
        assert changed != path.read_bytes()
        path.write_bytes(changed)  # another program saved the loom meanwhile
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, BrowserScreen)
        assert path.read_bytes() == changed  # not overwritten
        assert not Path(str(path) + ".bak").exists()
        assert any(
            "changed on disk since it was opened" in n and "The labels stay in memory" in n for n in notices(app)
        )
        assert pending_changes(screen.manager) == {nid: "mine"}  # nothing lost
        assert "[mine]" in screen.model.row_text(screen.model.selected)


async def test_palette_offers_saving_bookmarks_on_a_loom(loom_file) -> None:
    from loomtui.app.commands import LoomCommands

    path = loom_file("socketteer")
    app = make_app(path)
    async with app.run_test(size=(140, 34)) as pilot:
        screen = await browser(pilot)
        titles = [t for t, _cb, _h in LoomCommands(screen).commands()]
        assert "save bookmarks to the loom file (0 label changes)…" in titles
        nid = unlabelled_node(screen)
        await label_with_keys(pilot, screen, nid, "x")
        await pilot.press("escape")  # decline
        await pilot.pause()
        commands = {t: cb for t, cb, _h in LoomCommands(screen).commands()}
        commands["save bookmarks to the loom file (1 label change)…"]()
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
