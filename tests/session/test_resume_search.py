"""The picker's filter and thread order against pi 1.6.0's own ``/resume`` picker
(``SessionSelectorComponent``), run in node on random sessions; and the rules themselves."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from loomtui.session.catalog import SessionSummary
from loomtui.session.lineage import filtered_groups, group_sessions
from loomtui.session.resume_search import SearchFields, fuzzy_score, match_score, parse_query
from tests.shared_material import FIXTURES, needs, needs_shared

PEER = Path(os.environ.get("PI_PEER", "/tmp/peer"))
PI_160 = PEER / "node_modules" / "@earendil-works" / "pi-coding-agent"
NODE = str(PEER / "bin" / "node") if (PEER / "bin" / "node").exists() else shutil.which("node")
DRIVER = Path(__file__).resolve().parent / "pi_resume_order.mjs"

needs_pi_160 = needs(
    "node 22 and pi 1.6.0 in $PI_PEER (run ../shared/oracle/ensure_peer.sh)"
    if NODE is None or not (PI_160 / "dist" / "modes").exists()
    else None
)

WORDS = [
    "login",
    "page",
    "oauth",
    "cache",
    "parser",
    "flaky",
    "test",
    "refactor",
    "auth",
    "logout",
    "button",
    "sqlite",
    "notes",
    "zsh",
    "prompt",
    "deploy",
    "docker",
    "review",
    "fix",
    "crash",
    "1024",
    "v2",
    "api",
]


def fields(s: SessionSummary) -> SearchFields:
    return SearchFields(s.name or "", s.id, s.cwd, s.first_message)


def summary(
    path: str, sid: str, cwd: str, name: str | None, text: str, modified: float, parent: str | None = None
) -> SessionSummary:
    return SessionSummary(path, sid, cwd, name, text, 0.0, modified, 2, 0, parent, 3, 3, 100)


def random_sessions(rng: random.Random, n: int) -> list[SessionSummary]:
    cwds = ["/home/u/app", "/home/u/lib-tools", "/srv/deploy_1024"]
    out: list[SessionSummary] = []
    stamps = rng.sample(range(1_000, 1_000_000), n)
    for i in range(n):
        sid = (
            "".join(rng.choice("0123456789abcdef") for _ in range(8))
            + "-"
            + "".join(rng.choice("0123456789abcdef") for _ in range(4))
        )
        parent = rng.choice(out) if out and rng.random() < 0.35 else None
        cwd = parent.cwd if parent is not None else rng.choice(cwds)
        name = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3))).title() if rng.random() < 0.4 else None
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 9)))
        out.append(
            summary(
                f"/s/{i:03d}_{sid}.jsonl",
                sid,
                cwd,
                name,
                text,
                stamps[i] / 1000,
                parent.path if parent is not None else None,
            )
        )
    return out


def queries(rng: random.Random, sessions: list[SessionSummary]) -> list[str]:
    qs = ["", "   "]
    for _ in range(40):
        s = rng.choice(sessions)
        kind = rng.randrange(9)
        if kind == 0:
            i = rng.randrange(len(s.id) - 4)
            qs.append(s.id[i : i + rng.randint(3, 5)])  # a piece of an id: exact
        elif kind == 1:
            qs.append("".join(s.id[i] for i in sorted(rng.sample(range(len(s.id)), 4))))  # scattered
        elif kind == 2:
            qs.append(rng.choice(s.first_message.split()))
        elif kind == 3 and s.name:
            qs.append("".join(w[:2] for w in s.name.split()))  # fuzzy in the name
        elif kind == 4:
            words = s.first_message.split()
            qs.append('"' + " ".join(words[:2]) + '"')
        elif kind == 5:
            qs.append(
                rng.choice(
                    [
                        "lbtls",
                        "srvdpl",
                        "hmpp",
                        "u/app",
                        "apppage",
                        "1024",
                        "re:log(in|out)",
                        "re:^/srv",
                        "re:(",
                        "re:",
                        'oauth "flaky test',
                        "api2",
                        "2api",
                    ]
                )
            )
        elif kind == 6:
            qs.append(" ".join(rng.sample(WORDS, 2)))
        elif kind == 7:
            qs.append(rng.choice(WORDS).upper())
        else:
            qs.append(rng.choice(WORDS)[1:4])
    return qs


def pi_orders(sessions: list[SessionSummary], qs: list[str]) -> dict[str, list[list[object]]]:
    payload = {
        "sessions": [
            {
                "path": s.path,
                "id": s.id,
                "cwd": s.cwd,
                "name": s.name,
                "parent": s.parent_session,
                "modified": round(s.modified * 1000),
                "text": s.first_message,
            }
            for s in sessions
        ],
        "queries": qs,
    }
    out = subprocess.run(
        [str(NODE), str(DRIVER), str(PI_160)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env={**os.environ, "HOME": "/nonexistent-home"},
    )
    return json.loads(out.stdout)  # type: ignore[no-any-return]


@needs_pi_160
@pytest.mark.parametrize("seed", range(6))
def test_filter_and_threads_equal_pi_160s_resume_picker(seed: int) -> None:
    rng = random.Random(seed)
    sessions = random_sessions(rng, 40)
    qs = queries(rng, sessions)
    want = pi_orders(sessions, qs)
    groups = group_sessions(sessions)
    for q in qs:
        got = filtered_groups(groups, q)
        pi_rows = [(p, d) for p, d in want[q]]
        got_rows = [(s.path, d) for g in got for s, d in g.items]
        assert sorted(got_rows) == sorted(pi_rows), q  # the same sessions match, at the same depth
        by_path = {s.path: s for s in sessions}
        for g in got:  # in a project, pi's order (loomtui groups the list by project)
            assert [(s.path, d) for s, d in g.items] == [r for r in pi_rows if by_path[r[0]].cwd == g.cwd], q


def test_ids_and_message_text_match_only_as_exact_substrings() -> None:
    f = SearchFields(name="", id="5b0c1e2a-9f3d", cwd="/home/u/app", messages="add a login page")
    assert match_score(f, parse_query("9f3d")) is not None
    assert match_score(f, parse_query("5c12")) is None  # scattered in the id: no match (pi 1.5.0)
    assert match_score(f, parse_query("login page")) is not None
    assert match_score(f, parse_query("lgnpg")) is None  # scattered in the messages: no match
    assert match_score(f, parse_query("hmapp")) is not None  # the cwd is fuzzy


def test_name_beats_text_beats_fuzzy() -> None:
    q = parse_query("auth")
    in_name = match_score(SearchFields("Refactor auth", "x", "/a", ""), q)
    in_text = match_score(SearchFields("", "x", "/a", "the auth module"), q)
    fuzzy = match_score(SearchFields("a utility h", "x", "/a", ""), q)
    assert in_name is not None and in_text is not None and fuzzy is not None
    assert in_name < in_text < fuzzy


def test_query_forms() -> None:
    assert [(t.kind, t.value) for t in parse_query('foo "node cve" bar').tokens] == [
        ("fuzzy", "foo"),
        ("phrase", "node cve"),
        ("fuzzy", "bar"),
    ]
    assert [t.value for t in parse_query('foo "bar').tokens] == ["foo", '"bar']  # unbalanced: plain words
    assert parse_query("re:(").error is not None
    assert parse_query("re:").error == "Empty regex"
    assert fuzzy_score("abc", "abc") == -100 + fuzzy_score("abc", "abcx")  # type: ignore[operator]
    assert fuzzy_score("v2", "2v") is not None  # letters and digits swapped


SHARED_PI = FIXTURES / "pi"
PI160_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pi160"


@needs_shared()
@needs_pi_160
def test_message_text_is_pis_all_messages_text(tmp_path: Path) -> None:
    from loomtui.session.picker_texts import message_text

    files = sorted(SHARED_PI.glob("*.jsonl")) + sorted(PI160_FIXTURES.glob("*.jsonl"))
    assert len(files) > 2
    for f in files:
        shutil.copy(f, tmp_path / f.name)
    script = (
        f"import({json.dumps((PI_160 / 'dist' / 'core' / 'session-manager.js').as_uri())}).then(async m => "
        f"process.stdout.write(JSON.stringify((await m.SessionManager.listAll({json.dumps(str(tmp_path))}))"
        ".map(s => [s.path, s.allMessagesText]))));"
    )
    out = subprocess.run([str(NODE), "-e", script], capture_output=True, text=True, check=True, timeout=120)
    pi = dict(json.loads(out.stdout))
    assert len(pi) >= len(files) - 1  # a file pi does not list is not compared
    for path, text in pi.items():
        assert message_text(path) == text, path
