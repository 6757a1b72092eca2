"""Opening Maitento loom configurations in the browser: the tree is the loom map, the detail pane
the explained table, and the usual search finds looms, interactions and files."""

from __future__ import annotations

from pathlib import Path

from app_helpers import browser, make_app, rows, select

from loomtui.view.text import display_text

FIXTURES = Path(__file__).parents[1] / "formats" / "maitento"
S = "11111111-2222-4333-8444-555555555555"


async def test_directory_opens_as_the_loom_map_with_tables_and_search() -> None:
    app = make_app(FIXTURES / "interactions")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        model = screen.model
        assert model is not None and screen.manager is not None
        shown = [display_text(model.entry_at(i), {}) for i in range(len(model))]
        assert shown[0] == (f"[loom]: {S} · seed of 1 · read by 1 ! both read-only and seeded: read by debate "
                            f"({FIXTURES}/interactions/roundrobin-update.json:5); seed of support-desk "
                            f"({FIXTURES}/interactions/managed-create.json:5)")
        assert shown[1] == f"[seeds from it]: support-desk ({FIXTURES}/interactions/managed-create.json:5) · ok"
        assert len(shown) == 11  # 3 looms with 6 links, the unlinked group with 1, no problems
        await select(pilot, screen, "loom-0-seeds-0")
        text = screen.detail.text
        assert "[seeds from it] custom message" in text
        for expected in ("given → effective — why", "tapestryTokens: — → 1500 — not given: 1,500", "Findings",
                         "No findings."):
            assert expected in text
        # search: the same typing search as in any session
        await pilot.press(*"summariser")
        assert model.query == "summariser"
        assert rows(screen) == ["loom-1-reads-1", "unlinked-0"]


async def test_definition_file_opens_with_its_findings() -> None:
    app = make_app(FIXTURES / "definitions" / "support.loom")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "loom-0-seeds-0")
        text = screen.detail.text
        assert "error" in text and "not-a-uuid" in text and "clamped to 20,000" in text
