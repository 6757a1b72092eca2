"""Loading progress: ``SessionManager.open`` reports bytes and entries; the commands show it
on stderr only when it is a terminal."""

from __future__ import annotations

import io
from typing import Any

import pytest

from loomtui.commands import progress as progress_mod
from loomtui.session import reader
from loomtui.session.manager import SessionManager


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_open_reports_growing_bytes_and_entries(pi_copy: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOOMTUI_NO_CACHE", "1")
    monkeypatch.setattr(reader, "CHUNK", 64 << 10)
    path = pi_copy("pi-mono-large-session")
    seen: list[tuple[int, int, int]] = []
    sm = SessionManager.open(str(path), progress=lambda *a: seen.append(a))
    size = path.stat().st_size
    assert len(seen) >= size // (64 << 10)
    assert all(total == size for _d, total, _n in seen)
    assert [d for d, _t, _n in seen] == sorted(d for d, _t, _n in seen)
    assert seen[-1][0] > size - (64 << 10)
    assert 0 < seen[-1][2] <= len(sm.index.entries)
    assert [n for _d, _t, n in seen] == sorted(n for _d, _t, n in seen)


def test_stderr_progress_only_on_a_terminal(pi_copy: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "CHUNK", 64 << 10)
    monkeypatch.setattr(progress_mod.time, "monotonic", iter(range(0, 10**6)).__next__)  # never throttled
    path = str(pi_copy("pi-mono-large-session"))
    quiet, _ = progress_mod.stderr_progress(path, io.StringIO(), min_bytes=0)
    assert quiet is None
    big_only, _ = progress_mod.stderr_progress(path, Tty(), min_bytes=1 << 40)
    assert big_only is None
    tty = Tty()
    report, clear = progress_mod.stderr_progress(path, tty, min_bytes=0)
    assert report is not None
    SessionManager.open(path, progress=report)
    clear()
    out = tty.getvalue()
    assert out.count("reading pi-mono-large-session.jsonl: ") >= 10
    assert " entries" in out and "/1 MB (" in out
    assert out.endswith("\r\x1b[K")


def test_tree_command_clears_its_progress_line(
    pi_copy: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from loomtui.cli import main

    monkeypatch.setattr(progress_mod, "MIN_BYTES", 0)
    monkeypatch.setattr(reader, "CHUNK", 64 << 10)
    tty = Tty()
    monkeypatch.setattr(progress_mod.sys, "stderr", tty)
    path = pi_copy("pi-mono-large-session")
    assert main(["tree", str(path)]) == 0
    assert "reading " in tty.getvalue() and tty.getvalue().endswith("\r\x1b[K")
    assert "reading " not in capsys.readouterr().out
    tty2 = Tty()
    monkeypatch.setattr(progress_mod.sys, "stderr", tty2)
    assert main(["info", str(path)]) == 0
    assert "reading " in tty2.getvalue() and tty2.getvalue().endswith("\r\x1b[K")


@pytest.mark.parametrize(
    "argv",
    [
        ["export-html", "{f}", "-o", "{d}/page.html"],
        ["export-openloom", "{f}", "-o", "{d}/doc.openloom.json"],
        ["context", "{f}"],
        ["diff", "{f}", "{a}", "{b}"],
    ],
)
def test_the_slow_commands_show_their_progress_too(
    argv: list[str], pi_copy: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """On the 100k-entry session export-html ran 5 s, export-openloom 8 s, diff 4 s, context 2 s
    on a blank terminal: only `tree` and `info` showed that the file was being read."""
    from loomtui.cli import main

    monkeypatch.setattr(progress_mod, "MIN_BYTES", 0)
    monkeypatch.setattr(reader, "CHUNK", 64 << 10)
    tty = Tty()
    monkeypatch.setattr(progress_mod.sys, "stderr", tty)
    path = pi_copy("pi-mono-large-session")
    sm = SessionManager.open(str(path))
    ids = [e.id for e in sm.index.entries if e.type == "message"]
    args = [a.format(f=path, d=tmp_path, a=ids[3], b=ids[-1]) for a in argv]
    assert main(args) == 0
    shown = tty.getvalue()
    assert "reading pi-mono-large-session.jsonl: " in shown and shown.endswith("\r\x1b[K"), shown[-200:]
    if argv[0].startswith("export-"):
        assert "\r\x1b[Kwriting " in shown
    assert "reading pi-mono-large-session.jsonl: " not in capsys.readouterr().out
