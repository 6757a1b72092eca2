"""oh-my-pi's /tree rules on omp sessions (loomtui/view/omp.py), from omp 18.3.4's tree
selector: its default filter hides omp's bookkeeping kinds, its search is fuzzy, the branch
holding the leaf comes first. pi sessions keep pi's rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from loomtui.session.manager import SessionManager
from loomtui.view.model import TreeModel
from loomtui.view.omp import OMP_ONLY_TYPES
from loomtui.view.text import display_text
from tests.view.helpers import HEADER, assistant, ts, user

TITLE_SLOT = {"type": "title", "v": 1, "title": "t", "updatedAt": "2026-01-01T00:00:00.000Z", "pad": "   "}


def kind(i: str, parent: str | None, t: str, n: int, **fields: Any) -> dict[str, Any]:
    return {"type": t, "id": i, "parentId": parent, "timestamp": ts(n), **fields}


def write(tmp_path: Path, entries: list[dict[str, Any]], slot: bool, name: str = "s.jsonl") -> Path:
    lines = ([TITLE_SLOT] if slot else []) + [HEADER] + entries
    path = tmp_path / name
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def rows(model: TreeModel) -> list[str]:
    return [display_text(model.entry_at(i), model.flat.tool_calls, "/h") for i in range(len(model))]


BOOKKEEPING = [
    kind("k1", None, "session_init", 0),
    kind("k2", "k1", "model_usage", 1, purpose="title", role="smol", provider="anthropic", model="haiku"),
    kind("k3", "k2", "service_tier_change", 2, serviceTier={"openai": "priority"}),
    kind("k4", "k3", "title_change", 3, title="Storage plan"),
    kind("k5", "k4", "credential_pin", 4, provider="anthropic"),
    kind("k6", "k5", "ttsr_injection", 5, injectedRules=["Run the tests"]),
    kind("k7", "k6", "mode_change", 6, mode="plan"),
    kind("k8", "k7", "reset_boundary", 7),
    kind("k9", "k8", "session_info", 8, name="named"),
    user("u1", "k9", "Move NoteStore to SQLite storage", 9),
    assistant("a1", "u1", "image provider settings", 10),
]


def test_omp_default_filter_hides_omps_bookkeeping_kinds(tmp_path: Path) -> None:
    model = TreeModel(SessionManager.open(str(write(tmp_path, BOOKKEEPING, slot=True))))
    assert model.omp
    shown = {model.entry_at(i).type for i in range(len(model))}
    assert not shown & OMP_ONLY_TYPES
    assert "session_info" in shown  # omp's list has no session_info (pi's has)
    model.set_filter("no-tools")
    assert not {model.entry_at(i).type for i in range(len(model))} & OMP_ONLY_TYPES
    model.set_filter("all")
    assert OMP_ONLY_TYPES <= {model.entry_at(i).type for i in range(len(model))}


def test_pi_session_keeps_pis_default_filter(tmp_path: Path) -> None:
    entries = [e for e in BOOKKEEPING if e["type"] not in OMP_ONLY_TYPES]
    entries[0] = {**entries[0], "parentId": None}
    model = TreeModel(SessionManager.open(str(write(tmp_path, entries, slot=False))))
    assert not model.omp
    assert "session_info" not in {model.entry_at(i).type for i in range(len(model))}


def test_omp_kind_alone_makes_an_omp_session(tmp_path: Path) -> None:
    model = TreeModel(SessionManager.open(str(write(tmp_path, BOOKKEEPING, slot=False))))
    assert model.omp and "mode_change" not in {model.entry_at(i).type for i in range(len(model))}


def test_file_under_omps_root_is_omp(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("OMP_CODING_AGENT_DIR", str(tmp_path / "omp"))
    folder = tmp_path / "omp" / "sessions" / "--p--"
    folder.mkdir(parents=True)
    entries = [user("u1", None, "hello", 1), kind("s", "u1", "session_info", 2, name="n")]
    model = TreeModel(SessionManager.open(str(write(folder, entries, slot=False))))
    assert model.omp and len(model) == 2


def search(model: TreeModel, query: str) -> list[str]:
    model.query = query
    model._refilter()
    return [model.entry_at(i).id for i in range(len(model))]


def test_omp_search_is_fuzzy_and_word_local(tmp_path: Path) -> None:
    model = TreeModel(SessionManager.open(str(write(tmp_path, BOOKKEEPING, slot=True))))
    assert search(model, "sqlt stor") == ["u1"]  # subsequences inside words
    assert search(model, "note") == ["u1"]  # NoteStore splits into note store
    assert search(model, "ip") == ["a1"]  # an acronym of image provider
    assert search(model, "igpr") == []  # letters spread over words do not match
    pi_model = TreeModel(SessionManager.open(str(write(tmp_path, BOOKKEEPING[8:], slot=False, name="p.jsonl"))))
    assert search(pi_model, "sqlt stor") == []  # pi: substrings only


def test_omp_search_text_of_omps_kinds(tmp_path: Path) -> None:
    model = TreeModel(SessionManager.open(str(write(tmp_path, BOOKKEEPING, slot=True))), filter_mode="all")
    assert search(model, "credential anthropic") == ["k5"]
    assert search(model, "ttsr tests") == ["k6"]
    assert search(model, "priority") == ["k3"]
    assert search(model, "model usage smol") == ["k2"]


def test_omp_search_grows_without_losing_matches(tmp_path: Path) -> None:
    """A longer token can match where its first letters did not (omp's word-prefix rule):
    the matches of the shorter query are not the only candidates."""
    entries = [user("u1", None, "ab", 1), user("u2", "u1", "zz", 2)]
    model = TreeModel(SessionManager.open(str(write(tmp_path, entries, slot=True))))
    assert search(model, "bc") == []
    assert search(model, "abc") == ["u1"]  # the word "ab" is a prefix of the token


def test_omp_active_branch_listed_first(tmp_path: Path) -> None:
    entries = [
        user("u1", None, "root", 1),
        assistant("a1", "u1", "first answer", 2),
        assistant("a2", "u1", "second answer", 3),
        user("u3", "a1", "later on first", 4),
    ]
    path = write(tmp_path, entries, slot=True)
    model = TreeModel(SessionManager.open(str(path)), leaf_id="a2", use_manager_leaf=False)
    assert rows(model)[:3] == ["user: root", "assistant: second answer", "assistant: first answer"]


def test_omp_rows_of_omps_own_kinds_are_its_tree_selectors(tmp_path: Path) -> None:
    """omp's ``getEntryDisplayText`` for its kinds (the `all` filter shows them)."""
    extra = [
        kind("k10", "a1", "service_tier_change", 11, serviceTier=None),
        kind("k11", "k10", "model_usage", 12, purpose="commit\tmsg", provider="openai", model="gpt-5"),
        kind("k12", "k11", "title_change", 13, title="  two\nlines "),
        kind("k13", "k12", "service_tier_change", 14, serviceTier={"openai": "flex", "anthropic": "priority"}),
    ]
    model = TreeModel(SessionManager.open(str(write(tmp_path, BOOKKEEPING + extra, slot=True))))
    model.set_filter("all")
    got = dict(zip((model.entry_at(i).id for i in range(len(model))), rows(model)))
    assert [got[k] for k in ("k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k10", "k11", "k12", "k13")] == [
        "[session init]",
        "[model usage: title smol anthropic/haiku]",
        "[service tier: openai:priority]",
        "[title: Storage plan]",
        "[credential pin: anthropic]",
        "[ttsr injection]",
        "[mode: plan]",
        "[reset boundary]",
        "[service tier: (default)]",
        "[model usage: commit msg openai/gpt-5]",
        "[title: two lines]",
        "[service tier: openai:flex anthropic:priority]",
    ]
