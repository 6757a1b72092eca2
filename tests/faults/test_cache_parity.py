"""The persistent index and its side files (session/indexcache.py, formats/opening/flat_cache.py,
formats/opening/tree_memo.py) never serve another file's tree: after any change a file can undergo
between two runs, every command run with the cache prints what it prints with --no-cache.

The changes include the ones size, identity and times cannot tell: a same-size rewrite in
place with the old mtime restored (or with a new one), and a replacement by rename (the new
file may reuse the old inode number)."""

from __future__ import annotations

import io
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loomtui.cli import main
from loomtui.session import cache_io, catalog, catalog_window

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]


def session_bytes(n: int = 100) -> tuple[bytes, list[str]]:
    """A version 3 session with branches (every 7th entry starts a new branch from an
    earlier one), and the ids of its entries."""
    header = {
        "type": "session",
        "version": 3,
        "id": "parity",
        "timestamp": "2026-03-01T09:00:00.000Z",
        "cwd": "/home/user/project",
    }
    lines = [json.dumps(header)]
    ids: list[str] = []
    for i in range(n):
        parent = ids[-1] if ids else None
        if i % 7 == 6:
            parent = ids[i // 2]
        role = "user" if i % 2 == 0 else "assistant"
        # long enough that most of the file lies outside its first and last 64 KB
        text = f"{WORDS[i % len(WORDS)]} message {i} " + "lorem ipsum " * (200 + i % 5)
        content: Any = text if role == "user" else [{"type": "text", "text": text}]
        eid = f"e{i:07d}"
        lines.append(
            json.dumps(
                {
                    "type": "message",
                    "id": eid,
                    "parentId": parent,
                    "timestamp": f"2026-03-01T09:{i // 60:02d}:{i % 60:02d}.000Z",
                    "message": {"role": role, "content": content},
                }
            )
        )
        ids.append(eid)
    return ("\n".join(lines) + "\n").encode(), ids


class Kept(io.BytesIO):
    """A BytesIO whose bytes stay readable after a command closed its stream."""

    def close(self) -> None:
        pass


@contextmanager
def captured() -> Iterator[list[bytes]]:
    """stdout and stderr of in-process commands, as bytes (in the list when done)."""
    got: list[bytes] = []
    out, err = Kept(), Kept()
    old = sys.stdout, sys.stderr
    sys.stdout = io.TextIOWrapper(out, encoding="utf-8", errors="surrogateescape")
    sys.stderr = io.TextIOWrapper(err, encoding="utf-8", errors="surrogateescape")
    try:
        yield got
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except ValueError:
                pass
        sys.stdout, sys.stderr = old
        got.extend([out.getvalue(), err.getvalue()])


def run(argv: list[str]) -> tuple[int, bytes, bytes]:
    with captured() as got:
        code = main(list(argv))
    cache_io.reap(block=True)  # side files are written by background children
    return code, got[0], got[1]


def commands(path: Path, ids: list[str], out_dir: Path) -> list[list[str]]:
    f = str(path)
    return [
        ["tree", f, "--width", "120", "--ids"],
        ["tree", f, "--width", "120", "--ids"],  # again: the printed-rows memo
        ["tree", f, "--width", "100", "--filter", "all"],
        ["tree", f, "--search", "charlie", "--width", "120"],
        ["tree", f, "--leaf", ids[20], "--width", "120"],
        ["info", f],
        ["info", f, "--json"],
        ["context", f, "--json"],
        ["context", f, "--leaf", ids[30]],
        ["diff", f, ids[-1], ids[40], "--color", "never"],
        ["export-branch", f, "--leaf", ids[-1], "--dir", str(out_dir)],
    ]


def outputs(path: Path, ids: list[str], out_dir: Path) -> list[Any]:
    results: list[Any] = []
    for argv in commands(path, ids, out_dir):
        before = set(os.listdir(out_dir))
        code, out, err = run(argv)
        made = sorted(set(os.listdir(out_dir)) - before)
        # a new file's name and header (a fresh id and time) differ from run to run: the rest must not
        written = [(out_dir / m).read_bytes().split(b"\n", 1)[1] for m in made]
        for m in made:
            os.unlink(out_dir / m)
        results.append((argv[0], code, b"" if made else out, err, written))
    # the picker: exact counts come from the index only when it is this file's; else estimated
    listed = catalog.summarize(str(path))
    whole = catalog.summarize_bytes(str(path), path.read_bytes(), 0.0)
    assert listed is not None and whole is not None
    if not listed.partial:
        assert (listed.entry_count, listed.message_count, listed.branch_count, listed.name) == (
            whole.entry_count,
            whole.message_count,
            whole.branch_count,
            whole.name,
        )
    return results


def change(path: Path, kind: str, at: float, byte: int) -> None:
    data = path.read_bytes()
    lines = data.splitlines(keepends=True)
    st0 = os.stat(path)
    # a letter inside some message's text, anywhere in the file
    # (odd ``byte``) or a digit of some entry's parent id: the tree's shape changes
    if byte % 2:
        where = [m.start(1) + k for m in re.finditer(rb'"(?:content|text)": "([a-z]{4})', data) for k in range(4)]
        letter = bytes([ord("a") + byte % 26])
    else:
        where = [m.start(1) for m in re.finditer(rb'"parentId": "e00000([0-9])', data)]
        letter = str(byte % 10).encode()
    i = where[int(at * (len(where) - 1))]
    if letter == data[i : i + 1]:
        letter = (
            b"z"
            if letter.isalpha() and letter != b"z"
            else b"y"
            if letter.isalpha()
            else b"0"
            if letter != b"0"
            else b"1"
        )
    same_size = data[:i] + letter + data[i + 1 :]
    if kind == "append":
        extra = json.dumps(
            {
                "type": "message",
                "id": "zz-appended",
                "parentId": None,
                "timestamp": "2026-03-02T00:00:00.000Z",
                "message": {"role": "user", "content": "appended golf"},
            }
        )
        with open(path, "ab") as f:
            f.write(extra.encode() + b"\n")
    elif kind == "truncate":
        path.write_bytes(b"".join(lines[: max(1, int(at * len(lines)))]))
    elif kind in ("same-size-old-mtime", "same-size-new-mtime"):
        with open(path, "r+b") as f:
            f.write(same_size)
        if kind == "same-size-old-mtime":
            os.utime(path, ns=(st0.st_atime_ns, st0.st_mtime_ns))
        else:
            os.utime(path, ns=(st0.st_atime_ns, st0.st_mtime_ns + 1_000_000_000))
    elif kind == "replace-rename":
        other = path.with_suffix(".new")
        other.write_bytes(same_size)
        os.replace(other, path)
        os.utime(path, ns=(st0.st_atime_ns, st0.st_mtime_ns))
    elif kind == "replace-unlink":
        os.unlink(path)  # the new file may well get the freed inode number
        path.write_bytes(same_size)
        os.utime(path, ns=(st0.st_atime_ns, st0.st_mtime_ns))
    elif kind == "rewrite-other-size":
        path.write_bytes(data[:i] + letter * 3 + data[i + 1 :])
    else:  # pragma: no cover
        raise AssertionError(kind)


KINDS = [
    "append",
    "truncate",
    "same-size-old-mtime",
    "same-size-new-mtime",
    "replace-rename",
    "replace-unlink",
    "rewrite-other-size",
]


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LOOMTUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("LOOMTUI_CACHE_MIN_BYTES", "0")
    monkeypatch.delenv("LOOMTUI_NO_CACHE", raising=False)
    monkeypatch.setenv("HOME", "/home/user")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setattr(cache_io, "BLOCK", 4096)  # many blocks: a change in any of them counts
    monkeypatch.setattr(catalog_window, "WINDOW_LIMIT", 1000)  # the picker reads windows (and the index)
    return tmp_path


def check_parity(root: Path, kind: str, at: float, byte: int, monkeypatch: pytest.MonkeyPatch) -> None:
    work = Path(tempfile.mkdtemp(prefix=f"w-{kind}-", dir=root))
    out_dir = work / "out"
    out_dir.mkdir()
    path = work / "s.jsonl"
    data, ids = session_bytes()
    path.write_bytes(data)
    outputs(path, ids, out_dir)  # the cache is written: the index, the flat tree, the rows
    assert list((root / "cache").glob("*.lti")), "the index was written"
    change(path, kind, at, byte)
    cached = outputs(path, ids, out_dir)
    with monkeypatch.context() as m:
        m.setenv("LOOMTUI_NO_CACHE", "1")
        plain = outputs(path, ids, out_dir)
    assert cached == plain


@pytest.mark.parametrize("kind", KINDS)
def test_every_command_with_the_cache_equals_no_cache(kind: str, env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    check_parity(env, kind, 0.5, 7, monkeypatch)
    check_parity(env, kind, 0.4, 4, monkeypatch)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(KINDS), at=st.floats(0.0, 1.0), byte=st.integers(0, 255))
def test_any_change_between_two_runs(
    kind: str, at: float, byte: int, env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    check_parity(env, kind, at, byte, monkeypatch)
