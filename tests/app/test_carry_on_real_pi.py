"""Alt+W with the real pi 1.6.0 behind it, against the loopback model (tests/loopback_model.py).

Under Pilot the app is headless and Textual's ``App.suspend()`` raises ``SuspendNotSupported``
(no terminal to hand over), so the app runs pi without a terminal, in print mode with one prompt
(``LOOMTUI_PI``); the plan, the persisted resume point, pi's run in the session's directory, the
reload and the selection of pi's answer are the app's own path.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from app_helpers import browser, make_app, notices, select

from loomtui.app.screens.dialogs import ConfirmDialog
from tests.loopback_model import PROMPT, REPLY, branched_session, loopback_model, pi_env
from tests.oracle import needs_pi

pytestmark = needs_pi()


async def test_alt_w_resumes_real_pi_and_comes_back_with_its_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = branched_session(tmp_path)
    with loopback_model() as (base_url, requests):
        for k, v in pi_env(tmp_path, base_url).items():
            monkeypatch.setenv(k, v)
        app = make_app(path)
        async with app.run_test(size=(140, 40)) as pilot:
            screen = await browser(pilot)
            await select(pilot, screen, "a2")
            await pilot.press("alt+w")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmDialog)
            await pilot.press("y")
            for _ in range(600):
                if any("Back from the agent" in n or "new entr" in n for n in notices(app)):
                    break
                await pilot.pause(0.05)
            assert app.screen is screen
            manager = screen.controller.manager
            answer = manager.index.by_id.get(screen.model.selected_id)
            assert answer is not None and answer.type == "message" and answer.role == "assistant"
            assert REPLY in json.dumps(manager.get_entry(answer.id))
            ids = [e.id for e in manager.index.path_to(answer.id)]
            assert ids[:4] == ["u1", "a1", "u2", "a2"] and "a3" not in ids  # under the resume point
    (request,) = requests
    texts = json.dumps(request["body"]["messages"])
    assert "ALPHA branch answer" in texts and "BETA" not in texts and PROMPT in texts
