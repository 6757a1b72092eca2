"""Valid-but-odd and hostile session files through every command: one line on stderr and
exit 2 for what cannot be done, never a traceback, never a control character from the file
on the terminal, valid JSON from ``info --json``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from fault_helpers import needs_pi, pi_read, run_cli

from loomtui.session.manager import SessionManager

V3 = "dnouri-browse-session"
TS = '"2026-03-02T10:00:00.000Z"'


def _nest(n: int, inner: str = "1") -> str:
    return "[" * n + inner + "]" * n


def _odd_lines(parent: str) -> dict[str, str]:
    """One appended line per odd case (each entry has id x1, parented on ``parent``)."""
    head = f'"id":"x1","parentId":"{parent}","timestamp":{TS}'
    return {
        "deep-content": f'{{"type":"message",{head},"message":{{"role":"user","content":{_nest(3000)}}}}}',
        "deep-args": f'{{"type":"message",{head},"message":{{"role":"assistant","content":[{{"type":"toolCall",'
        f'"id":"c1","name":"bash","arguments":{{"a":{_nest(3000)}}}}}],"stopReason":"toolUse"}}}}',
        "deep-label": f'{{"type":"label",{head},"targetId":"{parent}","label":{_nest(3000)}}}',
        "surrogate": f'{{"type":"message",{head},"message":{{"role":"user","content":"cut \\ud83d emoji"}}}}',
        "surrogate-id": f'{{"type":"message","id":"x1","parentId":"{parent}","timestamp":{TS},'
        f'"message":{{"role":"user","content":"a","x":"\\udc00"}}}}',
        "odd-model": f'{{"type":"message",{head},"message":{{"role":"assistant","provider":["x"],"model":{{"a":1}},'
        f'"content":[{{"type":"toolCall","id":[1],"name":"bash","arguments":{{}}}}],'
        f'"usage":{{"input":1e999,"output":1,"cost":{{"total":1e999}}}}}}}}',
        "odd-tool-result": f'{{"type":"message",{head},"message":{{"role":"toolResult","toolCallId":{{"a":1}},'
        f'"toolName":[1],"content":[{{"type":"text","text":[1,2]}}]}}}}',
        "huge-int": f'{{"type":"custom","customType":"x",{head},"data":{"9" * 5000}}}',
        "infinity": f'{{"type":"compaction",{head},"summary":"s","tokensBefore":1e999,"firstKeptEntryId":"{parent}"}}',
        "odd-types": f'{{"type":"message","id":"x1","parentId":"{parent}","timestamp":{{"a":1}},'
        f'"message":{{"role":["user"],"content":{{"x":1}},"stopReason":[1],"errorMessage":{{"a":2}}}}}}',
        "escapes": f'{{"type":"message",{head},"message":{{"role":"user","content":"hi \\u001b]0;PWNED\\u0007 '
        f'\\u009b31m \\u001b[2J"}}}}',
        "escape-label": f'{{"type":"label",{head},"targetId":"{parent}","label":"\\u001b]0;TITLE\\u001b\\\\"}}',
    }


@pytest.fixture(scope="module")
def odd_files(tmp_path_factory, pi_dir) -> dict[str, Path]:
    base = (pi_dir / f"{V3}.jsonl").read_bytes()
    leaf = SessionManager.open(str(pi_dir / f"{V3}.jsonl")).get_leaf_id()
    d = tmp_path_factory.mktemp("odd")
    out = {}
    for name, line in _odd_lines(leaf).items():
        p = d / f"{name}.jsonl"
        p.write_bytes(base + line.encode() + b"\n")
        out[name] = p
    hdr = d / "escape-header.jsonl"
    lines = base.split(b"\n")
    hdr.write_bytes(
        b'{"type":"session","version":"3","id":"h\\u001b[31m","timestamp":[1],'
        b'"cwd":"\\u001b]0;X\\u0007","parentSession":{"a":1}}\n' + b"\n".join(lines[1:])
    )
    out["escape-header"] = hdr
    deep_hdr = d / "deep-header.jsonl"
    deep_hdr.write_bytes(
        b'{"type":"session","version":3,"id":"d","timestamp":"t","cwd":'
        + _nest(3000).encode()
        + b"}\n"
        + b"\n".join(lines[1:])
    )
    out["deep-header"] = deep_hdr
    return out


CASES = [
    "deep-content",
    "deep-args",
    "deep-label",
    "surrogate",
    "surrogate-id",
    "odd-model",
    "odd-tool-result",
    "huge-int",
    "infinity",
    "odd-types",
    "escapes",
    "escape-label",
    "escape-header",
    "deep-header",
]
COMMANDS = [
    ("tree", "--filter", "all"),
    ("tree", "--filter", "all", "--color", "always", "--ids"),
    ("info",),
    ("info", "--json"),
]


def _no_control(text: str) -> bool:
    """Only the ANSI colour codes loomtui itself writes (ESC [ digits ; m) may appear."""
    import re

    stripped = re.sub(r"\x1b\[[0-9;]*m", "", text)
    return stripped.replace("\n", "").replace("\t", "").isprintable()  # every other character printable


@pytest.mark.parametrize("case", CASES)
def test_odd_lines_read_like_pi_and_print_safely(case, odd_files, capsys):
    from loomtui.session.jsonvalue import loads

    path = odd_files[case]
    for argv in COMMANDS:
        code, out, err = run_cli(capsys, argv[0], str(path), *argv[1:])
        assert (code, err) == (0, ""), (case, argv, err)
        assert _no_control(out), (case, argv, [c for c in out if not c.isprintable()][:5])
        if argv == ("info", "--json"):
            summary = loads(out)
            if case not in ("escape-header", "deep-header"):
                assert summary["entryCount"] == len(SessionManager.open(str(path)).index.entries)
            assert "Infinity" not in out and "NaN" not in out


@needs_pi
def test_odd_lines_are_entries_for_pi_and_for_us(odd_files):
    """Everything pi reads, loomtui reads: the odd line is an entry on both sides."""
    names = [n for n in CASES if n not in ("escape-header", "deep-header")]
    for name, pi in zip(names, pi_read(*(odd_files[n] for n in names))):
        ours = SessionManager.open(str(odd_files[name])).index.entries
        assert [e.id for e in ours] == pi["ids"], name
        assert "x1" in pi["ids"]


@pytest.mark.parametrize("case", CASES)
def test_writes_on_odd_files_are_done_or_cleanly_refused(case, odd_files, tmp_path, capsys):
    src = tmp_path / "s.jsonl"
    src.write_bytes(odd_files[case].read_bytes())
    sm = SessionManager.open(str(src))
    leaf = sm.get_leaf_id()
    code, out, err = run_cli(capsys, "export-branch", str(src), "--leaf", leaf, "-o", str(tmp_path / "b.jsonl"))
    assert code == 0, err
    branch = SessionManager.open(str(tmp_path / "b.jsonl"))
    assert [e.id for e in branch.index.path_to(branch.get_leaf_id())][-1] == leaf or branch.index.labels
    before = src.read_bytes()
    code, out, err = run_cli(capsys, "label", str(src), leaf, "ok")
    assert code == 0, err
    assert src.read_bytes().startswith(before)
    for name in ("o.json", "o.zip"):
        code, out, err = run_cli(capsys, "export-openloom", str(src), "-o", str(tmp_path / name))
        assert code == 0 and "Traceback" not in err, err


def test_info_json_is_strict_json_with_infinity_in_the_file(odd_files, capsys):
    code, out, _ = run_cli(capsys, "info", str(odd_files["odd-model"]), "--json")
    summary = json.loads(out)  # the stdlib parser accepts no Infinity/NaN... with this hook
    json.loads(out, parse_constant=lambda c: pytest.fail(f"{c} in info --json"))
    assert summary["usage"]["input"] is None  # JSON.stringify(Infinity) is null


def test_tree_output_shows_control_pictures_not_escapes(odd_files, capsys):
    for color in ("never", "always"):
        code, out, _ = run_cli(capsys, "tree", str(odd_files["escapes"]), "--filter", "all", "--color", color)
        assert "\x1b]0;PWNED" not in out and "\x9b" not in out and "\x1b[2J" not in out
        assert "␛]0;PWNED␇" in out
    code, out, _ = run_cli(capsys, "tree", str(odd_files["escape-label"]), "--filter", "all")
    assert "[␛]0;TITLE␛\\]" in out
    code, out, _ = run_cli(capsys, "info", str(odd_files["escape-header"]))
    assert "␛]0;X␇" in out and "\x1b" not in out


def test_printable_is_one_column_per_unsafe_character():
    from loomtui.view.printable import printable

    s = "a\x1b[31mb\x07c\x9bd\x7fe\ud83df\ttab\nnl"
    shown = printable(s)
    assert len(shown) == len(s) and shown.isprintable()
    assert printable(s, keep_lines=True).split("\n")[1] == "nl"
    assert printable("line\r\nnext", keep_lines=True) == "line\nnext"
    assert printable("x\x1b[31mred\x1b[0m y\x1b]0;t\x07z", keep_lines=True, strip_ansi=True) == "xred yz"
    assert printable("a\tb\nc", blank_breaks=True) == "a b c"
    plain = "plain text, ünïcode, 日本"
    assert printable(plain) is plain


def test_label_text_that_is_not_utf8_is_refused(pi_copy, capsys):
    path = pi_copy(V3)
    before = path.read_bytes()
    leaf = SessionManager.open(str(path)).get_leaf_id()
    bad = os.fsdecode(b"caf\xe9")
    code, out, err = run_cli(capsys, "label", str(path), leaf, bad)
    assert (code, out) == (2, "") and "not valid UTF-8" in err
    assert path.read_bytes() == before


def test_an_output_name_that_is_too_long_is_one_line(pi_copy, tmp_path, capsys):
    path = pi_copy(V3)
    leaf = SessionManager.open(str(path)).get_leaf_id()
    for argv in (
        ("export-branch", str(path), "--leaf", leaf, "-o", str(tmp_path / ("n" * 300 + ".jsonl"))),
        ("export-openloom", str(path), "-o", str(tmp_path / ("n" * 300 + ".zip"))),
    ):
        code, out, err = run_cli(capsys, *argv)
        assert (code, out) == (2, "") and "too long" in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def _cli(*argv: str, stdout=None, timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "loomtui", *argv],
        stdout=stdout or subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=timeout,
    )


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_stdout_on_dev_full_is_one_line_and_leaves_no_export(pi_copy, tmp_path):
    path = pi_copy(V3)
    leaf = SessionManager.open(str(path)).get_leaf_id()
    with open("/dev/full", "wb") as full:
        for argv in (("tree", str(path)), ("info", str(path), "--json")):
            r = _cli(*argv, stdout=full)
            assert r.returncode == 2 and b"Traceback" not in r.stderr and r.stderr.count(b"\n") == 1, r.stderr
        out = tmp_path / "b.jsonl"
        r = _cli("export-branch", str(path), "--leaf", leaf, "-o", str(out), stdout=full)
        assert r.returncode == 2 and b"Traceback" not in r.stderr and r.stderr.count(b"\n") == 1, r.stderr
        assert not out.exists()


def test_fifo_and_devices_are_refused_at_once(tmp_path):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    for target in (str(fifo), "/dev/zero", "/dev/null", str(tmp_path)):
        for argv in (
            ("tree", target),
            ("info", target),
            ("label", target, "x", "y"),
            ("migrate", target),
            ("export-branch", target, "--leaf", "x", "-o", str(tmp_path / "o.jsonl")),
            ("export-openloom", target, "-o", str(tmp_path / "o.json")),
            (target,),
        ):
            if argv == (str(tmp_path),):
                continue  # the browser on a directory lists its sessions
            r = _cli(*argv, timeout=20)
            assert r.returncode == 2 and b"Traceback" not in r.stderr and r.stderr.count(b"\n") == 1, (argv, r.stderr)
    # nobody ever opened the FIFO for writing: a reader that blocked would have hung above
    assert not (tmp_path / "o.jsonl").exists() and not (tmp_path / "o.json").exists()


def test_a_fifo_that_replaces_the_session_while_open_is_refused(pi_copy):
    path = pi_copy(V3)
    sm = SessionManager.open(str(path))
    path.unlink()
    os.mkfifo(path)
    done = threading.Event()
    result: list[BaseException] = []

    def label() -> None:
        try:
            sm.append_label_change(sm.get_leaf_id(), "x")
        except BaseException as exc:  # noqa: BLE001
            result.append(exc)
        done.set()

    threading.Thread(target=label, daemon=True).start()
    assert done.wait(10), "the write blocked on a FIFO"
    from loomtui.session.errors import LoomError

    assert len(result) == 1 and isinstance(result[0], LoomError)


def test_every_command_refuses_a_fifo(tmp_path):
    """The commands added since (diff, export-html, check, loom-config) too."""
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    for argv in (
        ("diff", str(fifo), "a", "b"),
        ("export-html", str(fifo), "-o", str(tmp_path / "o.html")),
        ("check", str(fifo)),
        ("loom-config", str(fifo)),
    ):
        r = _cli(*argv, timeout=20)
        assert r.returncode != 0 and b"Traceback" not in r.stderr and b"FIFO" in r.stdout + r.stderr, (argv, r)
    assert not (tmp_path / "o.html").exists()


@pytest.mark.parametrize(
    "case",
    [
        "deep-content",
        "deep-args",
        "deep-label",
        "surrogate",
        "surrogate-id",
        "odd-model",
        "escape-header",
        "deep-header",
    ],
)
def test_html_export_and_diff_of_odd_files(case, odd_files, tmp_path, capsys):
    path = odd_files[case]
    code, out, err = run_cli(capsys, "export-html", str(path), "-o", str(tmp_path / "o.html"))
    assert code == 0, err
    leaf = SessionManager.open(str(path)).get_leaf_id()
    code, out, err = run_cli(capsys, "diff", str(path), leaf, "aa000008", "--color", "always")
    assert "Traceback" not in err and (code == 0 or err.count("\n") == 1), err
    assert _no_control(out)
