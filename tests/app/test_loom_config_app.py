"""Opening Maitento loom configurations in the browser: the tree is the loom map, the detail pane
the explained table, and the usual search finds looms, interactions and files."""

from __future__ import annotations

from pathlib import Path

from app_helpers import browser, make_app, rows, select

from loomtui.view.text import display_text

FIXTURES = Path(__file__).parents[1] / "formats" / "maitento"
S = "11111111-2222-4333-8444-555555555555"
A = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"


async def test_directory_opens_as_the_loom_map_with_tables_and_search() -> None:
    app = make_app(FIXTURES / "interactions")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        model = screen.model
        assert model is not None and screen.manager is not None
        shown = [display_text(model.entry_at(i), {}) for i in range(len(model))]
        assert shown[0] == f"[loom]: {S} · seed of 1 · read by 1"  # shared, not a conflict
        assert shown[1] == "[seeds from it]: support-desk (managed-create.json:5) · ok"
        assert len(shown) == 11  # 3 looms with 6 links, the unlinked group with 1, no problems
        managed = "managed-create.json"  # relative to the directory opened
        await select(pilot, screen, f"seed:{S}:{managed}#$.loom")
        text = screen.detail.text
        assert text.count("support-desk") == 1 and "request form at" in text
        for expected in (
            "given → effective — why",
            "tapestryTokens: — → 1500 — not given: 1,500",
            "Findings",
            "No findings.",
        ):
            assert expected in text
        # search: the same typing search as in any session
        await pilot.press(*"summariser")
        assert model.query == "summariser"
        versions = "oneshot-versions.json"
        assert rows(screen) == [
            f"read:{A}:{versions}#$[0].versions[0].loom",
            f"config:{versions}#$[0].versions[1].loom",
        ]


async def test_definition_file_opens_with_its_findings() -> None:
    app = make_app(FIXTURES / "definitions" / "support.loom")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        support = "support.loom"
        await select(pilot, screen, f"seed:{S}:{support}#loom")
        text = screen.detail.text
        assert "error" in text and "not-a-uuid" in text and "clamped to 20,000" in text


async def test_an_edited_definition_file_is_read_again_keeping_the_selection(tmp_path: Path) -> None:
    path = tmp_path / "support.loom"
    path.write_text((FIXTURES / "definitions" / "support.loom").read_text())
    app = make_app(path)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        selected = f"seed:{S}:support.loom#loom"
        await select(pilot, screen, selected)
        assert "clamped to 20,000" in screen.detail.text
        screen.apply_appended()  # nothing changed: nothing happens
        assert screen.manager is not None and screen.manager.index.by_id[selected].text.endswith("1 error, 3 warnings")
        path.write_text(path.read_text().replace("tapestryTokens = 50000", "tapestryTokens = 5000"))
        screen.apply_appended()  # what the live follow calls when the file changes
        await pilot.pause()
        assert screen.model is not None and screen.model.selected_id == selected
        assert screen.manager.index.by_id[selected].text.endswith("1 error, 2 warnings")
        await pilot.pause()  # the detail pane shows the new content of the same entry
        assert "5000 → 5000 — as given" in screen.detail.text


async def test_enter_on_the_map_says_what_it_does_and_the_footer_offers_no_open() -> None:
    """The footer offered "Enter open" on the loom map, and Enter did nothing at all: no row of
    the map opens anything, and no leaf moves."""
    from app_helpers import notices

    app = make_app(FIXTURES / "interactions")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        hints = str(screen.query_one("#hints").render())
        assert "Enter" not in hints
        shown = len(notices(app))
        await pilot.press("enter")
        await pilot.pause()
        assert len(notices(app)) == shown + 1
        assert "Enter opens nothing" in notices(app)[-1] and "detail pane" in notices(app)[-1]
        from loomtui.app.commands import LoomCommands

        titles = [t for t, _cb, _h in LoomCommands(screen).commands()]
        assert "move the leaf to the selected entry" not in titles  # the palette offered it too


async def test_the_header_names_no_leaf_and_the_filter_bar_has_no_pi_filters(tmp_path: Path) -> None:
    """The map's header read "loom configurations: DIR · DIR · 24 entries · leaf seed:3f2…" with
    active-path dots in the tree, while the app says the map has no leaf; its filter bar offered
    pi's no-tools / user / labeled / all, and Ctrl+O cycled into them."""
    import shutil

    from app_helpers import screen_text

    opened = tmp_path / "maitento"
    shutil.copytree(FIXTURES, opened)
    app = make_app(opened)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await browser(pilot)
        await pilot.pause()
        top = screen_text(app).splitlines()
        head = [part.strip() for part in top[0].strip().split("  ·  ")]
        assert len(head) == 3 and head[0] == "loom configurations" and head[2] == "24 entries", top[0]
        assert str(opened).endswith(head[1].lstrip("…")), top[0]  # the directory once (a long one cut on the left)
        assert top[1].split("Search:")[0].split() == ["Filter:", "default"], top[1]
        tree = screen.tree
        shown = [tree._line(y).text for y in range(tree.scrollable_content_region.height)]
        assert shown[0].startswith("› [loom]: ")  # the first row selected
        assert not any("•" in line for line in shown), shown  # no active path is marked
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert screen.model is not None and screen.model.mode == "default"
        assert screen_text(app).splitlines()[1].split("Search:")[0].split() == ["Filter:", "default"]
