"""`loomtui --help` lists the browser among its commands, as `app` (the word its pointer to
`loomtui app --help` names), and every option the browser takes; so does the README's synopsis.
The top-level help listed no `app` and left out `--runs-dir` and `--no-follow`; the README left
out `--no-follow`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from loomtui.cli import main
from loomtui.commands import app as app_command

README = Path(__file__).resolve().parents[2] / "README.md"


def top_level_help(capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["--help"]) == 0
    return capsys.readouterr().out


def browser_options() -> list[str]:
    """Every option string the browser's parser accepts (but -h/--help)."""
    return [
        opt
        for action in app_command.build_parser()._actions
        for opt in action.option_strings
        if opt not in ("-h", "--help")
    ]


def readme_browser_synopsis() -> str:
    """The browser's entry in the README's command synopsis: its `loomtui [FILE]` line and the
    explanation indented under it."""
    block = README.read_text(encoding="utf-8").split("## Command line", 1)[1].split("```", 2)[1]
    lines = block.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("loomtui [FILE]"))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("loomtui "))
    return " ".join(" ".join(lines[start:end]).split())


def test_the_top_level_help_lists_the_app_command_it_points_to(capsys: pytest.CaptureFixture[str]) -> None:
    text = top_level_help(capsys)
    commands = text.split("positional arguments:", 1)[1].split("options:", 1)[0]
    assert re.search(r"^    app\s+the browser", commands, re.MULTILINE), commands
    assert "`loomtui app --help`" in text
    with pytest.raises(SystemExit) as done:  # and what it points to is there: the browser's options
        main(["app", "--help"])
    assert done.value.code == 0
    assert "--no-follow" in capsys.readouterr().out


def test_the_top_level_help_shows_no_follow_and_runs_dir(capsys: pytest.CaptureFixture[str]) -> None:
    text = top_level_help(capsys)
    usage = next(line for line in text.splitlines() if line.strip().startswith("loomtui [FILE]"))
    assert "[--runs-dir DIR]" in usage and "[--no-follow]" in usage, usage
    assert "--no-follow: read once" in " ".join(text.split())


def test_every_browser_option_is_in_the_top_level_help(capsys: pytest.CaptureFixture[str]) -> None:
    """So the top-level help cannot fall behind the browser's parser again."""
    options = browser_options()
    assert "--no-follow" in options and "--runs-dir" in options
    usage = next(line for line in top_level_help(capsys).splitlines() if line.strip().startswith("loomtui [FILE]"))
    missing = [opt for opt in options if f"[{opt}" not in usage]
    assert not missing, (missing, usage)


def test_every_browser_option_is_in_the_readme_synopsis() -> None:
    synopsis = readme_browser_synopsis()
    missing = [opt for opt in browser_options() if f"[{opt}" not in synopsis]
    assert not missing, (missing, synopsis)
    assert "--no-follow: read it once" in synopsis and "follows the open file" in synopsis, synopsis
