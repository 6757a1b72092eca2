"""`loomtui label`: what TEXT may hold, what it says it did, and when it writes nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from loomtui.cli import main
from loomtui.session.manager import SessionManager


def msg(entry_id: str, parent: str | None, role: str, text: str, n: int) -> dict[str, Any]:
    content: Any = text if role == "user" else [{"type": "text", "text": text}]
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": f"2026-03-01T09:00:0{n}.000Z",
        "message": {"role": role, "content": content, "timestamp": n},
    }


#: a user message, an answer labelled ``break``, a second answer
ENTRIES = [
    msg("u1000001", None, "user", "Fix the build, please.", 1),
    msg("a1000001", "u1000001", "assistant", "Looking at the Makefile.", 2),
    {
        "type": "label",
        "id": "l1000001",
        "parentId": "a1000001",
        "timestamp": "2026-03-01T09:00:03.000Z",
        "targetId": "a1000001",
        "label": "break",
    },
    msg("a1000002", "l1000001", "assistant", "Fixed.", 4),
]


@pytest.fixture
def session(write_session) -> Path:
    return write_session(ENTRIES)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("two\nlines\x1b[31m", "a newline (U+000A)"),
        ("red\x1b[31m", "an escape character (ESC) (U+001B)"),
        ("a\tb", "a tab (U+0009)"),
        ("a\rb", "a carriage return (U+000D)"),
        ("bell\x07", "a control character (U+0007)"),
        ("del\x7f", "a delete character (DEL) (U+007F)"),
        ("c1\x9b31m", "a control character (U+009B)"),
    ],
)
def test_a_label_holding_a_control_character_is_refused_and_nothing_written(capsys, session, text, named) -> None:
    before = session.read_bytes()
    code, out, err = run(capsys, "label", str(session), "u1000001", text)
    assert (code, out) == (2, "")
    assert err == (
        f"loomtui: the label holds {named}; a label is one line of printable text, as pi's label editor "
        "takes it; nothing was written\n"
    )
    assert session.read_bytes() == before


def test_whitespace_around_the_label_is_trimmed_not_refused(capsys, session) -> None:
    """A trailing newline (``$(cmd)`` keeps none, but a quoted one) or tab is trimmed, as pi trims."""
    code, out, _ = run(capsys, "label", str(session), "u1000001", "\t start \n")
    assert code == 0
    assert session.read_text().splitlines()[-1].endswith('"targetId":"u1000001","label":"start"}')


# --- a label that would not change -----------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["a1000001", "break"], "a1000001 already has the label [break]; nothing written"),
        (["a1000001", "  break  "], "a1000001 already has the label [break]; nothing written"),  # trimmed first
        (["u1000001", "--clear"], "u1000001 has no label; nothing written"),
        (["u1", "--clear"], "u1000001 has no label; nothing written"),  # a prefix: named by its full id
    ],
)
def test_a_label_that_changes_nothing_is_not_written(capsys, session, argv, said) -> None:
    before = session.read_bytes()
    code, out, err = run(capsys, "label", str(session), *argv)
    assert (code, out, err) == (0, "", f"loomtui: {said}\n")
    assert session.read_bytes() == before  # no label entry, so pi's leaf does not move either


def test_a_changed_label_and_a_real_clear_are_still_written(capsys, session) -> None:
    code, _, _ = run(capsys, "label", str(session), "a1000001", "fixed")
    assert code == 0 and session.read_text().splitlines()[-1].endswith('"label":"fixed"}')
    code, _, _ = run(capsys, "label", str(session), "a1000001", "--clear")
    assert code == 0 and session.read_text().splitlines()[-1].endswith('"targetId":"a1000001"}')


def claude_session(tmp_path: Path) -> Path:
    """A two-line Claude Code session (its labels go to loomtui's label store)."""

    def line(uuid: str, parent: str | None, kind: str, content: Any, n: int) -> str:
        message: dict[str, Any] = {"role": kind, "content": content}
        if kind == "assistant":
            message.update({"id": f"msg_{uuid}", "model": "m", "usage": {"input_tokens": 1, "output_tokens": 1}})
        return json.dumps(
            {
                "parentUuid": parent,
                "isSidechain": False,
                "sessionId": "c-1",
                "type": kind,
                "message": message,
                "uuid": uuid,
                "timestamp": f"2026-01-01T00:00:0{n}Z",
            }
        )

    path = tmp_path / "c-1.jsonl"
    path.write_text(
        line("p1", None, "user", "a question", 1)
        + "\n"
        + line("a1", "p1", "assistant", [{"type": "text", "text": "an answer"}], 2)
        + "\n"
    )
    return path


def test_the_label_store_is_not_touched_when_nothing_changes(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    path = claude_session(tmp_path)
    code, _, err = run(capsys, "label", str(path), "p1", "--clear")
    assert (code, err) == (0, "loomtui: p1 has no label; nothing written\n")
    assert not (tmp_path / "data").exists()  # no store file made for nothing
    assert run(capsys, "label", str(path), "a1", "good")[0] == 0
    stores = sorted((tmp_path / "data").rglob("*"))
    files = [p for p in stores if p.is_file()]
    assert len(files) == 1
    stored = files[0].read_bytes()
    code, out, err = run(capsys, "label", str(path), "a1", "good")
    assert (code, out, err) == (0, "", "loomtui: a1 already has the label [good]; nothing written\n")
    assert files[0].read_bytes() == stored


# --- what it says it did ------------------------------------------------------------------------


def test_stdout_holds_the_new_entry_and_stderr_says_what_was_done(capsys, session) -> None:
    """As `carry`: stdout for scripts (the new label entry's id), stderr in words."""
    code, out, err = run(capsys, "label", str(session), "u1", "start")
    first = out.strip()
    assert (
        code == 0
        and out == f"{first}\n"
        and session.read_text().splitlines()[-1].startswith(f'{{"type":"label","id":"{first}","parentId":"a1000002"')
    )
    tail = f"to {session}, after its last entry; pi resumes the same conversation\n"
    assert err == f"loomtui: labelled u1000001 [start]: appended the label entry {first} {tail}"
    code, out, err = run(capsys, "label", str(session), "a1000001", "fixed")
    assert err == f"loomtui: labelled a1000001 [fixed] (was [break]): appended the label entry {out.strip()} {tail}"
    code, out, err = run(capsys, "label", str(session), "a1000001", "--clear")
    assert err == f"loomtui: cleared the label [fixed] of a1000001: appended the label entry {out.strip()} {tail}"


def test_a_label_in_the_store_prints_the_store_file_and_says_the_session_is_not_written(
    capsys, tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    path = claude_session(tmp_path)
    before = path.read_bytes()
    code, out, err = run(capsys, "label", str(path), "a1", "good")
    store = out.strip()
    assert code == 0 and out == f"{store}\n" and os.path.isfile(store)
    assert store.startswith(str(tmp_path / "data" / "loomtui" / "labels"))
    assert err == f"loomtui: labelled a1 [good] in loomtui's label store {store}; {path} is never written\n"
    code, out, err = run(capsys, "label", str(path), "a1", "--clear")
    assert (code, out) == (0, f"{store}\n")
    assert err == f"loomtui: cleared the label [good] of a1 in loomtui's label store {store}; {path} is never written\n"
    assert path.read_bytes() == before


def test_text_after_clear_gets_labels_own_answer(capsys, session) -> None:
    """`label FILE ID --clear TEXT` is the same mistake as `label FILE ID TEXT --clear`."""
    before = session.read_bytes()
    code, out, err = run(capsys, "label", str(session), "u1000001", "--clear", "text")
    assert (code, out, err) == (2, "", "loomtui: give either TEXT or --clear, not both\n")
    assert session.read_bytes() == before


def test_an_argument_label_does_not_take_is_reported_under_its_own_usage(capsys, session) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["label", str(session), "u1000001", "text", "--bogus"])
    out, err = capsys.readouterr()
    assert exc.value.code == 2 and out == ""
    assert err.startswith("usage: loomtui label [-h] [--clear] FILE ENTRY_ID [TEXT]\n")
    assert err.endswith("loomtui label: error: unrecognized arguments: --bogus\n")


# --- a file label never writes: refused whatever the id ------------------------------------------


def test_an_old_version_file_is_refused_before_the_id_is_looked_up(capsys, write_session) -> None:
    """The same answer for a valid, an ambiguous and an unknown id: migrate first."""
    header = {"type": "session", "id": "v1-sess", "timestamp": "2025-12-01T10:00:00.000Z", "cwd": "/w"}
    turns = [
        {
            "type": "message",
            "timestamp": f"2025-12-01T10:00:{n:02d}.000Z",
            "message": {"role": "user" if n % 2 else "assistant", "content": f"turn {n}"},
        }
        for n in range(1, 21)
    ]
    path = write_session(turns, header=header)
    before = path.read_bytes()
    ids = [e.id for e in SessionManager.open(str(path)).index.entries]
    shared = next(i[0] for i in ids if sum(j[0] == i[0] for j in ids) > 1)  # 20 ids, 16 first digits
    refusal = f"loomtui: {path} is a version 1 session; run `loomtui migrate {path}` first (it keeps a .bak copy)\n"
    for given in (ids[0], shared, "nope"):
        assert run(capsys, "label", str(path), given, "x") == (2, "", refusal), given
    assert run(capsys, "label", str(path), "nope", "--clear") == (2, "", refusal)
    assert path.read_bytes() == before


def test_a_run_and_a_bundled_sample_are_refused_whatever_the_id(capsys, tmp_path) -> None:
    import shutil

    from loomtui.session.locations import sample_dir

    run_file = tmp_path / "run.ocp.json"
    shutil.copyfile(Path(__file__).parents[1] / "fixtures" / "ocp" / "run-with-session" / "run.ocp.json", run_file)
    samples = [p for p in sorted(Path(sample_dir()).iterdir()) if p.suffix == ".jsonl"]
    old = next(p for p in samples if SessionManager.open(str(p)).version == 1)  # not "migrate it first"
    new = next(p for p in samples if SessionManager.open(str(p)).version == 3)
    bundled = "bundled samples, which are never written"
    for path, words in ((run_file, "is an OCP run"), (old, bundled), (new, bundled)):
        before = path.read_bytes()
        answers = {run(capsys, "label", str(path), given, "x") for given in ("nope", "")}
        assert len(answers) == 1, answers
        ((code, out, err),) = answers
        assert (code, out) == (2, "") and words in err and err.count("\n") == 1, err
        assert path.read_bytes() == before


SAMPLE = (
    Path(__file__).resolve().parents[2]
    / "sample_sessions"
    / "2026-03-02T09-14-05-120Z_5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19.jsonl"
)
#: the first half of an entry the agent is still writing (no newline yet)
PARTIAL = '{"type":"message","id":"f0000009","parentId":null,"message":{"role":"assistant","content":[{"type":"text","text":"PARTIAL'
REST = ' DONE"}],"timestamp":1772449510000}}\n'


@pytest.mark.parametrize(
    "argv",
    [
        ["label", "{path}", "d9e8f7a6", "partialtest"],
        ["carry", "{path}", "--from", "d9e8f7a6", "--onto", "3db4c5d6", "-m", "it crashed"],
    ],
    ids=["label", "carry"],
)
def test_a_file_the_agent_is_writing_a_line_of_is_not_written(argv: list[str], tmp_path: Path, capsys) -> None:
    """The agent's last line has no newline yet: loomtui's line would land inside it. Exit 2,
    one line saying so, the file byte-identical; once the line is complete, the command works."""
    path = tmp_path / SAMPLE.name
    path.write_bytes(SAMPLE.read_bytes() + PARTIAL.encode())
    before = path.read_bytes()
    args = [a.format(path=path) for a in argv]
    code, out, err = run(capsys, *args)
    assert (code, out) == (2, "")
    assert err == (
        f"loomtui: {path} ends in a line another program is still writing; nothing was written, try again in a moment\n"
    )
    assert path.read_bytes() == before
    with open(path, "a", encoding="utf-8") as f:
        f.write(REST)
    done = path.read_bytes()
    code, out, err = run(capsys, *args)
    assert code == 0, err
    written = path.read_bytes()
    assert written.startswith(done) and written[len(done) :].count(b"\n") == 1
    assert SessionManager.open(str(path)).diagnostics == []
