"""What the dialogs say is what happens, and is whole or plainly cut: the export dialog counts
what its notice counts (the session's name entry included), an entry's row is cut at a word
with "…" (a row may itself stop mid-word at the reader's cap), a long path shows whole."""

from __future__ import annotations

import shutil
from pathlib import Path

from app_helpers import browser, make_app, notices, select
from conftest import read_jsonl
from textual.widgets import Static

from loomtui.app.screens.dialogs import ConfirmDialog, DiagnosticsScreen, ExportDialog, LabelDialog
from loomtui.session.locations import sample_dir
from tests.shared_material import FIXTURES as SHARED
from tests.shared_material import needs_shared
from tests.waits import until

WEATHER = "2026-03-02T09-14-05-120Z_5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19.jsonl"
SOCKETTEER = SHARED / "loom" / "socketteer-loom_demo.json"


async def test_the_export_dialog_counts_what_the_notice_counts(tmp_path: Path) -> None:
    """The aborted first reply of the weather sample: 4 entries on its path, and the session's
    name kept in one session_info entry; the dialog and the notice say both."""
    path = tmp_path / WEATHER
    shutil.copyfile(Path(sample_dir()) / WEATHER, path)
    app = make_app(path)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await browser(pilot)
        await pilot.press("ctrl+a")
        await select(pilot, screen, "d9e8f7a6")
        await pilot.press("ctrl+e")
        await until(pilot, lambda: isinstance(app.screen, ExportDialog), what="the export dialog")
        dialog = app.screen
        count = str(dialog.query_one("#count", Static).render())
        assert count.startswith("4 entries + the session's name (a session_info entry); "), count
        await pilot.click("#export")
        await until(pilot, lambda: dialog.written is not None, what="the export")
        said = next(n for n in notices(app) if n.startswith("Exported "))
        assert said.startswith("Exported 4 entries + the session's name (a session_info entry) to "), said
        lines = read_jsonl(dialog.written)
        assert [x["type"] for x in lines[1:]] == [
            "model_change",
            "thinking_level_change",
            "message",
            "message",
            "session_info",
        ]


def _is_cut_at_a_word(preview: str, whole: str) -> bool:
    body = preview.removesuffix("…")
    return preview.endswith("…") and whole.startswith(body) and whole[len(body)] in " ,;:.-"


@needs_shared()
async def test_a_long_row_is_cut_at_a_word_in_the_label_dialog(tmp_path: Path) -> None:
    path = tmp_path / SOCKETTEER.name
    shutil.copyfile(SOCKETTEER, path)
    app = make_app(path)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await browser(pilot)
        controller = screen.controller
        long_row = next(
            e
            for e in controller.manager.index.entries
            if len(controller.row_text(e)) > 150 and screen.model.row_of(e.id) is not None
        )
        whole = controller.row_text(long_row)
        await select(pilot, screen, long_row.id)
        await pilot.press("alt+l")
        await until(pilot, lambda: isinstance(app.screen, LabelDialog), what="the label dialog")
        assert _is_cut_at_a_word(app.screen.entry_text, whole), app.screen.entry_text
        assert len(app.screen.entry_text) <= 150


def _message(eid: str, parent: str | None, role: str, text: str) -> dict[str, object]:
    content = text if role == "user" else [{"type": "text", "text": text}]
    return {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": "2026-03-01T09:00:00.000Z",
        "message": {"role": role, "content": content},
    }


async def test_the_persist_dialog_cuts_the_row_at_a_word(write_session) -> None:
    path = write_session(
        [
            _message("u1", None, "user", "a question"),
            _message("a1", "u1", "assistant", "word " * 40 + "end"),
            _message("u2", "a1", "user", "another question"),
            _message("a2", "u2", "assistant", "another answer"),
        ]
    )
    app = make_app(path)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "a1")
        await pilot.press("enter", "ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog), what="the persist question")
        row = app.screen.body.splitlines()[1].strip()
        assert row.endswith("…") and row.removesuffix("…").endswith("word") and len(row) <= 150, row


async def test_the_diagnostics_dialog_shows_a_long_path_whole(tmp_path: Path) -> None:
    deep = tmp_path / ("a-directory-with-a-rather-long-name/" * 4)
    deep.mkdir(parents=True)
    path = deep / "2026-03-02T09-14-05-120Z_5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19.jsonl"
    shutil.copyfile(Path(__file__).parent / "fixtures" / "malformed.jsonl", path)
    app = make_app(path)
    async with app.run_test(size=(80, 30)) as pilot:
        await browser(pilot)
        await pilot.press("f2")
        await until(pilot, lambda: isinstance(app.screen, DiagnosticsScreen), what="F2")
        shown = app.screen.query_one("#diagnostics-path", Static)
        assert str(shown.render()) == str(path)
        assert shown.size.height * shown.size.width >= len(str(path)) and shown.size.width < len(str(path))


async def test_the_export_dialog_and_notice_count_a_long_branch_as_the_header_does(tmp_path: Path) -> None:
    """1,303 entries on the branch: the header wrote ``1,303 entries``, the dialog and the notice
    ``1303 entries``."""
    import json

    at = "2026-01-01T{:02}:{:02}:{:02}.000Z"
    lines: list[dict[str, object]] = [
        {"type": "session", "version": 3, "id": "long", "timestamp": at.format(0, 0, 0), "cwd": str(tmp_path)}
    ]
    for i in range(1303):
        role = "user" if i % 2 == 0 else "assistant"
        content: object = f"turn {i}" if role == "user" else [{"type": "text", "text": f"reply {i}"}]
        lines.append(
            {
                "type": "message",
                "id": f"e{i:07}",
                "parentId": f"e{i - 1:07}" if i else None,
                "timestamp": at.format(i // 3600, i // 60 % 60, i % 60),
                "message": {"role": role, "content": content},
            }
        )
    path = tmp_path / "2026-01-01T00-00-00-000Z_long.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    app = make_app(path)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await browser(pilot)
        assert screen.controller is not None and "1,303 entries" in screen.controller.title_parts(str(path))
        await select(pilot, screen, "e0001302")
        await pilot.press("ctrl+e")
        await until(pilot, lambda: isinstance(app.screen, ExportDialog), what="the export dialog")
        dialog = app.screen
        count = str(dialog.query_one("#count", Static).render())
        assert count.startswith("1,303 entries; "), count
        await pilot.click("#export")
        await until(pilot, lambda: dialog.written is not None, what="the export")
        said = next(n for n in notices(app) if n.startswith("Exported "))
        assert said.startswith("Exported 1,303 entries to "), said
