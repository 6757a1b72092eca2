"""An unexpected exception stops the app with one line on the terminal and the traceback in the
log file (public Textual API only: the app's error console)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from loomtui.app.app import LoomApp, log_dir

FIXTURES = Path(__file__).resolve().parent / "fixtures"


class Boom(LoomApp):
    def on_ready(self) -> None:
        self.call_later(self.explode)

    def explode(self) -> None:
        raise RuntimeError("boom in a handler")


def test_an_internal_error_is_one_line_and_a_logged_traceback(capsys: Any) -> None:
    app = Boom(str(FIXTURES / "kinds.jsonl"), watch=False)
    app.run(headless=True, size=(100, 30))
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("loomtui stopped after an internal error: RuntimeError: boom")
    log = log_dir() / "errors.log"
    assert f"(details in {log})" in lines[0]
    text = log.read_text()
    assert "RuntimeError: boom in a handler" in text and "explode" in text
    assert app.return_code == 1
    os.unlink(log)  # the app tests' fixture fails on a left-over error log
