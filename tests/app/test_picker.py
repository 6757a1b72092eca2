"""The session picker: grouping, threading, filter, full-text search, open, back, samples."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from textual.app import App
from textual.screen import Screen
from textual.widgets import Static

from loomtui.app.screens.picker import PickerScreen
from loomtui.app.widgets.session_list import HIT, MORE, NOTE, PROJECT, SESSION, SessionList, format_when
from loomtui.session.locations import sample_dir
from tests.waits import settled


def js(obj: object) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def write(
    path: Path,
    sid: str,
    cwd: str,
    day: str,
    texts: list[str],
    *,
    parent: str | None = None,
    name: str | None = None,
    title_slot: str | None = None,
) -> Path:
    """A session created on ``day`` at 10:00 whose messages are one minute apart."""
    header = {"type": "session", "version": 3, "id": sid, "timestamp": f"{day}T10:00:00.000Z", "cwd": cwd}
    if parent:
        header["parentSession"] = parent
    lines = []
    if title_slot:
        slot = js(
            {
                "type": "title",
                "v": 1,
                "title": title_slot,
                "source": "user",
                "updatedAt": f"{day}T10:00:00.000Z",
                "pad": "",
            }
        )
        lines.append(slot[:-2] + " " * (255 - len(slot.encode())) + '"}')
    lines.append(js(header))
    prev = None
    for i, text in enumerate(texts):
        eid = f"{sid[:3]}{i:05d}"
        role = "user" if i % 2 == 0 else "assistant"
        content = text if role == "user" else [{"type": "text", "text": text}]
        lines.append(
            js(
                {
                    "type": "message",
                    "id": eid,
                    "parentId": prev,
                    "timestamp": f"{day}T10:{i + 1:02d}:00.000Z",
                    "message": {"role": role, "content": content},
                }
            )
        )
        prev = eid
    if name:
        lines.append(
            js(
                {
                    "type": "session_info",
                    "id": f"{sid[:3]}name",
                    "parentId": prev,
                    "timestamp": f"{day}T10:59:00.000Z",
                    "name": name,
                }
            )
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty home (conftest already fixes TZ=UTC) and a private listing cache."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)
    monkeypatch.delenv("OMP_CODING_AGENT_DIR", raising=False)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return home


@pytest.fixture
def sessions(env: Path, tmp_path: Path) -> dict[str, Path]:
    pi = env / ".pi/agent/sessions/--home-u-app--"
    a = write(
        pi / "2020-01-05T10-00-00-000Z_aaa.jsonl",
        "aaa-1",
        "/home/u/app",
        "2020-01-05",
        ["Add a login page", "Done, see login.py", "Now add a logout button", "Added"],
        name="Login page",
    )
    b = write(
        pi / "2020-01-07T10-00-00-000Z_bbb.jsonl",
        "bbb-2",
        "/home/u/app",
        "2020-01-07",
        ["Add a login page", "Done", "Use OAuth instead of passwords", "Switched to OAuth"],
        parent=str(a),
    )
    c = write(
        env / ".omp/agent/sessions/-app/2020-01-06T10-00-00-000Z_ccc.jsonl",
        "ccc-3",
        "/home/u/app",
        "2020-01-06",
        ["Split auth.py into modules", "Split into three"],
        title_slot="Refactor auth",
    )
    d = write(
        tmp_path / "extra/2020-01-04T10-00-00-000Z_ddd.jsonl",
        "ddd-4",
        "/home/u/lib",
        "2020-01-04",
        ["Fix the flaky parser test", "The test depended on dict order; fixed with sorted()"],
    )
    return {"a": a, "b": b, "c": c, "d": d}


class Opened(Screen[None]):
    """Stands in for the browser: Esc goes back."""

    BINDINGS = [("escape", "app.pop_screen", "back")]

    def __init__(self, path: str, select_id: str | None) -> None:
        super().__init__()
        self.path = path
        self.select_id = select_id

    def compose(self):  # type: ignore[no-untyped-def]
        yield Static(f"browser {self.path}")


class HostApp(App[None]):
    def __init__(self, dirs: list[str], *, only: bool = False) -> None:
        super().__init__()
        self.dirs = dirs
        self.only = only
        self.opened: list[tuple[str, str | None]] = []

    def on_mount(self) -> None:
        self.push_screen(PickerScreen(self.dirs, only=self.only))

    def open_session_file(self, path: str, select_id: str | None = None) -> Opened:
        self.opened.append((path, select_id))
        screen = Opened(path, select_id)
        self.push_screen(screen)
        return screen


def rows(screen: PickerScreen) -> list[tuple[str, int, str]]:
    out = []
    for r in screen.session_list.rows:
        if r.kind in (PROJECT, MORE, NOTE):
            out.append((r.kind, r.count, r.text))
        elif r.kind == HIT:
            assert r.hit is not None
            out.append((r.kind, r.hit.line, r.hit.snippet))
        else:
            assert r.session is not None
            out.append((r.kind, r.depth, r.session.title))
    return out


def line(screen: PickerScreen, y: int) -> str:
    return "".join(seg.text for seg in screen.session_list.render_line(y))


def status(screen: PickerScreen) -> str:
    return str(screen.query_one("#picker-status", Static).render())


async def settle(app: App[None], pilot) -> None:  # type: ignore[no-untyped-def]
    await app.workers.wait_for_complete()
    await pilot.pause()


async def start(app: HostApp, pilot) -> PickerScreen:  # type: ignore[no-untyped-def]
    await settle(app, pilot)
    assert isinstance(app.screen, PickerScreen)
    return app.screen


# listing --------------------------------------------------------------------------------------


async def test_sessions_grouped_by_project_newest_first_forks_threaded(
    sessions: dict[str, Path], tmp_path: Path
) -> None:
    app = HostApp([str(tmp_path / "extra")])
    async with app.run_test(size=(100, 20)) as pilot:
        picker = await start(app, pilot)
        assert rows(picker) == [
            (PROJECT, 3, "/home/u/app"),
            (SESSION, 0, "Login page"),  # its fork (Jan 7) keeps the thread on top
            (SESSION, 1, "Add a login page"),  # the fork: no name, its first message
            (SESSION, 0, "Refactor auth"),
            (PROJECT, 1, "/home/u/lib"),
            (SESSION, 0, "Fix the flaky parser test"),
        ]
        assert picker.session_list.selected == 1
        assert str(picker.query_one("#picker-title", Static).render()) == "Sessions  ·  4 in 2 projects"


async def test_a_directory_named_alone_lists_only_its_sessions(sessions: dict[str, Path], tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    app = HostApp([str(extra)], only=True)  # ``loomtui DIR``
    async with app.run_test(size=(100, 20)) as pilot:
        picker = await start(app, pilot)
        assert rows(picker) == [(PROJECT, 1, "/home/u/lib"), (SESSION, 0, "Fix the flaky parser test")]
        title = str(picker.query_one("#picker-title", Static).render())
        assert title.startswith("Sessions in ") and "extra" in title and title.endswith("1 in 1 project")
        assert picker.roots == [str(extra)]


async def test_rows_show_name_times_and_counts(sessions: dict[str, Path], tmp_path: Path) -> None:
    app = HostApp([str(tmp_path / "extra")])
    async with app.run_test(size=(100, 20)) as pilot:
        picker = await start(app, pilot)
        width = picker.session_list.scrollable_content_region.width
        assert width == 100  # no scrollbar: everything fits
        assert [line(picker, y).rstrip() for y in range(6)] == [
            "/home/u/app  3 sessions",
            "› pi     Login page                                        2020-01-05    2020-01-05      4         ·",
            "  pi     └─ Add a login page                               2020-01-07    2020-01-07      4         ·",
            "  omp    Refactor auth                                     2020-01-06    2020-01-06      2         ·",
            "/home/u/lib  1 session",
            "  pi     Fix the flaky parser test                         2020-01-04    2020-01-04      2         ·",
        ]
        header = str(picker.query_one("#picker-columns", Static).render())
        assert header.split() == ["session", "created", "modified", "msgs", "branches"]


async def test_a_huge_session_shows_its_estimated_counts(env: Path, tmp_path: Path) -> None:
    from tests.session.test_catalog_window import write_hole_session

    store = tmp_path / "huge" / "--home-user-webapp--"
    store.mkdir(parents=True)
    write_hole_session(store / "2026-02-01T10-00-00-000Z_hole.jsonl")  # 64 MB, read in two windows
    app = HostApp([str(tmp_path / "huge")], only=True)
    async with app.run_test(size=(100, 20)) as pilot:
        picker = await start(app, pilot)
        assert rows(picker) == [(PROJECT, 1, "/home/user/webapp"), (SESSION, 0, "screenshots of the dialog")]
        *_, msgs, branches = line(picker, 1).split()
        assert msgs.startswith("≈") and int(msgs[1:]) >= 3 and branches == "?"


def test_format_when_is_short_for_recent_times() -> None:
    now = 1772442845.0  # 2026-03-02 09:14:05 UTC
    assert format_when(now - 3600, now) == "08:14"
    assert format_when(now - 40 * 86400, now) == "Jan 21 09:14"
    assert format_when(now - 400 * 86400, now) == "2025-01-26"
    assert format_when(float("nan"), now) == "?"


# filtering -----------------------------------------------------------------------------------


async def test_typing_filters_by_name_first_message_and_project(sessions: dict[str, Path], tmp_path: Path) -> None:
    app = HostApp([str(tmp_path / "extra")])
    async with app.run_test(size=(100, 20)) as pilot:
        picker = await start(app, pilot)
        await pilot.press(*"login")
        assert rows(picker) == [
            (PROJECT, 2, "/home/u/app"),
            (SESSION, 0, "Login page"),
            (SESSION, 0, "Add a login page"),
        ]
        assert status(picker).startswith("2 of 4 sessions match")
        for _ in range(5):
            await pilot.press("backspace")
        await pilot.press(*"u/lib")  # the project
        assert rows(picker) == [(PROJECT, 1, "/home/u/lib"), (SESSION, 0, "Fix the flaky parser test")]
        picker.input.value = "REFACTOR auth"  # case-insensitive, every word
        await pilot.pause()
        assert rows(picker) == [(PROJECT, 1, "/home/u/app"), (SESSION, 0, "Refactor auth")]
        picker.input.value = "nothing like this"
        await pilot.pause()
        [(kind, _n, hint)] = rows(picker)  # not a blank list: a line says why
        assert kind == NOTE and "No session matches “nothing like this”" in hint and "Esc clears it" in hint
        assert picker.session_list.selected_row is None
        assert "No session matches" in line(picker, 0)
        await pilot.press("escape")  # clears the filter
        assert picker.input.value == ""
        assert len(rows(picker)) == 6


async def test_cursor_skips_project_headers(sessions: dict[str, Path], tmp_path: Path) -> None:
    app = HostApp([str(tmp_path / "extra")])
    async with app.run_test(size=(100, 20)) as pilot:
        picker = await start(app, pilot)
        lst = picker.query_one(SessionList)
        seen = [lst.selected]
        for _ in range(4):
            await pilot.press("down")
            seen.append(lst.selected)
        assert seen == [1, 2, 3, 5, 5]
        await pilot.press("up", "up")
        assert lst.selected == 2
        await pilot.press("ctrl+end")
        assert lst.selected == 5
        await pilot.press("ctrl+home")
        assert lst.selected == 1


# opening ---------------------------------------------------------------------------------------


async def test_enter_opens_the_session_and_escape_returns(sessions: dict[str, Path], tmp_path: Path) -> None:
    app = HostApp([str(tmp_path / "extra")])
    async with app.run_test(size=(100, 20)) as pilot:
        picker = await start(app, pilot)
        await pilot.press("down", "down", "enter")
        assert app.opened == [(str(sessions["c"]), None)]
        assert isinstance(app.screen, Opened)
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is picker
        assert picker.session_list.selected_row.session.path == str(sessions["c"])  # type: ignore[union-attr]


async def test_back_from_a_session_lists_what_changed(sessions: dict[str, Path], tmp_path: Path) -> None:
    app = HostApp([str(tmp_path / "extra")])
    async with app.run_test(size=(100, 20)) as pilot:
        picker = await start(app, pilot)
        await pilot.press("enter")
        write(
            tmp_path / "extra/2020-02-01T10-00-00-000Z_eee.jsonl",
            "eee-5",
            "/home/u/new",
            "2020-02-01",
            ["A brand new project"],
        )
        await pilot.press("escape")
        await settle(app, pilot)
        assert rows(picker)[:2] == [(PROJECT, 1, "/home/u/new"), (SESSION, 0, "A brand new project")]
        assert picker.session_list.selected_row.session.path == str(sessions["a"])  # type: ignore[union-attr]


async def test_open_parent_session_of_a_fork(sessions: dict[str, Path], tmp_path: Path) -> None:
    app = HostApp([str(tmp_path / "extra")])
    async with app.run_test(size=(100, 20)) as pilot:
        picker = await start(app, pilot)
        await pilot.press("ctrl+o")  # "Login page" is not a fork
        assert app.opened == []
        await pilot.press("down", "ctrl+o")
        assert app.opened == [(str(sessions["a"]), None)]
        await pilot.press("escape")
        await settle(app, pilot)
        assert picker.session_list.selected_row.session.path == str(sessions["a"])  # type: ignore[union-attr]


# full-text search -------------------------------------------------------------------------------


async def test_ctrl_f_searches_every_session_and_enter_opens_at_the_entry(
    sessions: dict[str, Path], tmp_path: Path
) -> None:
    app = HostApp([str(tmp_path / "extra")])
    async with app.run_test(size=(100, 20)) as pilot:
        picker = await start(app, pilot)
        await pilot.press("ctrl+f")
        assert picker.mode == "search"
        await pilot.press(*"oauth")
        await settled(pilot)  # the search starts 0.3 s after the last key
        await settle(app, pilot)
        assert rows(picker) == [
            (SESSION, 0, "Add a login page"),
            (HIT, 4, "Use OAuth instead of passwords"),
            (HIT, 5, "Switched to OAuth"),
        ]
        assert status(picker).startswith("2 hits in 1 session")
        assert picker.session_list.selected == 1
        await pilot.press("down", "enter")
        assert app.opened == [(str(sessions["b"]), "bbb00003")]
        await pilot.press("escape")
        await settle(app, pilot)
        assert picker.mode == "search"
        await pilot.press("escape")  # back to the list, the filter as it was
        assert picker.mode == "list"
        assert len(rows(picker)) == 6


async def test_search_with_enter_runs_at_once_and_reports_no_matches(sessions: dict[str, Path], tmp_path: Path) -> None:
    app = HostApp([str(tmp_path / "extra")])
    async with app.run_test(size=(100, 20)) as pilot:
        picker = await start(app, pilot)
        await pilot.press(*"zzz")  # the filter text becomes the first query
        await pilot.press("ctrl+f")
        await settle(app, pilot)
        assert picker.input.value == "zzz"
        [(kind, _n, hint)] = rows(picker)
        assert kind == NOTE and "holds every word of “zzz”" in hint
        assert status(picker).startswith("No matches")
        picker.input.value = "dict order sorted"
        await pilot.press("enter")
        await settle(app, pilot)
        assert rows(picker) == [
            (SESSION, 0, "Fix the flaky parser test"),
            (HIT, 3, "The test depended on dict order; fixed with sorted()"),
        ]
        assert app.opened == []


# no sessions: the samples ----------------------------------------------------------------------


async def test_without_sessions_the_bundled_samples_are_listed_and_labelled(env: Path) -> None:
    app = HostApp([])
    async with app.run_test(size=(100, 20)) as pilot:
        picker = await start(app, pilot)
        assert picker.samples
        assert str(picker.query_one("#picker-title", Static).render()) == "Sample sessions  ·  4 in 3 projects"
        note = str(picker.query_one("#picker-note", Static).render())
        assert note.startswith(
            "No pi, omp, Claude Code or Codex sessions found in ~/.pi/agent/sessions, "
            "~/.omp/agent/sessions, ~/.claude/projects, ~/.codex/sessions, "
            "~/.codex/archived_sessions."
        )
        assert "copies of loomtui's sample sessions" in note
        assert [os.path.basename(r.session.path)[:24] for r in picker.session_list.rows if r.session] == [
            "2026-03-03T14-30-12-480Z",
            "2026-03-02T09-14-05-120Z",
            "2026-03-02T11-02-41-907Z",
            "2025-11-18T16-40-03-512Z",
        ]
        # the user's copies are listed, never the package's files (app/samples.py)
        copies = os.path.join(os.environ["XDG_DATA_HOME"], "loomtui", "samples")
        assert all(os.path.dirname(r.session.path) == copies for r in picker.session_list.rows if r.session)
        assert sorted(os.listdir(copies)) == sorted(n for n in os.listdir(sample_dir()) if n.endswith(".jsonl"))


# with the real app -------------------------------------------------------------------------------


async def test_loom_app_opens_from_the_picker_and_escape_returns(sessions: dict[str, Path], tmp_path: Path) -> None:
    app_module = pytest.importorskip("loomtui.app.app")
    browser_module = pytest.importorskip("loomtui.app.screens.browser")
    app = app_module.LoomApp(sessions_dirs=[str(tmp_path / "extra")], watch=False)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(app, pilot)
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        await pilot.press("enter")
        await settle(app, pilot)
        browser = app.screen
        assert isinstance(browser, browser_module.BrowserScreen)
        assert browser.path == str(sessions["a"])
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is picker

        await pilot.press("ctrl+f", *"logout")
        await pilot.press("enter")
        await settle(app, pilot)
        assert rows(picker) == [(SESSION, 0, "Login page"), (HIT, 4, "Now add a logout button")]
        await pilot.press("enter")
        await settle(app, pilot)
        browser = app.screen
        assert isinstance(browser, browser_module.BrowserScreen)
        assert browser.model is not None and browser.model.selected_id == "aaa00002"


async def test_a_search_hit_opens_the_session_at_that_entry(sessions: dict[str, Path], tmp_path: Path) -> None:
    from loomtui.app.app import LoomApp
    from loomtui.app.screens.browser import BrowserScreen

    app = LoomApp(sessions_dirs=[str(tmp_path / "extra")], watch=False)
    async with app.run_test(size=(120, 24)) as pilot:
        picker = await start(app, pilot)  # type: ignore[arg-type]
        await pilot.press("ctrl+f", *"oauth", "enter")
        await settle(app, pilot)
        assert rows(picker) == [
            (SESSION, 0, "Add a login page"),
            (HIT, 4, "Use OAuth instead of passwords"),
            (HIT, 5, "Switched to OAuth"),
        ]
        assert picker.session_list.selected_row.hit.entry_id == "bbb00002"  # type: ignore[union-attr]
        await pilot.press("enter")
        await settle(app, pilot)
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        assert browser.path == str(sessions["b"])
        assert browser.model is not None
        assert browser.model.selected_id == "bbb00002"  # the hit, not the session's leaf
        assert browser.model.leaf_id == "bbb00003"
        assert browser.model.selected_entry is not None and browser.model.selected_entry.id == "bbb00002"
        assert "id bbb00002  parent bbb00001" in browser.detail.text
        drawn = "".join(
            s.text for s in browser.tree.render_line(browser.model.selected - int(browser.tree.scroll_offset.y))
        )
        assert drawn.rstrip() == "› • user: Use OAuth instead of passwords"  # on the active path (•)
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is picker and picker.mode == "search"


async def test_open_session_file_selects_the_nearest_visible_ancestor(sessions: dict[str, Path]) -> None:
    from loomtui.app.app import LoomApp
    from loomtui.app.screens.browser import BrowserScreen

    app = LoomApp(str(sessions["b"]), filter_mode="user-only", watch=False)
    async with app.run_test(size=(120, 24)) as pilot:
        await settle(app, pilot)
        first = app.screen
        assert isinstance(first, BrowserScreen) and first.model is not None
        assert first.model.selected_id == "bbb00002"  # user-only: the leaf's nearest user message
        app.open_session_file(str(sessions["a"]), select_id="aaa00001")  # an assistant message: hidden
        await settle(app, pilot)
        second = app.screen
        assert isinstance(second, BrowserScreen) and second is not first
        assert second.model is not None and second.model.selected_id == "aaa00000"
        app.open_session_file(str(sessions["a"]), select_id="no-such-entry")
        await settle(app, pilot)
        third = app.screen
        assert isinstance(third, BrowserScreen) and third.model is not None
        assert third.model.selected_id == "aaa00002"  # the leaf's row, as when opened plainly
        assert "Entry no-such-entry is not in this session; showing the leaf." in [
            n.message for n in app._notifications
        ]


async def test_claude_and_codex_sessions_are_listed_marked_searched_and_opened(
    sessions: dict[str, Path], env: Path, tmp_path: Path, shared_dir: Path
) -> None:
    """~/.claude/projects and ~/.codex/sessions beside pi's and omp's, each row saying its tool."""
    import shutil

    claude = env / ".claude/projects/-home-user-project/03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl"
    claude.parent.mkdir(parents=True)
    shutil.copyfile(shared_dir / "fixtures/claude/claude-code-log__03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl", claude)
    codex = env / ".codex/sessions/2025/12/10/rollout-2025-12-10T04-55-16-019b04ae-b1c6-7c72-a134-a4c2de66058c.jsonl"
    codex.parent.mkdir(parents=True)
    shutil.copyfile(shared_dir / "fixtures/codex/agtrace__codex_session.jsonl", codex)
    app = HostApp([str(tmp_path / "extra")])
    async with app.run_test(size=(120, 30)) as pilot:
        picker = await start(app, pilot)
        shown = [line(picker, y).rstrip() for y in range(len(picker.session_list.rows))]
        claude_row = next(i for i, t in enumerate(shown) if "Ok, so there's isn't much to see here" in t)
        codex_row = next(i for i, t in enumerate(shown) if "add myapp directory" in t)
        assert shown[claude_row].lstrip("› ").startswith("claude ")
        assert shown[codex_row].lstrip("› ").startswith("codex ")
        assert "/home/user/project  1 session" in shown and "/Users/test_user/agent-sample  1 session" in shown
        picker.session_list.select_where(lambda r: r.session is not None and r.session.path == str(claude))
        await pilot.press("enter")
        assert app.opened[-1] == (str(claude), None)
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("ctrl+f")
        await pilot.press(*"hoge.py")
        await settled(pilot)  # the search's debounce
        await settle(app, pilot)
        hits = [r for r in rows(picker) if r[0] == HIT]
        assert hits and status(picker).startswith(f"{len(hits)} hits in 1 session")


async def test_a_listing_that_fails_is_a_notice_and_the_picker_stays(
    sessions: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from loomtui.app.screens import picker as picker_module

    def broken(*args: object, **kwargs: object) -> list[object]:
        raise OSError("the sessions disk went away")

    monkeypatch.setattr(picker_module, "list_sessions", broken)
    app = HostApp([str(tmp_path / "extra")])
    async with app.run_test(size=(100, 20)) as pilot:
        picker = await start(app, pilot)
        assert app.is_running and app.screen is picker
        assert [n.message for n in app._notifications] == ["the sessions disk went away"]
        assert "List the sessions failed" in status(picker)
        await pilot.press("x")  # still answers keys
        assert picker.input.value == "x"
