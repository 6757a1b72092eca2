"""The session controller (view/controller.py): every intent, without Textual."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from loomtui.formats.opening import open_session
from loomtui.session.manager import SessionManager
from loomtui.view.controller import SessionController
from loomtui.view.outcomes import ExportPlan, LabelPrompt, Outcome

KINDS = Path(__file__).resolve().parents[1] / "app" / "fixtures" / "kinds.jsonl"
V1 = Path(__file__).resolve().parents[1] / "app" / "fixtures" / "v1.jsonl"


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


@pytest.fixture
def kinds(tmp_path: Path) -> Path:
    dest = tmp_path / "kinds.jsonl"
    shutil.copy(KINDS, dest)
    return dest


@pytest.fixture
def rooted(tmp_path: Path) -> Path:
    """A session whose first entry is a user message (Enter on it resets the leaf)."""

    def msg(i: str, parent: str | None, role: str, text: str, n: int) -> dict[str, Any]:
        content: Any = text if role == "user" else [{"type": "text", "text": text}]
        return {
            "type": "message",
            "id": i,
            "parentId": parent,
            "timestamp": f"2026-01-01T00:00:0{n}.000Z",
            "message": {"role": role, "content": content, "timestamp": n},
        }

    rows = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"},
        msg("u1", None, "user", "hello", 1),
        msg("a1", "u1", "assistant", "hi", 2),
        msg("u2", "a1", "user", "more", 3),
        msg("a2", "u2", "assistant", "ok", 4),
    ]
    path = tmp_path / "rooted.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def ctl(path: Path) -> SessionController:
    return SessionController.open(str(path), open_session)


def texts(out: Outcome) -> str:
    return " | ".join(n.text for n in out.notices)


def test_enter_on_a_user_message_moves_the_leaf_to_its_parent(kinds: Path, rooted: Path) -> None:
    c = ctl(kinds)
    out = c.move_leaf("u1000002")
    parent = c.entry("u1000002").parent_id  # type: ignore[union-attr]
    assert out.leaf and out.rows and "the parent of this message" in texts(out)
    assert c.manager.get_leaf_id() == parent == c.model.leaf_id == c.view_leaf
    assert c.leaf_moved and c.model.selected_id == "u1000002"
    # on anything else: the entry itself; on the root user message: before the first entry
    c.move_leaf("r1000004")
    assert c.manager.get_leaf_id() == c.model.leaf_id == "r1000004"
    assert "Already at this point" in texts(c.move_leaf("r1000004"))
    assert lines(kinds) == lines(KINDS)  # nothing written
    r = ctl(rooted)
    out = r.move_leaf("u1")
    assert r.manager.get_leaf_id() is None and r.model.leaf_id is None and "Leaf reset" in texts(out)


def test_follow_file_leaf_undoes_enter(kinds: Path) -> None:
    c = ctl(kinds)
    last = c.manager.index.leaf_id
    c.move_leaf("r1000004")
    c.follow_file_leaf()
    assert not c.leaf_moved and c.model.leaf_id == c.manager.get_leaf_id() == last


def test_persist_asks_then_appends_one_label_entry_and_not_twice(kinds: Path) -> None:
    c = ctl(kinds)
    before = lines(kinds)
    out = c.persist_leaf()  # the leaf is the file's last entry
    assert out.ask is None and "already resumes" in texts(out)
    c.move_leaf("r1000004")
    out = c.persist_leaf()
    assert out.ask is not None and "parented on r1000004" in out.ask.body
    assert lines(kinds) == before  # a question, nothing written yet
    done = out.ask.on_yes()
    after = lines(kinds)
    assert len(after) == len(before) + 1
    marker = after[-1]
    assert (marker["type"], marker["parentId"], marker["targetId"]) == ("label", "r1000004", "r1000004")
    assert "Leaf persisted" in texts(done)
    assert not c.leaf_moved and c.model.leaf_id == "r1000004" and c.manager.get_leaf_id() == marker["id"]
    again = c.persist_leaf()  # already persisted
    assert again.ask is None and "already resumes at r1000004" in texts(again)
    assert len(lines(kinds)) == len(after)


def test_persist_refuses_a_reset_leaf(rooted: Path) -> None:
    c = ctl(rooted)
    c.move_leaf("u1")
    out = c.persist_leaf()
    assert out.ask is None and "before the first entry" in texts(out) and out.notices[0].severity == "warning"


def test_label_set_clear_and_unchanged(kinds: Path) -> None:
    c = ctl(kinds)
    prompt = c.label_prompt("u1000002")
    assert isinstance(prompt, LabelPrompt) and prompt.current is None and "Yes, apply the fix" in prompt.row
    assert prompt.refusal is None and "pi still resumes" in prompt.note
    leaf = c.model.leaf_id
    out = c.set_label("u1000002", "  fix  ")
    last = lines(kinds)[-1]
    assert (last["type"], last["targetId"], last["label"]) == ("label", "u1000002", "fix")
    assert out.rows and "label entry" in texts(out)
    assert c.manager.index.label_of("u1000002") == "fix"
    assert c.model.leaf_id == leaf and c.manager.get_leaf_id() == last["id"]  # the view keeps its leaf
    written = kinds.read_bytes()
    assert texts(c.set_label("u1000002", " fix ")) == "u1000002 already has the label [fix]; nothing written."
    c.set_label("u1000002", "")
    assert c.manager.index.label_of("u1000002") is None and "label" not in lines(kinds)[-1]
    assert kinds.read_bytes() != written
    cleared = kinds.read_bytes()
    assert texts(c.set_label("u1000002", "")) == "u1000002 has no label; nothing written."
    assert kinds.read_bytes() == cleared  # the same words as `loomtui label`, and nothing written


def test_a_label_with_a_control_character_is_refused_as_the_command_refuses_it(kinds: Path) -> None:
    """The dialog's text (a paste can carry ESC or a tab) follows ``loomtui label``'s rule."""
    c = ctl(kinds)
    before = kinds.read_bytes()
    for text in ("red\x1b[31m", "a\tb"):
        out = c.set_label("u1000002", text)
        assert out.notices[0].title == "Label: not done" and out.notices[0].severity == "error"
        assert "one line of printable text" in texts(out) and "nothing was written" in texts(out)
    assert "escape character (ESC) (U+001B)" in texts(c.set_label("u1000002", "red\x1b[31m"))
    assert kinds.read_bytes() == before and c.manager.index.label_of("u1000002") is None


def test_label_with_a_reset_leaf_never_writes_a_null_parent(rooted: Path) -> None:
    c = ctl(rooted)
    c.move_leaf("u1")
    c.set_label("u2", "x")
    assert lines(rooted)[-1]["parentId"] == "a2"
    assert c.model.leaf_id is None and c.manager.get_leaf_id() is None


def test_label_on_a_read_only_source_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "v1.jsonl"
    shutil.copy(V1, path)
    c = ctl(path)
    assert not c.source.can_append and not c.source.can_label
    entry_id = c.manager.index.entries[0].id
    prompt = c.label_prompt(entry_id)
    assert prompt is not None and prompt.refusal is not None and "migrate" in prompt.refusal
    out = c.set_label(entry_id, "x")
    assert "migrate" in texts(out) and out.notices[0].severity == "error"
    assert "migrate" in texts(c.persist_leaf())
    assert path.read_bytes() == V1.read_bytes()
    assert any("version 1" in n.text for n in c.opening_notices())


def test_a_loom_keeps_labels_in_memory_and_offers_to_save_them(tmp_path: Path, shared_dir: Path) -> None:
    path = tmp_path / "demo.json"
    shutil.copy(shared_dir / "fixtures" / "loom" / "socketteer-loom_demo.json", path)
    raw = path.read_bytes()
    c = ctl(path)
    assert c.source.kind == "socketteer" and c.source.can_save_labels and not c.source.can_append
    target = c.manager.index.entries[1].id
    out = c.set_label(target, "keep")
    assert out.ask is not None and "Save bookmarks" in out.ask.title and path.read_bytes() == raw
    assert c.pending_labels() == 1
    assert out.ask.on_no is not None and "stays in memory" in texts(out.ask.on_no())
    saved = out.ask.on_yes()
    assert "Saved 1 bookmark change" in texts(saved)
    assert os.path.exists(str(path) + ".bak") and path.read_bytes() != raw and c.pending_labels() == 0
    assert "No label changes" in texts(c.save_labels_intent())
    # Ctrl+S on a loom with nothing to save: said in the loom's words, not pi's
    assert "No bookmarks to save" in texts(c.persist_leaf()) and "pi session file" not in texts(c.persist_leaf())


def test_export_writes_a_new_session_and_refuses_a_bad_destination(kinds: Path, tmp_path: Path) -> None:
    c = ctl(kinds)
    plan = c.export_plan("r1000004")
    assert isinstance(plan, ExportPlan) and plan.default_dir == str(tmp_path) and plan.entries > 0
    bad = c.export_branch("r1000004", str(tmp_path / "missing-dir"))
    assert bad.path is None and "is not a directory" in texts(bad) and bad.notices[0].severity == "error"
    bad = c.export_branch("r1000004", str(tmp_path / "no" / "x.jsonl"))
    assert bad.path is None and "is not a directory" in texts(bad)
    out = c.export_branch("r1000004", str(tmp_path / "out.jsonl"))
    assert out.path == str(tmp_path / "out.jsonl") and "Exported" in texts(out)
    header = lines(Path(out.path))[0]
    assert header["parentSession"] == str(kinds)
    refused = c.export_branch("r1000004", str(tmp_path / "out.jsonl"))  # never over a file
    assert refused.path is None and refused.notices
    assert isinstance(c.export_plan("nope"), Outcome)


def test_append_while_the_user_moved_the_leaf_keeps_it(kinds: Path) -> None:
    c = ctl(kinds)
    last = c.manager.index.leaf_id
    c.move_leaf("r1000004")
    with open(kinds, "a") as f:
        f.write(
            json.dumps(
                {
                    "type": "message",
                    "id": "ext00001",
                    "parentId": last,
                    "timestamp": "2025-06-01T11:00:00.000Z",
                    "message": {"role": "user", "content": "more", "timestamp": 1},
                }
            )
            + "\n"
        )
    out = c.apply_appended()
    assert out.rows and "ext00001" in c.manager.index.by_id
    assert c.manager.get_leaf_id() == c.model.leaf_id == "r1000004"
    # a label written at the moved leaf, then another append: still the user's leaf
    c.set_label("u1000002", "x")
    assert lines(kinds)[-1]["parentId"] == "ext00001"  # a label goes after the file's last entry
    with open(kinds, "a") as f:
        f.write(
            json.dumps(
                {
                    "type": "message",
                    "id": "ext00002",
                    "parentId": "ext00001",
                    "timestamp": "2025-06-01T11:00:01.000Z",
                    "message": {"role": "user", "content": "again", "timestamp": 2},
                }
            )
            + "\n"
        )
    c.apply_appended()
    assert c.model.leaf_id == "r1000004" and c.leaf_moved
    assert c.apply_appended().notices == []  # nothing new


def test_append_follows_the_file_when_the_leaf_was_not_moved(kinds: Path) -> None:
    c = ctl(kinds)
    last = c.manager.index.leaf_id
    with open(kinds, "a") as f:
        f.write(
            json.dumps(
                {
                    "type": "message",
                    "id": "ext00001",
                    "parentId": last,
                    "timestamp": "2025-06-01T11:00:00.000Z",
                    "message": {"role": "user", "content": "more", "timestamp": 1},
                }
            )
            + "\n"
        )
    c.apply_appended()
    assert c.model.leaf_id == c.manager.get_leaf_id() == "ext00001"


def test_a_rewritten_file_is_reloaded_keeping_filter_search_and_moved_leaf(kinds: Path) -> None:
    c = ctl(kinds)
    c.set_filter("all")
    c.set_query("fix")
    c.move_leaf("r1000004")
    kinds.write_text(kinds.read_text().replace("apply the fix", "apply the whole fix"))
    out = c.apply_appended()
    assert out.replaced and "reloaded" in texts(out)
    assert (c.model.mode, c.model.query, c.model.leaf_id, c.leaf_moved) == ("all", "fix", "r1000004", True)
    kinds.unlink()
    gone = c.apply_appended()
    assert "is gone" in texts(gone)


def test_filter_search_and_escape(kinds: Path) -> None:
    c = ctl(kinds)
    assert c.set_filter("user-only").rows and c.model.mode == "user-only"
    assert not c.set_filter("bogus").rows
    c.toggle_filter("user-only")
    assert c.model.mode == "default"
    c.cycle_filter(1)
    assert c.model.mode != "default"
    c.set_query("fix")
    assert c.escape() is not None and c.model.query == ""
    assert c.escape() is None


def test_parent_session_and_copy(kinds: Path, tmp_path: Path) -> None:
    c = ctl(kinds)
    assert c.parent_ref() is None and "not a fork" in texts(c.find_parent())
    fork = c.export_branch("r1000004", str(tmp_path / "fork.jsonl")).path
    assert fork is not None
    child = SessionController.open(fork, open_session)
    assert child.parent_ref() == str(kinds) and child.find_parent().path == str(kinds)
    assert c.copy_text("u1000002") == "Yes, apply the fix."


def test_title_and_in_memory_sessions() -> None:
    header = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}
    m = SessionManager.from_entries(
        header,
        [
            {
                "type": "message",
                "id": "a",
                "parentId": None,
                "timestamp": "2026-01-01T00:00:01.000Z",
                "message": {"role": "user", "content": "hi", "timestamp": 1},
            }
        ],
    )
    c = SessionController(m)
    assert c.title_parts("/x/mem.jsonl")[-1] == "leaf a"
    assert "in memory only" in texts(c.set_label("a", "x"))
    assert "not read from a file" in texts(c.reload())


def test_live_follow_takes_the_newline_pi_appends_to_a_last_line(kinds: Path) -> None:
    """pi 1.6.0 appends the newline a last line lacks when it opens the session; the open view
    takes it as that line's end (no reload, no note, no phantom line), then follows new lines."""
    kinds.write_bytes(kinds.read_bytes().rstrip(b"\n"))
    c = ctl(kinds)
    last = c.manager.index.leaf_id
    with open(kinds, "ab") as f:
        f.write(b"\n")  # what pi writes on open
    out = c.apply_appended()
    assert not out.replaced and out.notices == [] and c.manager.diagnostics == []
    with open(kinds, "a") as f:
        f.write(
            json.dumps(
                {
                    "type": "message",
                    "id": "ext00001",
                    "parentId": last,
                    "timestamp": "2025-06-01T11:00:00.000Z",
                    "message": {"role": "user", "content": "more", "timestamp": 1},
                }
            )
            + "\n"
        )
    out = c.apply_appended()
    assert out.rows and not out.replaced and out.notices == []
    assert c.manager.index.by_id["ext00001"].line == len(kinds.read_bytes().splitlines())
    assert c.model.leaf_id == "ext00001"


@pytest.mark.parametrize("change", ["truncated", "replaced"])
def test_a_file_cut_or_replaced_under_live_follow_is_reloaded_and_said_so(kinds: Path, change: str) -> None:
    c = ctl(kinds)
    c.model.select_id(c.manager.index.leaf_id)
    leaf = c.model.selected_id
    first = "".join(kinds.read_text().splitlines(keepends=True)[:10])  # the header and 9 entries
    if change == "truncated":
        os.truncate(kinds, len(first))
    else:
        other = kinds.with_name("other.jsonl")
        other.write_text(first)
        os.replace(other, kinds)
    out = c.apply_appended()
    assert out.replaced and c.manager.entry_count == 9
    text = texts(out)
    assert text.startswith(f"kinds.jsonl was {change} by another program; reloaded it (9 entries now).")
    assert "reopen" not in text and "changed on disk" not in text
    assert f"The selected entry {leaf} is no longer in it; selected " in text


def test_a_rewritten_file_keeps_the_selection_and_says_nothing_of_it(kinds: Path) -> None:
    c = ctl(kinds)
    kinds.write_text(kinds.read_text().replace("apply the fix", "apply the whole fix"))
    text = texts(c.apply_appended())
    assert text == "kinds.jsonl was rewritten by another program; reloaded it (26 entries now)."


def test_lines_the_reader_skips_under_live_follow_reach_the_header(kinds: Path) -> None:
    c = ctl(kinds)
    assert c.header(str(kinds)).diagnostics == ""
    with open(kinds, "a") as f:
        f.write('{"type":"message","id":"f0000009","parentId":\n')  # invalid: no entry, a diagnostic
    out = c.apply_appended()
    assert out.bars and not out.rows  # the header is drawn again, the tree's rows are the same
    assert c.header(str(kinds)).diagnostics == "1 diagnostic" and len(c.manager.diagnostics) == 1
    assert c.apply_appended().bars is False  # nothing new
    with open(kinds, "a") as f:
        f.write(' DONE"}\n')
    assert c.apply_appended().bars and c.header(str(kinds)).diagnostics == "2 diagnostics"
