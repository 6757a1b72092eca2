"""Archive records leave pi's view of a session unchanged (checked with the published pi).

pi draws an entry type it does not know as an empty row in its default view (checked below), so
loomtui's archive record is a ``custom`` entry, which pi keeps out of every filter but "all"
and out of the model's context.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from loomtui.session.manager import SessionManager
from loomtui.view.archive import ARCHIVE_TYPE, set_archived
from tests.oracle import NODE, PI_CURRENT, needs_pi, oracle_env

pytestmark = needs_pi(PI_CURRENT)

SEARCHES = ("log", "assistant", "build")


def oracle(shared_dir: Path, path: Path) -> dict[str, Any]:
    cmd = [str(NODE), str(shared_dir / "oracle" / "pi_tree_oracle.mjs"), str(path)]
    for q in SEARCHES:
        cmd += ["--search", q]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=120, env=oracle_env())
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def rows(view: dict[str, Any], drop: str | None = None) -> list[str]:
    """A view's rows without the footer and the cursor column (and without rows ending in
    ``drop``)."""
    return [line[2:] for line in view["lines"][:-1] if drop is None or not line.endswith(drop)]


def key(view: dict[str, Any]) -> tuple[Any, ...]:
    return (view.get("mode"), view.get("search"))


@pytest.fixture()
def archived_copy(tmp_path: Path, shared_dir: Path) -> tuple[Path, Path, list[str]]:
    base = tmp_path / "base.jsonl"
    shutil.copy(shared_dir / "fixtures" / "pi" / "dnouri-browse-session.jsonl", base)
    work = tmp_path / "archived.jsonl"
    shutil.copy(base, work)
    sm = SessionManager.open(str(work))
    records = [
        set_archived(sm, "aa000019", True),
        set_archived(sm, "aa00000e", True),
        set_archived(sm, "aa00000e", False),
    ]
    return base, work, records


def test_pi_reads_a_file_with_archive_records_unchanged(
    shared_dir: Path, archived_copy: tuple[Path, Path, list[str]]
) -> None:
    base, work, records = archived_copy
    before, after = oracle(shared_dir, base), oracle(shared_dir, work)
    assert len(before["views"]) == len(after["views"]) >= 5 + len(SEARCHES)
    record_row = f"[custom: {ARCHIVE_TYPE}]"
    for vb, va in zip(before["views"], after["views"]):
        assert key(vb) == key(va)
        if vb.get("mode") == "all":
            # pi shows custom entries only in "all": once those rows are ignored, nothing differs
            assert rows(va, "• " + record_row) == rows(vb), key(vb)
            assert sum(record_row in line for line in va["lines"]) == len(records)
        else:
            assert va["lines"] == vb["lines"], key(vb)
    # the same conversation for the model, and pi resumes on the same branch
    assert after["context"] == before["context"]
    assert after["branch"] == before["branch"] + records
    assert after["labels"] == before["labels"]


def test_pi_does_not_ignore_unknown_entry_types(shared_dir: Path, tmp_path: Path) -> None:
    """Why the record is not oh-my-pi's ``archive`` entry: pi draws it as an empty row."""
    src = (shared_dir / "fixtures" / "pi" / "dnouri-browse-session.jsonl").read_text()
    last = json.loads(src.strip().splitlines()[-1])["id"]
    omp = tmp_path / "omp.jsonl"
    omp.write_text(
        src
        + json.dumps(
            {
                "type": "archive",
                "id": "ff000001",
                "parentId": last,
                "timestamp": "2026-03-01T10:00:00.000Z",
                "targetId": "aa000019",
                "archived": True,
            }
        )
        + "\n"
    )
    base = tmp_path / "base.jsonl"
    base.write_text(src)
    default_before = next(v for v in oracle(shared_dir, base)["views"] if v.get("mode") == "default")
    default_after = next(v for v in oracle(shared_dir, omp)["views"] if v.get("mode") == "default")
    assert len(default_after["lines"]) == len(default_before["lines"]) + 1
    assert any(line.rstrip().endswith("•") for line in default_after["lines"])  # the empty row
