"""A directory, a binary or an empty file: one line (as the other commands print), never a
full-screen error; a directory of sessions opens the picker on it."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from app_helpers import browser, make_app, notices

from loomtui.app.screens.browser import BrowserScreen
from loomtui.cli import main as cli_main
from loomtui.commands import app as app_command
from tests.waits import settled


@pytest.mark.parametrize(
    "content",
    [b"", b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4, b"\xff\xfe\x00x"],
    ids=["empty", "binary", "utf16"],
)
def test_an_empty_or_binary_file_is_one_line_like_the_other_commands(tmp_path: Path, capsys, content) -> None:
    path = tmp_path / "odd.jsonl"
    path.write_bytes(content)
    assert cli_main(["tree", str(path)]) == 2
    cli_line = capsys.readouterr().err.strip()
    assert app_command.main([str(path)]) == 2  # returns before Textual starts
    err = capsys.readouterr().err.strip()
    assert err == cli_line and len(err.splitlines()) == 1 and err.startswith("loomtui: ")


def test_a_directory_of_sessions_opens_the_picker_on_it(tmp_path: Path, monkeypatch) -> None:
    FIXTURES = Path(__file__).parent / "fixtures"

    d = tmp_path / "sessions"
    d.mkdir()
    shutil.copyfile(FIXTURES / "kinds.jsonl", d / "kinds.jsonl")
    seen: dict[str, Any] = {}

    class FakeApp:
        return_code = 0

        def __init__(self, path: str | None, **kw: Any) -> None:
            seen["path"], seen["dirs"], seen["only"] = path, kw["sessions_dirs"], kw["only_dirs"]

        def run(self) -> int:
            return 0

    import loomtui.app.app as app_module

    monkeypatch.setattr(app_module, "LoomApp", FakeApp)
    assert app_command.main([str(d)]) == 0
    assert seen == {"path": None, "dirs": [str(d)], "only": True}
    assert app_command.main([str(d / "kinds.jsonl")]) == 0
    assert seen == {"path": str(d / "kinds.jsonl"), "dirs": [], "only": False}


async def test_a_binary_file_picked_inside_the_app_is_a_notice(tmp_path: Path, fixture_copy) -> None:
    good = fixture_copy("kinds.jsonl")
    odd = tmp_path / "odd.jsonl"
    odd.write_bytes(b"\x00\x01\x02 not a session")
    app = make_app(good)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await browser(pilot)
        app.open_session_file(str(odd))
        await settled(pilot)
        assert app.screen is screen  # back where the user was
        assert any("odd.jsonl" in n for n in notices(app))
        assert not any(isinstance(s, BrowserScreen) and s is not screen for s in app.screen_stack)
