"""The app's start imports what its first screen needs, no more (docs/performance.md, "A kept
first screen (the app's reopen)"): the screens a key opens (help, compare, reader, the dialogs,
the prompt, the palette's commands), the tools behind them (the comparison, the transcript, the
HTML page, resume and carry) and the session's reader, model and controller are imported when
first used; the reader and what it needs come with the read, after a reopen's first paint.

Each check runs in a fresh interpreter: this one has imported everything already."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"

#: imported only when a key, the palette or the read needs them
LATER = (
    "loomtui.app.commands",
    "loomtui.app.screens.help",
    "loomtui.app.screens.compare",
    "loomtui.app.screens.reader",
    "loomtui.app.screens.dialogs",
    "loomtui.app.screens.prompt",
    "loomtui.app.screens.summary_dialog",
    "loomtui.app.screens.picker",
    "loomtui.view.compare",
    "loomtui.view.reader",
    "loomtui.view.blocks",
    "loomtui.view.context_blocks",
    "loomtui.view.controller",
    "loomtui.view.model",
    "loomtui.formats.html.export",
    "loomtui.formats.carry_on.carry",
    "loomtui.formats.carry_on.resume",
    "loomtui.formats.agent.session",
    "loomtui.formats.detect",
    "loomtui.session.manager",
    "loomtui.session.reader",
    "loomtui.session.entries",
    "msgspec",
    "orjson",
    "textual.widgets._text_area",
)

#: the browser's start, as ``loomtui FILE`` makes it (``commands/app.py``), up to the app built
START = """
import json, sys
from loomtui.commands import app as app_command
from loomtui.formats.opening import Opening
from loomtui.app.app import LoomApp
app = LoomApp(sys.argv[1], watch=False, opening=Opening(sys.argv[1]))
print(json.dumps(sorted(m for m in json.loads(sys.argv[2]) if m in sys.modules)))
"""


def test_the_app_is_built_without_the_screens_a_key_opens_or_the_reader() -> None:
    session = str(FIXTURES / "kinds.jsonl")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", START, session, json.dumps(LATER)],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(ROOT),
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
