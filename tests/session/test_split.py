"""Reading a big session on two CPUs (session/split.py) gives exactly what one process reads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from loomtui.session.entries import Entry
from loomtui.session.split import FIELDS, SplitParse, _v3_header
from tests.shared_material import SHARED, needs_shared

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _no_index_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """A persistent index would stand in for the split read these tests exercise."""
    monkeypatch.setenv("LOOMTUI_NO_CACHE", "1")


needs_fork = pytest.mark.skipif(not hasattr(os, "fork") or (os.cpu_count() or 1) < 2, reason="needs fork and two CPUs")


def adversarial_session(path: Path, copies: int = 30, forward: bool = True) -> Path:
    """A v3 session with everything the reader must get right, spread through the file."""
    lines = (SHARED / "fixtures" / "pi" / "dnouri-browse-session.jsonl").read_bytes().splitlines()
    header, body = lines[0], lines[1:]
    out = [header]
    for k in range(copies):
        for raw in body:
            obj = json.loads(raw)
            obj["id"] = f"{k}-{obj['id']}"
            if obj.get("parentId"):
                obj["parentId"] = f"{k}-{obj['parentId']}"
            if obj.get("targetId"):
                obj["targetId"] = f"{k}-{obj['targetId']}"
            out.append(json.dumps(obj, ensure_ascii=False).encode())
        out += [
            b"",  # blank
            b"   ",
            b"this is not json",
            b"[1, 2, 3]",
            b'{"type": "message", "message": {"role": "user", "content": "no id"}}',
            json.dumps({"type": "session", "version": 3, "id": f"second-{k}"}).encode(),
            # a duplicate id (the first wins) and a child written before its parent
            json.dumps({"type": "custom", "id": f"{k}-dup", "parentId": None, "customType": "a"}).encode(),
            json.dumps({"type": "custom", "id": f"{k}-dup", "parentId": None, "customType": "b"}).encode(),
            json.dumps(
                {
                    "type": "label",
                    "id": f"{k}-child",
                    "parentId": f"{k}-later" if forward else f"{k}-dup",
                    "targetId": f"{k}-dup",
                    "label": "ünïcode ✓",
                    "timestamp": "2026-01-01T00:00:00Z",
                }
            ).encode(),
            json.dumps({"type": "custom", "id": f"{k}-later", "parentId": None, "customType": "c"}).encode()
            + b"\r",  # CRLF line
        ]
    data = b"\n".join(out) + b'\n{"type": "message", "id": "torn", "parentId": nu'  # torn last line
    path.write_bytes(data)
    return path


CHECK = r"""
import json, sys
from loomtui.session.manager import SessionManager
from loomtui.session.split import SplitParse, FIELDS

def state(sm):
    ix = sm.index
    return {
        "entries": [[repr(getattr(e, f)) for f in FIELDS] + [e.index] for e in ix.entries],
        "roots": [e.id for e in ix.roots],
        "children": {k: [e.id for e in v] for k, v in ix.child_lists().items()},
        "labels": {k: repr(v) for k, v in ix.labels.items()},
        "leaf": ix.leaf_id,
        "diagnostics": [(d.line, d.reason) for d in sm.diagnostics],
        "lines": [(i.line, i.offset, i.size, i.kind) for i in sm.state.lines],
        "line_no": sm.state.line_no,
        "parsed": sm.state.parsed_count,
        "indexed_to": sm._indexed_to,
    }

from loomtui.session.index import SessionIndex
builds = []
_build = SessionIndex.build
def counting_build(self, entries):
    builds.append(len(entries))
    return _build(self, entries)
SessionIndex.build = counting_build

path, mode = sys.argv[1], sys.argv[2]
plain = state(SessionManager.open(path))
size_ok = []
for fraction in (0.01, 0.13, 0.37, 0.5, 0.61, 0.88, 0.99):
    split = SplitParse.start(path, fraction, min_bytes=0)
    assert split is not None, "no split"
    got = state(SessionManager.open(path, split=split))
    for key in plain:
        assert got[key] == plain[key], (fraction, key)
    size_ok.append(split.at)
print(json.dumps({"splits": size_ok, "entries": len(plain["entries"]), "diagnostics": len(plain["diagnostics"]),
                  "builds": builds}))
"""


def run_check(path: Path, mode: str = "ok", prelude: str = "") -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", prelude + CHECK, str(path), mode], capture_output=True, text=True, cwd=str(ROOT)
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


@needs_shared()
@needs_fork
@pytest.mark.parametrize("forward", [True, False], ids=["child-before-parent", "parents-first"])
def test_split_open_equals_a_plain_open_wherever_the_file_is_cut(tmp_path: Path, forward: bool) -> None:
    result = run_check(adversarial_session(tmp_path / "s.jsonl", forward=forward))
    assert result["entries"] > 1000 and result["diagnostics"] > 100
    splits = result["splits"]
    assert isinstance(splits, list) and len(set(splits)) == len(splits)  # really cut at 7 places
    builds = result["builds"]
    assert isinstance(builds, list)
    if forward:
        # a head with a link to a later line is indexed again, with the tail, as one file
        # (except where the cut leaves every such link inside the tail)
        assert len(builds) > 1 + 7
    else:
        # the head is indexed while the child reads the tail, then the tail on top of it
        assert len(builds) == 1 + 2 * 7


@needs_shared()
@needs_fork
def test_a_failing_child_means_this_process_reads_the_tail_itself(tmp_path: Path) -> None:
    prelude = (
        "import loomtui.session.split as _s\n"
        "def _boom(*a, **k):\n    raise RuntimeError('child failed')\n"
        "_s._parse_tail = _boom\n"
    )
    run_check(adversarial_session(tmp_path / "s.jsonl", copies=5), prelude=prelude)


@needs_shared()
@needs_fork
def test_cancel_stops_and_reaps_the_child(tmp_path: Path) -> None:
    code = (
        "import os, sys\n"
        "from loomtui.session.split import SplitParse\n"
        "split = SplitParse.start(sys.argv[1], 0.5, min_bytes=0)\n"
        "assert split is not None\n"
        "pid = split._pid\n"
        "split.cancel(); split.cancel()\n"
        "try:\n    os.waitpid(pid, os.WNOHANG)\nexcept ChildProcessError:\n    print('reaped')\n"
    )
    path = adversarial_session(tmp_path / "s.jsonl", copies=5)
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, cwd=str(ROOT))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "reaped"


def test_no_split_where_it_does_not_apply(tmp_path: Path) -> None:
    small = SHARED / "fixtures" / "pi" / "dnouri-browse-session.jsonl"
    assert SplitParse.start(str(small)) is None  # below MIN_BYTES
    assert SplitParse.start(str(tmp_path / "missing.jsonl"), min_bytes=0) is None
    # only v3 files whose first line is the header: older ones are migrated while read, omp
    # puts a title slot first, and anything else is not a pi session at all
    v1 = (ROOT / "tests" / "app" / "fixtures" / "v1.jsonl").read_bytes().splitlines()[0]
    assert _v3_header(v1) is None
    assert _v3_header(b'{"type":"title","title":"x"}') is None
    assert _v3_header(b"not json") is None
    assert _v3_header(b'{"type":"session","version":3,"id":"s"}\r\n') == {"type": "session", "version": 3, "id": "s"}
    assert _v3_header(b'\xef\xbb\xbf{"type":"session","version":4,"id":"s"}') == {
        "type": "session",
        "version": 4,
        "id": "s",
    }


def test_fields_cover_the_entry_skeleton() -> None:
    assert set(FIELDS) | {"index", "data"} == set(Entry.__struct_fields__)
    assert len(FIELDS) + 2 == len(Entry.__struct_fields__)


@needs_shared()
def test_loomtui_jobs_1_keeps_everything_in_one_process(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from loomtui.session.forked import can_fork

    monkeypatch.setenv("LOOMTUI_JOBS", "1")
    assert not can_fork()
    assert SplitParse.start(str(adversarial_session(tmp_path / "s.jsonl", copies=2)), min_bytes=0) is None


@needs_shared()
@needs_fork
def test_a_path_replaced_after_the_split_started_is_read_as_the_new_file(tmp_path: Path) -> None:
    old = adversarial_session(tmp_path / "s.jsonl", copies=6)
    # the same first 70% (so the head still ends where the child starts), another ending
    data = old.read_bytes()
    cut = data.index(b"\n", len(data) * 7 // 10) + 1
    extra = b"".join(
        json.dumps(
            {"type": "custom", "id": f"new-{i}", "parentId": f"new-{i - 1}" if i else None, "customType": "x"}
        ).encode()
        + b"\n"
        for i in range(50)
    )
    new = tmp_path / "new.jsonl"
    new.write_bytes(data[:cut] + extra)
    code = (
        "import os, sys\n"
        "from loomtui.session.manager import SessionManager\n"
        "from loomtui.session.split import SplitParse\n"
        "old, new = sys.argv[1], sys.argv[2]\n"
        "split = SplitParse.start(old, 0.5, min_bytes=0)\n"
        "assert split is not None\n"
        "os.replace(new, old)  # e.g. `loomtui migrate` or another tool rewrote it\n"
        "got = SessionManager.open(old, split=split)\n"
        "plain = SessionManager.open(old)\n"
        "assert [e.id for e in got.index.entries] == [e.id for e in plain.index.entries]\n"
        "assert [(d.line, d.reason) for d in got.diagnostics] == [(d.line, d.reason) for d in plain.diagnostics]\n"
        "print(len(got.index.entries))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(old), str(new)], capture_output=True, text=True, cwd=str(ROOT)
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert int(done.stdout) > 200


class Stop(Exception):
    pass


@needs_shared()
@needs_fork
def test_abort_ends_the_child_a_read_would_wait_for_and_the_read_stops_at_its_next_report(tmp_path: Path) -> None:
    """What the browser does when the user leaves during a big open: ``abort`` (from another
    thread, here from the first progress report) ends the child; the reader goes on alone and
    its progress callback stops it."""
    from loomtui.session.fileio import open_regular
    from loomtui.session.reader import LineParser, ParseState

    path = adversarial_session(tmp_path / "big.jsonl", copies=600)
    split = SplitParse.start(str(path), fraction=0.02, min_bytes=0)
    assert split is not None
    pid = split._pid
    reports: list[int] = []

    def progress(at: int, *more: int) -> None:
        reports.append(at)
        if len(reports) == 1:
            split.abort()  # the child is far from done: it has 98% of the file to parse
        elif at >= split.at:
            raise Stop  # past the head: the reader reads the tail itself, and stops here

    fd = open_regular(str(path))
    entries: list[Entry] = []
    try:
        with pytest.raises(Stop):
            split.read(fd, LineParser(ParseState(), entries.append), entries, progress=progress)
    finally:
        os.close(fd)
    assert reports[-1] >= split.at and len(reports) >= 2
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # ended and reaped
    split.abort()  # later calls are no-ops
    split.cancel()


@needs_shared()
@needs_fork
def test_progress_counts_what_both_processes_read_and_goes_on_while_waiting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bar moves while the parent waits for the tail: the child's bytes and entries are
    added to the head's, through memory both processes share."""
    from loomtui.session import forked, reader
    from loomtui.session.fileio import open_regular
    from loomtui.session.reader import LineParser, ParseState

    monkeypatch.setattr(reader, "CHUNK", 64 << 10)
    monkeypatch.setattr(forked, "POLL_SECONDS", 0.005)
    path = adversarial_session(tmp_path / "big.jsonl", copies=400)
    size = path.stat().st_size
    split = SplitParse.start(str(path), fraction=0.05, min_bytes=0)
    assert split is not None
    reports: list[tuple[int, int]] = []
    fd = open_regular(str(path))
    entries: list[Entry] = []
    try:
        consumed, eof, _index = split.read(
            fd,
            LineParser(ParseState(), entries.append),
            entries,
            progress=lambda at, more=0: reports.append((at, more)),
        )
    finally:
        os.close(fd)
    assert eof == size and size - consumed < 100 and len(entries) > 10_000  # (a torn last line)
    offsets = [at for at, _ in reports]
    assert offsets == sorted(offsets) and all(at <= size for at in offsets)
    # reports past the head: the child's bytes counted (the parent alone stops at ``at``)
    assert any(at > split.at for at in offsets)
    assert max(more for _, more in reports) > 0


@needs_shared()
def test_a_one_line_json_document_is_not_parsed_to_look_for_a_header(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sniffing a big one-line document (an OCP run, an OpenLoom file) for a pi header reads a
    short prefix only: the document is parsed once, by its reader, not also here."""
    import loomtui.session.split as split_module

    doc = tmp_path / "run.json"
    doc.write_text(json.dumps({"type": "session", "version": 3, "id": "s", "pad": "x" * 200_000}))
    parsed: list[int] = []
    real = split_module.line_value
    monkeypatch.setattr(split_module, "line_value", lambda raw: parsed.append(len(raw)) or real(raw))
    assert SplitParse.start(str(doc), min_bytes=0) is None
    assert parsed == []
    # a pi file whose header line is short still splits
    path = adversarial_session(tmp_path / "s.jsonl", copies=2)
    split = SplitParse.start(str(path), 0.5, min_bytes=0)
    assert split is not None and parsed and max(parsed) <= split_module.HEADER_MAX_BYTES
    split.cancel()
