"""What a source adds to the browser, for any source: the filter bar's modes, Enter on a row
naming a file that must be found first (a ``Lookup``), and the palette's commands of the source.
The source says what (``Source.bar_filters``, ``Source.opens``, ``Source.commands``); nothing
here knows a format (docs/architecture.md, "What was opened: the typed source")."""

from __future__ import annotations

import os
from functools import partial
from typing import TYPE_CHECKING, Any

from loomtui.app import keymap

if TYPE_CHECKING:
    from loomtui.app.screens.browser import BrowserScreen
    from loomtui.session.source import Lookup, SourceCommand
    from loomtui.view.model import TreeModel


def bar_modes(model: TreeModel) -> tuple[str, ...]:
    """The modes the filter bar shows: pi's five (default alone for a source without pi's
    filters, the loom map), or the source's own (the modes named by a model or a harness only
    while chosen: Ctrl+O cycles through them all)."""
    filters = model.extra_filters
    if not filters:
        return model.modes
    # the source's listed modes, without making the named ones (an OCP run: a pass over every attempt)
    listed = model.manager.source.bar_filters
    fixed = listed if listed is not None else tuple(m for m in filters if ":" not in m)
    out = ("default",) + fixed
    return out if model.mode in out else out + (model.mode,)


def lacking_filter(model: TreeModel, mode: str) -> str:
    """The notice for ``loomtui --filter MODE FILE`` where FILE lacks MODE (a run's mode on a pi
    session; ``findings`` on a run without findings: why, as the source says,
    ``Source.missing_filter``), the model showing the default."""
    source = model.manager.source
    why = source.missing_filter(mode) if source.missing_filter is not None else None
    said = why[:1].upper() + why[1:] if why else f"{mode!r} is not a filter of {source.a_name}"
    return f"{said}; showing default ({', '.join(model.modes)})."


def look_up(screen: BrowserScreen, lookup: Lookup) -> None:
    """Enter on a row naming a file: find it in a thread (unless known), then open it on top at
    its leaf (Esc returns), or say why not."""
    app = screen.loom_app
    dirs = list(app.sessions_dirs)

    def find() -> None:
        try:
            found = lookup.find(dirs)
        except Exception as exc:  # a broken sessions directory must not take the app down
            app.call_from_thread(app.log_error, exc)
            found = None
        screen.app.call_from_thread(found_it, found)

    def found_it(path: str | None) -> None:
        lookup.found(path)
        if not screen.is_attached:
            return
        if path is None:
            screen.notify(lookup.missing, title=lookup.title, severity="warning", timeout=8)
            return
        if os.path.abspath(path) == screen.path:
            screen.notify(lookup.itself, title=lookup.title, timeout=5)
            return
        app.open_session_file(path)

    if lookup.looked:
        found_it(lookup.known)
        return
    screen.notify(lookup.looking, timeout=2)
    screen.run_worker(
        find,
        thread=True,
        exclusive=True,
        group="open-row-file",
        exit_on_error=False,
        description="Find the file the row names",
    )


def run_command(screen: BrowserScreen, command: SourceCommand) -> None:
    """A source's palette command: Enter on the row it names, or another session it builds (in
    a thread) shown on top; Esc returns."""
    if command.enter is not None:
        screen.enter_row(command.enter)
        return
    build = command.build
    if build is None:
        return

    def made() -> None:
        try:
            manager = build()
        except Exception as exc:  # never a traceback for a command of the palette
            screen.loom_app.call_from_thread(screen.loom_app.log_error, exc)
            return
        screen.app.call_from_thread(show, manager)

    def show(manager: Any) -> None:
        if screen.is_attached:
            screen.app.push_screen(type(screen)(screen.path, manager))

    screen.run_worker(
        made, thread=True, exclusive=True, group="source-command", exit_on_error=False, description=command.title
    )


def palette_commands(screen: BrowserScreen) -> list[tuple[str, Any, str]]:
    """The palette's commands of the open source for the selected row (none for most sources)."""
    manager, model = screen.manager, screen.model
    commands = manager.source.commands if manager is not None else None
    if commands is None or model is None:
        return []
    selected = model.selected_entry
    return [(c.title, partial(run_command, screen, c), c.help) for c in commands(selected.id if selected else None)]


def footer_hints(screen: BrowserScreen) -> list[tuple[int, str]]:
    """The footer's key hints with their priorities (the lowest left out first where the
    terminal is narrow): only what the open source offers, in its words ("open" on an OCP run's
    attempt, "save" for a loom's bookmarks)."""
    user = screen.loom_app.user_keymap
    moves = (
        (1, keymap.key_pair(user, "tree.up", "tree.down", ("move", "up", "down"))),
        (0, keymap.key_pair(user, "tree.page-up", "tree.page-down", ("page", "page up", "page down"))),
    )
    parts = [(priority, hint) for priority, hint in moves if hint]
    source = screen.controller.source if screen.controller is not None else None
    for priority, binding_id, what in (
        (4, "browser.select", "leaf"),
        (5, "browser.label", "label"),
        (3, "browser.export", "export"),
        (3, "browser.persist-leaf", "persist"),
        (2, "app.palette", "commands"),
        (6, "app.help", "help"),
    ):
        if source is not None and not screen.offered(keymap.SPEC_BY_ID[binding_id].action):
            continue  # not something this source does (Source.offers)
        if binding_id == "browser.persist-leaf" and source is not None and not source.can_append:
            what = "save"  # a loom's labels into its file as bookmarks
        elif binding_id == "browser.select" and source is not None and not source.leaf_moves:
            if source.opens is None:
                continue  # no leaf to move, nothing to open (the loom map)
            what = "open"  # an OCP run: the session an attempt names
        keys = keymap.display_keys(keymap.SPEC_BY_ID[binding_id], screen.loom_app.user_keymap)
        if keys:  # a binding that lost its keys to another one is not offered by a key
            parts.append((priority, f"{keys} {what}"))
    return parts
