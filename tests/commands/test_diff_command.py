"""`loomtui diff FILE A B`: unified transcript diff plus totals, --context, --color, --json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from loomtui.cli import main
from tests.shared_material import SHARED, needs_shared

BROWSE = SHARED / "fixtures" / "pi" / "dnouri-browse-session.jsonl"
HEADER = {"type": "session", "version": 3, "id": "s-diff", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}


def ts(n: int) -> str:
    return f"2026-01-01T00:{n // 60:02d}:{n % 60:02d}.000Z"


def msg(i: str, parent: str | None, role: str, text: str, n: int, **extra: Any) -> dict[str, Any]:
    content: Any = text if role == "user" else [{"type": "text", "text": text}]
    return {
        "type": "message",
        "id": i,
        "parentId": parent,
        "timestamp": ts(n),
        "message": {"role": role, "content": content, **extra},
    }


def write(tmp_path: Path, entries: list[dict[str, Any]]) -> Path:
    f = tmp_path / "s.jsonl"
    f.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in [HEADER, *entries]) + "\n", encoding="utf-8")
    return f


def run(capsys: pytest.CaptureFixture[str], *args: Any) -> tuple[int, list[str], str]:
    code = main(["diff", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out.rstrip("\n").split("\n"), out.err


def two_retries() -> list[dict[str, Any]]:
    return [
        msg("u0", None, "user", "rename the module", 0),
        msg("a1", "u0", "assistant", "Renaming parser to reader.", 1),
        msg("a2", "a1", "user", "now the tests", 2),
        msg("a3", "a2", "assistant", "Tests pass: 12 passed.", 3),
        msg("b1", "u0", "assistant", "Renaming parser to reader.", 4),
        msg("b2", "b1", "user", "now the tests", 5),
        msg("b3", "b2", "assistant", "Tests fail: 2 failed, 10 passed.", 6, stopReason="stop"),
    ]


def test_identical_branches(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    f = write(
        tmp_path,
        two_retries()[:3]
        + [msg("b1", "u0", "assistant", "Renaming parser to reader.", 4), msg("b2", "b1", "user", "now the tests", 5)],
    )
    code, lines, _ = run(capsys, f, "a2", "b2")
    assert code == 0
    assert lines[:4] == [
        "common ancestor: u0  user: rename the module",
        "--- A a2 (2 entries after the ancestor)",
        "+++ B b2 (2 entries after the ancestor)",
        "(the two branches are identical: 2 entries)",
    ]
    assert "  turns                      1             1" in lines


def test_changed_words_and_hunk(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, lines, _ = run(capsys, write(tmp_path, two_retries()), "a3", "b3", "--context", "1")
    assert code == 0
    at = lines.index("@@ -2,2 +2,2 @@ A:a3")
    assert lines[at + 1 : at + 4] == [
        " user: now the tests",
        "-assistant: Tests pass: 12 passed.",
        "+assistant: Tests fail: 2 failed, 10 passed.",
    ]
    # --context 0: only the changed lines
    _, lines0, _ = run(capsys, write(tmp_path, two_retries()), "a3", "b3", "-U", "0")
    assert "@@ -3,1 +3,1 @@ A:a3" in lines0


def test_color_marks_changed_words(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _, lines, _ = run(capsys, write(tmp_path, two_retries()), "a3", "b3", "--color")
    minus = next(x for x in lines if x.startswith("\x1b[31m-"))
    assert minus == "\x1b[31m-assistant: Tests \x1b[1;97;41mpass\x1b[0;31m: \x1b[1;97;41m12 \x1b[0;31mpassed.\x1b[0m"
    plus = next(x for x in lines if x.startswith("\x1b[32m+"))
    assert plus == (
        "\x1b[32m+assistant: Tests \x1b[1;30;42mfail\x1b[0;32m: \x1b[1;30;42m2 failed, 10 \x1b[0;32mpassed.\x1b[0m"
    )
    _, plain, _ = run(capsys, write(tmp_path, two_retries()), "a3", "b3", "--color", "never")
    assert not any("\x1b" in x for x in plain)


def test_one_empty_branch(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A is an ancestor of B: A's branch is empty, all of B is added."""
    code, lines, _ = run(capsys, write(tmp_path, two_retries()), "u0", "a3")
    assert code == 0
    assert lines[1:4] == [
        "--- A u0 (0 entries after the ancestor)",
        "+++ B a3 (3 entries after the ancestor)",
        "@@ -0,0 +1,3 @@ B:a1",
    ]
    assert lines[4:7] == [
        "+assistant: Renaming parser to reader.",
        "+user: now the tests",
        "+assistant: Tests pass: 12 passed.",
    ]
    assert "  wall time                 0s            3s" in lines


@needs_shared()
def test_branch_inside_a_compaction(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(capsys, BROWSE, "aa000018", "aa00001e")
    assert code == 0
    assert lines[0].startswith("common ancestor: aa000008  user: The build log points")
    assert "-compaction: [98k tokens before]" in lines
    assert "-  Debugged the build failure; inspected app.py, build.sh, and logs." in lines
    assert "-branch summary: Compared a config fix against a log-search approach." in lines
    # the error message's tab and newline stay readable, never raw
    assert "-  rate limit exceeded    retry later" in lines
    assert "  errors                     2             0" in lines


def test_unicode_text(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    entries = [
        msg("u0", None, "user", "Übersetze bitte 🌍", 0),
        msg("a1", "u0", "assistant", "こんにちは世界 — héllo wörld", 1),
        msg("b1", "u0", "assistant", "こんにちは地球 — héllo wörld", 2),
    ]
    code, lines, _ = run(capsys, write(tmp_path, entries), "a1", "b1", "--color")
    assert code == 0
    assert lines[0] == "common ancestor: u0  user: Übersetze bitte 🌍"
    minus = next(x for x in lines if x.startswith("\x1b[31m-"))
    assert "\x1b[1;97;41mこんにちは世界 " in minus and "héllo wörld" in minus


def test_control_characters_never_reach_the_terminal(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    entries = [
        msg("u0", None, "user", "q", 0),
        msg("a1", "u0", "assistant", "evil \x1b]0;title\x07 text", 1),
        msg("b1", "u0", "assistant", "fine", 2),
    ]
    _, lines, _ = run(capsys, write(tmp_path, entries), "a1", "b1")
    assert not any("\x1b" in x or "\x07" in x for x in lines)
    assert any("␛]0;title␇" in x for x in lines)


def test_json_output(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["diff", str(write(tmp_path, two_retries())), "a3", "b", "--json"])
    assert code == 2  # "b" is a prefix of b1, b2, b3: ambiguous
    assert "3 entries start with 'b'" in capsys.readouterr().err
    assert main(["diff", str(write(tmp_path, two_retries())), "a3", "b3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ancestor"] == "u0" and data["identical"] is False
    assert [p["status"] for p in data["pairs"]] == ["same", "same", "changed"]
    assert data["a"]["totals"]["turns"] == 2 and data["b"]["totals"]["wall_ms"] == 6000


def test_unknown_entry_is_a_user_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["diff", str(write(tmp_path, two_retries())), "a3", "zzz"]) == 2
    assert "no entry 'zzz'" in capsys.readouterr().err


def usage(tokens: int, cost: float) -> dict[str, Any]:
    return {"input": tokens - 10, "output": 10, "totalTokens": tokens, "cost": {"total": cost}}


def test_figures_no_reply_carries_are_not_in_the_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Replies without a usage are not replies of 0 tokens: `info` says "not in the file", so
    does `diff` (and null in --json), never a column of 0s."""
    code, lines, _ = run(capsys, write(tmp_path, two_retries()), "a3", "b3")
    assert code == 0
    assert "  tokens        not in the file (none of the 4 assistant messages carries a count)" in lines
    assert "  cost ($)      not in the file" in lines
    assert not any(x.split()[:1] in (["tokens"], ["cost"]) and x.endswith(" 0") for x in lines)
    main(["diff", str(write(tmp_path, two_retries())), "a3", "b3", "--json"])
    data = json.loads(capsys.readouterr().out)
    for side in ("a", "b"):
        assert data[side]["totals"]["tokens"] is None and data[side]["totals"]["cost"] is None
    # one branch's replies carry counts, the other's do not: that branch's cell says so
    entries = two_retries()
    for e in entries[3:4]:
        e["message"]["usage"] = usage(1200, 0.25)
    code, lines, _ = run(capsys, write(tmp_path, entries), "a3", "b3")
    assert "  tokens                  1200   not in file" in lines
    assert "  cost ($)              0.2500   not in file" in lines
    main(["diff", str(write(tmp_path, entries)), "a3", "b3", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["a"]["totals"]["tokens"] == 1200 and data["b"]["totals"]["tokens"] is None


def test_compare_screen_totals_leave_out_what_is_not_in_the_file(tmp_path: Path) -> None:
    from loomtui.session.manager import SessionManager
    from loomtui.view.compare import compare

    cmp = compare(SessionManager.open(str(write(tmp_path, two_retries()))), "a3", "b3", home="/h")
    assert cmp.totals_a.lines()[1] == "3s · tokens and cost: not in the file"
    assert cmp.totals_a.spent() == ["3s"]


def test_a_and_b_the_same_entry(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A branch compared with itself: said in one line, not a diff header over a table of 0s."""
    f = write(tmp_path, two_retries())
    code, lines, _ = run(capsys, f, "a3", "a3")
    assert code == 0
    assert lines == ["A and B are both a3 (assistant: Tests pass: 12 passed.): one branch, nothing to compare"]
    assert main(["diff", str(f), "a", "a3", "--json"]) == 2  # "a" is ambiguous
    capsys.readouterr()
    assert main(["diff", str(f), "a3", "a3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["same_entry"] is True and data["pairs"] == []
    code, lines, _ = run(capsys, f, "a1", "a3")
    assert code == 0 and "--- A a1 (0 entries after the ancestor)" in lines
