"""An OCP run in the browser: rows, run filters, the detail pane, findings, and Enter on an
attempt opening the agent session it names (Esc returns); the picker lists runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from app_helpers import browser, make_app, notices, rows, screen_text, select

from loomtui.app.screens.browser import BrowserScreen
from loomtui.app.screens.picker import PickerScreen
from tests.shared_material import FIXTURES, needs_shared
from tests.waits import until

ROOT = Path(__file__).resolve().parents[2]
OCP_DIR = FIXTURES / "ocp"
RUN_WITH_SESSION = ROOT / "tests" / "fixtures" / "ocp" / "run-with-session"


def copy_run(tmp_path: Path) -> Path:
    dst = tmp_path / "runs"
    shutil.copytree(RUN_WITH_SESSION, dst)
    return dst / "run.ocp.json"


async def next_browser(pilot: Any, below: BrowserScreen) -> BrowserScreen:
    await pilot.app.workers.wait_for_complete()

    def opened() -> bool:
        screen = pilot.app.screen
        return isinstance(screen, BrowserScreen) and screen is not below and screen.model is not None

    await until(pilot, opened, what="a second browser with its session")
    return pilot.app.screen


async def test_enter_on_an_attempt_opens_its_session_at_the_leaf_and_escape_returns(tmp_path: Path) -> None:
    run = copy_run(tmp_path)
    app = make_app(run)
    async with app.run_test(size=(140, 36)) as pilot:
        screen = await browser(pilot)
        assert rows(screen)[:3] == ["run", "n:build", "a:build.a1"]
        await select(pilot, screen, "a:build.a1")
        await pilot.press("enter")
        opened = await next_browser(pilot, screen)
        assert opened.path.endswith("_7b1e2c3d-0000-4000-8000-00000000a001.jsonl")  # found by its session id
        assert opened.model is not None and opened.model.selected_id == "e0000003"  # at its leaf
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        # a session named by a path relative to the run file
        await select(pilot, screen, "a:review.a1")
        await pilot.press("enter")
        second = await next_browser(pilot, screen)
        assert second.path == str(run.parent / "sessions" / "review.jsonl")
        await pilot.press("escape")
        await pilot.pause()
        # a session that is not on this machine: a notice, no screen
        await select(pilot, screen, "a:missing.a1")
        await pilot.press("enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen is screen
        assert any("no-such-session-id is not on this machine" in n for n in notices(app))


@needs_shared()
async def test_detail_pane_filters_and_search(tmp_path: Path) -> None:
    app = make_app(OCP_DIR / "review-loop-v01.ocp.json")
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await browser(pilot)
        assert screen.model is not None
        await select(pilot, screen, "a:B1.a2")
        text = screen_text(app)
        assert "attempt B1.a2" in text and "evidence reported" in text
        assert "via" in text and "R1 (review: review the export command)" in text
        assert "cause chain" in text
        screen.action_set_filter("failed")
        await pilot.pause()
        assert rows(screen) == ["run", "g:build", "n:B1", "a:B1.a1", "a:B1.a2"]
        assert "failed" in screen_text(app)
        await pilot.press("ctrl+o")  # cycling reaches the run's own modes after pi's
        await pilot.pause()
        assert screen.model.mode == "gates"
        screen.action_set_filter("default")
        await pilot.press(*"merge gate")
        await pilot.pause()
        assert rows(screen) == ["n:G1"]


@needs_shared()
async def test_a_run_filter_has_one_spelling_in_the_bar_and_the_position_tag() -> None:
    """Ctrl+O onto a model filter: the bar said ``model:claude-opus-5-5``, the tag under the
    tree ``[model claude-opus-5-5]``; every run filter's tag is now its name in the bar."""
    app = make_app(OCP_DIR / "v0.3" / "swarm.ocp.json")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        model = screen.model
        assert model is not None
        seen: list[str] = []
        for _ in range(len(model.modes)):
            await pilot.press("ctrl+o")
            await until(pilot, lambda: model.mode not in seen, what="the next filter")
            seen.append(model.mode)
            if model.mode == "default":
                continue
            tag = f"[{model.mode}]"
            assert model.footer().endswith(" " + tag)

            def shown(tag: str = tag) -> bool:
                # the position line: the whole tag, or its start cut with … on that one line
                last = screen_text(app).splitlines()[-1]
                whole = last.endswith(tag)
                return whole or (last.endswith("…") and tag.startswith(last.rsplit(") ", 1)[-1][:-1]))

            await until(pilot, shown, what=f"the tag of {model.mode}")
            assert f" {model.mode} " in screen_text(app).splitlines()[1]  # the bar's name
        assert "model:claude-opus-5-5" in seen and "in-flight" in seen


@needs_shared()
async def test_findings_show_on_their_rows(tmp_path: Path) -> None:
    app = make_app(OCP_DIR / "golden" / "broken-tier.ocp.json")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        assert screen.model is not None and "findings" in screen.model.modes
        screen.action_set_filter("findings")
        await pilot.pause()
        assert rows(screen) == ["run", "n:second"]
        await select(pilot, screen, "n:second")
        text = screen_text(app)
        assert "conformance findings" in text and "E160" in text


@needs_shared()
async def test_picker_lists_runs_under_runs_dir(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copyfile(OCP_DIR / "review-loop-v01.ocp.json", runs / "review.ocp.json")
    shutil.copyfile(OCP_DIR / "v0.3" / "best_of_n.ocp.json", runs / "best.json")
    (runs / "other.json").write_text(json.dumps({"not": "a run"}))
    app = make_app(None, sessions_dirs=[str(runs)])
    async with app.run_test(size=(160, 40)) as pilot:
        await until(
            pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen.sessions, what="the picker's sessions"
        )
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        titles = {s.title for s in picker.sessions}
        assert any(t.startswith("run run-review-loop-01") for t in titles)
        assert not any("not" in t for t in titles)
        # the status counts and cost sit where a session's message and branch counts do: the
        # attempt count under "msgs" and a "·" under "branches" were a session's words
        lines = screen_text(app).splitlines()
        review = next(line for line in lines if "run run-review-loop-01" in line)
        best = next(line for line in lines if "run run_ex_best_of_n" in line)
        header = next(line for line in lines if line.rstrip().endswith("branches"))
        assert review.rstrip().endswith("5✓ 1✗ 1⊘ 1▶") and best.rstrip().endswith("$2.25")
        assert len(best.rstrip()) == len(header.rstrip())  # ending under the columns' end
        assert "·" not in best.rstrip()[-10:]


@needs_shared()
async def test_palette_opens_the_lineage_view_and_escape_returns() -> None:
    app = make_app(OCP_DIR / "golden" / "broken-tier.ocp.json")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        from loomtui.app.screens.source_actions import palette_commands

        commands = palette_commands(screen)
        assert commands[0][0] == "OCP: open the run's spawn/launch lineage view"
        commands[0][1]()
        lineage = await next_browser(pilot, screen)
        assert lineage.manager is not None and lineage.manager.header["loom"]["view"] == "lineage"
        assert lineage.model is not None and "findings" in lineage.model.modes  # findings carried over
        assert rows(lineage)[0] == "run"
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen


@needs_shared()
async def test_swarm_lineage_from_the_app() -> None:
    app = make_app(OCP_DIR / "swarm-v02.ocp.json")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await browser(pilot)
        from loomtui.app.screens.source_actions import palette_commands

        await select(pilot, screen, "a:S-plan.a1")
        names = [c[0] for c in palette_commands(screen)]
        assert "OCP: open the agent session of the selected attempt" in names
        palette_commands(screen)[0][1]()
        lineage = await next_browser(pilot, screen)
        assert lineage.manager is not None
        assert lineage.manager.index.by_id["n:S-rev"].parent_id == "a:S-lead.a1"


@needs_shared()
@pytest.mark.parametrize("size", [(160, 50), (80, 24)], ids=["columns", "stacked"])
async def test_compare_two_attempts_says_what_is_not_counted_as_diff_does(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """Alt+M, Alt+C on two attempts summed "0 turns · 0 user · 0 tool calls · 0 errors" and
    "no tokens, cost or times kept" under attempts of 113k and 75k tokens: an OCP run is not a
    conversation, and `diff` says those figures are not counted for an OCP run; so does compare."""
    from loomtui.app.screens.compare import CompareScreen

    path = tmp_path / "run.ocp.json"
    shutil.copyfile(OCP_DIR / "review-loop-v03.ocp.json", path)
    app = make_app(path)
    async with app.run_test(size=size) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "a:B1.a1")
        await pilot.press("alt+m")
        await select(pilot, screen, "a:B1.a3")
        await pilot.press("alt+c")
        await until(pilot, lambda: isinstance(app.screen, CompareScreen), what="the compare screen")
        await until(pilot, lambda: "counted for an OCP run" in screen_text(app), what="the totals")
        text = screen_text(app)
        assert "0 turns" not in text and "0 errors" not in text and "0 files" not in text and "0 calls" not in text
        assert "not kept" not in text
        if size[0] >= 100:  # a column per side: what is not counted, as `diff` lists it
            totals = [line for line in text.splitlines() if "not counted" in line]
            assert totals and all(line.count("1 entry · not counted for an OCP run:") == 2 for line in totals), totals
            assert text.count("turns, user messages, tool calls, errors,") == 2
        else:  # one line per side
            assert "A 1 entry · nothing else counted for an OCP run" in text
            assert "B 1 entry · nothing else counted for an OCP run" in text
