"""Each speed mechanism behind the opener can be left out (``LOOMTUI_WITHOUT``, for measuring
what it buys, formats/opening/switches.py): the output is the same with any of them out, and a
mechanism left out writes none of its files."""

from __future__ import annotations

from pathlib import Path

import pytest

from loomtui.formats.opening import flat_cache, switches, tree_memo
from loomtui.session import cache_files, cache_io
from tests.formats.test_tree_memo import cache, memo_file, session, tree  # noqa: F401 (fixtures)


def side_file(path: Path, suffix: str) -> Path:
    return Path(cache_io.cache_path(str(path))[: -len(cache_files.SUFFIX)] + suffix)


def test_a_mechanism_is_on_unless_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LOOMTUI_WITHOUT", raising=False)
    assert all(switches.enabled(m) for m in switches.MECHANISMS)
    monkeypatch.setenv("LOOMTUI_WITHOUT", " flat-cache , tree-memo")
    assert not switches.enabled("flat-cache") and not switches.enabled("tree-memo")
    assert switches.enabled("split")
    with pytest.raises(AssertionError):
        switches.enabled("no-such-mechanism")  # a caller's typo is caught, not silently "on"


@pytest.mark.parametrize("left_out", [*switches.MECHANISMS, ",".join(switches.MECHANISMS)])
def test_tree_prints_the_same_rows_with_a_mechanism_left_out(
    left_out: str, session: Path, cache: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LOOMTUI_WITHOUT", raising=False)
    want = tree(capsys, str(session))  # cold: the index, the flat tree, the texts and the memo are written
    assert memo_file(session).exists() and side_file(session, flat_cache.SUFFIX).exists()
    for f in (memo_file(session), side_file(session, flat_cache.SUFFIX), side_file(session, flat_cache.TEXTS_SUFFIX)):
        f.unlink(missing_ok=True)
    monkeypatch.setenv("LOOMTUI_WITHOUT", left_out)
    assert tree(capsys, str(session)) == want  # a reopen with the mechanism out
    assert tree(capsys, str(session)) == want  # and again, from whatever that run kept
    out = set(left_out.split(","))
    assert memo_file(session).exists() == ("tree-memo" not in out)
    assert side_file(session, flat_cache.SUFFIX).exists() == ("flat-cache" not in out)
    assert tree_memo.SUFFIX != flat_cache.SUFFIX


def test_every_source_s_early_start_is_one_hook_listed_with_the_sources(tmp_path: Path, monkeypatch) -> None:
    """Before Textual, ``Opening.before_app`` asks each source listed in ``sources.EARLY_STARTS``
    in turn (by the same ``early_start(path, fraction)``); a small file asks none."""
    import importlib
    import sys

    from loomtui.formats import sources

    for module in sources.EARLY_STARTS.values():
        assert callable(importlib.import_module(module).early_start)
    asked: list[tuple[str, float]] = []

    class Fake:
        @staticmethod
        def early_start(path: str, fraction: float) -> bool:
            asked.append((path, fraction))
            return True

    monkeypatch.setitem(sys.modules, "fake_early_source", Fake)
    monkeypatch.setattr(sources, "EARLY_STARTS", {"fake": "fake_early_source"})
    small = tmp_path / "small.json"
    small.write_bytes(b"{}")
    big = tmp_path / "big.json"
    big.write_bytes(b" " * sources.EARLY_MIN_BYTES)
    assert not sources.early_start(str(small), 0.35, lambda name: True) and asked == []
    assert not sources.early_start(str(big), 0.35, lambda name: name != "fake") and asked == []
    assert sources.early_start(str(big), 0.35, lambda name: True) and asked == [(str(big), 0.35)]


@pytest.mark.parametrize("early", [True, False], ids=["early proof", "early-proof left out"])
def test_a_reopen_before_the_app_takes_the_proof_hashed_meanwhile(
    early: bool, session: Path, cache: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An indexed session opened by the app (``Opening.before_app``) has its bytes hashed on a
    thread while Textual starts; the index's load takes those digests instead of hashing the
    file itself, and reads the same session either way."""
    from loomtui.formats.opening import Opening
    from loomtui.session import indexcache
    from tests.session.test_indexcache import plain, state

    monkeypatch.delenv("LOOMTUI_WITHOUT", raising=False)
    tree(capsys, str(session))  # the index written
    expected = plain(session, monkeypatch)
    loads: list[bool] = []  # whether each load was served by the index
    real_load = indexcache.load

    def load(path: str, fd: int):  # type: ignore[no-untyped-def]
        got = real_load(path, fd)
        loads.append(got is not None)
        return got

    monkeypatch.setattr(indexcache, "load", load)
    monkeypatch.setattr(cache_io, "usable_cpus", lambda: 2)
    monkeypatch.delenv("LOOMTUI_JOBS", raising=False)
    if not early:
        monkeypatch.setenv("LOOMTUI_WITHOUT", "early-proof")
    hashed: list[int] = []
    real = cache_io.prefix_digests

    def counted(fd: int, size: int, *a):  # type: ignore[no-untyped-def]
        hashed.append(size)
        return real(fd, size, *a)

    monkeypatch.setattr(cache_io, "prefix_digests", counted)
    monkeypatch.setattr(cache_io, "_early", {})  # this test's proofs only (an earlier test's inode can be reused)
    opened = Opening.before_app(str(session)).session()
    assert state(opened) == expected and loads == [True]
    assert hashed == ([] if early else [session.stat().st_size])
    assert not cache_io._early  # taken by the load: no descriptor left open
