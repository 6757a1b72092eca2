"""`loomtui tree`: pi's rows on stdout, with ids, leaf override, width cut and colour."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from loomtui.cli import main
from tests.shared_material import SHARED, needs_shared, shared_params

BROWSE = SHARED / "fixtures" / "pi" / "dnouri-browse-session.jsonl"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    code = main(["tree", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out.rstrip("\n").split("\n"), out.err


@pytest.mark.parametrize("name", shared_params([p.stem for p in sorted((SHARED / "fixtures" / "pi").glob("*.jsonl"))]))
def test_tree_prints_pi_rows_and_footer(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, parity_file: Callable[[Path], Path], name: str
) -> None:
    monkeypatch.setenv("HOME", "/home/user")
    golden = json.loads((SHARED / "fixtures" / "pi-goldens" / f"{name}.json").read_text())
    path = parity_file(SHARED / "fixtures" / "pi" / f"{name}.jsonl")
    for view in golden["views"]:
        args = ["--filter", view["mode"], "--width", "1000"] + (["--search", view["query"]] if view["query"] else [])
        for _ in range(2):  # a second run finds whatever the first one left in the cache
            code, lines, _ = run(capsys, path, *args)
            assert code == 0
            assert lines == view["lines"], (view["mode"], view["query"])


@needs_shared()
def test_tree_search_option(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(capsys, BROWSE, "--search", "user", "--width", "1000")
    assert lines[-1] == "  (3/4)"


@needs_shared()
def test_ids_prefix_each_row(capsys: pytest.CaptureFixture[str]) -> None:
    _, lines, _ = run(capsys, BROWSE, "--ids", "--filter", "labeled-only")
    assert lines[0].split("\t")[0] == "aa000001"
    assert lines[1] == "aa000018\t› • [final-answer] assistant: Done - committed as 4f2a91c."
    assert lines[2] == "  (2/2) [labeled]"


@needs_shared()
def test_leaf_option_moves_active_path(capsys: pytest.CaptureFixture[str]) -> None:
    _, lines, _ = run(capsys, BROWSE, "--leaf", "aa00001e", "--filter", "user-only")
    assert lines == [
        "  • [restored] user: Why is my build failing? It worked yesterday.",
        "  • user: The build log points at scripts/build.sh.It fails at the linker step.",
        "› ├─ • user: Makefile looks fine.Check the CI cache.",
        "  └─ user: Let's commit the fix.",
        "  (3/4) [user]",
    ]


@needs_shared()
def test_width_cuts_rows_without_an_ellipsis(capsys: pytest.CaptureFixture[str]) -> None:
    """pi 1.6.0 cuts /tree rows at the width and adds nothing (0.73.1 ended them in "...")."""
    _, lines, _ = run(capsys, BROWSE, "--width", "30")
    assert all(len(line) <= 30 for line in lines)
    assert lines[0] == "  • [restored] user: Why is my"


@needs_shared()
def test_color_always_uses_ansi_and_never_does_not(capsys: pytest.CaptureFixture[str]) -> None:
    _, colored, _ = run(capsys, BROWSE, "--color", "always")
    assert any("\x1b[" in line for line in colored)
    _, plain, _ = run(capsys, BROWSE, "--color", "never")
    assert not any("\x1b[" in line for line in plain)


@needs_shared()
def test_unknown_leaf_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, BROWSE, "--leaf", "nope")
    assert code == 2
    assert err.startswith("loomtui: no entry 'nope'")


def test_missing_file_is_one_line_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, tmp_path / "none.jsonl")
    assert code == 2
    assert err.count("\n") == 1 and "cannot open" in err


def test_empty_and_one_line_outputs() -> None:
    import io

    from loomtui.commands._output import write_lines

    out = io.StringIO()
    write_lines(lambda a, b: [""][a:b], 1, out)
    assert out.getvalue() == "\n"
    write_lines(lambda a, b: [], 0, out)
    assert out.getvalue() == "\n"


@needs_shared()
def test_the_printed_session_stays_referenced_until_the_process_ends(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`tree` returns without freeing the session it printed (the process ends with ``os._exit``,
    and freeing a big one object by object costs more than printing it); only the latest one
    is kept."""
    import gc
    import shutil
    import weakref

    from loomtui.commands import _output
    from loomtui.view.model import TreeModel

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    refs = []
    for name in ("a.jsonl", "b.jsonl"):
        path = tmp_path / name
        shutil.copyfile(BROWSE, path)
        code, lines, _ = run(capsys, path, "--width", "120")
        assert code == 0 and len(lines) > 5
        kept = _output._kept
        assert len(kept) == 1 and isinstance(kept[0], TreeModel)
        assert kept[0].manager.path == str(path)
        refs.append(weakref.ref(kept[0]))
    gc.collect()
    assert refs[0]() is None and refs[1]() is not None


@needs_shared()
@pytest.mark.parametrize("width", ["0", "-3", "5", "19"])
def test_a_width_too_narrow_for_a_row_is_refused(capsys: pytest.CaptureFixture[str], width: str) -> None:
    """--width 0 and -3 printed blank rows with exit 0, --width 5 fragments of panned rows."""
    code = main(["tree", str(BROWSE), f"--width={width}"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.splitlines() == [f"loomtui: --width {width} is too narrow to show a row; give at least 20 columns"]


@needs_shared()
def test_the_narrowest_width_shows_rows(capsys: pytest.CaptureFixture[str]) -> None:
    _, lines, _ = run(capsys, BROWSE, "--width", "20")
    assert lines and all(0 < len(line) <= 20 for line in lines if line.strip())
