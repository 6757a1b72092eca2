"""What the picker lists of the other agents is what their packages' listers give
(``formats/sources.py``, ``LISTERS``): the folders, the rows, their tags, the searched text and
the tools named when nothing is found. A lister registered there, and nothing else, adds a tool."""

from __future__ import annotations

import json
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from loomtui.app.widgets.session_list import HIT, tool_tag
from loomtui.formats import sources
from loomtui.formats.claude import lister as claude_lister
from loomtui.formats.codex import lister as codex_lister
from loomtui.session.agent_catalog import AgentLister, AgentRow, Layout, json_lines
from tests.app.test_picker import HostApp, env, line, settle, start, status  # noqa: F401
from tests.waits import settled

FAKE = "tests_fake_agent_lister"


def test_the_sources_list_the_claude_and_codex_listers_and_the_tags_are_theirs() -> None:
    assert sources.listers() == (claude_lister.LISTER, codex_lister.LISTER)
    assert [(lister.tool, tool_tag(lister.tool)) for lister in sources.listers()] == [
        ("claude-code", "claude"),
        ("codex", "codex"),
    ]
    assert tool_tag("pi") == "pi" and tool_tag("omp") == "omp"  # no lister: the tool itself


def _row(_path: str, buf: bytes) -> AgentRow:
    first = next(obj for _n, obj in json_lines(buf))
    return AgentRow(
        id=first["id"],
        cwd=first["cwd"],
        name=None,
        first_message=first["prompt"],
        created=first["at"],
        modified=first["at"],
        message_count=sum(1 for _n, obj in json_lines(buf) if "said" in obj),
        branch_count=0,
        parent=None,
        entry_count=1,
    )


def _search_text(obj: dict[str, Any], line_no: int) -> tuple[str, str, str | None]:
    said = obj.get("said")
    return ("user", said, f"line-{line_no}") if isinstance(said, str) else ("", "", None)


@pytest.fixture
def fake_agent(env: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:  # noqa: F811
    """A tool keeping ``*.fake`` files under ``$FAKE_AGENT_HOME``, its lister added to ``LISTERS``."""
    home = env / ".fake-agent"
    module = types.ModuleType(FAKE)
    module.LISTER = AgentLister(  # type: ignore[attr-defined]
        tool="fake-agent",
        tag="fake",
        name="Fake Agent",
        roots=lambda environ: [environ["FAKE_AGENT_HOME"]],
        layout=Layout(lambda name: name.endswith(".fake"), depths=(0, 1)),
        claims=lambda obj: obj.get("fake") is True,
        row=_row,
        search_text=_search_text,
    )
    monkeypatch.setenv("FAKE_AGENT_HOME", str(home))
    monkeypatch.setitem(sys.modules, FAKE, module)
    monkeypatch.setattr(sources, "LISTERS", (*sources.LISTERS, FAKE))
    sources.listers.cache_clear()
    yield home
    monkeypatch.undo()
    sources.listers.cache_clear()


def _write_fake(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        {"fake": True, "id": "fake-1", "cwd": "/srv/fake", "prompt": "hello from the fake agent", "at": 1767348000},
        {"said": "hello from the fake agent"},
        {"said": "a heron by the river"},
    ]
    path.write_text("\n".join(json.dumps(o) for o in lines) + "\n")


async def test_a_lister_registered_in_the_sources_adds_its_rows_tag_and_search(
    fake_agent: Path, env: Path, tmp_path: Path
) -> None:
    session = fake_agent / "day" / "one.fake"
    _write_fake(session)
    (fake_agent / "ignored.txt").write_text('{"fake": true}\n')  # not a session by its layout
    app = HostApp([str(tmp_path / "extra")])
    async with app.run_test(size=(120, 30)) as pilot:
        picker = await start(app, pilot)
        assert [(s.tool, s.id, s.message_count) for s in picker.sessions] == [("fake-agent", "fake-1", 2)]
        shown = [line(picker, y).rstrip() for y in range(len(picker.session_list.rows))]
        assert "/srv/fake  1 session" in shown
        row = next(t for t in shown if "hello from the fake agent" in t)
        assert row.lstrip("› ").startswith("fake ")
        await pilot.press("ctrl+f")
        await pilot.press(*"heron")
        await settled(pilot)  # the search's debounce
        await settle(app, pilot)
        hits = [r.hit for r in picker.session_list.rows if r.kind == HIT]
        assert [(h.path, h.line, h.entry_id, h.snippet) for h in hits if h is not None] == [
            (str(session), 3, "line-3", "a heron by the river")
        ]
        assert status(picker).startswith("1 hit in 1 session")


async def test_with_nothing_found_the_picker_names_the_registered_tools_and_folders(
    fake_agent: Path, env: Path
) -> None:
    app = HostApp([])
    async with app.run_test(size=(240, 20)) as pilot:
        picker = await start(app, pilot)
        note = str(picker.query_one("#picker-note", Static).render())
        assert note.startswith(
            "No pi, omp, Claude Code, Codex or Fake Agent sessions found in ~/.pi/agent/sessions, "
            "~/.omp/agent/sessions, ~/.claude/projects, ~/.codex/sessions, "
            "~/.codex/archived_sessions, ~/.fake-agent."
        )
