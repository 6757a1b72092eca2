"""`loomtui tree`: pi's rows on stdout, with ids, leaf override, width cut and colour."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from loomtui.cli import main

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
BROWSE = SHARED / "fixtures" / "pi" / "dnouri-browse-session.jsonl"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    code = main(["tree", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out.rstrip("\n").split("\n"), out.err


@pytest.mark.parametrize("name", [p.stem for p in sorted((SHARED / "fixtures" / "pi").glob("*.jsonl"))])
def test_tree_prints_pi_rows_and_footer(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                        parity_file: Callable[[Path], Path], name: str) -> None:
    monkeypatch.setenv("HOME", "/home/user")
    golden = json.loads((SHARED / "fixtures" / "pi-goldens" / f"{name}.json").read_text())
    path = parity_file(SHARED / "fixtures" / "pi" / f"{name}.jsonl")
    for view in golden["views"]:
        args = ["--filter", view["mode"], "--width", "1000"] + (["--search", view["query"]] if view["query"] else [])
        for _ in range(2):  # a second run finds whatever the first one left in the cache
            code, lines, _ = run(capsys, path, *args)
            assert code == 0
            assert lines == view["lines"], (view["mode"], view["query"])


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


PARALLEL_CHECK = r"""
import io, sys
from loomtui.commands._output import write_lines
from loomtui.session.forked import can_fork
from loomtui.session.manager import SessionManager
from loomtui.view.model import TreeModel

model = TreeModel(SessionManager.open(sys.argv[1]), filter_mode="all", home="/home/user")
n = len(model)
calls = []
def rows(start, stop):
    calls.append((start, stop))
    return model.plain_rows(90, start, stop)

one = io.StringIO()
write_lines(rows, n, one, min_parallel=10**9)
assert calls == [(0, n)], calls
calls.clear()
raw = io.BytesIO()
two = io.TextIOWrapper(raw, encoding="utf-8")
write_lines(rows, n, two, min_parallel=2)
two.flush()
assert can_fork()
assert calls == [(0, n // 2)], calls  # the parent formatted only its half
assert raw.getvalue().decode("utf-8") == one.getvalue()
assert one.getvalue().count("\n") == n
print("ok", n)
"""


def test_big_trees_are_formatted_on_two_cpus_with_identical_output(tmp_path: Path) -> None:
    """``write_lines`` asked to fork formats the second half in a child; the bytes are the same."""
    import os
    import subprocess
    import sys

    if not hasattr(os, "fork") or (os.cpu_count() or 1) < 2:
        pytest.skip("needs fork and two CPUs")
    session = tmp_path / "s.jsonl"
    subprocess.run([sys.executable, str(SHARED / "bench" / "gen_session.py"), str(session), "--entries", "3000"],
                   check=True, capture_output=True)
    done = subprocess.run([sys.executable, "-c", PARALLEL_CHECK, str(session)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok ")


def test_empty_and_one_line_outputs() -> None:
    import io

    from loomtui.commands._output import write_lines

    out = io.StringIO()
    write_lines(lambda a, b: [""][a:b], 1, out, min_parallel=1)
    assert out.getvalue() == "\n"
    write_lines(lambda a, b: [], 0, out)
    assert out.getvalue() == "\n"


def test_the_printed_session_stays_referenced_until_the_process_ends(capsys: pytest.CaptureFixture[str],
                                                                      monkeypatch: pytest.MonkeyPatch,
                                                                      tmp_path: Path) -> None:
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
