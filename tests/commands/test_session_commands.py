"""`loomtui info`, `label`, `export-branch`, `migrate`: output, files written, errors (exit 2)."""

from __future__ import annotations

import json
import os
import re

import pytest

from loomtui.cli import main
from loomtui.session.manager import SessionManager

V1_HEADER = {"type": "session", "id": "v1-sess", "timestamp": "2025-12-01T10:00:00.000Z", "cwd": "/w"}


def v1_msg(role, text):
    return {
        "type": "message",
        "timestamp": "2025-12-01T10:00:01.000Z",
        "message": {"role": role, "content": [{"type": "text", "text": text}]},
    }


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def listing(directory) -> list[str]:
    return sorted(os.listdir(directory))


# --- info -------------------------------------------------------------------------------------


def test_info_plain_text_summary(capsys, pi_dir):
    code, out, err = run(capsys, "info", str(pi_dir / "pi-brain-mixed-boundaries.jsonl"))
    assert code == 0 and err == ""
    assert out == (
        f"file          {pi_dir / 'pi-brain-mixed-boundaries.jsonl'}\n"
        "format        pi session, version 3\n"
        "session       mixed-sess-1234-5678-90ab-cdef12345678\n"
        "created       2026-01-25T10:00:00.000Z\n"
        "cwd           /home/will/projects/test-project\n"
        "name          Complex Session - Phase 1\n"
        "entries       16\n"
        "  message                     12  (assistant 6, user 6)\n"
        "  branch_summary               1\n"
        "  compaction                   1\n"
        "  label                        1\n"
        "  session_info                 1\n"
        "roots         2: 00000001, 00000014\n"
        "leaf          00000016 (last entry in the file)\n"
        "leaves        4: 00000003, 00000006, 00000013, 00000016\n"
        "branch points 2: 00000002 (2 children), 00000005 (2 children)\n"
        "labels        1\n"
        "  00000002  checkpoint-1  (2026-01-25T10:01:00.000Z)\n"
        "models        zai/glm-4.7 (6 assistant messages)\n"
        "tokens        input 2,100, output 1,050, cache read 0, cache write 0, total 3,150\n"
        "cost          $0.0000 (input $0.0000, output $0.0000, cache read $0.0000, cache write $0.0000)\n"
        "              summed over 6 assistant messages on all branches\n"
        "diagnostics   0\n"
    )


def test_info_json_has_everything(capsys, pi_dir):
    code, out, _ = run(capsys, "info", "--json", str(pi_dir / "dnouri-browse-session.jsonl"))
    assert code == 0
    info = json.loads(out)
    assert info["version"] == 3 and info["format"] == "pi"
    assert info["entryCount"] == 35
    assert info["entriesByType"]["message"] == 21 and info["entriesByType"]["label"] == 4
    assert info["messagesByRole"] == {"assistant": 9, "toolResult": 7, "user": 4, "bashExecution": 1}
    assert info["roots"] == ["aa000001"]
    assert info["leafId"] == "aa000023"
    assert info["leaves"] == ["aa00001e", "aa00000e", "aa000002", "aa000023"]
    assert info["branchPoints"] == [
        {"id": "aa000001", "children": 2},
        {"id": "aa000008", "children": 2},
        {"id": "aa00000d", "children": 2},
    ]
    assert info["labels"] == [
        {"id": "aa000001", "label": "restored", "timestamp": "2026-03-01T09:20:20.000Z"},
        {"id": "aa000018", "label": "final-answer", "timestamp": "2026-03-01T09:20:40.000Z"},
    ]
    assert info["sessionName"] == "Build fixed"
    assert info["header"]["cwd"] == "/srv/demo"
    assert info["diagnostics"] == []


def test_info_token_and_cost_totals_of_real_v1_session(capsys, pi_dir):
    code, out, _ = run(capsys, "info", "--json", str(pi_dir / "pi-mono-before-compaction.jsonl"))
    assert code == 0
    info = json.loads(out)
    assert info["version"] == 1
    u = info["usage"]
    assert (u["input"], u["output"], u["cacheRead"], u["cacheWrite"], u["totalTokens"]) == (
        3689,
        187895,
        54693675,
        1685320,
        56570579,
    )
    assert round(u["cost"]["total"], 4) == 42.5959
    assert u["assistantMessagesWithUsage"] == 484
    assert info["models"][0] == {
        "provider": "anthropic",
        "model": "claude-opus-4-5",
        "assistantMessages": 484,
        "modelChanges": 1,
    }
    _, text, _ = run(capsys, "info", str(pi_dir / "pi-mono-before-compaction.jsonl"))
    assert (
        "format        pi session, version 1 (migrated in memory; run `loomtui migrate FILE` before writing to it)\n"
        in text
    )
    assert "branched from /Users/badlogic/.pi/agent/sessions/" in text


def test_info_counts_parts_when_total_tokens_is_missing(capsys, write_session):
    usage = {"input": 10, "output": 5, "cacheRead": 2, "cacheWrite": 1, "cost": {"total": 0.5, "input": 0.1}}
    path = write_session(
        [
            {
                "type": "message",
                "id": "a",
                "parentId": None,
                "timestamp": "2026-03-01T09:00:01.000Z",
                "message": {"role": "assistant", "content": [], "provider": "p", "model": "m", "usage": usage},
            },
            {
                "type": "message",
                "id": "b",
                "parentId": "a",
                "timestamp": "2026-03-01T09:00:02.000Z",
                "message": {
                    "role": "assistant",
                    "content": [],
                    "provider": "p",
                    "model": "m",
                    "usage": {**usage, "totalTokens": 100},
                },
            },
            {
                "type": "model_change",
                "id": "c",
                "parentId": "b",
                "timestamp": "2026-03-01T09:00:03.000Z",
                "model": "openai/gpt-5",
                "role": "default",
            },
        ]
    )
    info = json.loads(run(capsys, "info", "--json", str(path))[1])
    assert info["usage"]["totalTokens"] == 118
    assert info["usage"]["cost"]["total"] == 1.0
    assert info["models"] == [
        {"provider": "p", "model": "m", "assistantMessages": 2, "modelChanges": 0},
        {"provider": "openai", "model": "gpt-5", "assistantMessages": 0, "modelChanges": 1},
    ]


def test_info_lists_diagnostics_with_line_numbers(capsys, write_session):
    path = write_session(
        [
            {
                "type": "message",
                "id": "a",
                "parentId": None,
                "timestamp": "t",
                "message": {"role": "user", "content": "x"},
            },
            "not json",
            {
                "type": "message",
                "id": "a",
                "parentId": None,
                "timestamp": "t",
                "message": {"role": "user", "content": "y"},
            },
        ]
    )
    code, out, _ = run(capsys, "info", str(path))
    assert code == 0
    assert out.endswith(
        "diagnostics   2\n"
        "  line 3: not valid JSON (Expecting value: line 1 column 1 (char 0))\n"
        "  line 4: duplicate id 'a': the first entry with it wins, this line is kept as is\n"
    )


def test_info_errors_are_one_line_exit_2(capsys, tmp_path, write_session):
    code, out, err = run(capsys, "info", str(tmp_path / "missing.jsonl"))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("loomtui: cannot open ")
    v4 = write_session(
        [{"kind": "entry", "seq": 1, "type": "message", "id": "a", "parentId": None}],
        header={"kind": "header", "version": 4, "id": "x", "createdAt": 1, "cwd": "/"},
    )
    code, out, err = run(capsys, "info", str(v4))
    assert (code, out) == (2, "")
    assert err.startswith("loomtui: this is a pi v4 session log") and err.count("\n") == 1


# --- label ------------------------------------------------------------------------------------


def test_label_appends_one_label_entry_and_prints_its_id(capsys, pi_copy):
    path = pi_copy("dnouri-browse-session")
    original = path.read_bytes()
    code, out, err = run(capsys, "label", str(path), "aa000002", "  my mark  ")
    new_id = out.strip()
    assert code == 0 and err == (
        f"loomtui: labelled aa000002 [my mark]: appended the label entry {new_id} to {path}, after its last "
        "entry; pi resumes the same conversation\n"
    )
    assert re.fullmatch(r"[0-9a-f]{8}", new_id) and out == new_id + "\n"
    data = path.read_bytes()
    assert data.startswith(original)
    line = json.loads(data[len(original) :])
    assert list(line) == ["type", "id", "parentId", "timestamp", "targetId", "label"]
    assert (line["id"], line["parentId"], line["targetId"], line["label"]) == (
        new_id,
        "aa000023",
        "aa000002",
        "my mark",
    )
    sm = SessionManager.open(str(path))
    assert sm.get_label("aa000002") == "my mark"
    assert sm.get_leaf_id() == new_id


def test_label_clear_writes_label_entry_without_label_key(capsys, pi_copy):
    path = pi_copy("dnouri-browse-session")
    code, out, _ = run(capsys, "label", str(path), "aa000018", "--clear")
    assert code == 0
    last = json.loads(path.read_text().splitlines()[-1])
    assert last["id"] == out.strip() and last["targetId"] == "aa000018" and "label" not in last
    assert SessionManager.open(str(path)).get_label("aa000018") is None


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["nope", "x"], "loomtui: no entry 'nope' in {path}\n"),
        (["aa000002"], "loomtui: give the label TEXT, or --clear to remove the label\n"),
        (["aa000002", "x", "--clear"], "loomtui: give either TEXT or --clear, not both\n"),
        (["aa000002", "   "], "loomtui: the label is empty; use --clear to remove a label\n"),
    ],
)
def test_label_errors_write_nothing(capsys, pi_copy, argv, message):
    path = pi_copy("dnouri-browse-session")
    before = path.read_bytes()
    code, out, err = run(capsys, "label", str(path), *argv)
    assert (code, out, err) == (2, "", message.format(path=path))
    assert path.read_bytes() == before


def test_label_on_old_version_file_is_refused_with_migrate_hint(capsys, write_session):
    path = write_session([v1_msg("user", "x")], header=V1_HEADER)
    before = path.read_bytes()
    leaf = SessionManager.open(str(path)).get_leaf_id()
    code, out, err = run(capsys, "label", str(path), leaf, "x")
    assert (code, out) == (2, "")
    assert err == (
        f"loomtui: {path} is a version 1 session; run `loomtui migrate {path}` first (it keeps a .bak copy)\n"
    )
    assert path.read_bytes() == before


# --- export-branch ----------------------------------------------------------------------------


def test_export_branch_fork_and_clone_of_a_claude_session(capsys, shared_dir, tmp_path):
    """--clone exports at the session's leaf, --fork just before a user message; a first
    message has nothing before it in a Claude file (no header-only file of that format)."""
    path = tmp_path / "c.jsonl"
    path.write_bytes(
        (shared_dir / "fixtures" / "claude" / "alignment-hive__6f2580aa-3095-45b7-8d4e-dd8cac7eeffe.jsonl").read_bytes()
    )
    from loomtui.formats.opening import open_session

    sm = open_session(str(path))
    users = [e for e in sm.index.path_to(sm.get_leaf_id()) if e.type == "message" and e.role == "user"]
    first = next(e for e in sm.index.entries if e.type == "message" and e.role == "user" and e.parent_id is None)
    code, out, _ = run(capsys, "export-branch", str(path), "--clone", "--dir", str(tmp_path))
    assert code == 0 and open_session(out.strip()).get_leaf_id() == sm.get_leaf_id()
    code, out, _ = run(capsys, "export-branch", str(path), "--fork", users[-1].id, "--dir", str(tmp_path))
    forked = open_session(out.strip())
    assert code == 0 and forked.get_leaf_id() == users[-1].parent_id
    code, out, err = run(capsys, "export-branch", str(path), "--fork", first.id, "--dir", str(tmp_path))
    assert (code, out) == (2, "") and "is the first message" in err


def test_export_branch_prints_new_file_next_to_source(capsys, pi_copy):
    path = pi_copy("dnouri-browse-session")
    before = path.read_bytes()
    code, out, err = run(capsys, "export-branch", str(path), "--leaf", "aa000018")
    assert code == 0 and err == ""
    new = out.strip()
    assert out == new + "\n"
    assert os.path.dirname(new) == str(path.parent)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_[0-9a-f-]{36}\.jsonl", os.path.basename(new))
    lines = [json.loads(x) for x in open(new).read().splitlines()]
    assert lines[0]["parentSession"] == str(path)
    assert lines[0]["cwd"] == "/srv/demo"
    assert [e["targetId"] for e in lines if e["type"] == "label"] == ["aa000001", "aa000018"]
    assert path.read_bytes() == before


def test_export_branch_dir_and_output_options(capsys, pi_copy, tmp_path):
    path = pi_copy("pi-brain-branch-summary")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    code, out, _ = run(capsys, "export-branch", str(path), "--leaf", "00000004", "--dir", str(out_dir))
    assert code == 0 and os.path.dirname(out.strip()) == str(out_dir)
    target = tmp_path / "exact.jsonl"
    code, out, _ = run(capsys, "export-branch", str(path), "--leaf", "00000004", "-o", str(target))
    assert (code, out) == (0, f"{target}\n")
    assert [json.loads(x)["id"] for x in target.read_text().splitlines()[1:]] == [
        "00000001",
        "00000002",
        "00000003",
        "00000004",
    ]


def test_export_branch_errors_write_nothing(capsys, pi_copy, tmp_path):
    path = pi_copy("pi-brain-branch-summary")
    before = listing(tmp_path)
    code, out, err = run(capsys, "export-branch", str(path), "--leaf", "zzz")
    assert (code, out, err) == (2, "", f"loomtui: no entry 'zzz' in {path}\n")
    code, out, err = run(capsys, "export-branch", str(path), "--leaf", "00000004", "--dir", str(tmp_path / "nodir"))
    assert (code, out, err) == (2, "", f"loomtui: directory {tmp_path / 'nodir'} does not exist\n")
    taken = tmp_path / "taken.jsonl"
    taken.write_text("x\n")
    code, out, err = run(capsys, "export-branch", str(path), "--leaf", "00000004", "-o", str(taken))
    assert (code, out, err) == (2, "", f"loomtui: {taken} already exists; choose another name\n")
    assert taken.read_text() == "x\n"
    assert listing(tmp_path) == sorted([*before, "taken.jsonl"])


def test_export_branch_from_old_version_copies_the_migrated_branch(capsys, write_session, tmp_path):
    """An export only writes a new file: from a version 1 session it was refused until `migrate`
    had rewritten the original; it copies the branch as migrated in memory, the lines the same
    export writes after `migrate`, and leaves the original as it is."""
    path = write_session([v1_msg("user", "x"), v1_msg("assistant", "y"), v1_msg("user", "z")], header=V1_HEADER)
    data = path.read_bytes()
    leaf = SessionManager.open(str(path)).get_leaf_id()
    (tmp_path / "a").mkdir()
    code, out, err = run(capsys, "export-branch", str(path), "--leaf", leaf, "--dir", str(tmp_path / "a"))
    assert (code, err) == (0, "")
    assert path.read_bytes() == data
    got = (tmp_path / "a" / os.path.basename(out.strip())).read_text().splitlines()
    head = json.loads(got[0])
    assert head["version"] == 3 and head["parentSession"] == str(path)

    migrated = tmp_path / "m" / path.name
    migrated.parent.mkdir()
    migrated.write_bytes(data)
    assert run(capsys, "migrate", str(migrated))[0] == 0
    code, out, err = run(capsys, "export-branch", str(migrated), "--leaf", leaf, "--dir", str(tmp_path / "m"))
    assert code == 0
    want = (tmp_path / "m" / os.path.basename(out.strip())).read_text().splitlines()
    assert got[1:] == want[1:] and len(got) == 4


def test_export_branch_dir_and_output_are_exclusive(capsys, pi_dir):
    with pytest.raises(SystemExit) as exc:
        main(
            [
                "export-branch",
                str(pi_dir / "pi-brain-branch-summary.jsonl"),
                "--leaf",
                "x",
                "--dir",
                "/tmp",
                "-o",
                "/tmp/x.jsonl",
            ]
        )
    assert exc.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


# --- migrate ----------------------------------------------------------------------------------


def test_migrate_command_rewrites_and_keeps_backup(capsys, write_session):
    path = write_session([v1_msg("user", "one"), "kept garbage", v1_msg("assistant", "two")], header=V1_HEADER)
    original = path.read_bytes()
    ids = [e.id for e in SessionManager.open(str(path)).index.entries]
    code, out, err = run(capsys, "migrate", str(path))
    assert (code, err) == (0, "")
    assert out == f"{path}: migrated to version 3 (original kept as {path}.bak)\n"
    assert open(f"{path}.bak", "rb").read() == original
    sm = SessionManager.open(str(path))
    assert sm.version == 3 and [e.id for e in sm.index.entries] == ids
    assert path.read_text().splitlines()[2] == "kept garbage"
    # now writable, with the same ids
    code, out, _ = run(capsys, "label", str(path), ids[0], "ok")
    assert code == 0


def test_migrate_command_refuses_v3_and_missing_files(capsys, pi_copy, tmp_path):
    path = pi_copy("pi-brain-branch-summary")
    before = path.read_bytes()
    code, out, err = run(capsys, "migrate", str(path))
    assert (code, out, err) == (2, "", f"loomtui: {path} is already version 3; nothing to migrate\n")
    assert path.read_bytes() == before and not os.path.exists(f"{path}.bak")
    code, out, err = run(capsys, "migrate", str(tmp_path / "missing.jsonl"))
    assert (code, out) == (2, "") and err.startswith("loomtui: cannot open ")


def test_export_branch_to_a_name_that_is_no_session_file_is_refused(capsys, write_session, tmp_path):
    """`-o out.txt` was accepted though the app's export dialog requires .jsonl: pi lists only
    .jsonl files."""
    path = write_session(
        [
            {
                "type": "message",
                "id": "00000001",
                "parentId": None,
                "timestamp": "2026-01-01T00:00:01.000Z",
                "message": {"role": "user", "content": "hi", "timestamp": 1},
            }
        ]
    )
    before = listing(tmp_path)
    code, out, err = run(capsys, "export-branch", str(path), "--leaf", "00000001", "-o", str(tmp_path / "out.txt"))
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f"loomtui: -o {tmp_path / 'out.txt'}: a session file's name ends in .jsonl (the agents list no other files)"
    ]
    assert listing(tmp_path) == before


def test_info_counts_a_tool_results_usage_however_its_key_is_written(capsys, write_session):
    """A tool result's usage counts (as pi 1.6.0 counts it), also when the key is written with
    an escape; tool results without one are not decoded for it."""
    usage = {"input": 7, "output": 3, "totalTokens": 10}

    def result(eid: str, parent: str, **extra: object) -> dict[str, object]:
        return {
            "type": "message",
            "id": eid,
            "parentId": parent,
            "timestamp": "2026-03-01T09:00:01.000Z",
            "message": {"role": "toolResult", "toolCallId": "c", "content": [], **extra},
        }

    path = write_session(
        [
            {
                "type": "message",
                "id": "a",
                "parentId": None,
                "timestamp": "2026-03-01T09:00:01.000Z",
                "message": {"role": "assistant", "content": [], "provider": "p", "model": "m", "usage": usage},
            },
            result("b", "a", usage=usage),
            result("c", "b", escaped=1),
            result("d", "c"),
        ]
    )
    text = path.read_text().replace('"escaped":1', '"\\u0075sage":' + json.dumps(usage))
    path.write_text(text)
    info = json.loads(run(capsys, "info", "--json", str(path))[1])
    assert info["usage"]["totalTokens"] == 30
