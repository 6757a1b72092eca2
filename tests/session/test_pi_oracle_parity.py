"""Parity with pi itself: the published pi SessionManager reads what we write as we mean it.

Runs ``../shared/oracle/pi_tree_oracle.mjs`` with pi 1.6.0, the reference (``tests/oracle.py``);
the files pi 0.73.1 wrote are checked against 0.73.1 as well. Skipped, with the reason, when
node or the pi package is missing (``sh ../shared/oracle/ensure_peer.sh`` installs both).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from loomtui.cli import main
from loomtui.session.manager import SessionManager
from tests.context_helpers import built_context
from tests.oracle import NODE, PI_CURRENT, PI_OLD, needs_pi, oracle_env

pytestmark = needs_pi(PI_CURRENT)

V3_FIXTURES = ("dnouri-browse-session", "pi-brain-branch-summary", "pi-brain-mixed-boundaries")
#: the release whose /fork export-branch is compared with (1.6.0 re-links parents around the
#: label entries it drops; 0.73.1 copied them verbatim: docs/pi-releases.md)
EXPORT_REFERENCE = PI_CURRENT
#: the context of a session 1.6.0 wrote (context edits, system messages, a compaction's
#: systemMessage) is compared too
CONTEXT_OF_NEW_KINDS = True


@pytest.fixture(scope="module")
def oracle_dir(shared_dir: Path) -> Path:
    return shared_dir / "oracle"


def oracle(oracle_dir: Path, path: Path, export_leaf: str | None = None, package: str = PI_CURRENT) -> dict[str, Any]:
    cmd = [str(NODE), str(oracle_dir / "pi_tree_oracle.mjs"), str(path)]
    if export_leaf is not None:
        cmd += ["--export-leaf", export_leaf]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=120, env=oracle_env(package))
    return json.loads(out.stdout)


def ours(path: Path) -> dict[str, Any]:
    sm = SessionManager.open(str(path))
    ctx = built_context(sm)
    return {
        "leafId": sm.get_leaf_id(),
        "entryCount": len(sm.index.entries),
        "roots": [r.id for r in sm.index.roots],
        "branch": [e["id"] for e in [sm.load(e) for e in sm.index.path_to(sm.get_leaf_id())]],
        "labels": {e.id: sm.get_label(e.id) for e in sm.index.entries if sm.get_label(e.id)},
        "context": {
            "roles": [m["role"] for m in ctx.messages],
            "thinkingLevel": ctx.thinking_level,
            "model": ctx.model,
        },
    }


def same_view(pi: dict[str, Any], mine: dict[str, Any], context: bool = True) -> None:
    keys = [k for k in mine if context or k != "context"]
    assert {k: pi[k] for k in keys} == {k: mine[k] for k in keys}


def normalise_export(header: dict[str, Any], entries: list[dict[str, Any]]) -> tuple[dict, list[dict]]:
    """Drop what is new per export: header id/timestamp/cwd/parentSession, new label ids."""
    h = {k: v for k, v in header.items() if k not in ("id", "timestamp", "cwd", "parentSession")}
    path_ids = {e["id"] for e in entries if e["type"] != "label"}
    names: dict[str, str] = {}
    out = []
    for e in entries:
        e = dict(e)
        if e["type"] == "label" and e["id"] not in path_ids:
            names[e["id"]] = f"<label {len(names)}>"
            e["id"] = names[e["id"]]
        if e.get("parentId") in names:
            e["parentId"] = names[e["parentId"]]
        out.append(e)
    return h, out


def export_parity(oracle_dir: Path, source: Path, leaf: str, tmp_path: Path) -> None:
    pi = oracle(oracle_dir, source, export_leaf=leaf, package=EXPORT_REFERENCE)["exported"]
    out = tmp_path / f"export-{leaf}.jsonl"
    assert main(["export-branch", str(source), "--leaf", leaf, "-o", str(out)]) == 0
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    name = SessionManager.open(str(source)).get_session_name()
    if len(lines) == len(pi["entries"]) + 2:
        # loomtui keeps the session's name where pi's fork would drop it: one session_info at the
        # end, on the last entry pi writes; the rest is exactly pi's
        info = lines.pop()
        assert info["type"] == "session_info" and info["name"] == name and name is not None
        assert info["parentId"] == lines[-1]["id"]
    assert list(lines[0]) == list(pi["header"])
    assert lines[0]["parentSession"] == str(source)
    assert normalise_export(lines[0], lines[1:]) == normalise_export(pi["header"], pi["entries"])


@pytest.mark.parametrize("name", V3_FIXTURES)
def test_index_and_context_match_pi(name, pi_dir, oracle_dir, parity_file):
    same_view(oracle(oracle_dir, pi_dir / f"{name}.jsonl"), ours(parity_file(pi_dir / f"{name}.jsonl")))


@pytest.mark.parametrize(
    ("name", "leaf"),
    [
        ("dnouri-browse-session", "aa000018"),  # two labels re-created on the path
        ("dnouri-browse-session", "aa000023"),  # the file's leaf (a label entry)
        ("dnouri-browse-session", "aa00000e"),  # the other branch
        ("pi-brain-branch-summary", "00000007"),  # second root
        ("pi-brain-mixed-boundaries", "00000013"),
    ],
)
def test_export_branch_writes_what_pi_writes(name, leaf, pi_dir, oracle_dir, tmp_path):
    source = tmp_path / f"{name}.jsonl"
    shutil.copyfile(pi_dir / f"{name}.jsonl", source)
    export_parity(oracle_dir, source, leaf, tmp_path)


@pytest.mark.parametrize(
    ("name", "target"), [("dnouri-browse-session", "aa000002"), ("pi-brain-mixed-boundaries", "00000006")]
)
def test_label_append_reads_back_in_pi_as_in_loomtui(name, target, pi_dir, oracle_dir, tmp_path, capsys):
    path = tmp_path / f"{name}.jsonl"
    shutil.copyfile(pi_dir / f"{name}.jsonl", path)
    path.chmod(0o644)
    before = oracle(oracle_dir, path)
    assert main(["label", str(path), target, "from loomtui"]) == 0
    new_id = capsys.readouterr().out.strip()
    after = oracle(oracle_dir, path)
    same_view(after, ours(path))
    assert after["leafId"] == new_id
    assert after["labels"][target] == "from loomtui"
    # the label hangs off the old leaf: pi resumes the same conversation
    assert after["branch"] == before["branch"] + [new_id]
    assert after["context"] == before["context"]
    assert main(["label", str(path), target, "--clear"]) == 0
    cleared = oracle(oracle_dir, path)
    assert target not in cleared["labels"]
    same_view(cleared, ours(path))


def generated(oracle_dir: Path, dest: Path, seed: int, package: str = PI_CURRENT) -> Path:
    """A random session written by ``package``'s own SessionManager."""
    out = subprocess.run(
        [str(NODE), str(oracle_dir / "gen_ref_session.mjs"), str(dest), str(seed), "150"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env=oracle_env(package),
    )
    return Path(out.stdout.strip().splitlines()[-1])


@needs_pi(PI_OLD)
@pytest.mark.parametrize("seed", [7, 19])
def test_files_pi_0_73_1_wrote_read_the_same_in_both_releases(seed, oracle_dir, tmp_path):
    """Files the old release wrote open as they did: index, leaf, labels and context equal
    what 0.73.1 computes and what 1.6.0 computes."""
    path = generated(oracle_dir, tmp_path / "old", seed, PI_OLD)
    mine = ours(path)
    same_view(oracle(oracle_dir, path, package=PI_OLD), mine)
    same_view(oracle(oracle_dir, path, package=PI_CURRENT), mine)


def test_sessions_written_by_pi_read_and_export_the_same(oracle_dir, tmp_path):
    gen = tmp_path / "gen"
    for seed in (7,):
        out = subprocess.run(
            [str(NODE), str(oracle_dir / "gen_ref_session.mjs"), str(gen / str(seed)), str(seed), "150"],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
            env=oracle_env(),
        )
        path = Path(out.stdout.strip().splitlines()[-1])
        pi = oracle(oracle_dir, path)
        same_view(pi, ours(path), context=CONTEXT_OF_NEW_KINDS)
        sm = SessionManager.open(str(path))
        labelled = [t for t in sm.index.labels if t in sm.index.by_id]
        leaves = [e.id for e in sm.index.entries if not sm.index.children(e.id)]
        for leaf in {leaves[0], pi["leafId"], *(labelled[:1])}:
            export_parity(oracle_dir, path, leaf, tmp_path)


def test_migrated_v1_file_reads_in_pi_like_the_in_memory_migration(pi_dir, oracle_dir, tmp_path, capsys):
    path = tmp_path / "v1.jsonl"
    shutil.copyfile(pi_dir / "pi-mono-before-compaction.jsonl", path)
    path.chmod(0o644)
    in_memory = ours(path)
    assert main(["migrate", str(path)]) == 0
    capsys.readouterr()
    pi = oracle(oracle_dir, path)  # a v3 file now: pi reads it without rewriting
    same_view(pi, in_memory)


@pytest.mark.parametrize(
    ("name", "moved_to", "target"),
    [("pi-brain-branch-summary", "00000004", "00000003"), ("dnouri-browse-session", "aa000002", "aa000002")],
)
def test_a_label_with_a_moved_leaf_keeps_where_pi_resumes(name, moved_to, target, pi_dir, oracle_dir, tmp_path):
    """The in-memory leaf was moved (Enter, not saved): a label hangs off the file's last
    entry, and pi reads the file as resuming where it did."""
    path = tmp_path / f"{name}.jsonl"
    shutil.copyfile(pi_dir / f"{name}.jsonl", path)
    path.chmod(0o644)
    before = oracle(oracle_dir, path)
    sm = SessionManager.open(str(path))
    file_leaf = sm.index.leaf_id
    sm.branch(moved_to)
    new_id = sm.append_label_keeping_resume(target, "looked at")
    assert sm.get_leaf_id() == moved_to and sm.leaf_moved
    assert json.loads(path.read_text().splitlines()[-1])["parentId"] == file_leaf
    after = oracle(oracle_dir, path)
    same_view(after, ours(path))
    assert after["branch"] == before["branch"] + [new_id]
    assert after["context"] == before["context"]
    assert after["labels"][target] == "looked at"
