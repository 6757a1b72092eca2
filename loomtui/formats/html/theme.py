"""Colours of the HTML export, from loomtui's theme files (``themes/*.toml``, and the user's
``~/.config/loomtui/themes/*.toml``): the light and dark themes follow the reader's
``prefers-color-scheme``, unless one theme is named (``--theme``).

The files are read here with ``tomllib`` (the app's loader checks colours with Textual, which
nothing below the app may import); a colour that is not a plain CSS colour is left out.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any

from loomtui.session.errors import LoomError
from loomtui.session.fileio import read_regular
from loomtui.view.words import theme_choices

LIGHT, DARK = "loom-light", "loom-dark"
ALIASES = {"light": LIGHT, "dark": DARK}
_COLOR = re.compile(r"^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,20}|rgba?\([0-9.,%\s]+\))$")
#: page variable -> theme key (top level)
PAGE_KEYS = {"bg": "background", "fg": "foreground", "surface": "surface", "panel": "panel", "primary": "primary"}
#: Pygments styles for code in each kind of theme
CODE_STYLES = {False: "friendly", True: "monokai"}


def theme_dirs() -> list[Path]:
    here = Path(__file__).resolve()
    out = [p for p in (here.parents[3] / "themes", here.parents[2] / "themes") if p.is_dir()]
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    user = Path(base) / "loomtui" / "themes"
    if user.is_dir():
        out.append(user)
    return out


def load_themes() -> dict[str, dict[str, Any]]:
    """Theme name -> its table, bundled first (a user file may replace one by name)."""
    out: dict[str, dict[str, Any]] = {}
    for d in theme_dirs():
        for path in sorted(d.glob("*.toml")):
            try:
                data = tomllib.loads(read_regular(str(path)).decode("utf-8"))
            except (OSError, LoomError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                continue
            name = data.get("name")
            if isinstance(name, str):
                out[name] = data
    return out


def _variables(data: dict[str, Any]) -> str:
    lines = []
    for var, key in PAGE_KEYS.items():
        v = data.get(key)
        if isinstance(v, str) and _COLOR.match(v):
            lines.append(f"--{var}: {v};")
    tree = data.get("tree") if isinstance(data.get("tree"), dict) else {}
    for role, v in tree.items():
        if isinstance(role, str) and role.isalnum() and isinstance(v, str) and _COLOR.match(v):
            lines.append(f"--t-{role}: {v};")
    dark = bool(data.get("dark"))
    mix = "#ffffff" if dark else "#000000"
    lines += [
        f"--hover: color-mix(in srgb, var(--surface) 88%, {mix});",
        "--pathbg: color-mix(in srgb, var(--surface) 85%, var(--primary));",
        f"--code: color-mix(in srgb, var(--bg) 92%, {mix});",
        "--info: color-mix(in srgb, var(--surface) 88%, var(--t-borderAccent));",
        f"color-scheme: {'dark' if dark else 'light'};",
    ]
    return "\n  ".join(lines)


def code_css_of(style: str) -> str:
    """Pygments' CSS for a code style, as Pygments writes it."""
    from pygments.formatters import HtmlFormatter

    return str(HtmlFormatter(style=style).get_style_defs(".hl"))


def _code_css(dark: bool) -> str:
    """``code_css_of`` the theme's code style, from the asset written from it beside this file
    (an export loads no Pygments unless the session has code to highlight; a test checks the
    asset is what the installed Pygments writes)."""
    style = CODE_STYLES[dark]
    try:
        return (Path(__file__).parent / f"code-{style}.css").read_text(encoding="utf-8")
    except OSError:
        return code_css_of(style)


def theme_css(theme: str | None) -> tuple[str, str]:
    """The CSS variables (and code colours) of the page, and the ``<html>`` attribute naming the
    theme when one is forced."""
    themes = load_themes()
    if theme is not None:
        name = ALIASES.get(theme, theme)
        data = themes.get(name)
        if data is None:
            raise LoomError(f"no theme named {theme!r}; use {theme_choices(themes)}")
        dark = bool(data.get("dark"))
        return (
            f":root {{\n  {_variables(data)}\n}}\n{_code_css(dark)}\n",
            f' data-theme="{"dark" if dark else "light"}"',
        )
    light, dark_t = themes.get(LIGHT, {}), themes.get(DARK, {})
    css = (
        f":root {{\n  {_variables(light)}\n}}\n{_code_css(False)}\n"
        f"@media (prefers-color-scheme: dark) {{\n:root {{\n  {_variables(dark_t)}\n}}\n{_code_css(True)}\n}}\n"
    )
    return css, ""
