"""`export-openloom -o OUT`: an OpenLoom document's name (.json, .openloom) or a bundle's
(.zip); any other name, and a directory, is refused in one line (exit 2) and nothing is written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from loomtui.cli import main

MESSAGES = [
    {
        "type": "message",
        "id": "a",
        "parentId": None,
        "timestamp": "2026-03-01T09:00:01.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    }
]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", ["out.txt", "out.jsonl", "out", "out.json.bak"])
def test_a_name_that_is_no_openloom_file_is_refused(name, capsys, write_session, tmp_path: Path) -> None:
    src = write_session(MESSAGES)
    before = sorted(os.listdir(tmp_path))
    code, out, err = run(capsys, "export-openloom", str(src), "-o", str(tmp_path / name))
    assert (code, out) == (2, "")
    assert err == (
        f"loomtui: -o {tmp_path / name}: an OpenLoom document's name ends in .json or .openloom "
        "(.zip writes a bundle with its media)\n"
    )
    assert sorted(os.listdir(tmp_path)) == before


@pytest.mark.parametrize("name", ["out.json", "out.openloom.json", "out.openloom", "out.zip", "OUT.JSON"])
def test_openloom_names_are_written(name, capsys, write_session, tmp_path: Path) -> None:
    src = write_session(MESSAGES)
    code, out, _err = run(capsys, "export-openloom", str(src), "-o", str(tmp_path / name))
    assert code == 0 and out.startswith(f"wrote {'bundle' if name.endswith('.zip') else 'document'} ")
    if not name.endswith(".zip"):
        assert json.loads((tmp_path / name).read_bytes())["format"] == "open-loom"


@pytest.mark.parametrize("name", ["out", "out/", "out.json"])
def test_a_directory_is_reported_as_one(name, capsys, write_session, tmp_path: Path) -> None:
    src = write_session(MESSAGES)
    (tmp_path / name.rstrip("/")).mkdir()
    given = str(tmp_path / "out") + "/" if name.endswith("/") else str(tmp_path / name)
    code, out, err = run(capsys, "export-openloom", str(src), "-o", given)
    assert (code, out) == (2, "")
    assert err == (
        f"loomtui: -o {given} is a directory; give the name of the file to write "
        "(ending in .json, or .zip for a bundle)\n"
    )
    assert os.listdir(tmp_path / name.rstrip("/")) == []


def test_other_exports_report_a_directory_as_one(capsys, write_session, tmp_path: Path) -> None:
    src = write_session(MESSAGES)
    folder = tmp_path / "page.html"
    folder.mkdir()
    code, out, err = run(capsys, "export-html", str(src), "-o", str(folder))
    assert (code, out) == (2, "")
    assert err == f"loomtui: {folder} is a directory; give the name of the file to write\n"
