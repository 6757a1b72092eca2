"""The HTML page's header says what the file keeps, as `info` does: a figure a format does not
keep is never printed as 0. The page had shown "$0.0000" for every Claude Code and Codex
session (their files keep no cost), 0 tokens and $0.0000 for socketteer and OpenLoom v1 looms
(they keep no token counts), the format as loomtui's internal id (`claude-code`, `codex`,
`openloom-v1`, `ocp`), and a branch download for an OCP run, whose branch export is refused."""

from __future__ import annotations

import base64
import gzip
import json
import re
from pathlib import Path

import pytest

from loomtui.formats.detect import open_any
from loomtui.formats.html.export import export_html
from loomtui.session.locations import sample_dir
from tests.shared_material import FIXTURES, shared_params

WEATHER = Path(sample_dir()) / "2026-03-02T09-14-05-120Z_5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19.jsonl"
CLAUDE = FIXTURES / "claude" / "claude-code-log__ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
CODEX = FIXTURES / "codex" / "agtrace__codex_session.jsonl"
SOCKETTEER = FIXTURES / "loom" / "socketteer-loom_demo.json"
OPENLOOM_V1 = FIXTURES / "loom" / "openloom-v1-existence-of-claude.openloom.json"
OCP = FIXTURES / "ocp" / "review-loop-v03.ocp.json"


def header(path: Path, tmp_path: Path) -> str:
    """The page's header as plain text (tags dropped, one space between pieces)."""
    target = tmp_path / (path.name + ".html")
    export_html(open_any(str(path)), str(target), source_name=path.name)
    page = target.read_text(encoding="utf-8")
    head = page[page.index('<header id="head">') : page.index("</header>")]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", head)).strip()


def test_a_pi_session_keeps_its_tokens_and_cost(tmp_path: Path) -> None:
    text = header(WEATHER, tmp_path)
    assert "pi session" in text and "cache write" in text and "$0.1845" in text
    assert "download branch" in text


@pytest.mark.parametrize(
    ("path", "name"),
    shared_params([(CLAUDE, "Claude Code session"), (CODEX, "Codex session")], arity=2),
)
def test_an_agent_session_shows_its_tokens_and_no_cost(tmp_path: Path, path: Path, name: str) -> None:
    text = header(path, tmp_path)
    assert name in text and "cache read" in text
    assert "$" not in text and "cost not in the file" in text
    assert " claude-code " not in f" {text} " and " codex " not in f" {text} "
    # Claude Code records cache writes; Codex counts cached input and no cache write
    assert ("cache write" in text) == (path == CLAUDE), text


@pytest.mark.parametrize(
    ("path", "name"),
    shared_params([(SOCKETTEER, "socketteer loom"), (OPENLOOM_V1, "OpenLoom document")], arity=2),
)
def test_a_loom_without_token_counts_prints_no_zeros(tmp_path: Path, path: Path, name: str) -> None:
    text = header(path, tmp_path)
    assert name in text and "tokens and cost not in the file" in text
    assert "$" not in text and "cache read" not in text and " 0 " not in f" {text} "
    assert "openloom-v1" not in text


@pytest.mark.parametrize("path", shared_params([OCP]))
def test_an_ocp_run_offers_no_branch_download(tmp_path: Path, path: Path) -> None:
    text = header(path, tmp_path)
    assert "OCP run" in text and " ocp " not in f" {text} " and "not in the file" not in text
    # the run's own file, named as the app names it (it said "download session file")
    assert "download branch" not in text and "download the OCP run (.json)" in text
    assert "session" not in text


MAP_DIR = Path(__file__).parent / "maitento" / "definitions"


def test_the_loom_map_offers_no_download_and_names_its_directory(tmp_path: Path) -> None:
    """The map's page had a "download session (.jsonl)" button that downloaded an empty file (the
    map has no file of its own and no record kept in one), and labelled its directory `cwd`."""
    text = header(MAP_DIR, tmp_path)
    assert "loom configuration map" in text
    assert "download" not in text, text
    assert f"directory {MAP_DIR}" in text and "cwd" not in text, text


@pytest.mark.parametrize(
    ("path", "ext"),
    [
        (Path(__file__).parent / "maitento" / "reference-request.json", ".json"),
        (MAP_DIR / "support.loom", ".loom"),
    ],
)
def test_the_map_of_one_file_downloads_the_file_in_its_words(tmp_path: Path, path: Path, ext: str) -> None:
    """The map of one configuration file holds that file, and its button had said it downloads
    "the loom configuration map"; the header still names the map it shows."""
    text = header(path, tmp_path)
    assert "loom configuration map" in text and f"config file {path}" in text, text
    assert f"download the loom configuration file ({ext})" in text, text
    assert "download the loom configuration map" not in text, text
    page = (tmp_path / (path.name + ".html")).read_text(encoding="utf-8")
    blob = re.search(r'id="d-side">([^<]*)<', page)
    assert blob is not None
    side = json.loads(gzip.decompress(base64.b64decode(blob.group(1))))
    assert side["fileName"] == side["original"] == path.name  # the download is the file itself
    orig = re.search(r'id="d-orig">([^<]*)<', page)
    assert orig is not None and gzip.decompress(base64.b64decode(orig.group(1))) == path.read_bytes()


def test_a_pi_session_downloads_its_file_in_its_words(tmp_path: Path) -> None:
    text = header(WEATHER, tmp_path)
    assert "download the pi session (.jsonl)" in text and "cwd " in text


@pytest.mark.parametrize(
    ("path", "writes"),
    shared_params([(CLAUDE, True), (CODEX, False)], arity=2),
)
def test_an_entrys_usage_has_no_cache_write_the_format_does_not_keep(path: Path, writes: bool) -> None:
    """Each assistant entry's usage line, as the detail pane says it: Codex keeps no cache-write
    figure, so no entry of its page shows ``W0`` (the page had, on every assistant entry)."""
    from loomtui.formats.html.render import EntryRenderer
    from loomtui.formats.html.stats import Stats
    from loomtui.view.model import TreeModel

    sm = open_any(str(path))
    renderer = EntryRenderer(sm, TreeModel(sm).flat.tool_calls)
    usages = [renderer.render(e, Stats())[2][3] for e in sm.index.entries]
    usages = [u for u in usages if u and "tokens" in u]
    assert usages, "no assistant entry with usage"
    assert any(re.search(r"\bR[\d,]+", u) for u in usages), usages
    assert any(re.search(r"\bW[\d,]+", u) for u in usages) == writes, usages
