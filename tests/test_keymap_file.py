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
    assert not any("not a key name" in p for p in problems), problems  # (some of them are other bindings' keys)
    assert keymap["browser.export"] == bound


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


@pytest.mark.parametrize(
    ("line", "into"),
    [
        ('"app.help" = "n"', "the search and the session filter"),  # app-wide: live in the browser and the picker
        ('"app.quit" = ["Q", "space"]', "the search and the session filter"),
        ('"picker.rescan" = "r"', "the session filter"),
        ('"picker.open-parent" = "question_mark"', "the session filter"),
        ('"tree.up" = "k"', "the search"),
        ('"detail.expand" = "x"', "the search"),
        ('"browser.reader" = "r"', "the search"),
    ],
)
def test_a_key_that_types_is_refused_where_typing_searches_or_filters(tmp_path: Path, line: str, into: str) -> None:
    """The browser, the session picker and the app's bindings (live on both) never take a key
    that types: the line is refused and the binding keeps its default keys."""
    keymap, problems = read(tmp_path, f"[keys]\n{line}\n")
    binding_id, _, written = line.partition(" = ")
    keys = ", ".join(k.strip(' "') for k in written.strip("[]").split(","))
    assert keymap == {}
    assert problems == [
        f"{tmp_path / 'keymap.toml'}: {binding_id.strip(chr(34))}: {keys} types into {into}; "
        "use a key that never types (alt+…, ctrl+…, an F-key)"
    ]


def test_a_good_key_beside_one_that_types_still_applies(tmp_path: Path) -> None:
    keymap, problems = read(tmp_path, '[keys]\n"picker.rescan" = ["r", "f5"]\n"app.help" = "f1,question_mark"\n')
    assert keymap == {"picker.rescan": "f5", "app.help": "f1"}
    assert [p.split(": ", 1)[1] for p in problems] == [
        "picker.rescan: r types into the session filter; use a key that never types (alt+…, ctrl+…, an F-key)",
        "app.help: question_mark types into the search and the session filter; "
        "use a key that never types (alt+…, ctrl+…, an F-key)",
    ]


@pytest.mark.parametrize("line", ['"compare.goto" = "G"', '"compare.next-change" = "j"', '"reader.close" = "x"'])
def test_printable_keys_on_the_screens_that_take_no_typing(tmp_path: Path, line: str) -> None:
    """The compare screen and reader mode have no search: a letter acts there."""
    keymap, problems = read(tmp_path, f"[keys]\n{line}\n")
    assert problems == [] and len(keymap) == 1, (keymap, problems)


def test_a_space_is_written_space(tmp_path: Path) -> None:
    keymap, problems = read(tmp_path, '[keys]\n"reader.next" = "space"\n"reader.prev" = [" x"]\n')
    assert keymap["reader.next"] == "space" and keymap["reader.prev"] == "x"
    assert not any("not a key name" in p for p in problems), problems


def test_a_key_the_file_takes_from_a_default_binding_is_reported_and_taken_from_it(tmp_path: Path) -> None:
    """README's old example: Ctrl+X was "copy the message" and F2 the diagnostics; the file's
    line has the key, the binding that lost it is named and has no key left."""
    keymap, problems = read(
        tmp_path, '[keys]\n"browser.export" = "ctrl+x"\n"browser.persist-leaf" = ["ctrl+s", "f2"]\n'
    )
    assert keymap == {
        "browser.export": "ctrl+x",
        "browser.persist-leaf": "ctrl+s,f2",
        "browser.copy-message": "",
        "browser.diagnostics": "",
    }
    assert len(problems) == 2, problems
    assert problems[0].endswith(
        "ctrl+x is bound to browser.export and browser.copy-message (default); "
        "browser.export has it, browser.copy-message has no key now"
    ), problems
    assert problems[1].endswith(
        "f2 is bound to browser.persist-leaf and browser.diagnostics (default); "
        "browser.persist-leaf has it, browser.diagnostics has no key now"
    ), problems


def test_the_binding_that_lost_a_key_keeps_its_others(tmp_path: Path) -> None:
    keymap, problems = read(tmp_path, '[keys]\n"browser.export" = "ctrl+b"\n')
    assert keymap == {"browser.export": "ctrl+b", "tree.page-up": "left,pageup"}
    assert len(problems) == 1 and problems[0].endswith(
        "ctrl+b is bound to browser.export and tree.page-up (default); browser.export has it, "
        "tree.page-up keeps left, pageup"
    ), problems


def test_of_two_lines_giving_one_key_the_later_one_has_it(tmp_path: Path) -> None:
    keymap, problems = read(tmp_path, '[keys]\n"browser.hoist" = "f6"\n"browser.export" = ["f6", "ctrl+n"]\n')
    assert keymap == {"browser.hoist": "", "browser.export": "f6,ctrl+n"}
    assert len(problems) == 1 and problems[0].endswith(
        "f6 is bound to browser.export and browser.hoist (an earlier line); browser.export has it, "
        "browser.hoist has no key now"
    ), problems


def test_an_app_wide_key_is_taken_from_every_screen(tmp_path: Path) -> None:
    keymap, problems = read(tmp_path, '[keys]\n"app.quit" = "escape"\n')
    assert keymap == {
        "app.quit": "escape",
        "browser.escape": "",
        "compare.close": "q",
        "reader.close": "q,ctrl+r",
        "picker.escape": "",
    }
    assert len(problems) == 1 and problems[0].endswith(
        "escape is bound to app.quit and browser.escape (default), compare.close (default), reader.close (default), "
        "picker.escape (default); app.quit has it, browser.escape has no key now, compare.close keeps q, "
        "reader.close keeps q, ctrl+r, picker.escape has no key now"
    ), problems


def test_keys_on_different_screens_never_clash(tmp_path: Path) -> None:
    text = (
        '[keys]\n"reader.next" = "j"\n"compare.next-change" = "j"\n"reader.close" = "ctrl+e"\n'
        '"browser.export" = "ctrl+x"\n"browser.copy-message" = "ctrl+k"\n"tree.page-down" = "pagedown,ctrl+f"\n'
        '"browser.mark" = ["f6", "f6"]\n'
    )
    keymap, problems = read(tmp_path, text)
    assert problems == []
    assert keymap["reader.next"] == keymap["compare.next-change"] == "j" and keymap["browser.mark"] == "f6"


def test_no_two_default_bindings_share_a_key_on_one_screen(tmp_path: Path) -> None:
    from loomtui.app.keymap_file import clashes

    assert clashes({}, "keymap.toml") == ({}, [])


def test_a_table_that_is_not_keys_is_named_and_the_notices_name_the_whole_path(tmp_path: Path) -> None:
    """A misspelt ``[keyz]`` is a table loomtui does not read (it used to be reported as an
    unknown binding id 'keyz'); every notice names the file by its path, not just keymap.toml."""
    path = tmp_path / "keymap.toml"
    keymap, problems = read(tmp_path, '"browser.reader" = "f6"\n[keyz]\n"browser.compact" = "f7"\n"no.such" = "f8"\n')
    assert keymap == {"browser.reader": "f6"}  # a line before any table binds, as in [keys]
    assert problems == [
        f"{path}: [keyz] is not a table loomtui reads (the bindings go under [keys]); its 2 lines are not applied"
    ]


def test_the_top_of_the_file_and_keys_both_apply(tmp_path: Path) -> None:
    keymap, problems = read(
        tmp_path,
        '"browser.reader" = "f6"\n"browser.compact" = "f9"\n[keys]\n"browser.export" = "ctrl+n"\n'
        '"browser.compact" = "f7"\n',
    )
    assert keymap == {"browser.reader": "f6", "browser.export": "ctrl+n", "browser.compact": "f7"}
    assert len(problems) == 1 and problems[0].endswith(
        "browser.compact is bound both before [keys] and in it; the [keys] line applies"
    ), problems


def test_unquoted_ids_are_binding_ids(tmp_path: Path) -> None:
    """``browser.export = "ctrl+n"`` without quotes is a dotted TOML key, i.e. a table
    ``browser`` holding ``export``: it reads as the id it spells."""
    keymap, problems = read(tmp_path, 'tree.up = "f9"\n[keys]\nbrowser.export = "ctrl+n"\nbrowser.nope = "f8"\n')
    assert keymap == {"tree.up": "f9", "browser.export": "ctrl+n"}
    assert len(problems) == 1 and problems[0].endswith("unknown binding id 'browser.nope'"), problems


def test_keys_that_is_not_a_table(tmp_path: Path) -> None:
    keymap, problems = read(tmp_path, 'keys = "ctrl+n"\n')
    assert keymap == {}
    assert len(problems) == 1 and problems[0].endswith("keys is not a table: the bindings go under [keys]"), problems


def test_the_notices_write_the_home_as_a_tilde(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    _keymap, problems = read(tmp_path, '[keys]\n"no.such" = "f9"\n"tree.up" = "banana"\n')
    assert [p.split(": ")[0] for p in problems] == ["~/keymap.toml"] * 2, problems
    _keymap, problems = read(tmp_path, "[keys\n")
    assert problems[0].startswith("~/keymap.toml: not valid TOML"), problems


def test_a_key_bound_by_another_of_its_names_is_a_clash(tmp_path: Path) -> None:
    """Ctrl+I sends Tab's byte: a line giving ctrl+i to one binding takes Tab from the one that
    had it (it would switch the pane instead), and has both names, so it runs from any terminal."""
    keymap, problems = read(tmp_path, '[keys]\n"browser.export" = "ctrl+i"\n')
    assert keymap == {"browser.export": "ctrl+i,tab", "browser.switch-focus": ""}
    assert problems == [
        f"{tmp_path / 'keymap.toml'}: ctrl+i is bound to browser.export and browser.switch-focus (default, as tab); "
        "browser.export has it (ctrl+i and tab), browser.switch-focus has no key now; most terminals send ctrl+i as tab"
    ]


@pytest.mark.parametrize(
    ("line", "loser", "name"),
    [
        ('"browser.hoist" = "ctrl+h"', "tree.backspace", "backspace"),
        ('"browser.export" = "ctrl+m"', "browser.select", "enter"),
        ('"browser.export" = "ctrl+["', "browser.escape", "escape"),
    ],
)
def test_every_name_a_terminal_sends_as_another_key_clashes_with_it(
    tmp_path: Path, line: str, loser: str, name: str
) -> None:
    keymap, problems = read(tmp_path, f"[keys]\n{line}\n")
    binding_id = line.split(" = ")[0].strip('"')
    assert keymap[loser] == "" and keymap[binding_id].endswith(f",{name}"), keymap
    assert len(problems) == 1 and f"{loser} (default, as {name})" in problems[0], problems
    assert problems[0].endswith(f"as {name}"), problems


def test_of_two_lines_naming_one_key_differently_the_later_has_it(tmp_path: Path) -> None:
    keymap, problems = read(tmp_path, '[keys]\n"browser.mark" = "ctrl+i"\n"browser.hoist" = "tab"\n')
    assert keymap == {"browser.mark": "", "browser.hoist": "tab,ctrl+i", "browser.switch-focus": ""}
    assert len(problems) == 1 and problems[0].endswith(
        "tab is bound to browser.hoist and browser.switch-focus (default), browser.mark (an earlier line, as ctrl+i); "
        "browser.hoist has it (tab and ctrl+i), browser.switch-focus has no key now, browser.mark has no key now; "
        "most terminals send ctrl+i as tab"
    ), problems


def test_another_name_of_a_key_bound_on_another_screen_is_no_clash(tmp_path: Path) -> None:
    """Tab and Enter are the browser's; reader mode binds neither, the compare screen no Tab."""
    keymap, problems = read(tmp_path, '[keys]\n"reader.next" = "ctrl+m"\n"compare.goto" = "ctrl+i"\n')
    assert problems == [] and keymap == {"reader.next": "ctrl+m", "compare.goto": "ctrl+i"}


def test_the_keys_sent_as_another_key_are_textual_s_own() -> None:
    """``keymap_file.SAME_KEYS`` is every Ctrl key whose byte Textual's table of escape
    sequences reads as another key (Ctrl+I's as tab), Ctrl+Space (it sends NUL, read as
    ctrl+@) and the aliases Textual pairs itself; no default binding is on one of them."""
    from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
    from textual.keys import KEY_ALIASES

    from loomtui.app.keymap import SPECS
    from loomtui.app.keymap_file import SAME_KEYS, same_key, textual_key

    arrives = {}
    for code in range(32):
        ctrl, key = textual_key("ctrl+" + chr(code | 0x40).lower()), ANSI_SEQUENCES_KEYS[chr(code)][0].value
        if ctrl != key:
            arrives[ctrl] = key
    arrives["ctrl+space"] = ANSI_SEQUENCES_KEYS["\x00"][0].value
    assert {k: v for k, v in SAME_KEYS.items() if k != "ctrl+at"} == arrives
    for key, aliases in KEY_ALIASES.items():
        for alias in aliases:
            if textual_key(key) and textual_key(alias):  # "newline" is no name a file can bind
                assert same_key(key) == same_key(alias), (key, alias)
    for spec in SPECS:
        assert not set(spec.keys.split(",")) & set(SAME_KEYS), spec.id
