"""`loomtui info` and the app say the same of the leaf: info names the file's last entry (where
pi resumes) and the entry the app's tree marks; the header names the marked one and the file's
last entry beside it, so neither id is taken for the other."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from loomtui.cli import main
from loomtui.formats.opening import open_session
from loomtui.view.controller import SessionController

SAMPLES = Path(__file__).resolve().parents[2] / "sample_sessions"
CASES = [
    ("2026-03-02T09-14-05-120Z_5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19.jsonl", "a6f7a8ba", "8e4f5a6c"),
    ("2026-03-03T14-30-12-480Z_0196f2a4c1d87e3b.jsonl", "z5Pn0GvW", "Ej3Yr9uV"),
]


@pytest.mark.parametrize(("name", "last", "marked"), CASES)
def test_info_and_the_header_name_both_the_last_entry_and_the_marked_one(
    capsys: Any, tmp_path: Path, name: str, last: str, marked: str
) -> None:
    path = tmp_path / name
    shutil.copy(SAMPLES / name, path)
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    at = next(i for i, line in enumerate(out) if line.startswith("leaf "))
    assert out[at] == f"leaf          {last} (last entry in the file)"
    assert out[at + 1].split()[:4] == ["the", "app", "marks", f"{marked},"], out[at + 1]
    assert "the default filter shows" in out[at + 1]
    assert main(["info", str(path), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["leafId"], summary["markedLeafId"]) == (last, marked)

    controller = SessionController.open(str(path), open_session)
    assert controller.shown_leaf == marked  # the app's tree and header
    assert controller.header(str(path)).leaf == f"leaf {marked} (last entry {last})"


def test_a_session_ending_on_a_shown_entry_names_one_leaf(capsys: Any, tmp_path: Path) -> None:
    name = "2025-11-18T16-40-03-512Z_2b9d41c7-6e0a-4f3b-9c8d-1a2b3c4d5e6f.jsonl"
    path = tmp_path / name
    shutil.copy(SAMPLES / name, path)
    controller = SessionController.open(str(path), open_session)
    leaf = controller.manager.index.leaf_id
    assert controller.header(str(path)).leaf == f"leaf {leaf}"
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"leaf          {leaf} (last entry in the file)\n" in out and "the app marks" not in out
