"""`export-branch` and `context` against pi 1.6.0's own code: what its /fork and /clone write
(createBranchedSession) and what it sends to the model (buildSessionContext), entry for entry
and message for message, on the fixtures, on random sessions written by pi 1.6.0 and on
hand-made edge cases. One test keeps 0.73.1's context on the files 0.73.1 wrote.

``pi_fork_context.mjs`` (next to this file) runs pi's SessionManager under the Node that
``../shared/oracle/ensure_peer.sh`` installs. Skipped, with the reason, when it is not there.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from session_helpers import label, msg

from loomtui.cli import main
from loomtui.session.jsstr import js_json
from loomtui.session.manager import SessionManager
from tests.shared_material import needs

PEER = Path(os.environ.get("PI_PEER", "/tmp/peer"))
PI_160 = PEER / "node_modules" / "@earendil-works" / "pi-coding-agent"
PI_073 = PEER / "node_modules" / "@mariozechner" / "pi-coding-agent"
NODE = PEER / "bin" / "node"
DRIVER = Path(__file__).with_name("pi_fork_context.mjs")

pytestmark = needs(
    "pi 1.6.0, pi 0.73.1 and Node 22 in $PI_PEER (run ../shared/oracle/ensure_peer.sh)"
    if not NODE.exists() or not (PI_160 / "dist").is_dir() or not (PI_073 / "dist").is_dir()
    else None
)

V3_FIXTURES = ("dnouri-browse-session", "pi-brain-branch-summary", "pi-brain-mixed-boundaries")
V1_FIXTURES = ("pi-mono-before-compaction", "pi-mono-large-session")
SEEDS = (1, 2, 3, 4, 5, 6)


# --- pi's side ----------------------------------------------------------------------------------


def pi(
    path: Path,
    forks: tuple[str, ...] = (),
    contexts: tuple[str, ...] = (),
    all_contexts: bool = False,
    package: Path = PI_160,
) -> dict[str, Any]:
    cmd = [str(NODE), str(DRIVER), str(package), str(path)]
    for leaf in forks:
        cmd += ["--fork", leaf]
    for leaf in contexts:
        cmd += ["--context", leaf]
    if all_contexts:
        cmd.append("--all-contexts")
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, f"pi's driver exited {out.returncode} on {path.name}:\n{out.stderr[-4000:]}"
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def written_by_pi(shared_dir: Path, out_dir: Path, seed: int, package: Path = PI_160, ops: int = 200) -> Path:
    """A random branched session written by pi's own SessionManager (``gen_ref_session.mjs``)."""
    env = {**os.environ, "PI_PEER": str(PEER), "PI_PKG": package.relative_to(PEER / "node_modules").as_posix()}
    out = subprocess.run(
        [str(NODE), str(shared_dir / "oracle" / "gen_ref_session.mjs"), str(out_dir / str(seed)), str(seed), str(ops)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env=env,
    )
    return Path(out.stdout.strip().splitlines()[-1])


# --- comparing ----------------------------------------------------------------------------------


def normalised(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entries with the ids of the re-created label entries (fresh per export) named by
    their place; every other member, parents and label times included, as written."""
    path_ids = {e["id"] for e in entries if e.get("type") != "label"}
    names: dict[str, str] = {}
    out = []
    for e in entries:
        e = dict(e)
        if e.get("type") == "label" and e["id"] not in path_ids:
            names[e["id"]] = f"<label {len(names)}>"
            e["id"] = names[e["id"]]
        if e.get("parentId") in names:
            e["parentId"] = names[e["parentId"]]
        out.append(e)
    return out


def ordered(value: Any) -> str:
    """A JSON value as text, members in their order (dict equality would ignore it)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def exported(source: Path, out: Path, *how: str) -> list[dict[str, Any]]:
    assert main(["export-branch", str(source), *how, "-o", str(out)]) == 0
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def assert_same_fork(mine: list[dict[str, Any]], theirs: dict[str, Any], source: Path) -> None:
    assert "error" not in theirs, theirs
    header, pi_header = mine[0], theirs["header"]
    assert list(header) == list(pi_header)
    fixed = {k: v for k, v in pi_header.items() if k not in ("id", "timestamp", "parentSession")}
    assert {k: header[k] for k in fixed} == fixed
    assert header["parentSession"] == str(source.resolve())
    entries = mine[1:]
    if len(entries) == len(theirs["entries"]) + 1:
        # loomtui keeps the session's name where pi's fork would drop it (docs/formats.md §7.5):
        # one session_info after the last entry pi writes; everything else is exactly pi's
        info = entries.pop()
        assert info["type"] == "session_info"
        assert info["name"] == SessionManager.open(str(source)).get_session_name() is not None
        assert info["parentId"] == (entries[-1]["id"] if entries else None)
    assert [ordered(e) for e in normalised(entries)] == [ordered(e) for e in normalised(theirs["entries"])]


def export_parity(source: Path, leaves: list[str], tmp_path: Path, answer: dict[str, Any] | None = None) -> int:
    """export-branch at each leaf equals pi's createBranchedSession; returns how many.
    ``answer``: pi's, asked already (``both_answers``)."""
    answer = answer if answer is not None else pi(source, forks=tuple(leaves))
    for leaf in leaves:
        out = tmp_path / f"fork-{source.stem[:12]}-{leaf}.jsonl"
        assert_same_fork(exported(source, out, "--leaf", leaf), answer["forks"][leaf], source)
    return len(leaves)


def our_context(sm: SessionManager, leaf: str | None) -> tuple[list[str], Any, Any]:
    plan = sm.session_context_plan(leaf)
    messages = [m for m in (item.message() for item in plan.items) if m is not None]
    return [ordered(json.loads(js_json(m))) for m in messages], plan.thinking_level, plan.model


def their_context(ctx: dict[str, Any]) -> tuple[list[str], Any, Any]:
    return [ordered(m) for m in ctx["messages"]], ctx.get("thinkingLevel"), ctx.get("model")


def context_parity(
    path: Path,
    leaves: tuple[str, ...] = (),
    every_entry: bool = True,
    package: Path = PI_160,
    answer: dict[str, Any] | None = None,
) -> int:
    """The context at every entry (or at ``leaves``, "" being the leaf pi opens at) equals
    pi's buildSessionContext there; returns how many were compared. ``answer``: pi's, asked
    already (``both_answers``)."""
    answer = answer if answer is not None else pi(path, contexts=leaves, all_contexts=every_entry, package=package)
    sm = SessionManager.open(str(path))
    for leaf, ctx in answer["contexts"].items():
        assert our_context(sm, leaf or None) == their_context(ctx), f"context at {leaf or 'the leaf'} of {path.name}"
    return len(answer["contexts"])


def both_answers(path: Path, leaves: list[str]) -> dict[str, Any]:
    """pi 1.6.0's /fork at each of ``leaves`` and its context at every entry, from one run of
    its code: what ``export_parity`` and ``context_parity`` (every entry) would each ask it."""
    return pi(path, forks=tuple(leaves), all_contexts=True)


def branch_ends(sm: SessionManager, most: int = 14) -> list[str]:
    """Leaves worth exporting at: every branch's end, labelled entries, label entries, entries
    whose parent is a label entry, compactions, and a few entries from the middle."""
    ix = sm.index
    picks = [e.id for e in ix.entries if not ix.children(e.id)]
    picks += [t for t in ix.labels if t in ix.by_id][:3]
    picks += [e.id for e in ix.entries if e.type == "label"][:2]
    picks += [e.id for e in ix.entries if e.parent_id in ix.by_id and ix.by_id[e.parent_id].type == "label"][:3]
    picks += [e.id for e in ix.entries if e.type == "compaction"][:2]
    picks += [ix.entries[i].id for i in range(0, len(ix.entries), max(1, len(ix.entries) // 3))]
    return list(dict.fromkeys(picks))[:most]


# --- export-branch ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", V3_FIXTURES)
def test_export_equals_pi_fork_at_every_entry_of_the_fixtures(name, pi_copy, tmp_path):
    source = pi_copy(name)
    sm = SessionManager.open(str(source))
    assert export_parity(source, [e.id for e in sm.index.entries], tmp_path) == len(sm.index.entries)


@pytest.mark.parametrize("name", V1_FIXTURES)
def test_export_equals_pi_fork_on_the_migrated_old_fixtures(name, pi_copy, tmp_path, capsys):
    source = pi_copy(name)
    assert main(["migrate", str(source)]) == 0  # loomtui refuses to export a v1 file
    capsys.readouterr()
    export_parity(source, branch_ends(SessionManager.open(str(source)), most=6), tmp_path)


@pytest.fixture(scope="module")
def sessions_pi_160_wrote(
    shared_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> list[tuple[Path, list[str], dict[str, Any]]]:
    """Random branched sessions pi 1.6.0 writes (one a seed), each with its branch ends and
    pi's answer for both tests below (``both_answers``): a session is written and pi asked
    once, not once a test."""
    out_dir = tmp_path_factory.mktemp("pi160-wrote")
    made = []
    for seed in SEEDS:
        path = written_by_pi(shared_dir, out_dir, seed)
        leaves = branch_ends(SessionManager.open(str(path)))
        made.append((path, leaves, both_answers(path, leaves)))
    return made


@pytest.mark.xdist_group("sessions-pi-160-wrote")  # the sessions and pi's answers are made once
def test_export_equals_pi_fork_on_sessions_pi_160_wrote(sessions_pi_160_wrote, tmp_path):
    compared = 0
    for path, leaves, answer in sessions_pi_160_wrote:
        compared += export_parity(path, leaves, tmp_path, answer)
    assert compared >= 6 * len(SEEDS)


@pytest.fixture
def labels_mid_path(write_session):
    """Labels in the middle of the path, a compaction keeping from a label entry, a retain-none
    compaction, a root without a parentId member and a branch whose root's parent is missing."""
    comp = {
        "type": "compaction",
        "id": "k1",
        "parentId": "l2",
        "timestamp": "2026-03-01T09:00:06.000Z",
        "summary": "S1",
        "firstKeptEntryId": "l1",
        "tokensBefore": 100,
    }
    none = {
        "type": "compaction",
        "id": "k2",
        "parentId": "u3",
        "timestamp": "2026-03-01T09:00:08.000Z",
        "summary": "S2",
        "firstKeptEntryId": "k2",
        "tokensBefore": 200,
    }
    root = msg("r", None, text="root without parentId")
    del root["parentId"]
    return write_session(
        [
            msg("u1", None, text="one"),
            msg("a1", "u1", role="assistant", text="r1", provider="p", model="m"),
            label("l1", "a1", "u1", "start"),
            msg("u2", "l1", text="two"),
            label("l2", "u2", "a1", "answer"),
            comp,
            label("l3", "k1", "u2", "second"),
            msg("u3", "l3", text="three"),
            none,
            msg("a3", "k2", role="assistant", text="r3", provider="p", model="m"),
            root,
            msg("o1", "gone", text="parent not in the file"),
            msg("o2", "o1", role="assistant", text="r", provider="p", model="m"),
        ],
        name="mid.jsonl",
    )


def test_export_relinks_around_dropped_labels_as_pi_160(labels_mid_path, tmp_path):
    source = labels_mid_path
    lines = exported(source, tmp_path / "a3.jsonl", "--leaf", "a3")
    assert [(e["id"], e["parentId"]) for e in lines[1:7]] == [
        ("u1", None),
        ("a1", "u1"),
        ("u2", "a1"),
        ("k1", "u2"),
        ("u3", "k1"),
        ("k2", "u3"),
    ]
    # the compaction kept from label l1: from u2 now, the entry that followed it
    assert lines[4]["firstKeptEntryId"] == "u2" and lines[6]["firstKeptEntryId"] == "k2"
    reopened = SessionManager.open(str(tmp_path / "a3.jsonl"))
    assert [r.id for r in reopened.index.roots] == ["u1"] and reopened.diagnostics == []
    # unchanged lines are the source's bytes
    source_lines = source.read_text(encoding="utf-8").splitlines()
    written = (tmp_path / "a3.jsonl").read_text(encoding="utf-8").splitlines()
    assert written[1:3] == source_lines[1:3]
    assert export_parity(source, ["a3", "k1", "l3", "u3", "r", "o2", "l2"], tmp_path) == 7
    # a root without parentId gets one, null, at the end of its members (pi's spread)
    assert list(exported(source, tmp_path / "r.jsonl", "--leaf", "r")[1])[-1] == "parentId"
    assert exported(source, tmp_path / "o2.jsonl", "--leaf", "o2")[1]["parentId"] is None


def test_clone_and_fork_write_what_pi_clone_and_fork_write(pi_copy, tmp_path, capsys):
    source = pi_copy("pi-brain-branch-summary")
    sm = SessionManager.open(str(source))
    leaf = sm.get_leaf_id()
    user = next(e for e in reversed(sm.index.path_to(leaf)) if e.type == "message" and e.role == "user")
    first = next(e for e in sm.index.entries if e.type == "message" and e.role == "user" and e.parent_id is None)
    answer = pi(source, forks=(leaf, user.parent_id))
    # /clone: the branch at the session's leaf; /fork: the branch just before the user message
    assert_same_fork(exported(source, tmp_path / "clone.jsonl", "--clone"), answer["forks"][leaf], source)
    assert_same_fork(
        exported(source, tmp_path / "fork.jsonl", "--fork", user.id), answer["forks"][user.parent_id], source
    )
    # /fork at a first message: a new session of its own, its header alone
    alone = exported(source, tmp_path / "alone.jsonl", "--fork", first.id)
    assert len(alone) == 1 and list(alone[0]) == ["type", "version", "id", "timestamp", "cwd", "parentSession"]
    assert alone[0]["parentSession"] == str(source.resolve())
    capsys.readouterr()
    assert main(["export-branch", str(source), "--fork", leaf, "-o", str(tmp_path / "no.jsonl")]) == 2
    assert "is not a user message" in capsys.readouterr().err
    assert not (tmp_path / "no.jsonl").exists()


# --- context ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", V3_FIXTURES)
def test_context_equals_pi_at_every_entry_of_the_fixtures(name, pi_dir):
    path = pi_dir / f"{name}.jsonl"
    assert context_parity(path) == len(SessionManager.open(str(path)).index.entries) + 1


@pytest.mark.parametrize("name", V1_FIXTURES)
def test_context_equals_pi_on_the_old_fixtures(name, pi_copy, capsys):
    path = pi_copy(name)
    context_parity(path, every_entry=False)  # pi migrates with random ids: its leaf only
    assert main(["migrate", str(path)]) == 0
    capsys.readouterr()
    context_parity(path, leaves=tuple(branch_ends(SessionManager.open(str(path)), most=8)), every_entry=False)


@pytest.mark.xdist_group("sessions-pi-160-wrote")
def test_context_equals_pi_at_every_entry_of_sessions_pi_160_wrote(sessions_pi_160_wrote):
    kinds: set[str] = set()
    for path, _leaves, answer in sessions_pi_160_wrote:
        context_parity(path, answer=answer)
        kinds |= {e.type for e in SessionManager.open(str(path)).index.entries}
    assert {"context_edit", "compaction", "usage", "branch_summary"} <= kinds


@pytest.fixture
def edited(write_session):
    """Context edits (omit, replace, the latest wins, one before the kept range), system
    messages, a compaction with its systemMessage checkpoint, contents missing or null."""
    system = {"role": "system", "content": "", "sections": {"base": "B"}, "timestamp": 1}
    tool = msg("t1", "a1", role="toolResult", toolCallId="c1", toolName="read")
    del tool["message"]["content"]
    return write_session(
        [
            msg("s0", None, role="system", content=None, sections={"base": "A"}),
            msg("u1", "s0", text="one"),
            msg("a1", "u1", role="assistant", text="r1", provider="p", model="m"),
            tool,
            {
                "type": "context_edit",
                "id": "e1",
                "parentId": "t1",
                "timestamp": "2026-03-01T09:00:02.000Z",
                "targetId": "u1",
                "replacement": None,
            },
            msg("u2", "e1", text="two"),
            {
                "type": "message",
                "id": "s1",
                "parentId": "u2",
                "timestamp": "2026-03-01T09:00:03.000Z",
                "message": system,
            },
            {
                "type": "context_edit",
                "id": "e2",
                "parentId": "s1",
                "timestamp": "2026-03-01T09:00:04.000Z",
                "targetId": "a1",
                "replacement": {"content": "short"},
            },
            {
                "type": "context_edit",
                "id": "e3",
                "parentId": "e2",
                "timestamp": "2026-03-01T09:00:04.500Z",
                "targetId": "u2",
                "replacement": {"content": "first edit"},
            },
            {
                "type": "context_edit",
                "id": "e4",
                "parentId": "e3",
                "timestamp": "2026-03-01T09:00:05.000Z",
                "targetId": "u2",
                "replacement": {"content": [{"type": "text", "text": "latest edit"}]},
            },
            {
                "type": "custom_message",
                "id": "cm",
                "parentId": "e4",
                "timestamp": "2026-03-01T09:00:05.500Z",
                "customType": "note",
                "content": None,
                "display": False,
            },
            {
                "type": "compaction",
                "id": "k",
                "parentId": "cm",
                "timestamp": "2026-03-01T09:00:06.000Z",
                "summary": "S",
                "firstKeptEntryId": "u2",
                "tokensBefore": 9,
                "systemMessage": {**system, "sections": {"base": "C"}, "timestamp": 2},
            },
            msg("u3", "k", text="three"),
            {
                "type": "thinking_level_change",
                "id": "th",
                "parentId": "u3",
                "timestamp": "2026-03-01T09:00:07.000Z",
                "thinkingLevel": "high",
            },
            {
                "type": "context_edit",
                "id": "e5",
                "parentId": "th",
                "timestamp": "2026-03-01T09:00:08.000Z",
                "targetId": "k",
                "replacement": None,
            },
        ],
        name="edited.jsonl",
    )


def test_context_applies_edits_system_messages_and_the_compaction_checkpoint(edited):
    sm = SessionManager.open(str(edited))
    before_compaction, _, _ = our_context(sm, "cm")
    assert [json.loads(m) for m in before_compaction] == [
        {"role": "system", "content": "", "sections": {"base": "A"}},  # null content read as ""
        {"role": "assistant", "content": [{"type": "text", "text": "short"}], "provider": "p", "model": "m"},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": []},
        {"role": "user", "content": [{"type": "text", "text": "latest edit"}]},  # u1 omitted; u2's latest
        {"role": "system", "content": "", "sections": {"base": "B"}, "timestamp": 1},
        {"role": "custom", "customType": "note", "content": [], "display": False, "timestamp": 1772355605500},
    ]
    at_u3, thinking, _ = our_context(sm, "u3")
    # the checkpoint, the summary, the kept range without its system message (edits in it
    # still apply), then what follows
    assert [json.loads(m) for m in at_u3][:3] == [
        {"role": "system", "content": "", "sections": {"base": "C"}, "timestamp": 2},
        {"role": "compactionSummary", "summary": "S", "tokensBefore": 9, "timestamp": 1772355606000},
        {"role": "user", "content": [{"type": "text", "text": "latest edit"}]},
    ]
    assert [json.loads(m)["role"] for m in at_u3[3:]] == ["custom", "user"]
    at_leaf, thinking, _ = our_context(sm, None)
    assert [json.loads(m)["role"] for m in at_leaf] == ["user", "custom", "user"] and thinking == "high"
    assert context_parity(edited) == len(sm.index.entries) + 1


def test_context_command_json_is_pi_160s_context(edited, capsys):
    answer = pi(edited, contexts=("cm", "u3"))
    for leaf in ("", "cm", "u3"):
        assert main(["context", str(edited), "--json", *(["--leaf", leaf] if leaf else [])]) == 0
        printed = json.loads(capsys.readouterr().out)
        theirs = answer["contexts"][leaf]
        assert ordered(printed["messages"]) == ordered(theirs["messages"])
        assert (printed["thinkingLevel"], printed["model"]) == (theirs["thinkingLevel"], theirs["model"])


# --- pi 0.73.1's files --------------------------------------------------------------------------


def test_files_pi_073_wrote_keep_073s_context_and_export_as_160_forks(shared_dir, tmp_path):
    """0.73.1 and 1.6.0 build the same context from what 0.73.1 wrote; its files export as
    1.6.0's /fork writes them (1.6.0 re-links what 0.73.1 left pointing at label entries)."""
    for seed in (11, 12):
        path = written_by_pi(shared_dir, tmp_path / "old", seed, package=PI_073)
        context_parity(path, package=PI_073)
        export_parity(path, branch_ends(SessionManager.open(str(path)), most=8), tmp_path)


def test_export_keeps_a_first_kept_id_naming_a_later_label_as_pi_160(write_session, tmp_path):
    """Only labels before the compaction stand for an entry (pi maps them as it walks)."""
    source = write_session(
        [
            msg("u1", None, text="one"),
            {
                "type": "compaction",
                "id": "k1",
                "parentId": "u1",
                "timestamp": "2026-03-01T09:00:06.000Z",
                "summary": "S1",
                "firstKeptEntryId": "l9",
                "tokensBefore": 100,
            },
            label("l9", "k1", "u1", "later"),
            msg("u2", "l9", text="two"),
        ],
        name="later.jsonl",
    )
    lines = exported(source, tmp_path / "u2.jsonl", "--leaf", "u2")
    assert lines[2]["firstKeptEntryId"] == "l9" and lines[3]["parentId"] == "k1"
    assert export_parity(source, ["u2"], tmp_path) == 1


def test_odd_entries_give_what_pi_160_gives_and_the_text_output_shows_them(write_session, tmp_path, capsys):
    """A message that is a string, edits with odd targets and replacements, a compaction whose
    firstKeptEntryId is an object and whose checkpoint is a string, a summary that is a number."""
    ts = "2026-03-01T09:00:02.000Z"
    path = write_session(
        [
            msg("u1", None, text="hi"),
            {"type": "message", "id": "m2", "parentId": "u1", "timestamp": ts, "message": "just a string"},
            {
                "type": "context_edit",
                "id": "e1",
                "parentId": "m2",
                "timestamp": ts,
                "targetId": ["u1"],
                "replacement": None,
            },
            {
                "type": "context_edit",
                "id": "e2",
                "parentId": "e1",
                "timestamp": ts,
                "targetId": "u1",
                "replacement": "str",
            },
            {
                "type": "compaction",
                "id": "k",
                "parentId": "e2",
                "timestamp": ts,
                "summary": "S",
                "firstKeptEntryId": {"a": 1},
                "tokensBefore": 1,
                "systemMessage": "a string checkpoint",
            },
            {
                "type": "context_edit",
                "id": "e3",
                "parentId": "k",
                "timestamp": ts,
                "targetId": "k",
                "replacement": {"content": 5},
            },
            {"type": "branch_summary", "id": "b", "parentId": "e3", "timestamp": "x", "fromId": None, "summary": 7},
            {"type": "custom_message", "id": "c", "parentId": "b", "timestamp": ts, "customType": "n"},
            {
                "type": "context_edit",
                "id": "e4",
                "parentId": "c",
                "timestamp": ts,
                "targetId": "c",
                "replacement": {"content": "new"},
            },
        ],
        name="odd.jsonl",
    )
    sm = SessionManager.open(str(path))
    at_e2, _, _ = our_context(sm, "e2")
    assert [json.loads(m) for m in at_e2] == [{"role": "user"}, "just a string"]  # "str" has no content
    answer = both_answers(path, [e.id for e in sm.index.entries])
    assert context_parity(path, answer=answer) == len(sm.index.entries) + 1
    assert export_parity(path, [e.id for e in sm.index.entries], tmp_path, answer) == len(sm.index.entries)
    capsys.readouterr()
    assert main(["context", str(path)]) == 0
    assert '── (not a message object)\n"a string checkpoint"\n' in capsys.readouterr().out
