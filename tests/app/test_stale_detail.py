"""The detail pane shows what the file holds now: a rewrite with the same ids refreshes it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app_helpers import browser, make_app, select

from tests.waits import settled

HEADER = {"type": "session", "version": 3, "id": "s-stale", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}


def entries(answer: str) -> list[dict[str, Any]]:
    return [
        HEADER,
        {
            "type": "message",
            "id": "u1",
            "parentId": None,
            "timestamp": "2026-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": "what is it?", "timestamp": 1},
        },
        {
            "type": "message",
            "id": "a1",
            "parentId": "u1",
            "timestamp": "2026-01-01T00:00:02.000Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": answer}], "stopReason": "stop"},
        },
        {
            "type": "message",
            "id": "u2",
            "parentId": "a1",
            "timestamp": "2026-01-01T00:00:03.000Z",
            "message": {"role": "user", "content": "thanks", "timestamp": 3},
        },
    ]


def write(path: Path, answer: str) -> None:
    path.write_text("".join(json.dumps(x) + "\n" for x in entries(answer)))


async def test_a_rewritten_entry_shows_its_new_text_in_the_detail_pane(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write(path, "the OLD answer")
    app = make_app(path)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "a1")
        assert "the OLD answer" in screen.detail.text
        write(path, "the NEW answer, longer than before")  # same ids, another text
        screen.apply_appended()  # what the watcher calls: the file was rewritten, it is reloaded
        await settled(pilot)
        screen = app.screen
        assert screen.model.selected_id == "a1"
        assert "the NEW answer" in screen.model.row_text(screen.model.selected)
        assert "the NEW answer" in screen.detail.text and "OLD" not in screen.detail.text
        await pilot.press("down")
        await settled(pilot)
        await pilot.press("up")
        await settled(pilot)
        assert screen.model.selected_id == "a1"
        assert "the NEW answer" in screen.detail.text and "OLD" not in screen.detail.text


async def test_a_same_size_rewrite_is_noticed(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write(path, "the OLD answer")
    app = make_app(path)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "a1")
        write(path, "the NEW answer")  # same length: only the bytes differ
        screen.apply_appended()
        await settled(pilot)
        screen = app.screen
        assert "the NEW answer" in screen.model.row_text(screen.model.selected)
        assert "the NEW answer" in screen.detail.text


async def test_thinking_of_every_tool_only_turn_is_reachable_in_the_app(pi_dir: Path) -> None:
    """pi-mono-before-compaction: 14 turns have thinking and no text; those without a row show
    their thinking in the detail of the result that answers them."""
    app = make_app(pi_dir / "pi-mono-before-compaction.jsonl")
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await browser(pilot)
        m = screen.manager
        turns = []
        for e in m.index.entries:
            if e.role != "assistant":
                continue
            content = m.load(e)["message"].get("content") or []
            thinking = [b.get("thinking") or "" for b in content if b.get("type") == "thinking"]
            if thinking and not any(b.get("type") == "text" and (b.get("text") or "").strip() for b in content):
                turns.append((e, thinking))
        assert len(turns) == 14
        hidden = [(e, t) for e, t in turns if screen.model.row_of(e.id) is None]
        assert len(hidden) == 12
        for e, thinking in hidden:
            result = next(k for k in m.index.children(e.id) if k.role == "toolResult")
            await select(pilot, screen, result.id)
            screen.detail.action_toggle_folds()
            await pilot.pause()
            flat = " ".join(screen.detail.text.replace("▌", " ").split())
            for t in thinking:
                words = " ".join(t.split())[:40]
                assert words in flat, (e.id, words)


async def test_text_blocks_are_separate_paragraphs_in_the_detail_pane(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    rows = entries("x")
    rows[2]["message"]["content"] = [
        {"type": "text", "text": "Looks fine."},
        {"type": "text", "text": "Check the CI cache."},
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in rows))
    app = make_app(path)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await browser(pilot)
        await select(pilot, screen, "a1")
        text = screen.detail.text
        assert "fine.Check" not in text and "fine. Check" not in text
        lines = text.splitlines()
        i = next(k for k, x in enumerate(lines) if "Looks fine." in x)
        j = next(k for k, x in enumerate(lines) if "Check the CI cache." in x)
        assert j > i + 1  # a blank line between them
