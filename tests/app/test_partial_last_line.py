"""A label set while the agent is still writing its last line (no newline yet): nothing is
written into the middle of that line, the notice says which label was not set, and once the
line is complete the same label is written after it."""

from __future__ import annotations

from app_helpers import browser, make_app, notices, select
from textual.widgets import Input

from loomtui.app.screens.dialogs import LabelDialog
from loomtui.session.manager import SessionManager
from tests.waits import until

#: the first half of an entry the agent is still appending (pi writes a line and its newline at once)
PARTIAL = (
    b'{"type":"message","id":"f0000009","parentId":"s1000001","timestamp":"2025-06-01T10:00:27.000Z",'
    b'"message":{"role":"assistant","content":[{"type":"text","text":"PARTIAL'
)
REST = b' DONE"}],"timestamp":1772449510000}}\n'


async def _label(pilot, screen, entry_id: str, text: str) -> None:
    await select(pilot, screen, entry_id)
    await pilot.press("alt+l")
    await until(pilot, lambda: isinstance(pilot.app.screen, LabelDialog), what="the label dialog")
    pilot.app.screen.query_one(Input).value = text
    await pilot.press("enter")
    await until(pilot, lambda: not isinstance(pilot.app.screen, LabelDialog), what="the dialog closed")


async def test_a_label_waits_for_the_agents_last_line(fixture_copy) -> None:
    path = fixture_copy("kinds.jsonl")
    app = make_app(path)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        with open(path, "ab") as f:
            f.write(PARTIAL)
        before = path.read_bytes()
        await _label(pilot, screen, "b1000001", "partialtest")
        await until(pilot, lambda: any("still writing" in n for n in notices(app)), what="the notice")
        (notice,) = [n for n in notices(app) if "still writing" in n]
        assert notice == (
            f"Label [partialtest] on b1000001 not set: {path} ends in a line another program is still "
            "writing; nothing was written, try again in a moment."
        )
        assert path.read_bytes() == before
        assert screen.model is not None and screen.model.label("b1000001") is None
        with open(path, "ab") as f:  # the agent finishes its line
            f.write(REST)
        done = path.read_bytes()
        await _label(pilot, screen, "b1000001", "partialtest")
        await until(pilot, lambda: screen.model is not None and screen.model.label("b1000001") == "partialtest")
        written = path.read_bytes()
        assert written.startswith(done) and written[len(done) :].count(b"\n") == 1
    again = SessionManager.open(str(path))
    assert again.diagnostics == [] and again.get_label("b1000001") == "partialtest"
    assert "f0000009" in again.index.by_id
