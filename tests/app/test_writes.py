"""Pilot tests for the keys that write: Alt+L (label), Ctrl+S (persist the leaf), Ctrl+E (export).

The written files are parsed and checked against pi's rules, and — when node and the published
pi (``/work/shared/oracle``) are installed — reopened with pi's own SessionManager.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

from app_helpers import browser, make_app, notices, screen_text, select
from conftest import read_jsonl
from textual import events
from textual.widgets import Input

from loomtui.app.screens.browser import BrowserScreen
from loomtui.app.screens.dialogs import ConfirmDialog, ExportDialog, LabelDialog
from loomtui.session.manager import SessionManager
from tests.oracle import NODE, PI_CURRENT, available, oracle_env
from tests.oracle import missing as oracle_missing
from tests.shared_material import SHARED, absent, on_ci

ORACLE = SHARED / "oracle" / "pi_tree_oracle.mjs"
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


#: the release Ctrl+E's export is compared with (1.6.0 re-links parents around the label
#: entries it drops; 0.73.1 copied them verbatim: docs/pi-releases.md)
EXPORT_REFERENCE = PI_CURRENT


def pi_view(path: Path, export_leaf: str | None = None, package: str = PI_CURRENT) -> dict[str, Any] | None:
    """What the published pi computes for ``path`` (None when node or pi is missing)."""
    if not ORACLE.exists() or not available(package):
        if on_ci():
            absent(oracle_missing(package) or f"pi's tree oracle {ORACLE}")
        return None
    cmd = [str(NODE), str(ORACLE), str(path)] + (["--export-leaf", export_leaf] if export_leaf else [])
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=oracle_env(package))
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def check_label_entry(entry: dict[str, Any], *, parent: str, target: str, label: str | None, taken: set[str]) -> None:
    """pi's label entry: {type, id, parentId, timestamp, targetId, label?} (spec §5.1, §12)."""
    keys = ["type", "id", "parentId", "timestamp", "targetId"] + (["label"] if label is not None else [])
    assert list(entry) == keys
    assert entry["type"] == "label"
    assert re.fullmatch(r"[0-9a-f]{8}", entry["id"]) and entry["id"] not in taken
    assert entry["parentId"] == parent
    assert ISO.match(entry["timestamp"])
    assert entry["targetId"] == target
    if label is not None:
        assert entry["label"] == label


async def _label(pilot, screen: BrowserScreen, entry_id: str, text: str) -> None:
    await select(pilot, screen, entry_id)
    await pilot.press("alt+l")
    dialog = pilot.app.screen
    assert isinstance(dialog, LabelDialog)
    dialog.query_one(Input).value = text
    await pilot.press("enter")
    await pilot.pause()


async def test_shift_l_writes_a_pi_label_entry(fixture_copy) -> None:
    path = fixture_copy("kinds.jsonl")
    before = read_jsonl(path)
    taken = {e.get("id") for e in before}
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await _label(pilot, screen, "u1000002", "  fix branch  ")
        after = read_jsonl(path)
        assert after[: len(before)] == before  # append-only
        assert len(after) == len(before) + 1
        check_label_entry(after[-1], parent="s1000001", target="u1000002", label="fix branch", taken=taken)
        # the row shows the label at once; the view keeps the in-memory leaf (pi does not rebuild)
        assert "[fix branch] user: Yes, apply the fix." in screen.model.row_text(screen.model.selected)
        await pilot.pause()
        assert "› ├⊟ • [fix branch] user: Yes, apply the fix." in screen_text(app)  # drawn, not just modelled
        assert screen.model.leaf_id == "s1000001"
        assert screen.manager.get_leaf_id() == after[-1]["id"]  # as in pi: the label entry is the leaf
        # a second label is chained on the first (pi appends at its leaf)
        first = after[-1]["id"]
        await _label(pilot, screen, "a1000002", "")  # empty clears
        after2 = read_jsonl(path)
        check_label_entry(after2[-1], parent=first, target="a1000002", label=None, taken=taken | {first})
        assert "[checkpoint]" not in screen.model.row_text(screen.model.selected)
    pi = pi_view(path)
    if pi is not None:
        assert pi["labels"] == {"u1000001": "start", "u1000002": "fix branch"}
        assert pi["leafId"] == after2[-1]["id"]
        assert pi["branch"][-3:] == ["s1000001", first, after2[-1]["id"]]


async def test_a_pasted_escape_sequence_in_the_label_dialog_is_refused(fixture_copy) -> None:
    """Typed keys cannot enter a control character, but a paste keeps ESC and tabs: the dialog's
    text is refused by the rule ``loomtui label`` follows, with a notice, and nothing is written."""
    path = fixture_copy("kinds.jsonl")
    before = path.read_bytes()
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "u1000002")
        await pilot.press("alt+l")
        dialog = app.screen
        assert isinstance(dialog, LabelDialog)
        field = dialog.query_one(Input)
        field.post_message(events.Paste("red\x1b[31m\tnext"))
        await pilot.pause()
        assert field.value == "red\x1b[31m\tnext"  # what the terminal pasted, kept by the field
        await pilot.press("enter")
        await pilot.pause()
        assert any("escape character (ESC)" in n and "one line of printable text" in n for n in notices(app))
        assert path.read_bytes() == before
        assert "[red" not in screen.model.row_text(screen.model.selected)


async def test_a_label_after_enter_does_not_move_where_pi_resumes(fixture_copy) -> None:
    """Enter moves the leaf in memory only: a label is parented on the file's last entry (where
    pi resumes), so pi still resumes the same conversation; the dialog says so."""
    path = fixture_copy("kinds.jsonl")
    taken = {e.get("id") for e in read_jsonl(path)}
    before = pi_view(path)
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "r1000004")
        await pilot.press("enter")
        assert screen.user_moved_leaf
        await select(pilot, screen, "b1000001")
        await pilot.press("alt+l")
        dialog = app.screen
        assert isinstance(dialog, LabelDialog)
        note = str(dialog.query_one("#label-note").render())
        assert "s1000001" in note and "pi still resumes" in note and "not saved" in note
        dialog.query_one(Input).value = "summary"
        await pilot.press("enter")
        await pilot.pause()
        first = read_jsonl(path)[-1]
        check_label_entry(first, parent="s1000001", target="b1000001", label="summary", taken=taken)
        # the view and the manager keep the moved leaf; the next label chains on the file's leaf
        assert screen.model.leaf_id == "r1000004" and screen.user_moved_leaf
        assert screen.manager.get_leaf_id() == "r1000004"
        await _label(pilot, screen, "u1000002", "second")
        check_label_entry(
            read_jsonl(path)[-1], parent=first["id"], target="u1000002", label="second", taken=taken | {first["id"]}
        )
        assert screen.model.leaf_id == "r1000004"
    after = pi_view(path)
    if before is not None and after is not None:
        new_ids = [first["id"], read_jsonl(path)[-1]["id"]]
        assert after["branch"] == before["branch"] + new_ids  # pi resumes where it did
        assert after["context"] == before["context"]
        assert after["labels"]["b1000001"] == "summary"


async def test_ctrl_s_persists_the_leaf_with_a_no_op_label_entry(fixture_copy) -> None:
    path = fixture_copy("kinds.jsonl")
    before = read_jsonl(path)
    taken = {e.get("id") for e in before}
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        # the leaf is the file's last entry: nothing to persist
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmDialog)
        assert len(read_jsonl(path)) == len(before)
        # move the leaf to the other branch, then persist (confirm)
        await select(pilot, screen, "r1000004")
        await pilot.press("enter", "ctrl+s")
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("escape")  # cancel: nothing written
        assert len(read_jsonl(path)) == len(before)
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("enter")  # the confirm button has focus
        await pilot.pause()
        after = read_jsonl(path)
        assert len(after) == len(before) + 1
        marker = after[-1]
        check_label_entry(marker, parent="r1000004", target="r1000004", label=None, taken=taken)
        assert marker["parentId"] is not None
        assert screen.model.leaf_id == "r1000004"
        assert not screen.user_moved_leaf
    pi = pi_view(path)
    if pi is not None:
        # pi resumes at the marker, whose parent is the chosen leaf: the same context as there
        assert pi["leafId"] == marker["id"]
        assert pi["branch"][-2:] == ["r1000004", marker["id"]]
        assert "a1000004" not in pi["branch"]
        assert pi["labels"] == {"u1000001": "start", "a1000002": "checkpoint"}
        assert pi["context"]["roles"][-2:] == ["assistant", "toolResult"]
        # pi's /tree focuses the nearest visible ancestor of the hidden marker
        default_view = pi["views"][0]
        assert "r1000004" in default_view["ids"] and marker["id"] not in default_view["ids"]


async def test_ctrl_s_restates_the_label_of_a_labelled_leaf(fixture_copy) -> None:
    path = fixture_copy("kinds.jsonl")
    taken = {e.get("id") for e in read_jsonl(path)}
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "a1000002")
        await pilot.press("enter", "ctrl+s", "enter")
        await pilot.pause()
        check_label_entry(read_jsonl(path)[-1], parent="a1000002", target="a1000002", label="checkpoint", taken=taken)
        assert screen.model.label("a1000002") == "checkpoint"
    pi = pi_view(path)
    if pi is not None:
        assert pi["labels"]["a1000002"] == "checkpoint"
        assert pi["branch"][-2] == "a1000002"


async def test_ctrl_e_exports_the_branch_like_pi(fixture_copy, tmp_path: Path) -> None:
    path = fixture_copy("kinds.jsonl")
    out_dir = tmp_path / "exports"
    out_dir.mkdir()
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "r1000004")
        await pilot.press("ctrl+e")
        dialog = app.screen
        assert isinstance(dialog, ExportDialog)
        assert dialog.count == 10 and dialog.labels == 2  # root → r1000004 without label entries; 2 labels re-created
        assert dialog.query_one("#dest", Input).value == str(path.parent)
        dialog.query_one("#dest", Input).value = str(out_dir)
        await pilot.click("#export")
        await pilot.pause()
        written = dialog.written
        assert written is not None and Path(written).parent == out_dir
        assert any(written in n for n in notices(app))
        lines = read_jsonl(written)
        header, entries = lines[0], lines[1:]
        assert header["type"] == "session" and header["version"] == 3
        assert header["parentSession"] == str(path)
        assert Path(written).name == f"{header['timestamp'].replace(':', '-').replace('.', '-')}_{header['id']}.jsonl"
        source = {e.get("id"): e for e in read_jsonl(path)}
        path_ids = [
            "m1000001",
            "t1000001",
            "u1000001",
            "a1000001",
            "r1000001",
            "r1000002",
            "a1000002",
            "u1000003",
            "a1000006",
            "r1000004",
        ]
        # the session's name goes along as one session_info after what pi writes (docs/formats.md)
        assert entries[-1]["type"] == "session_info" and entries[-1]["parentId"] == entries[-2]["id"]
        assert entries[-1]["name"] == SessionManager.open(str(path)).get_session_name()
        entries = entries[:-1]
        kept = [e for e in entries if e["type"] != "label"]
        assert [e["id"] for e in kept] == [i for i in path_ids]
        # copied unchanged but for the parent: the kept entry before it (pi 1.6.0 re-links
        # around the label entries it leaves out)
        assert all(e == {**source[e["id"]], "parentId": p} for e, p in zip(kept, [None, *path_ids]))
        assert any(source[e["id"]]["parentId"] != e["parentId"] for e in kept)
        labels = [e for e in entries if e["type"] == "label"]
        assert [(e["targetId"], e["label"]) for e in labels] == [("u1000001", "start"), ("a1000002", "checkpoint")]
        assert labels[0]["parentId"] == "r1000004" and labels[1]["parentId"] == labels[0]["id"]
        # "Open it": a browser on the new file; Esc comes back
        await pilot.click("#open")
        await pilot.pause()
        opened = await browser(pilot)
        assert opened is not screen and opened.path == written
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
    pi = pi_view(path, export_leaf="r1000004", package=EXPORT_REFERENCE)
    if pi is not None:
        exp = pi["exported"]
        assert [e for e in exp["entries"] if e["type"] != "label"] == kept
        pi_labels = [e for e in exp["entries"] if e["type"] == "label"]
        assert [(e["targetId"], e.get("label")) for e in pi_labels] == [(e["targetId"], e["label"]) for e in labels]
        assert set(exp["header"]) == set(header)


async def test_export_refuses_an_existing_file_and_a_missing_directory(fixture_copy, tmp_path: Path) -> None:
    path = fixture_copy("kinds.jsonl")
    existing = tmp_path / "taken.jsonl"
    existing.write_text("keep me\n")
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        await browser(pilot)
        await pilot.press("ctrl+e")
        dialog = app.screen
        dialog.query_one("#dest", Input).value = str(existing)
        await pilot.click("#export")
        await pilot.pause()
        assert dialog.written is None
        assert "Not written" in str(dialog.query_one("#result").render())
        dialog.query_one("#dest", Input).value = str(tmp_path / "nope")
        await pilot.click("#export")
        await pilot.pause()
        assert dialog.written is None
        await pilot.press("escape")
    assert existing.read_text() == "keep me\n"


async def test_write_failures_are_notices_and_nothing_is_lost(fixture_copy, monkeypatch) -> None:
    path = fixture_copy("kinds.jsonl")
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "r1000004")
        await pilot.press("enter")
        # a write error (permissions, full disk): a notice, the view and the leaf stay
        from loomtui.session import store

        def refuse(*_a: Any, **_k: Any) -> int:
            raise PermissionError(13, "Permission denied", str(path))

        monkeypatch.setattr(store, "append_line", refuse)
        size = path.stat().st_size
        await _label(pilot, screen, "b1000001", "x")
        assert path.stat().st_size == size
        assert any("Permission denied" in n for n in notices(app))
        assert screen.model.leaf_id == "r1000004" and screen.model.label("b1000001") is None
        monkeypatch.undo()
        # the file is rewritten underneath: the append is refused, nothing is written
        data = path.read_bytes()
        path.write_bytes(data.replace(b"Parser fix", b"Parser fox"))
        await _label(pilot, screen, "b1000001", "y")
        assert path.read_bytes() == data.replace(b"Parser fix", b"Parser fox")
        assert any("rewritten" in n and "reloaded" in n for n in notices(app))
        assert screen.model.selected_id == "b1000001"
        assert screen.model.leaf_id == "r1000004" and screen.user_moved_leaf  # kept across the reload
        assert screen.manager.get_session_name() == "Parser fox"  # what is on disk now
        await _label(pilot, screen, "b1000001", "z")  # and writing works again
        written = read_jsonl(path)
        check_label_entry(
            written[-1],
            parent=written[-2]["id"],
            target="b1000001",
            label="z",
            taken={e.get("id") for e in written[:-1]},
        )


async def test_old_version_files_refuse_writes(fixture_copy) -> None:
    path = fixture_copy("v1.jsonl")
    data = path.read_bytes()
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        assert any("version 1" in n for n in notices(app))
        await pilot.press("home")
        # no label dialog: one notice says why no label can be saved
        await pilot.press("alt+l")
        await pilot.pause()
        assert app.screen is screen
        assert any("migrate" in n for n in notices(app))
    assert path.read_bytes() == data


async def test_ctrl_e_exports_a_branch_of_a_version_1_file(fixture_copy, tmp_path: Path) -> None:
    """Ctrl+E on a version 1 file said "exports need `loomtui migrate` first"; an export only
    writes a new file, so it copies the branch as migrated in memory and leaves the file alone."""
    path = fixture_copy("v1.jsonl")
    data = path.read_bytes()
    out = tmp_path / "out"
    out.mkdir()
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        await browser(pilot)
        await pilot.press("ctrl+e")
        await pilot.pause()
        app.screen.query_one("#dest", Input).value = str(out)
        await pilot.click("#export")
        await pilot.pause()
        written = app.screen.written
        assert written is not None
        lines = [json.loads(x) for x in Path(written).read_text().splitlines()]
        assert lines[0]["version"] == 3 and lines[0]["parentSession"] == str(path)
        assert len(lines) > 1 and all(isinstance(x.get("id"), str) for x in lines[1:])
    assert path.read_bytes() == data


async def test_a_version_1_sample_does_not_offer_alt_l(tmp_path: Path) -> None:
    """On a version 1 file Alt+L stayed in the footer and the palette and opened a label dialog
    whose label could never be saved; Ctrl+S, Ctrl+E and Alt+A were left out and refused in one
    notice. Alt+L is too."""
    import shutil

    from loomtui.app.commands import LoomCommands
    from loomtui.session.locations import sample_dir

    name = "2025-11-18T16-40-03-512Z_2b9d41c7-6e0a-4f3b-9c8d-1a2b3c4d5e6f.jsonl"
    path = tmp_path / name
    shutil.copyfile(Path(sample_dir()) / name, path)
    data = path.read_bytes()
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        assert screen.manager is not None and screen.manager.state.version == 1
        hints = str(screen.query_one("#hints").render())
        assert "label" not in hints and "Alt+L" not in hints, hints
        titles = [title for title, _cb, _help in LoomCommands(screen).commands()]
        assert not any("label of the selected entry" in t for t in titles), titles
        before = len(notices(app))
        await pilot.press("alt+l")
        await pilot.pause()
        assert app.screen is screen and not isinstance(app.screen, LabelDialog)
        said = notices(app)[before:]
        assert len(said) == 1 and said[0].startswith("A version 1 session: ") and said[0].endswith("."), said
        assert "label" in said[0] and "migrate" in said[0]
    assert path.read_bytes() == data


async def test_the_tree_draws_pi_rows_exactly(fixture_copy) -> None:
    """What the widget draws (cursor, prefixes, •, [label], texts) is pi's /tree, per filter."""
    path = fixture_copy("kinds.jsonl")
    pi = pi_view(path)
    if pi is None:
        absent(oracle_missing() or f"pi's tree oracle {ORACLE}")
    app = make_app(path)
    async with app.run_test(size=(300, 40)) as pilot:
        screen = await browser(pilot)
        screen.detail.display = False
        await pilot.pause()
        for view in pi["views"][:5]:
            screen.action_set_filter(view["mode"])
            screen.model.select_id(pi["leafId"])  # pi opens each view on the leaf
            screen.tree.model_changed()
            await pilot.pause()
            tree = screen.tree
            drawn = ["".join(seg.text for seg in tree.render_line(y)).rstrip() for y in range(len(screen.model))]
            assert drawn == [line.rstrip() for line in view["lines"][:-1]], view["mode"]
            assert screen.model.footer() == view["lines"][-1]


async def test_the_tree_draws_the_goldens_of_real_pi_sessions(pi_dir: Path, goldens_dir: Path) -> None:
    """Every view pi computed for the shared real sessions, as the widget draws its rows."""
    for golden_path in sorted(goldens_dir.glob("*.json")):
        golden = json.loads(golden_path.read_text())
        app = make_app(pi_dir / f"{golden_path.stem}.jsonl")
        async with app.run_test(size=(300, 30)) as pilot:
            screen = await browser(pilot)
            screen.detail.display = False
            await pilot.pause()
            tree, model = screen.tree, screen.model
            width = tree.scrollable_content_region.width
            for view in golden["views"]:
                model.set_query("")
                model.set_filter(view["mode"])
                model.type_text(view["query"])
                model.select_id(golden["leafId"])
                drawn = [
                    "".join(seg.text for seg in tree._render_row(i, width, i == model.selected)).rstrip()
                    for i in range(len(model))
                ]
                expected = [line.rstrip() for line in view["lines"][:-1]] if len(model) else []
                assert drawn == expected, (golden_path.stem, view["mode"], view["query"])


async def test_ctrl_e_on_a_bundled_sample_never_writes_into_the_install(tmp_path: Path) -> None:
    """A bundled sample opens as the user's copy (app/samples.py): its export goes next to that
    copy, in the user's data directory, never into the install (nor into pi's sessions)."""
    from loomtui.session.locations import sample_dir

    sample = sorted(Path(sample_dir()).glob("*.jsonl"))[1]
    listing = sorted(p.name for p in Path(sample_dir()).iterdir())
    data = sample.read_bytes()
    want = tmp_path / "data" / "loomtui" / "samples"
    app = make_app(sample)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        await pilot.press("ctrl+e")
        dialog = app.screen
        assert isinstance(dialog, ExportDialog)
        assert dialog.query_one("#dest", Input).value == str(want)
        await pilot.click("#export")
        await pilot.pause()
        written = dialog.written
        assert written is not None and Path(written).parent == want
        assert read_jsonl(written)[0]["parentSession"] == str(want / sample.name)
        assert screen.is_attached
    assert sorted(p.name for p in Path(sample_dir()).iterdir()) == listing and sample.read_bytes() == data
    assert not (tmp_path / "pi-agent").exists()


def test_the_export_directory_is_next_to_a_writable_source_else_pi_s(tmp_path: Path, monkeypatch) -> None:
    from loomtui.session.locations import export_dir, pi_session_dir

    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    src = tmp_path / "proj" / "s.jsonl"
    src.parent.mkdir()
    src.write_text("")
    assert export_dir(str(src), "/srv/demo") == str(src.parent)
    assert pi_session_dir("/srv/demo") == str(tmp_path / "agent" / "sessions" / "--srv-demo--")
    assert pi_session_dir("C:\\work\\x") == str(tmp_path / "agent" / "sessions" / "--C--work-x--")
    if os.getuid() != 0:  # root writes anywhere
        src.parent.chmod(0o555)
        try:
            assert export_dir(str(src), "/srv/demo") == pi_session_dir("/srv/demo")
        finally:
            src.parent.chmod(0o755)
    assert export_dir(None, None) == os.getcwd()


async def test_an_old_version_files_refusals_are_sentences(fixture_copy) -> None:
    """Ctrl+S, Ctrl+E and Alt+W on a version 1 file answered "a version 1 session: browsing
    works, … first (it keeps a .bak copy)" — a sentence starting in lower case, with no stop."""
    app = make_app(fixture_copy("v1.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        await browser(pilot)
        for key in ("ctrl+s", "alt+w"):  # Ctrl+E exports (a new file)
            before = len(notices(app))
            await pilot.press(key)
            await pilot.pause()
            said = notices(app)[before:]
            assert said and said[-1].startswith("A version 1 session: ") and said[-1].endswith("."), (key, said)
