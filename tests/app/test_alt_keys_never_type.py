"""A key that never types puts no text into a query: Alt+digit (ESC and a digit, as xterm, tmux
and the Linux console send it) is an Alt key, not macOS's Option character, and an unbound
Alt+letter types nothing into the picker's filter; the printable keys around them still go in,
in order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app_helpers import browser, make_app
from textual._xterm_parser import XTermParser

from tests.app.test_picker import HostApp, env, start, write  # noqa: F401
from tests.waits import settled, until


def _terminal(app: Any, data: str) -> None:
    """``data`` as the terminal sends it, parsed as the driver parses it (an ESC and a character
    ends as an Alt key once no more comes: the end of the data here, the escape delay there)."""
    parser = XTermParser()
    for event in [*parser.feed(data), *parser.feed("")]:
        app.post_message(event)


async def test_alt_digits_never_type_into_the_tree_s_search(fixture_copy) -> None:
    app = make_app(fixture_copy("kinds.jsonl"))
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await browser(pilot)
        model = screen.model
        _terminal(app, "ca")
        for alt in ("\x1b1", "\x1b2", "\x1b0", "\x1b-", "\x1b=", "\x1b.", "\x1b?"):
            _terminal(app, alt)
        _terminal(app, "\x1bq\x1bv\x1by\x1b \x1bQ")  # unbound Alt keys in one read (a held key repeats so)
        _terminal(app, "che")
        await until(pilot, lambda: len(model.query) >= 5, what="the typed letters to reach the search")
        await settled(pilot)
        assert model.query == "cache"
        # typed as characters (macOS's Option, a UK keyboard's £), they still go in
        _terminal(app, " £¡")
        await until(pilot, lambda: model.query.endswith("¡"), what="the characters to reach the search")
        assert model.query == "cache £¡"


async def test_alt_letters_and_digits_never_type_into_the_picker_s_filter(env: Path, tmp_path: Path) -> None:
    d = tmp_path / "s"
    write(d / "2020-01-05T10-00-00-000Z_aaa.jsonl", "5b0c1e2a", "/home/u/webapp", "2020-01-05", ["Set up"])
    app = HostApp([str(d)], only=True)
    async with app.run_test(size=(120, 20)) as pilot:
        picker = await start(app, pilot)
        _terminal(app, "se")
        for alt in ("\x1bx", "\x1bq", "\x1b1", "\x1bK", "\x1b/"):
            _terminal(app, alt)
        _terminal(app, "\x1bx\x1bq\x1b1")  # in one read: "^x" and "^q" went in
        _terminal(app, "t")
        await until(pilot, lambda: len(picker.input.value) >= 3, what="the typed letters to reach the filter")
        await settled(pilot)
        assert picker.input.value == "set" and picker.filter_text == "set"
