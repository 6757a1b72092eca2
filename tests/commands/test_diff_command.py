"""`loomtui diff FILE A B`: unified transcript diff plus totals, --context, --color, --json."""

from __future__ import annotations

import io
import json
import os
import pty
import subprocess
import sys
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
    assert "  tokens                 1,200   not in file" in lines
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


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def long_branches(n: int, text: str = "step") -> list[dict[str, Any]]:
    """A user message, then a branch of ``n`` replies ending at ``a{n-1}`` and one of two
    ending at ``b1``."""
    out = [msg("u0", None, "user", "go", 0)]
    parent = "u0"
    for k in range(n):
        out.append(msg(f"a{k}", parent, "assistant", f"{text} {k}", k + 1))
        parent = f"a{k}"
    out += [msg("b0", "u0", "assistant", "other 0", 1), msg("b1", "b0", "assistant", "other 1", 2)]
    return out


def test_progress_while_comparing_and_writing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 100k-entry session's diff ran for seconds on a blank terminal once the index was
    cached (the reading line only shows while a file is read): the entries compared are
    counted, and a line says the diff is being written to the file or pipe."""
    from loomtui.commands import progress as progress_mod
    from loomtui.view import compare as compare_mod

    monkeypatch.setattr(progress_mod, "MIN_BYTES", 0)
    monkeypatch.setattr(progress_mod.time, "monotonic", iter(range(0, 10**6)).__next__)  # never throttled
    monkeypatch.setattr(compare_mod, "REPORT_EVERY", 10)
    f = write(tmp_path, long_branches(95))
    tty = Tty()
    monkeypatch.setattr(progress_mod.sys, "stderr", tty)
    assert main(["diff", str(f), "a94", "b1"]) == 0
    shown = tty.getvalue()
    for done in range(0, 95, 10):
        assert f"\r\x1b[Kcomparing s.jsonl: {done} of 97 entries" in shown
    assert "\r\x1b[Kcomparing s.jsonl: 95 of 97 entries" in shown  # B's first entry
    assert "\r\x1b[Kwriting the diff…" in shown and shown.endswith("\r\x1b[K")
    out = capsys.readouterr().out
    assert "comparing" not in out and "writing the diff" not in out
    assert "-assistant: step 94" in out
    # stderr not a terminal: nothing on it
    quiet = io.StringIO()
    monkeypatch.setattr(progress_mod.sys, "stderr", quiet)
    assert main(["diff", str(f), "a94", "b1"]) == 0
    assert quiet.getvalue() == ""


def test_progress_on_a_real_terminal(tmp_path: Path) -> None:
    """`loomtui diff BIG A B > out.txt` on a terminal: its stderr (a pty) shows what it is doing,
    and the line is erased at the end; the output file holds the diff alone."""
    entries = long_branches(1200, "x" * 8000)  # past the size where progress is shown
    f = write(tmp_path, entries)
    assert f.stat().st_size > (8 << 20)
    master, slave = pty.openpty()
    env = {**os.environ, "HOME": str(tmp_path), "LOOMTUI_CACHE_DIR": str(tmp_path / "cache")}
    with open(tmp_path / "out.txt", "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "loomtui", "diff", str(f), "a1199", "b1"], stdout=out, stderr=slave, env=env
        )
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the pty closed: the command ended
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    assert proc.wait() == 0
    text = seen.decode()
    assert "\r\x1b[Kcomparing s.jsonl: 0 of 1,202 entries" in text
    assert "writing the diff…" in text and text.endswith("\r\x1b[K")
    written = (tmp_path / "out.txt").read_text()
    assert "comparing" not in written and written.startswith("common ancestor: u0")


def test_big_figures_have_thousands_separators(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`diff` printed `tokens 65583000` where `info` writes 65,583,000: one formatter for both."""
    entries = long_branches(1100)
    for e in entries[1:1101]:
        e["message"]["usage"] = usage(59621, 1.25)
    f = write(tmp_path, entries)
    code, lines, _ = run(capsys, f, "a1099", "b1")
    assert code == 0
    assert "--- A a1099 (1,100 entries after the ancestor)" in lines
    assert "  entries                1,100             2" in lines
    assert "  turns                  1,100             2" in lines
    assert "  tokens            65,583,100   not in file" in lines
    assert "  cost ($)          1,375.0000   not in file" in lines
    assert main(["info", str(f)]) == 0
    assert "total 65,583,100" in capsys.readouterr().out


def test_only_the_lines_printed_are_made(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two retries sharing 1,000 identical replies before one change: the diff prints a hunk
    of context and the change, and makes the lines of those entries only (it made every line
    of both branches, and held them all, before the first was written)."""
    from loomtui.view import compare_hunks

    entries = [msg("u0", None, "user", "go", 0)]
    for side in "ab":
        parent = "u0"
        for k in range(1000):
            entries.append(msg(f"{side}{k}", parent, "assistant", f"step {k}\nline two", k + 1))
            parent = f"{side}{k}"
        entries.append(msg(f"{side}-end", parent, "assistant", f"end {side}", 1001))
    made: list[str] = []
    real = compare_hunks.item_lines

    def counting(item: Any) -> list[str]:
        made.append(item.entry.id)
        return real(item)

    monkeypatch.setattr(compare_hunks, "item_lines", counting)
    code, lines, _ = run(capsys, write(tmp_path, entries), "a-end", "b-end", "-U", "3")
    assert code == 0
    assert lines[3:9] == [
        "@@ -1998,4 +1998,4 @@ A:a-end",
        "   line two",
        " assistant: step 999",
        "   line two",
        "-assistant: end a",
        "+assistant: end b",
    ]
    assert set(made) <= {"a998", "a999", "a-end", "b-end"}, sorted(set(made))
