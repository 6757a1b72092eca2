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
