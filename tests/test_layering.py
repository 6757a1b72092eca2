"""Nothing below loomtui.app imports Textual (architecture.md), so rules test without a terminal."""

from __future__ import annotations

import functools
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
    banned = re.compile(
        r"_scroll_update|set_reactive|_fatal_error|\._filters\b|type: ignore\[attr-defined\]|loomtui\.commands"
    )
    offenders = [
        f"{p.relative_to(root)}:{n}"
        for p in (root / "app").rglob("*.py")
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if banned.search(line)
    ]
    assert offenders == []
    probing = [
        f"{p.relative_to(root)}:{n}"
        for p in root.rglob("*.py")
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if "getattr(manager" in line
    ]
    assert probing == []


_SELF_ATTR = r"\bself\.(_[a-z]\w*)"


def _textual_private(cls: type) -> set[str]:
    """The private names (``_x``) Textual's own classes in ``cls``'s MRO define or set on ``self``."""
    names: set[str] = set()
    for base in cls.__mro__:
        if base.__module__.startswith("textual"):
            names.update(_private_of(base))
    return names


@functools.cache
def _private_of(base: type) -> frozenset[str]:
    """The private names one Textual class defines or sets on ``self`` (each class read once:
    ``inspect.getsource`` parses the class's whole module, and every app class shares bases)."""
    import inspect
    import re

    names = {n for n in vars(base) if re.match(r"_[a-z]", n)}
    try:
        names.update(re.findall(_SELF_ATTR, inspect.getsource(base)))
    except (OSError, TypeError):
        pass
    return frozenset(names)


def test_the_app_touches_no_private_attribute_of_textual_objects() -> None:
    """No ``._name`` of Textual's own state is read, written or shadowed by the app.

    Two checks that hold without type inference: (1) in every class of ``loomtui.app`` built on a
    Textual class, ``self._x`` must not name a private attribute or method of its Textual bases
    (reading Textual's state, or shadowing it by accident); (2) anywhere in ``loomtui/app``,
    ``other._x`` on a receiver that is not ``self`` must not name a private of Textual's ``App``,
    ``Screen`` or ``Widget`` unless loomtui itself defines that name."""
    import inspect
    import pathlib
    import re

    from textual.app import App
    from textual.screen import Screen
    from textual.widget import Widget

    import loomtui.app

    offenders: list[str] = []
    for info in pkgutil.walk_packages(loomtui.app.__path__, "loomtui.app."):
        mod = importlib.import_module(info.name)
        for name, cls in vars(mod).items():
            if not inspect.isclass(cls) or cls.__module__ != mod.__name__:
                continue
            if not any(b.__module__.startswith("textual") for b in cls.__mro__):
                continue
            private = _textual_private(cls)
            offenders += [
                f"{mod.__name__}.{name}: self.{a}"
                for a in re.findall(_SELF_ATTR, inspect.getsource(cls))
                if a in private
            ]
    core = _textual_private(App) | _textual_private(Screen) | _textual_private(Widget)
    root = pathlib.Path(loomtui.__file__).parent
    ours: set[str] = set()
    for p in root.rglob("*.py"):
        text = p.read_text()
        ours.update(re.findall(r"\bdef (_[a-z]\w*)", text))
        ours.update(re.findall(r"\bself\.(_[a-z]\w*)\s*(?::[^=\n]*)?=", text))
        ours.update(re.findall(r"^\s+(_[a-z]\w*)\s*(?::[^=\n]*)?=", text, re.M))
    for p in (root / "app").rglob("*.py"):
        for n, line in enumerate(p.read_text().splitlines(), 1):
            for m in re.finditer(r"(\w+|[)\]])\.(_[a-z]\w*)\b", line):
                if m.group(1) not in ("self", "cls") and m.group(2) in core and m.group(2) not in ours:
                    offenders.append(f"{p.relative_to(root)}:{n}: .{m.group(2)}")
    assert offenders == []
