"""Row texts written by the tail-parsing child (formats/opening/tail_texts.py): `loomtui tree` prints the
same bytes as one process wherever the file is cut, whether its tool calls are in the child's
part or not, and the child's texts are really used where they can be."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.session.test_split import adversarial_session
from tests.shared_material import needs_shared

ROOT = Path(__file__).resolve().parents[2]

needs_fork = pytest.mark.skipif(not hasattr(os, "fork") or (os.cpu_count() or 1) < 2, reason="needs fork and two CPUs")

#: `loomtui tree FILE` with the tail child started at ``fraction`` of any file; prints on
#: stderr how many rows took the child's text
RUN = r"""
import sys
from loomtui.session.split import SplitParse
from loomtui.formats.opening import tail_texts
real_start = SplitParse.start.__func__
fraction = float(sys.argv[2])
delay = float(sys.argv[4])
def slow(work):
    def run(entries):
        import time
        time.sleep(delay)  # the child answers late: this process writes its own part's texts meanwhile
        return work(entries)
    return run if work is not None and delay else work
SplitParse.start = classmethod(lambda cls, path, *a, tail_work=None, **k: real_start(cls, path, fraction, 0, slow(tail_work)))
real_place = tail_texts.texts_by_index
def place(*a, **k):
    out = real_place(*a, **k)
    sys.stderr.write("USED %d\n" % (0 if out is None else sum(t is not None for t in out)))
    return out
tail_texts.texts_by_index = place
from loomtui.cli import main
raise SystemExit(main(["tree", sys.argv[1], "--width", "160", "--filter", sys.argv[3]]))
"""


def tree(path: Path, fraction: float, jobs: str = "2", mode: str = "all", delay: float = 0) -> tuple[str, int]:
    env = {**os.environ, "LOOMTUI_NO_CACHE": "1", "LOOMTUI_JOBS": jobs, "NO_COLOR": "1", "HOME": "/home/user"}
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(path), str(fraction), mode, str(delay)],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(ROOT),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    used = [int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("USED ")]
    return done.stdout, (used[0] if used else -1)


def unique_calls(path: Path) -> Path:
    """The adversarial session with every tool call id made unique (its copies repeat them, and
    so do a copy's retried branches): each call gets a number in file order, and each result
    names the latest call of its old id before it."""
    out = []
    seen: dict[str, str] = {}
    for n, raw in enumerate(path.read_bytes().split(b"\n")):
        try:
            obj = json.loads(raw)
        except ValueError:
            obj = None
        msg = obj.get("message") if isinstance(obj, dict) else None
        if not isinstance(msg, dict):
            out.append(raw)
            continue
        for block in msg.get("content") if isinstance(msg.get("content"), list) else []:
            if isinstance(block, dict) and block.get("type") == "toolCall":
                seen[block["id"]] = block["id"] = f"{block['id']}-{n}"
        if isinstance(msg.get("toolCallId"), str):
            msg["toolCallId"] = seen.get(msg["toolCallId"], msg["toolCallId"] + "-none")
        out.append(json.dumps(obj, ensure_ascii=False).encode() + (b"\r" if raw.endswith(b"\r") else b""))
    dst = path.with_name("unique.jsonl")
    dst.write_bytes(b"\n".join(out))
    return dst


@needs_shared()
@needs_fork
def test_tree_prints_the_same_rows_with_the_childs_texts_wherever_the_file_is_cut(tmp_path: Path) -> None:
    repeated = adversarial_session(tmp_path / "s.jsonl", copies=12)
    unique = unique_calls(repeated)
    for path, calls_repeat in ((repeated, True), (unique, False)):
        expected, _ = tree(path, 0.5, jobs="1")
        assert expected.count("\n") > 400 and "[bash: tail -100 /srv/demo/build.log]" in expected
        for fraction in (0.05, 0.3, 0.5, 0.77, 0.95):
            printed, used = tree(path, fraction)
            assert printed == expected, (path.name, fraction)
            if calls_repeat:
                assert used <= 0  # repeated call ids: every row written by this process
            else:
                assert used > 0
        assert tree(path, 0.3, mode="no-tools")[0] == tree(path, 0.3, jobs="1", mode="no-tools")[0]
    assert expected.count("[bash: tail -100 /srv/demo/build.log]") >= 12  # results found their renamed calls


@needs_shared()
@needs_fork
def test_rows_written_while_waiting_for_the_child_are_the_same(tmp_path: Path) -> None:
    """The child answers late, so this process writes its own part's row texts while it waits
    (``HeadTexts``): the output is still byte-identical, and those texts are used."""
    repeated = adversarial_session(tmp_path / "s.jsonl", copies=12)
    unique = unique_calls(repeated)
    for path, calls_repeat in ((repeated, True), (unique, False)):
        expected, _ = tree(path, 0.5, jobs="1")
        for fraction in (0.3, 0.77):
            quick, used_quick = tree(path, fraction)  # the child may answer first here
            printed, used = tree(path, fraction, delay=0.6)
            assert printed == expected == quick, (path.name, fraction)
            if calls_repeat:
                assert used <= 0
            else:
                # every row of the head written while waiting, on top of the child's
                rows = expected.count("\n") - 1
                assert used >= rows * 0.9, (used, used_quick, rows)


def test_head_texts_stop_quietly_on_an_odd_value() -> None:
    """Writing the head's texts while waiting never fails the read: an unhashable tool call id
    (a JSON object) ends the work, and the rows are then written as usual."""
    from loomtui.formats.opening.tail_texts import HeadTexts
    from loomtui.session.entries import Entry

    odd = Entry("a1", None, "message")
    odd.role = "assistant"
    odd.tool_calls = (({"not": "hashable"}, "bash", {}),)  # type: ignore[assignment]
    fine = Entry("u1", "a1", "message")
    fine.role = "user"
    fine.text = "hello"
    head = HeadTexts("/home/user")
    steps = list(head.steps([fine, odd]))
    assert steps and head.result is None
