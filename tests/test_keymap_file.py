"""Reading ``keymap.toml`` (``loomtui.app.keymap_file``), without running the app: what a line
binds, and what the notices at start say about the lines that bind nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from loomtui.app.keymap_file import load_user_keymap


def read(tmp_path: Path, text: str) -> tuple[dict[str, str], list[str]]:
    path = tmp_path / "keymap.toml"
    path.write_text(text, encoding="utf-8")
    return load_user_keymap(path)


@pytest.mark.parametrize(
    "key",
    ["ctrl+shift+banana", "banana", "ctrl+", "ctrl+ctrl+x", "hold+x", "ctrl+shift", "f99", "return", "ctrl+xy"],
)
def test_a_key_name_that_is_no_key_is_reported_and_the_binding_keeps_its_default(tmp_path: Path, key: str) -> None:
    keymap, problems = read(tmp_path, f'[keys]\n"tree.up" = "{key}"\n')
    assert keymap == {}
    assert len(problems) == 1 and f"tree.up: {key!r} is not a key name" in problems[0], problems


def test_a_good_key_beside_a_bad_one_still_applies(tmp_path: Path) -> None:
    keymap, problems = read(tmp_path, '[keys]\n"browser.export" = ["ctrl+n", "ctrl+nope"]\n')
    assert keymap == {"browser.export": "ctrl+n"}
    assert len(problems) == 1 and "browser.export: 'ctrl+nope' is not a key name" in problems[0], problems


@pytest.mark.parametrize(
    ("written", "bound"),
    [
        ("f6", "f6"),
        ("F6", "f6"),  # Textual's names are lower case: "F6" would never fire
        ("PageDown", "pagedown"),
        ("Ctrl+N", "ctrl+n"),
        ("shift+ctrl+o", "ctrl+shift+o"),  # the modifiers in the order Textual writes them
        ("alt+full_stop", "alt+full_stop"),
        ("alt+.", "alt+full_stop"),
        ("ctrl+@", "ctrl+@"),
        ("Alt+H", "alt+h"),  # as help writes it
        ("alt+shift+x", "alt+shift+x"),
    ],
)
def test_key_names_are_read_as_textual_writes_them(tmp_path: Path, written: str, bound: str) -> None:
    keymap, problems = read(tmp_path, f'[keys]\n"browser.export" = "{written}"\n')
    assert problems == []
    assert keymap == {"browser.export": bound}


@pytest.mark.parametrize(
    ("written", "bound"),
    [("j", "j"), ("J", "J"), ("shift+j", "J"), ("?", "question_mark"), ("question_mark", "question_mark"), ("é", "é")],
)
def test_printable_keys_where_nothing_types(tmp_path: Path, written: str, bound: str) -> None:
    """In reader mode a printable key acts (n, p, q): a letter, a character or its name; Shift
    and a letter is the capital, which is what a terminal sends."""
    keymap, problems = read(tmp_path, f'[keys]\n"reader.next" = "{written}"\n')
    assert problems == []
    assert keymap == {"reader.next": bound}


def test_a_space_is_written_space(tmp_path: Path) -> None:
    keymap, problems = read(tmp_path, '[keys]\n"reader.next" = "space"\n"reader.prev" = [" x"]\n')
    assert keymap == {"reader.next": "space", "reader.prev": "x"}
    assert problems == []
