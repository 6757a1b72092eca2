"""The persistent index (session/indexcache.py): a reopen gives exactly what a plain read gives."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from loomtui.session import cache_io, indexcache
from loomtui.session.manager import SessionManager
from loomtui.session.migrate import migrated_bytes
from loomtui.session.split import FIELDS
from tests.session.test_split import adversarial_session
from tests.shared_material import needs_shared

PI_FIXTURES = [
    "dnouri-browse-session",
    "pi-brain-branch-summary",
    "pi-brain-mixed-boundaries",
    "pi-mono-before-compaction",
    "pi-mono-large-session",
]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("LOOMTUI_CACHE_DIR", str(d))
    monkeypatch.setenv("LOOMTUI_CACHE_MIN_BYTES", "0")
    monkeypatch.delenv("LOOMTUI_NO_CACHE", raising=False)
    return d


@pytest.fixture
def big_v3(pi_dir: Path, tmp_path: Path) -> Path:
    """The largest real pi fixture (a version 1 file, which is never cached: its ids are made
    while reading) migrated to version 3, so the cache is really used."""
    dst = tmp_path / "large-v3.jsonl"
    dst.write_bytes(migrated_bytes(str(pi_dir / "pi-mono-large-session.jsonl"))[0])
    return dst


def state(sm: SessionManager) -> dict[str, Any]:
    ix = sm.index
    return {
        "entries": [[repr(getattr(e, f)) for f in FIELDS] + [e.index] for e in ix.entries],
        "roots": [e.id for e in ix.roots],
        "children": {k: [e.id for e in v] for k, v in ix.child_lists().items()},
        "sorted children": [[c.id for c in ix.children(e.id)] for e in ix.entries],
        "labels": {k: repr(v) for k, v in ix.labels.items()},
        "name": ix.session_name,
        "leaf": ix.leaf_id,
        "diagnostics": [(d.line, d.reason) for d in sm.diagnostics],
        "lines": [(i.line, i.offset, i.size, i.kind) for i in sm.state.lines],
        "line_no": sm.state.line_no,
        "parsed": sm.state.parsed_count,
        "indexed_to": sm._indexed_to,
        "header": sm.header,
        "title": sm.title,
    }


def plain(path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    with monkeypatch.context() as m:
        m.setenv("LOOMTUI_NO_CACHE", "1")
        return state(SessionManager.open(str(path)))


def loads_from_cache(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Records whether each open was served by the cache."""
    hits: list[bool] = []
    real = indexcache.load

    def spy(path: str, fd: int) -> Any:
        got = real(path, fd)
        if indexcache.enabled():  # the plain reads of the comparisons do not count
            hits.append(got is not None)
        return got

    monkeypatch.setattr(indexcache, "load", spy)
    return hits


@pytest.mark.parametrize("name", PI_FIXTURES)
def test_reopen_from_the_index_equals_a_plain_read(
    name: str, pi_copy: Any, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = pi_copy(name)
    expected = plain(path, monkeypatch)
    hits = loads_from_cache(monkeypatch)
    sm = SessionManager.open(str(path))
    cold = state(sm)
    cache_io.reap(block=True)  # the index may be written by a background child
    v3 = sm.state.version >= 3
    # v1/v2 files are migrated while read (their ids live only in memory): never cached
    assert bool(list(cache.glob("*.lti"))) == v3, "the first open of a v3 file writes the index"
    warm = state(SessionManager.open(str(path)))
    assert hits == [False, v3]
    assert cold == expected
    assert warm == expected


@needs_shared()
def test_adversarial_file_with_torn_tail(tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = adversarial_session(tmp_path / "s.jsonl", copies=3)
    expected = plain(path, monkeypatch)
    assert any("torn" in r for _l, r in expected["diagnostics"])
    hits = loads_from_cache(monkeypatch)
    SessionManager.open(str(path))
    assert state(SessionManager.open(str(path))) == expected
    assert hits == [False, True]
    # completing the torn line: only the new bytes are parsed, and the result is a plain read's
    with open(path, "ab") as f:
        f.write(b'll, "type": "custom", "customType": "x"}\n')
    assert state(SessionManager.open(str(path))) == plain(path, monkeypatch)
    assert hits[-1] is True


def test_appended_entries_are_picked_up(pi_copy: Any, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = pi_copy("pi-brain-branch-summary")
    sm = SessionManager.open(str(path))
    hits = loads_from_cache(monkeypatch)
    leaf = sm.index.leaf_id
    with open(path, "ab") as f:
        f.write(
            json.dumps(
                {
                    "type": "custom",
                    "id": "zz-new-1",
                    "parentId": leaf,
                    "customType": "x",
                    "timestamp": "2026-05-01T00:00:00.000Z",
                }
            ).encode()
            + b"\n"
        )
    again = SessionManager.open(str(path))
    assert hits == [True]
    assert "zz-new-1" in again.index.by_id and again.index.leaf_id == "zz-new-1"
    assert state(again) == plain(path, monkeypatch)
    # the index was brought up to date: the next open has nothing to parse
    parsed: list[int] = []
    import loomtui.session.indexcache as reading

    real = reading.parse_from

    def spy(fd: int, start: int, parser: Any, end: Any = None, progress: Any = None) -> Any:
        got = real(fd, start, parser, end, progress)
        parsed.append(got[1] - start)
        return got

    monkeypatch.setattr(reading, "parse_from", spy)
    assert state(SessionManager.open(str(path))) == plain(path, monkeypatch)
    assert parsed[0] == 0


@pytest.mark.parametrize("change", ["truncate", "rewrite-same-size", "replace"])
def test_changed_file_is_read_from_scratch(
    big_v3: Path, change: str, pi_copy: Any, cache: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = big_v3
    SessionManager.open(str(path))
    data = path.read_bytes()
    lines = data.splitlines(keepends=True)
    if change == "truncate":
        path.write_bytes(b"".join(lines[: len(lines) // 2]))
    elif change == "rewrite-same-size":
        # same size, same inode, and the mtime set back: only the content hash tells
        st = os.stat(path)
        i = data.index(b'"timestamp":"2') + len(b'"timestamp":"')
        changed = data[:i] + (b"1" if data[i : i + 1] != b"1" else b"3") + data[i + 1 :]
        with open(path, "r+b") as f:
            f.write(changed)
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    else:
        other = tmp_path / "other.jsonl"
        other.write_bytes(b"".join(lines[:-3]))
        os.replace(other, path)
    hits = loads_from_cache(monkeypatch)
    assert state(SessionManager.open(str(path))) == plain(path, monkeypatch)
    assert hits == [False]


def test_corrupt_and_foreign_cache_files_are_ignored(
    big_v3: Path, pi_copy: Any, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = big_v3
    other = pi_copy("pi-brain-branch-summary")
    expected = plain(path, monkeypatch)
    SessionManager.open(str(path))
    SessionManager.open(str(other))
    cache_io.reap(block=True)
    target = Path(cache_io.cache_path(str(path)))
    good = target.read_bytes()
    hits = loads_from_cache(monkeypatch)
    variants = {
        "flipped byte": good[: len(good) // 2] + bytes([good[len(good) // 2] ^ 1]) + good[len(good) // 2 + 1 :],
        "truncated": good[: len(good) // 3],
        "empty": b"",
        "garbage": os.urandom(5000),
        "foreign": Path(cache_io.cache_path(str(other))).read_bytes(),  # another session's index
        "old format": good.replace(indexcache.MAGIC, b"LOOMTUI-INDEX\x01", 1),
    }
    for name, blob in variants.items():
        target.write_bytes(blob)
        assert state(SessionManager.open(str(path))) == expected, name
        cache_io.reap(block=True)
        assert hits[-1] is False, name
    # each bad file was replaced by a good one on the way
    assert state(SessionManager.open(str(path))) == expected
    assert hits[-1] is True


def test_disabled_by_env_and_unwritable_dir_never_fails(
    big_v3: Path, pi_copy: Any, cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = big_v3
    expected = plain(path, monkeypatch)
    assert not cache.exists()  # the plain read (LOOMTUI_NO_CACHE=1) wrote nothing
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("x")
    monkeypatch.setenv("LOOMTUI_CACHE_DIR", str(blocker / "cache"))
    assert state(SessionManager.open(str(path))) == expected
    cache_io.reap(block=True)
    if os.geteuid() != 0:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        monkeypatch.setenv("LOOMTUI_CACHE_DIR", str(ro))
        assert state(SessionManager.open(str(path))) == expected
        cache_io.reap(block=True)
        assert not list(ro.iterdir())


def test_no_cache_flag(
    big_v3: Path, pi_copy: Any, cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from loomtui.cli import main

    path = big_v3
    assert main(["tree", "--no-cache", str(path)]) == 0
    cache_io.reap(block=True)
    assert not cache.exists()
    monkeypatch.delenv("LOOMTUI_NO_CACHE", raising=False)
    assert main(["tree", str(path)]) == 0
    cache_io.reap(block=True)  # written by a background child
    assert list(cache.glob("*.lti"))


def test_bounded_lru(big_v3: Path, tmp_path: Path, cache: Path, pi_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = []
    for k in range(4):
        p = tmp_path / f"s{k}.jsonl"
        p.write_bytes(big_v3.read_bytes())
        paths.append(p)
    SessionManager.open(str(paths[0]))
    cache_io.reap(block=True)
    one = Path(cache_io.cache_path(str(paths[0]))).stat().st_size
    monkeypatch.setenv("LOOMTUI_CACHE_MAX", str(int(one * 2.5)))
    for k, p in enumerate(paths[1:], start=1):
        os.utime(cache_io.cache_path(str(paths[k - 1])), ns=(k * 10**9, k * 10**9))  # strictly ordered ages
        SessionManager.open(str(p))
        cache_io.reap(block=True)
    left = sorted(cache.glob("*.lti"))
    assert len(left) == 2
    assert {str(x) for x in left} == {cache_io.cache_path(str(p)) for p in paths[2:]}
    assert sum(x.stat().st_size for x in left) <= one * 2.5


def test_an_append_writes_a_small_delta_and_a_new_base_replaces_it(
    pi_copy: Any, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = pi_copy("pi-brain-branch-summary")
    SessionManager.open(str(path))
    cache_io.reap(block=True)
    base = Path(cache_io.cache_path(str(path)))
    delta = base.with_suffix(indexcache.DELTA_SUFFIX)
    base_bytes = base.read_bytes()
    hits = loads_from_cache(monkeypatch)
    for k in range(3):  # each append: the base stays, the delta grows
        leaf = SessionManager.open(str(path)).index.leaf_id
        with open(path, "ab") as f:
            f.write(
                json.dumps(
                    {
                        "type": "custom",
                        "id": f"app-{k}",
                        "parentId": leaf,
                        "customType": "x",
                        "timestamp": "2026-05-01T00:00:00.000Z",
                    }
                ).encode()
                + b"\n"
            )
        again = SessionManager.open(str(path))
        assert again.index.leaf_id == f"app-{k}"
        assert base.read_bytes() == base_bytes and delta.exists()
        assert state(SessionManager.open(str(path))) == plain(path, monkeypatch)
    assert all(hits)
    # a corrupt delta is ignored: the base plus a parse of the appended lines
    blob = delta.read_bytes()
    delta.write_bytes(blob[:-1] + bytes([blob[-1] ^ 1]))
    assert state(SessionManager.open(str(path))) == plain(path, monkeypatch)
    # a rewrite after the base's bytes: the base still holds, the delta is redone
    path.write_bytes(path.read_bytes().replace(b"app-2", b"app-9"))
    assert state(SessionManager.open(str(path))) == plain(path, monkeypatch)
    assert base.read_bytes() == base_bytes and hits[-1] is True
    # the file rewritten inside the base's bytes: both are replaced (a delta of an older base
    # never applies)
    path.write_bytes(path.read_bytes().replace(b'"timestamp":"2', b'"timestamp":"1', 1))
    assert state(SessionManager.open(str(path))) == plain(path, monkeypatch)
    cache_io.reap(block=True)
    assert base.read_bytes() != base_bytes and not delta.exists()
    assert state(SessionManager.open(str(path))) == plain(path, monkeypatch)
    assert hits[-1] is True


def test_a_write_put_off_goes_where_the_cache_was_when_it_was_read(
    big_v3: Path, cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The browser (threads running) writes a cold open's index later; a change of the
    environment meanwhile (a test's monkeypatch undone before the exit flush) moves nothing."""
    monkeypatch.setattr(indexcache, "can_fork", lambda: False)
    SessionManager.open(str(big_v3))
    assert cache_io._deferred and not cache.exists()
    monkeypatch.setenv("LOOMTUI_CACHE_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("LOOMTUI_CACHE_MIN_BYTES", str(1 << 40))
    cache_io.flush_deferred()
    assert not (tmp_path / "elsewhere").exists()
    assert [p.suffix for p in cache.iterdir()] == [".lti"]
    monkeypatch.setenv("LOOMTUI_CACHE_DIR", str(cache))
    monkeypatch.setenv("LOOMTUI_CACHE_MIN_BYTES", "0")
    assert state(SessionManager.open(str(big_v3))) == plain(big_v3, monkeypatch)
