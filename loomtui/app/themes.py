"""Themes as data: ``themes/*.toml`` (bundled) and ``~/.config/loomtui/themes/*.toml`` (user).

A theme file holds Textual's colour system (``name``, ``dark``, ``primary`` … ``error``) and a
``[tree]`` table with pi's /tree colour roles (``accent``, ``success``, ``muted``, ``dim``,
``error``, ``warning``, ``customMessageLabel``, ``borderAccent``, ``text``, ``selectedBg``).
Every colour is checked with ``Color.parse`` when the file is read: Textual accepts a bad colour
at ``register_theme`` and then dies on the next CSS refresh (docs/architecture.md, pitfall 2).
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual.color import Color, ColorParseError
from textual.theme import BUILTIN_THEMES, Theme

from loomtui.session.errors import LoomError
from loomtui.session.fileio import read_regular
from loomtui.view.words import theme_choices

#: pi's /tree theme roles (the styles ``loomtui.view`` names) plus the selected-row background
TREE_ROLES = (
    "accent",
    "success",
    "muted",
    "dim",
    "error",
    "warning",
    "customMessageLabel",
    "borderAccent",
    "text",
    "selectedBg",
)
#: Textual theme fields that hold colours
COLOR_FIELDS = (
    "primary",
    "secondary",
    "warning",
    "error",
    "success",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)
_THEME_FIELDS = {f.name for f in dataclasses.fields(Theme)}
DEFAULT_THEME = "loom-dark"
#: short names accepted by ``--theme``
ALIASES = {"dark": "loom-dark", "light": "loom-light"}


class ThemeError(ValueError):
    """A theme file that cannot be used (the message names the file and the key)."""


def variable_name(role: str) -> str:
    """The Textual theme variable holding a tree role: ``customMessageLabel`` → ``loom-custom-message-label``."""
    out = []
    for ch in role:
        if ch.isupper():
            out.append("-" + ch.lower())
        else:
            out.append(ch)
    return "loom-" + "".join(out)


@dataclass
class LoadedThemes:
    themes: dict[str, Theme] = field(default_factory=dict)
    #: where each theme came from (for the palette and error messages)
    sources: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    #: keys left out of themes that were loaded (a notice, not an error)
    ignored: list[str] = field(default_factory=list)


def bundled_theme_dir() -> Path | None:
    """``themes/`` next to the package (a source checkout) or inside it (an installed wheel)."""
    here = Path(__file__).resolve()
    for candidate in (here.parent.parent / "themes", here.parents[2] / "themes"):
        if candidate.is_dir():
            return candidate
    return None


def config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "loomtui"


def user_theme_dir() -> Path:
    return config_dir() / "themes"


def _check_color(where: str, key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ThemeError(f"{where}: {key} must be a colour string, not {type(value).__name__}")
    try:
        Color.parse(value)
    except ColorParseError:
        raise ThemeError(f"{where}: {key} = {value!r} is not a colour") from None
    return value


def theme_from_data(data: dict[str, Any], where: str, ignored: list[str] | None = None) -> Theme:
    """Validate a theme table and build the Textual ``Theme`` (tree roles become variables).

    Unknown keys and [tree] roles (a typo, a key of a newer loomtui) are left out and named
    in ``ignored``: the rest of the theme is used. A bad value of a known key is an error."""
    data = dict(data)
    tree = data.pop("tree", {})
    if not isinstance(tree, dict):
        raise ThemeError(f"{where}: [tree] must be a table")
    tree = dict(tree)
    notes = _drop_unknown(data, tree, where)
    if ignored is not None:
        ignored += notes
    _check_fields(data, where)
    variables = data.pop("variables", {}) or {}
    if not isinstance(variables, dict) or not all(isinstance(v, str) for v in variables.values()):
        raise ThemeError(f"{where}: [variables] must map names to strings")
    variables = dict(variables)
    for role, value in tree.items():
        variables[variable_name(role)] = _check_color(where, f"tree.{role}", value)
    return Theme(**data, variables=variables)


def _drop_unknown(data: dict[str, Any], tree: dict[str, Any], where: str) -> list[str]:
    """Remove unknown keys and [tree] roles; one line naming each kind that was dropped."""
    unknown = sorted(set(data) - _THEME_FIELDS - {"variables"})
    unknown_roles = sorted(set(tree) - set(TREE_ROLES))
    for key in unknown:
        del data[key]
    for role in unknown_roles:
        del tree[role]
    notes = []
    if unknown:
        notes.append(f"{where}: unknown key{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} ignored")
    if unknown_roles:
        notes.append(
            f"{where}: unknown [tree] role{'s' if len(unknown_roles) > 1 else ''} "
            f"{', '.join(unknown_roles)} ignored (known: {', '.join(TREE_ROLES)})"
        )
    return notes


def _check_fields(data: dict[str, Any], where: str) -> None:
    """ThemeError for a missing name or primary colour, or a known key of the wrong kind."""
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ThemeError(f"{where}: name must be a non-empty string")
    if "primary" not in data:
        raise ThemeError(f"{where}: primary is required")
    for key in COLOR_FIELDS:
        if key in data:
            _check_color(where, key, data[key])
    if "dark" in data and not isinstance(data["dark"], bool):
        raise ThemeError(f"{where}: dark must be true or false")
    for key in ("luminosity_spread", "text_alpha"):
        if key in data and not isinstance(data[key], (int, float)):
            raise ThemeError(f"{where}: {key} must be a number")


def load_theme_file(path: Path, ignored: list[str] | None = None) -> Theme:
    try:
        data = tomllib.loads(read_regular(str(path)).decode("utf-8"))
    except OSError as exc:
        raise ThemeError(f"{path}: {exc.strerror or exc}") from None
    except LoomError as exc:  # a FIFO, a device: refused, never waited on
        raise ThemeError(str(exc)) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ThemeError(f"{path.name}: not valid TOML ({exc})") from None
    return theme_from_data(data, path.name, ignored)


def load_themes(extra_dirs: list[Path] | None = None) -> LoadedThemes:
    """Bundled themes, then user themes (a user theme may replace a bundled one by name)."""
    out = LoadedThemes()
    dirs: list[Path] = []
    bundled = bundled_theme_dir()
    if bundled is not None:
        dirs.append(bundled)
    dirs.append(user_theme_dir())
    dirs.extend(extra_dirs or [])
    for d in dirs:
        try:
            files = sorted(d.glob("*.toml"))
        except OSError:
            continue
        for path in files:
            try:
                theme = load_theme_file(path, out.ignored)
            except ThemeError as exc:
                out.problems.append(str(exc))
                continue
            out.themes[theme.name] = theme
            out.sources[theme.name] = str(path)
    return out


def tree_colors(theme: Theme | None) -> dict[str, str]:
    """pi's role colours for ``theme``: its ``[tree]`` table, else derived from its colours."""
    dark = theme.dark if theme is not None else True
    fg = Color.parse((theme.foreground if theme else None) or ("#d4d4d4" if dark else "#202020"))
    bg = Color.parse((theme.background if theme else None) or ("#1c1c1c" if dark else "#f8f8f8"))
    primary = Color.parse(theme.primary) if theme else Color.parse("#5f87ff")

    def pick(value: str | None, fallback: str) -> str:
        return value if value else fallback

    derived = {
        "accent": pick(theme.accent if theme else None, "#8abeb7"),
        "success": pick(theme.success if theme else None, "#b5bd68"),
        "muted": fg.blend(bg, 0.35).hex,
        "dim": fg.blend(bg, 0.5).hex,
        "error": pick(theme.error if theme else None, "#cc6666"),
        "warning": pick(theme.warning if theme else None, "#e5c07b"),
        "customMessageLabel": pick(theme.secondary if theme else None, primary.hex),
        "borderAccent": primary.hex,
        "text": fg.hex,
        "selectedBg": bg.blend(primary, 0.25).hex,
    }
    own = theme.variables if theme else {}
    out = {}
    for role in TREE_ROLES:
        value = own.get(variable_name(role)) or derived[role]
        try:
            Color.parse(value)
        except ColorParseError:
            value = derived[role]
            try:
                Color.parse(value)
            except ColorParseError:
                value = "#808080"
        out[role] = value
    return out


def _choices(available: dict[str, Any]) -> str:
    return theme_choices(
        (n for n in available if n not in BUILTIN_THEMES), (n for n in available if n in BUILTIN_THEMES)
    )


def resolve_theme_name(name: str | None, available: dict[str, Any]) -> tuple[str, str | None]:
    """The theme to use for ``--theme name`` and a problem to report (None when fine)."""
    if not name:
        return DEFAULT_THEME, None
    if ALIASES.get(name, name) in available:
        return ALIASES.get(name, name), None
    return DEFAULT_THEME, f"no theme named {name!r}; using {DEFAULT_THEME} (themes: {_choices(available)})"


def unknown_theme(name: str) -> str | None:
    """Why the browser's ``--theme name`` is refused before the app starts (None: the app has
    it): the themes it would have are Textual's, the theme files' and the fallback dark one."""
    available: dict[str, Any] = {**BUILTIN_THEMES, **load_themes().themes, DEFAULT_THEME: None}
    if ALIASES.get(name, name) in available:
        return None
    return f"no theme named {name!r}; use {_choices(available)}"
