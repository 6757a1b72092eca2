"""pi 1.6.0's reader rules, checked against pi's own SessionManager (``pi_open_many.mjs``).

* The header is the first JSON value that is not blank, malformed or falsy, looked for in the
  first MiB (pi's session discovery); a first value that is anything else is no session.
* A non-empty file that is no session is refused and never written to (pi refuses too).
* pi appends the newline a session's last line lacks when it opens the file: loomtui, holding the
  file open meanwhile, takes that byte as the end of the line, not as a rewrite or a new line;
  its next append adds no blank line and pi reads the result as loomtui means it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from fault_helpers import HERE, needs_pi, pi_read, run_cli

from loomtui.formats.opening import open_session
from loomtui.session.errors import LoomError
from loomtui.session.manager import SessionManager
from tests.oracle import NODE, PI_CURRENT, session_manager_js

pytestmark = needs_pi

HEADER = {"type": "session", "version": 3, "id": "hdr-1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}


def line(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


def message(eid: str, parent: str | None, role: str, text: str) -> str:
    content: Any = text if role == "user" else [{"type": "text", "text": text}]
    return line(
        {
            "type": "message",
            "id": eid,
            "parentId": parent,
            "timestamp": "2026-01-01T00:00:01.000Z",
            "message": {"role": role, "content": content, "timestamp": 1},
        }
    )


BODY = message("e1", None, "user", "hello") + "\n" + message("e2", "e1", "assistant", "hi there") + "\n"

#: what comes before the header line, by case (pi skips blank, malformed and falsy lines only)
PREFIXES = {
    "plain": "",
    "blank-lines": "\n \n\t\n",
    "malformed-line": "garbage {\n",
    "falsy-values": 'null\n0\nfalse\n""\n',
    "number": "5\n",
    "string": '"text"\n',
    "array": "[]\n",
    "object": "{}\n",
    "other-entry": message("x0", None, "user", "before the header") + "\n",
    "junk-in-first-mib": "x" * 600_000 + "\n" + "y" * 300_000 + "\n",
}


def pi_open(*paths: Path) -> list[dict[str, Any]]:
    """pi's open (in place) and pi's header discovery, per file, in one node process."""
    out = subprocess.run(
        [str(NODE), str(HERE / "pi_open_many.mjs"), str(session_manager_js(PI_CURRENT)), *map(str, paths)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def loomtui_opens(path: Path) -> bool:
    try:
        open_session(str(path))
    except LoomError:
        return False
    return True


def one_per_folder(tmp_path: Path, files: dict[str, str]) -> dict[str, Path]:
    """Each file alone in its folder (pi's discovery picks the newest session of a folder)."""
    out = {}
    for name, text in files.items():
        folder = tmp_path / name
        folder.mkdir()
        out[name] = folder / "s.jsonl"
        out[name].write_text(text, encoding="utf-8")
    return out


def test_the_header_is_found_where_pi_finds_it(tmp_path: Path) -> None:
    files = one_per_folder(tmp_path, {k: v + line(HEADER) + "\n" + BODY for k, v in PREFIXES.items()})
    ours = {name: loomtui_opens(path) for name, path in files.items()}
    theirs = {r["file"]: r for r in pi_open(*files.values())}
    for name, path in files.items():
        pi = theirs[str(path)]
        assert pi["opens"] == pi["discovered"], name  # within the first MiB both agree
        assert ours[name] == pi["opens"], name
    assert ours["malformed-line"] and ours["falsy-values"] and ours["junk-in-first-mib"]
    assert not ours["number"] and not ours["array"] and not ours["object"] and not ours["other-entry"]


def test_a_header_past_the_first_mib_is_not_looked_for(tmp_path: Path) -> None:
    """pi's discovery gives up after a MiB (its explicit open reads on); loomtui follows discovery."""
    files = one_per_folder(tmp_path, {"far": "z" * (1 << 20) + "\n" + line(HEADER) + "\n" + BODY})
    (pi,) = pi_open(files["far"])
    assert not pi["discovered"]
    assert not loomtui_opens(files["far"])


@pytest.mark.parametrize(
    "text",
    ["not a session\n", "5\n" + line(HEADER) + "\n", line({"type": "session", "id": 7}) + "\n" + BODY, BODY, "{}"],
)
def test_a_non_empty_invalid_file_is_refused_and_never_written(text: str, tmp_path: Path, capsys) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text, encoding="utf-8")
    before = path.read_bytes()
    code, _out, err = run_cli(capsys, "label", str(path), "e1", "mine")
    assert code != 0 and err.strip()
    assert path.read_bytes() == before
    code, _out, err = run_cli(capsys, "tree", str(path))
    assert code != 0 and err.strip()
    assert path.read_bytes() == before
    (pi,) = pi_open(path)
    assert not pi["opens"] and pi["unchanged"]  # pi refuses it as well, and writes nothing


@pytest.mark.parametrize("torn", [False, True])
def test_the_newline_pi_appends_is_taken_by_an_open_session(torn: bool, tmp_path: Path) -> None:
    """The last line has no newline (complete, or torn); loomtui has the file open when pi opens
    it and appends the newline."""
    last = message("e3", "e2", "user", "and more")
    path = tmp_path / "s.jsonl"
    path.write_text(line(HEADER) + "\n" + BODY + (last[:25] if torn else last), encoding="utf-8")
    sm = SessionManager.open(str(path))
    lines_before = sm.state.line_no
    (pi,) = pi_open(path)
    assert pi["opens"] and pi["appended"] == "\n"
    assert sm.refresh() == []  # not a rewrite (no WriteConflict), no new entry
    if torn:
        # the torn line is a complete bad line now: one note for it, not a second one
        assert [d.line for d in sm.diagnostics] == [lines_before + 1]
    else:
        assert sm.diagnostics == [] and sm.state.line_no == lines_before
    data = path.read_bytes()
    new_id = sm.append_label_change("e1", "after pi")
    written = path.read_bytes()
    assert written.startswith(data) and not written[len(data) :].startswith(b"\n")  # no blank line
    assert sm.index.by_id[new_id].line == len(written.splitlines())
    (read,) = pi_read(path)
    assert read["ok"] and new_id in read["ids"]
    again = SessionManager.open(str(path))
    assert again.get_label("e1") == "after pi" and again.get_leaf_id() == new_id


def test_an_export_after_pis_newline_copies_the_branch(tmp_path: Path) -> None:
    """verify-before-write sees the one appended byte as growth, not as a rewrite."""
    path = tmp_path / "s.jsonl"
    path.write_text(line(HEADER) + "\n" + BODY.rstrip("\n"), encoding="utf-8")
    sm = SessionManager.open(str(path))
    (pi,) = pi_open(path)
    assert pi["appended"] == "\n"
    out = sm.create_branched_session("e2", out=str(tmp_path / "branch.jsonl"))
    rows = [json.loads(x) for x in Path(out).read_text(encoding="utf-8").splitlines()]
    assert [r.get("id") for r in rows[1:]] == ["e1", "e2"]
    shutil.copy(out, tmp_path / "copy.jsonl")
    (read,) = pi_read(tmp_path / "copy.jsonl")
    assert read["ok"] and read["ids"] == ["e1", "e2"]
