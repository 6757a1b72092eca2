"""Resume (``loomtui resume``, Alt+W's plan) and Ctrl+S follow one rule: where the file already
ends at the point (its last entries are ones the default filter does not show, such as a
``session_info``, a label, omp's ``title_change``), nothing is appended."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from loomtui.cli import main
from loomtui.formats.carry_on.resume import plan_resume
from loomtui.formats.opening import open_session
from loomtui.view.controller import SessionController

SAMPLES = Path(__file__).resolve().parents[2] / "sample_sessions"
PI_SAMPLE = "2026-03-02T09-14-05-120Z_5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19.jsonl"
OMP_SAMPLE = "2026-03-03T14-30-12-480Z_0196f2a4c1d87e3b.jsonl"


@pytest.fixture(autouse=True)
def agent_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pi and omp found as stand-ins (``true``) with no configuration of the user's."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("LOOMTUI_PI", "LOOMTUI_OMP"):
        monkeypatch.setenv(name, shutil.which("true") or "/bin/true")


def copy(tmp_path: Path, name: str) -> Path:
    dest = tmp_path / name
    shutil.copy(SAMPLES / name, dest)
    return dest


@pytest.mark.parametrize(
    ("name", "point", "after"),
    [(PI_SAMPLE, "8e4f5a6c", "92c3d4e6, a6f7a8ba"), (OMP_SAMPLE, "Ej3Yr9uV", "z5Pn0GvW")],
)
def test_resume_at_the_headers_leaf_appends_nothing_where_ctrl_s_writes_nothing(
    capsys: Any, tmp_path: Path, name: str, point: str, after: str
) -> None:
    path = copy(tmp_path, name)
    before = path.read_bytes()
    controller = SessionController.open(str(path), open_session)
    assert controller.shown_leaf == point  # the header's leaf
    said = " | ".join(n.text for n in controller.persist_leaf().notices)
    assert "Nothing written" in said and f"already resumes at {point}" in said

    assert plan_resume(controller.manager, point).append is None  # Alt+W's plan
    assert main(["resume", str(path), "--at", point, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"append nothing: {path} already ends at {point} (with {after}, which the default")

    assert main(["resume", str(path), "--at", point]) == 0  # the run: the stand-in agent exits 0
    err = capsys.readouterr().err
    assert f"already ends at {point}" in err
    assert path.read_bytes() == before  # nothing appended


def test_ctrl_s_and_resume_agree_on_every_entry(tmp_path: Path) -> None:
    """For each entry made the leaf (Enter), Ctrl+S writes nothing exactly where resume's plan
    appends nothing; before the header's leaf both append."""
    path = copy(tmp_path, PI_SAMPLE)
    controller = SessionController.open(str(path), open_session)
    for e in list(controller.manager.index.entries):
        if e.type == "message" and e.role == "user":
            continue  # Enter and resume both go to its parent
        controller.move_leaf(e.id)
        out = controller.persist_leaf()
        plan = plan_resume(controller.manager, e.id)
        assert (out.ask is None) == (plan.append is None), e.id
    controller.move_leaf("7a0b1c2e")
    assert controller.persist_leaf().ask is not None
    assert plan_resume(controller.manager, "7a0b1c2e").append is not None
    assert os.path.getsize(path) == (SAMPLES / PI_SAMPLE).stat().st_size
