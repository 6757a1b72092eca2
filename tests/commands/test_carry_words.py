"""`loomtui carry`: the digest's totals in whole words, and a run that says what it did (stdout
keeps ``FILE<TAB>ID`` for scripts)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from loomtui.cli import main
from tests.shared_material import needs_shared

SAMPLE = (
    Path(__file__).resolve().parents[2]
    / "sample_sessions"
    / "2026-03-02T09-14-05-120Z_5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19.jsonl"
)
CLAUDE_FILE = (
    Path(__file__).resolve().parents[2].parent
    / "shared"
    / "fixtures"
    / "claude"
    / "claude-code-log__03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl"
)


def _copy(tmp_path: Path, src: Path = SAMPLE) -> Path:
    dest = tmp_path / src.name
    shutil.copy(src, dest)
    return dest


def _summary(capsys: Any, path: Path, a: str, b: str) -> str:
    assert main(["carry", str(path), "--from", a, "--onto", b, "--dry-run"]) == 0
    return json.loads(capsys.readouterr().out.splitlines()[1])["summary"]


def test_the_digests_totals_are_whole_words(capsys: Any, tmp_path: Path) -> None:
    path = _copy(tmp_path)
    totals = _summary(capsys, path, "d9e8f7a6", "3db4c5d6").splitlines()[-1]
    # an aborted reply whose usage is all zeros: no "0 tokens · $0.0000"
    assert totals == (
        "Totals: 1 turn, 1 user message, 0 tool calls, 1 error; no tokens recorded; 27s of wall time; no files touched."
    ), totals
    totals = _summary(capsys, path, "8e4f5a6c", "d9e8f7a6").splitlines()[-1]
    assert totals.startswith("Totals: 14 turns, 3 user messages, 11 tool calls, 0 errors; 191k tokens, $0.1395; ")
    assert "; 4 files touched: `/home/dev/weather-cli/src/weather_cli/forecast.py`, " in totals


def test_a_carry_says_what_it_did(capsys: Any, tmp_path: Path) -> None:
    path = _copy(tmp_path)
    assert main(["carry", str(path), "--from", "d9e8f7a6", "--onto", "3db4c5d6", "-m", "it crashed"]) == 0
    out, err = capsys.readouterr()
    file, new_id = out.strip().split("\t")
    assert file == str(path)
    assert err == (
        f"loomtui: appended the branch summary {new_id} to {path}, onto 3db4c5d6 (carried from the branch "
        "ending at d9e8f7a6); pi now resumes there and sends the summary to the model\n"
    )


@needs_shared(CLAUDE_FILE)
def test_a_carry_onto_a_pi_copy_says_what_it_wrote(capsys: Any, tmp_path: Path) -> None:
    from loomtui.formats.opening import open_session

    path = _copy(tmp_path, CLAUDE_FILE)
    sm = open_session(str(path))
    ends = [
        e.id
        for e in sm.index.path_to(sm.get_leaf_id())
        if e.type == "message" and e.role == "assistant" and sm.branch_entries(e.id)[0]
    ]
    out_dir = tmp_path / "copies"
    out_dir.mkdir()
    argv = ["carry", str(path), "--from", ends[-1], "--onto", ends[0], "--export", "--dir", str(out_dir), "-m", "x"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    file, new_id = out.strip().split("\t")
    assert err.startswith(f"loomtui: wrote {file}, a pi copy of the branch ending at {ends[0]}, ending with ")
    assert f"the branch summary {new_id} (carried from the branch ending at {ends[-1]})" in err
