"""loomtui.session is the model: it must never import Textual (architecture.md, style.md)."""

from __future__ import annotations

import subprocess
import sys


def test_session_package_does_not_import_textual():
    code = (
        "import pkgutil, importlib, sys, loomtui.session as s\n"
        "for m in pkgutil.iter_modules(s.__path__):\n"
        "    importlib.import_module('loomtui.session.' + m.name)\n"
        "print('textual' in sys.modules or any(k.startswith('textual.') for k in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
