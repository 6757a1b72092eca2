"""`loomtui tree` reprints a big session's rows from the memo beside the index
(formats/opening/tree_memo.py) — exactly what a fresh run prints, and never for a changed file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from loomtui.cli import main
from loomtui.formats.opening import tree_memo
from loomtui.session import cache_files, cache_io
from loomtui.session.manager import SessionManager
from tests.waits import wait_until


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("LOOMTUI_CACHE_DIR", str(d))
    monkeypatch.setenv("LOOMTUI_CACHE_MIN_BYTES", "0")
    monkeypatch.delenv("LOOMTUI_NO_CACHE", raising=False)
    monkeypatch.setenv("HOME", "/home/user")
    return d


@pytest.fixture
def session(pi_copy) -> Path:  # type: ignore[no-untyped-def]
    return Path(pi_copy("dnouri-browse-session"))


@pytest.fixture
def opens(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Paths the session opener read (a memo hit reads none)."""
    seen: list[str] = []
    real = SessionManager.open.__func__  # type: ignore[attr-defined]

    def open_(cls, path, *a, **kw):  # type: ignore[no-untyped-def]
        seen.append(path)
        return real(cls, path, *a, **kw)

    monkeypatch.setattr(SessionManager, "open", classmethod(open_))
    return seen


def tree(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["tree", *args]) == 0
    cache_io.reap(block=True)  # the memo and the index are written by background children
    return capsys.readouterr().out


def memo_file(path: Path) -> Path:
    return Path(cache_io.cache_path(str(path))[: -len(cache_files.SUFFIX)] + tree_memo.SUFFIX)


def plain(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str) -> str:
    with monkeypatch.context() as m:
        m.setenv("LOOMTUI_NO_CACHE", "1")
        return tree(capsys, *args)


def test_a_second_run_prints_the_same_rows_without_reading_the_session(
    cache: Path, session: Path, opens: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args = (str(session), "--width", "90", "--ids")
    first = tree(capsys, *args)
    assert len(opens) == 1 and memo_file(session).is_file()
    again = tree(capsys, *args)
    assert again == first and len(opens) == 1  # from the memo
    assert again == plain(capsys, monkeypatch, *args)
    # another option set is computed (and kept beside the first)
    other = tree(capsys, str(session), "--filter", "user-only", "--width", "90")
    assert len(opens) == 3 and other != first
    assert (
        tree(capsys, *args) == first and tree(capsys, str(session), "--filter", "user-only", "--width", "90") == other
    )
    assert len(opens) == 3


def test_an_append_or_a_rewrite_is_never_served_from_the_memo(
    cache: Path, session: Path, opens: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    before = tree(capsys, str(session), "--filter", "all")
    last = json.loads(session.read_text().splitlines()[-1])
    with open(session, "a") as f:
        f.write(
            json.dumps(
                {
                    "type": "message",
                    "id": "zz000001",
                    "parentId": last["id"],
                    "timestamp": "2026-03-01T10:00:00.000Z",
                    "message": {"role": "user", "content": "appended after the memo"},
                }
            )
            + "\n"
        )
    after = tree(capsys, str(session), "--filter", "all")
    assert "appended after the memo" in after and after != before
    assert after == plain(capsys, monkeypatch, str(session), "--filter", "all")
    # same size, same mtime, other bytes in the middle... and at the end: the edge hash sees it
    data = session.read_bytes()
    st = session.stat()
    session.write_bytes(data.replace(b"appended after the memo", b"APPENDED AFTER THE MEMO"))
    os.utime(session, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert "APPENDED AFTER THE MEMO" in tree(capsys, str(session), "--filter", "all")


def test_other_code_home_or_options_are_recomputed(
    cache: Path, session: Path, opens: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    tree(capsys, str(session))
    monkeypatch.setattr(tree_memo, "_code_fingerprint", lambda: b"another loomtui")
    tree(capsys, str(session))
    assert len(opens) == 2
    monkeypatch.setenv("HOME", "/srv")
    tree(capsys, str(session))
    assert len(opens) == 3
    tree(capsys, str(session), "--width", "40")
    tree(capsys, str(session), "--search", "tree")
    tree(capsys, str(session), "--color", "always")
    assert len(opens) == 6
    variants = cache_io.read_side(str(session), tree_memo.SUFFIX, tree_memo.MAGIC)[2]
    assert len(variants) == tree_memo.KEEP  # the most recent option sets


@pytest.mark.parametrize("damage", ["flip", "truncate", "garbage", "other-shape"])
def test_a_damaged_memo_is_ignored_and_replaced(
    cache: Path, session: Path, opens: list[str], capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    first = tree(capsys, str(session))
    memo = memo_file(session)
    data = memo.read_bytes()
    if damage == "flip":
        memo.write_bytes(data[:-10] + bytes([data[-10] ^ 0xFF]) + data[-9:])
    elif damage == "truncate":
        memo.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        memo.write_bytes(b"\x00garbage" * 100)
    else:  # a valid envelope around a payload of another shape
        cache_io.write_side(str(session), tree_memo.SUFFIX, tree_memo.MAGIC, (1, "no", 3))
    assert tree(capsys, str(session)) == first
    assert len(opens) == 2
    assert tree(capsys, str(session)) == first and len(opens) == 2  # stored again


def test_no_memo_without_the_cache_for_old_or_small_files(
    cache: Path,
    session: Path,
    pi_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain(capsys, monkeypatch, str(session))
    assert not memo_file(session).exists()
    v1 = tmp_path / "v1.jsonl"  # version 1: no version key, entries without ids
    v1.write_text(
        "".join(
            json.dumps(x) + "\n"
            for x in [
                {"type": "session", "id": "v1-session", "timestamp": "2025-11-20T23:33:50.805Z", "cwd": "/srv/demo"},
                *(
                    {
                        "type": "message",
                        "timestamp": "2025-11-20T23:34:00.000Z",
                        "message": {"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i}"},
                    }
                    for i in range(50)
                ),
            ]
        )
    )
    tree(capsys, str(v1))
    assert not memo_file(v1).exists()  # ids made while reading: nothing stable to keep
    monkeypatch.setenv("LOOMTUI_CACHE_MIN_BYTES", str(10 << 20))
    tree(capsys, str(session))
    assert not memo_file(session).exists()


def test_the_lru_bound_counts_the_memo_and_removes_it_with_its_index(
    cache: Path, session: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree(capsys, str(session))
    cache_io.reap(block=True)
    index = Path(cache_io.cache_path(str(session)))
    assert index.is_file() and memo_file(session).is_file()
    os.utime(index, ns=(1, 1))  # the least recently used
    cache_files.prune(str(cache), limit=memo_file(session).stat().st_size)
    assert not index.exists() and not memo_file(session).exists()


def test_new_options_take_each_entrys_row_text_from_an_earlier_run(
    cache: Path, session: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The memo misses (other width, filter): the rows are laid out anew, but each entry's text
    comes from the side file the first run left (formats/opening/flat_cache.py), and prints the same."""
    from loomtui.view import model as model_module
    from loomtui.view import text as text_module

    tree(capsys, str(session), "--width", "90")
    made: list[str] = []
    real = model_module.display_segments

    def counted(e, *a, **kw):  # type: ignore[no-untyped-def]
        made.append(e.id)
        return real(e, *a, **kw)

    monkeypatch.setattr(model_module, "display_segments", counted)
    monkeypatch.setattr(text_module, "display_segments", counted)  # display_text, as plain_rows calls it
    for args in (("--width", "70", "--filter", "all"), ("--width", "120", "--search", "tree")):
        out = tree(capsys, str(session), *args)
        assert made == []  # every row's text from the side file
        assert out == plain(capsys, monkeypatch, str(session), *args)
        made.clear()
    monkeypatch.setenv("HOME", "/srv")  # paths are shortened to ~: other texts
    out = tree(capsys, str(session), "--width", "71")
    assert made and out == plain(capsys, monkeypatch, str(session), "--width", "71")


def test_the_file_is_hashed_for_the_memo_only_when_the_memo_can_serve(
    cache: Path, session: Path, opens: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no memo kept for these options, the memo is keyed by the digests the read made (the
    file is not hashed a second time); a run it can serve proves them first."""
    keyed: list[str] = []
    real = cache_io.file_key

    def file_key(path: str, fd: int):  # type: ignore[no-untyped-def]
        keyed.append(path)
        return real(path, fd)

    monkeypatch.setattr(cache_io, "file_key", file_key)
    args = (str(session), "--width", "90")
    first = tree(capsys, *args)
    assert keyed == [] and memo_file(session).is_file()
    assert tree(capsys, *args) == first and len(opens) == 1  # served, after one proof
    assert keyed == [str(session)]
    # options the memo does not hold: nothing to prove, so nothing hashed for the memo; the
    # new rows are kept beside the first ones (the read's digests make the same key)
    other = tree(capsys, str(session), "--width", "70")
    assert keyed == [str(session)] and len(opens) == 2
    assert tree(capsys, *args) == first and tree(capsys, str(session), "--width", "70") == other
    assert len(opens) == 2


def test_a_memo_hit_prints_without_importing_the_reader_or_the_view(cache: Path, session: Path) -> None:
    """The reprint's start is part of its time: a run the memo serves imports the cache files and
    the proof only, not the session reader, msgspec, the tree model or the row printer."""
    probe = (
        "import sys\n"
        "from loomtui.cli import main\n"
        "code = main(['tree', sys.argv[1], '--width', '90'])\n"
        "heavy = ('loomtui.session.reader', 'loomtui.session.manager', 'msgspec', 'loomtui.view.model',"
        " 'loomtui.view.flat', 'loomtui.commands.tree_rows')\n"
        "sys.stderr.write(repr([m for m in heavy if m in sys.modules]))\n"
        "sys.exit(code)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}

    def run() -> tuple[str, str]:
        out = subprocess.run([sys.executable, "-c", probe, str(session)], capture_output=True, text=True, env=env)
        assert out.returncode == 0, out.stderr
        return out.stdout, out.stderr

    first, imported = run()
    assert "loomtui.session.reader" in imported  # a first run reads the session
    wait_until(memo_file(session).is_file, what="the memo written by the first run's background child")
    again, imported = run()
    assert again == first and imported == "[]"
