"""Setup as a new user meets it: what `uv run` installs in the clone, and what the README says
about installing loomtui as a tool, where sessions are read from and the key map's format."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from loomtui.app.keymap_file import load_user_keymap

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_lock_leaves_out_the_numeric_stack_no_test_uses() -> None:
    # loopmath (for `loomtui check`) pulls numpy, scipy and pandas; its OCP checker imports none
    lock = tomllib.loads((ROOT / "uv.lock").read_text(encoding="utf-8"))
    names = {p["name"] for p in lock["package"]}
    assert "loopmath" in names
    assert not names & {"numpy", "scipy", "pandas"}


def test_the_reference_checker_runs_without_them() -> None:
    from loomtui.formats.ocp import check as ocp_check

    assert ocp_check.checker_name() == "loopmath"


def test_readme_says_how_to_install_loomtui_as_a_tool() -> None:
    assert "uv tool install ." in README and "pipx install ." in README


def test_readme_names_every_session_location_loomtui_reads() -> None:
    for where in (
        "~/.pi/agent/sessions",
        "PI_CODING_AGENT_DIR",
        "~/.omp/agent/sessions",
        "OMP_CODING_AGENT_DIR",
        "~/.claude/projects",
        "CLAUDE_CONFIG_DIR",
        "~/.codex/sessions",
        "CODEX_HOME",
    ):
        assert where in README, where


def test_readme_keymap_example_is_a_valid_keymap(tmp_path: Path) -> None:
    blocks = re.findall(r"```toml\n(.*?)```", README, flags=re.S)
    example = next(b for b in blocks if "[keys]" in b)
    path = tmp_path / "keymap.toml"
    path.write_text(example, encoding="utf-8")
    keymap, problems = load_user_keymap(path)
    assert problems == []  # nor a key another binding has (Ctrl+X is "copy the message", F2 the diagnostics)
    assert keymap == {
        "browser.export": "ctrl+n",
        "tree.page-down": "pagedown,ctrl+f",
        "browser.persist-leaf": "ctrl+s,f3",
    }
