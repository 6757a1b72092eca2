"""`loomtui tree`: pi's rows on stdout, with ids, leaf override, width cut and colour."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loomtui.cli import main

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
BROWSE = SHARED / "fixtures" / "pi" / "dnouri-browse-session.jsonl"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    code = main(["tree", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out.rstrip("\n").split("\n"), out.err


def test_tree_prints_pi_rows_and_footer(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/user")
    golden = json.loads((SHARED / "fixtures" / "pi-goldens" / "dnouri-browse-session.json").read_text())
    code, lines, _ = run(capsys, BROWSE, "--filter", "no-tools", "--width", "1000")
    assert code == 0
    assert lines == next(v["lines"] for v in golden["views"] if v["mode"] == "no-tools")


def test_tree_search_option(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(capsys, BROWSE, "--search", "user", "--width", "1000")
    assert lines[-1] == "  (3/4)"


def test_ids_prefix_each_row(capsys: pytest.CaptureFixture[str]) -> None:
    _, lines, _ = run(capsys, BROWSE, "--ids", "--filter", "labeled-only")
    assert lines[0].split("\t")[0] == "aa000001"
    assert lines[1] == "aa000018\t› • [final-answer] assistant: Done - committed as 4f2a91c."
    assert lines[2] == "  (2/2) [labeled]"


def test_leaf_option_moves_active_path(capsys: pytest.CaptureFixture[str]) -> None:
    _, lines, _ = run(capsys, BROWSE, "--leaf", "aa00001e", "--filter", "user-only")
    assert lines == [
        "  • [restored] user: Why is my build failing? It worked yesterday.",
        "  • user: The build log points at scripts/build.sh.It fails at the linker step.",
        "› ├─ • user: Makefile looks fine.Check the CI cache.",
        "  └─ user: Let's commit the fix.",
        "  (3/4) [user]",
    ]


def test_width_cuts_with_three_dots(capsys: pytest.CaptureFixture[str]) -> None:
    _, lines, _ = run(capsys, BROWSE, "--width", "30")
    assert all(len(line) <= 30 for line in lines)
    assert lines[0] == "  • [restored] user: Why is..."


def test_color_always_uses_ansi_and_never_does_not(capsys: pytest.CaptureFixture[str]) -> None:
    _, colored, _ = run(capsys, BROWSE, "--color", "always")
    assert any("\x1b[" in line for line in colored)
    _, plain, _ = run(capsys, BROWSE, "--color", "never")
    assert not any("\x1b[" in line for line in plain)


def test_unknown_leaf_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, BROWSE, "--leaf", "nope")
    assert code == 2
    assert err.startswith("loomtui: no entry 'nope'")


def test_missing_file_is_one_line_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, tmp_path / "none.jsonl")
    assert code == 2
    assert err.count("\n") == 1 and "cannot open" in err
