"""The HTML page speaks of what the file holds: the toggle for custom messages marked hidden is
offered only where there are some (it had been on every page: an OCP run's, a loom's, a pi
session's without any, where it did nothing), and an OCP run's entries are headed by what they are in
the run (run, node kind, attempt), not by pi's entry type "custom"."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from loomtui.formats.detect import open_any
from loomtui.formats.html.export import export_html
from loomtui.formats.html.render import EntryRenderer
from loomtui.formats.html.stats import Stats
from loomtui.session.locations import sample_dir
from loomtui.view.model import TreeModel
from tests.shared_material import FIXTURES, shared_params

PI_HIDDEN = FIXTURES / "pi" / "dnouri-browse-session.jsonl"
CLAUDE = FIXTURES / "claude" / "claude-code-log__ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
CODEX = FIXTURES / "codex" / "agtrace__codex_session.jsonl"
SOCKETTEER = FIXTURES / "loom" / "socketteer-loom_demo.json"
OPENLOOM_V1 = FIXTURES / "loom" / "openloom-v1-existence-of-claude.openloom.json"
OCP = FIXTURES / "ocp" / "minimal.ocp.json"
WEATHER = Path(sample_dir()) / "2026-03-02T09-14-05-120Z_5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19.jsonl"


def page(path: Path, tmp_path: Path) -> str:
    target = tmp_path / (path.name + ".html")
    export_html(open_any(str(path)), str(target), source_name=path.name)
    return target.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", shared_params([PI_HIDDEN, CLAUDE, CODEX]))
def test_the_hidden_messages_toggle_is_offered_where_there_are_some(path: Path, tmp_path: Path) -> None:
    # pi's custom messages with display false, Claude Code's meta lines, Codex's developer context
    assert 'data-toggle="hidden"' in page(path, tmp_path)


def test_no_hidden_messages_toggle_on_a_pi_session_without_any(tmp_path: Path) -> None:
    assert 'data-toggle="hidden"' not in page(WEATHER, tmp_path)


@pytest.mark.parametrize("path", shared_params([SOCKETTEER, OPENLOOM_V1, OCP]))
def test_no_hidden_messages_toggle_where_there_are_none(path: Path, tmp_path: Path) -> None:
    text = page(path, tmp_path)
    assert 'data-toggle="hidden"' not in text


@pytest.mark.parametrize("path", shared_params([OCP]))
def test_an_ocp_runs_entries_are_headed_in_the_runs_words(path: Path) -> None:
    sm = open_any(str(path))
    renderer = EntryRenderer(sm, TreeModel(sm).flat.tool_calls)
    heads = {e.id: renderer.render(e, Stats())[2][0] for e in sm.index.entries}
    assert heads["run"] == "[run]"
    assert heads["n:T1"] == "[impl]"
    assert heads["a:T1.a1"] == "[attempt]"
    assert not any(re.fullmatch(r"custom|meta", h) for h in heads.values())
