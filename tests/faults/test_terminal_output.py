"""No subcommand lets a file's control characters reach the terminal: every command's stdout
and stderr, on hostile files (and a hostile file name), holds no C0 byte but newline and tab,
no DEL, no C1 character, and no escape sequence but loomtui's own colour codes when colour is on."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.faults.test_cache_parity import run

HOSTILE = [
    "\x1b[31mRED\x1b[0m",
    "\x1b]0;pwned title\x07",
    "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\",
    "\x9b2J",
    "\x9d0;x\x9c",
    "\x85",
    "a\rb",
    "\x00",
    "\x7f",
    "\x08\x08",
    "\x1bP+q\x1b\\",
    "\x1b[2J\x1b[H",
    "\x1b(0",
    "\u202e",
    "\t",
]

CONTROLS = st.text(
    alphabet=st.sampled_from([chr(c) for c in [*range(0, 32), 127, *range(0x80, 0xA0)]] + ["x", "["]),
    min_size=1,
    max_size=12,
)

#: loomtui's own colour codes, allowed when colour is on
SGR = re.compile(rb"\x1b\[[0-9;]*m")
BAD = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]")


def assert_clean(data: bytes, colour: bool, what: str) -> None:
    if colour:
        data = SGR.sub(b"", data)
    bad = BAD.search(data)
    assert bad is None, (
        f"{what}: byte {data[bad.start() : bad.start() + 1]!r} in {data[max(0, bad.start() - 40) : bad.end() + 40]!r}"
    )
    text = data.decode("utf-8", "surrogateescape")
    c1 = [c for c in text if "\x80" <= c <= "\x9f" or "\udc80" <= c <= "\udc9f"]
    assert not c1, f"{what}: C1 {c1[:3]!r}"


def pi_session(path: Path, h: str) -> list[str]:
    header = {
        "type": "session",
        "version": 3,
        "id": f"s{h}",
        "timestamp": "2026-03-01T09:00:00.000Z",
        "cwd": f"/home/user/{h}",
    }
    lines = [header]
    ids = ["e1", "e2", f"e3{h}", "e4", "e5"]
    parents = [None, "e1", "e2", "e2", f"e3{h}"]
    for n, (eid, parent) in enumerate(zip(ids, parents)):
        role = "user" if n % 2 == 0 else "assistant"
        content = (
            f"hello {h} world"
            if role == "user"
            else [
                {"type": "text", "text": f"answer {h}\nline two {h}"},
                {"type": "toolCall", "id": f"c{n}", "name": f"bash{h}", "arguments": {"command": f"ls {h}"}},
            ]
        )
        lines.append(
            {
                "type": "message",
                "id": eid,
                "parentId": parent,
                "timestamp": f"2026-03-01T09:00:0{n}.000Z",
                "message": {"role": role, "content": content, "model": f"m{h}", "provider": f"p{h}"},
            }
        )
    lines.append(
        {
            "type": "label",
            "id": "l1",
            "parentId": "e5",
            "timestamp": "2026-03-01T09:00:09.000Z",
            "targetId": "e4",
            "label": f"lab{h}",
        }
    )
    lines.append(
        {
            "type": "session_info",
            "id": "n1",
            "parentId": "l1",
            "timestamp": "2026-03-01T09:00:10.000Z",
            "name": f"name{h}",
        }
    )
    lines.append(
        {
            "type": "custom_message",
            "id": "cm",
            "parentId": "n1",
            "timestamp": "2026-03-01T09:00:11.000Z",
            "customType": f"ct{h}",
            "content": f"custom {h}",
            "display": True,
        }
    )
    path.write_text("\n".join(json.dumps(x) for x in lines) + '\n{"torn' + h)
    return ids


def maitento(path: Path, h: str) -> None:
    path.write_text(
        json.dumps(
            {
                "name": f"desk{h}",
                "description": f"d{h}",
                "agents": [{"name": f"a{h}"}],
                "loom": {
                    "enabled": True,
                    "scope": f"In{h}",
                    "scopeInput": f"u{h}",
                    "seedFromLoomId": f"11111111-2222-4333-8444-55555555555{h}",
                    "readFromLoomIds": [f"x{h}"],
                    f"odd{h}": 1,
                },
            }
        )
    )


def ocp(path: Path, h: str, shared_dir: Path) -> None:
    doc = json.loads((shared_dir / "fixtures" / "ocp" / "minimal.ocp.json").read_text())
    doc["run"]["title"] = f"title {h}"
    doc["run"]["id"] = f"run{h}"
    doc[f"x{h}"] = h
    path.write_text(json.dumps(doc))


def commands(
    tmp: Path, pi: Path, ids: list[str], conf: Path, run_file: Path, claude: Path
) -> list[tuple[list[str], bool]]:
    f = str(pi)
    out = tmp / "out"
    return [
        (["tree", f, "--color", "never", "--ids"], False),
        (["tree", f, "--color", "always"], True),
        (["tree", f, "--search", "hello"], False),
        (["tree", str(claude)], False),
        (["tree", str(run_file)], False),
        (["info", f], False),
        (["info", str(claude)], False),
        (["info", str(run_file)], False),
        (["context", f], False),
        (["context", f, "--leaf", ids[2]], False),
        (["diff", f, ids[2], ids[3]], False),
        (["diff", f, ids[4], ids[3], "--color", "always"], True),
        (["diff", f, "nope", ids[3]], False),
        (["loom-config", str(conf)], False),
        (["loom-config", str(conf), "--map"], False),
        (["loom-config", str(tmp)], False),
        (["check", str(run_file)], False),
        (["export-branch", f, "--leaf", ids[2], "--dir", str(out)], False),
        (["export-openloom", f, "-o", str(out / "x.json")], False),
        (["export-html", f, "-o", str(out / "x.html")], False),
        (["export-html", f, "-o", str(out / "x.html")], False),  # exists: the refusal names it
        (["label", f, ids[1], "new label"], False),
        (["label", f, "missing", "x"], False),
        (["migrate", f], False),
        (["info", str(tmp / "missing\x1b[2J.jsonl")], False),
    ]


def check(tmp: Path, h: str, shared_dir: Path, name_part: str) -> None:
    tmp.mkdir(parents=True)
    (tmp / "out").mkdir()
    pi = tmp / f"s{name_part}.jsonl"
    ids = pi_session(pi, h)
    conf = tmp / f"c{name_part}.json"
    maitento(conf, h)
    run_file = tmp / f"r{name_part}.ocp.json"
    ocp(run_file, h, shared_dir)
    claude = tmp / f"cl{name_part}.jsonl"
    src = shared_dir / "fixtures" / "claude" / "claude-code-log__03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl"
    rows = [json.loads(x) for x in src.read_text().splitlines()[:30]]
    for r in rows:
        if isinstance(r.get("message"), dict) and isinstance(r["message"].get("content"), str):
            r["message"]["content"] += h
        if "cwd" in r:
            r["cwd"] += h
    claude.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    for argv, colour in commands(tmp, pi, ids, conf, run_file, claude):
        _code, out, err = run(argv)
        assert_clean(out, colour, f"{argv[0]} stdout")
        assert_clean(err, False, f"{argv[0]} stderr")


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LOOMTUI_NO_CACHE", "1")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("NO_COLOR", raising=False)
    return tmp_path


@pytest.mark.parametrize("n", range(len(HOSTILE)))
def test_every_command_on_hostile_fields(n: int, env: Path, shared_dir: Path) -> None:
    check(env / f"h{n}", HOSTILE[n], shared_dir, "")


def test_every_command_with_a_hostile_file_name(env: Path, shared_dir: Path) -> None:
    check(env / "name", "\x1b[31m", shared_dir, "\x1b]0;t\x07\x1b[2J\x9b")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(h=CONTROLS)
def test_any_control_characters(h: str, env: Path, shared_dir: Path) -> None:
    work = env / "hyp"
    if work.exists():
        shutil.rmtree(work)
    check(work, h, shared_dir, "")
