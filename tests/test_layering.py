"""Nothing below loomtui.app imports Textual (architecture.md), so rules test without a terminal."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import loomtui


def test_session_view_formats_do_not_import_textual() -> None:
    code = (
        "import importlib, pkgutil, sys, loomtui\n"
        "for pkg in ('loomtui.session', 'loomtui.view', 'loomtui.formats'):\n"
        "    mod = importlib.import_module(pkg)\n"
        "    for info in pkgutil.walk_packages(mod.__path__, pkg + '.'):\n"
        "        importlib.import_module(info.name)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(len(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0"


def test_every_module_imports() -> None:
    for info in pkgutil.walk_packages(loomtui.__path__, "loomtui."):
        if info.name.endswith("__main__"):
            continue
        importlib.import_module(info.name)


def test_the_app_does_not_reach_into_the_cli_or_textual_internals() -> None:
    """The UI sits below the CLI (it never imports ``loomtui.commands``) and uses only public
    Textual API: no private helpers, no attribute probing of managers, no attr-defined ignores."""
    import pathlib
    import re

    root = pathlib.Path(loomtui.__file__).parent
    banned = re.compile(r"_scroll_update|set_reactive|_fatal_error|type: ignore\[attr-defined\]|loomtui\.commands")
    offenders = [f"{p.relative_to(root)}:{n}" for p in (root / "app").rglob("*.py")
                 for n, line in enumerate(p.read_text().splitlines(), 1) if banned.search(line)]
    assert offenders == []
    probing = [f"{p.relative_to(root)}:{n}" for p in root.rglob("*.py")
               for n, line in enumerate(p.read_text().splitlines(), 1) if "getattr(manager" in line]
    assert probing == []
