"""pi's colour roles as Textual component classes, so a theme reaches every drawn line.

The tree, the detail pane and the other Line-API views draw segments in pi's /tree roles
(``accent``, ``muted``, ``dim``, ``success``, ``error``, ``warning``, ``customMessageLabel``,
``borderAccent``, ``text``) and a selected-row background. Each role is a component class
(``loom--accent`` …) whose default CSS takes its theme variable (``$loom-accent`` …; the app
derives them from each theme in ``get_theme_variable_defaults``, a theme's ``[tree]`` table
overrides them). A widget asks ``role_style(role)`` while it draws: Textual recomputes component
styles when the theme changes, and the widget clears its strip caches in ``notify_style_update``
(the public hook Textual calls when a widget's styles change) — no colour table kept by hand.
"""

from __future__ import annotations

from typing import cast

from rich.style import Style
from textual.widget import Widget

from loomtui.app.themes import TREE_ROLES, variable_name

#: the component class of each role (the selected row's background is ``selectedBg``)
ROLE_CLASS = {role: variable_name(role).replace("loom-", "loom--", 1) for role in TREE_ROLES}


def role_css(widget: str) -> str:
    """The default CSS giving ``widget``'s role classes their theme variables."""
    rules = []
    for role, cls in ROLE_CLASS.items():
        prop = "background" if role == "selectedBg" else "color"
        rules.append(f"{widget} > .{cls} {{ {prop}: ${variable_name(role)}; }}")
    return "\n".join(rules)


#: a widget's ``COMPONENT_CLASSES`` (Textual reads them from each widget class itself)
ROLE_CLASSES = set(ROLE_CLASS.values())


#: returned by Textual when the component styles are not there yet (never memoised)
_MISSING = Style()


class RoleStyles:
    """For a Widget that draws in pi's roles: it sets ``COMPONENT_CLASSES = ROLE_CLASSES``, adds
    ``role_css("Name")`` to its DEFAULT_CSS and calls ``forget_role_styles`` from its
    ``notify_style_update`` (a mixin, so Textual's CSS bases stay the widget's).

    The role styles are memoised until Textual restyles the widget: Textual's own cache of
    component styles is emptied by every ``refresh()`` (each cursor move, each detail), and
    building them again costs more than drawing a row. ``notify_style_update`` runs in the same
    step as the component styles are replaced, before anything is drawn, so the memo never
    outlives them."""

    _role_memo: dict[str, Style] | None = None

    def role_style(self, role: str) -> Style:
        """The style of ``role`` in the current theme (only the colour; unknown roles: text)."""
        memo = self._role_memo
        if memo is None:
            memo = self._role_memo = {}
        style = memo.get(role)
        if style is None:
            cls = ROLE_CLASS.get(role, ROLE_CLASS["text"])
            style = cast(Widget, self).get_component_rich_style(cls, partial=True, default=_MISSING)
            if style is _MISSING:
                return Style()
            memo[role] = style
        return style

    def forget_role_styles(self) -> None:
        self._role_memo = None
