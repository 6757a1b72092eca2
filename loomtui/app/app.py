"""LoomApp: the Textual application (screens, bindings with ids, themes, palette, errors)."""

from __future__ import annotations

import io
import os
import sys
import time
import traceback
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from textual import events
from textual.app import App, SystemCommand
from textual.filter import LineFilter
from textual.notifications import Notification, Notify
from textual.screen import Screen
from textual.theme import Theme

from loomtui.app import keymap, samples
from loomtui.app.collector import IdleCollector
from loomtui.app.filters import SafeFilters, monochrome
from loomtui.app.keymap_file import load_user_keymap
from loomtui.app.messages import SessionOpened
from loomtui.app.screens.browser import BrowserScreen
from loomtui.app.themes import DEFAULT_THEME, load_themes, resolve_theme_name, tree_colors, variable_name
from loomtui.view.printable import printable

if TYPE_CHECKING:
    from textual.command import Provider

    from loomtui.formats.opening import Opening

#: how long a held notice may stay at most (seconds): it is taken down when its work ends
HELD = 24 * 3600.0


def loom_commands() -> type[Provider]:
    """The palette's provider, imported when the palette first opens (Textual calls this)."""
    from loomtui.app.commands import LoomCommands

    return LoomCommands


def log_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "loomtui"


class LoomApp(App[int], inherit_bindings=False):
    """``loomtui [FILE]``: the browser on FILE, or the session picker."""

    TITLE = "loomtui"
    ENABLE_COMMAND_PALETTE = True
    COMMANDS = App.COMMANDS | {loom_commands}
    BINDINGS = keymap.bindings("app")
    #: narrow terminals: notices take less room over the panes
    CSS = """
    LoomApp.-narrow Toast { padding: 0 1; margin-top: 0; max-width: 45%; }
    """

    def __init__(
        self,
        path: str | None = None,
        *,
        theme: str | None = None,
        filter_mode: str = "default",
        sessions_dirs: list[str] | None = None,
        only_dirs: bool = False,
        watch: bool = True,
        opening: Opening | None = None,
    ) -> None:
        self._theme_request = theme
        super().__init__()
        #: Textual prints an unexpected exception's traceback on ``error_console`` as it stops:
        #: kept here, written to the log by ``run``
        self._crash_report = io.StringIO()
        self.error_console = Console(
            file=self._crash_report, markup=False, highlight=False, width=120, color_system=None
        )
        # NO_COLOR: Textual's monochrome filter fails on unstyled segments; ours does not
        self._safe_filters = SafeFilters()
        #: drawn without colours: the cursor row is shown in reverse video
        self.monochrome = monochrome(super().get_line_filters())
        self.start_path = path
        #: ``path``'s opening, started before Textual (``formats/opening``), for its first open
        self._start_opening = opening
        self.filter_mode = filter_mode
        self.sessions_dirs = list(sessions_dirs or [])
        #: ``loomtui DIR``: the picker lists that directory alone, not the usual roots too
        self.only_dirs = only_dirs and bool(self.sessions_dirs)
        self.follow_files = watch
        self.user_keymap: dict[str, str] = {}
        self.theme_sources: dict[str, str] = {}
        self._pending_notices: list[tuple[str, str]] = []
        self.collector = IdleCollector()
        self._register_themes()

    # themes --------------------------------------------------------------------------------
    def get_theme_variable_defaults(self) -> dict[str, str]:
        """pi's role colours as CSS variables (``$loom-accent`` …), for themes that do not set them:
        the one fallback, derived from the current theme's own colours (``themes.tree_colors``).
        Textual asks again on every theme change; the drawn lines take them through their
        component classes (``widgets/roles.py``)."""
        return {variable_name(role): value for role, value in tree_colors(self.current_theme).items()}

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's enabled line filters with its monochrome filter made safe (``app/filters.py``);
        every widget reads its filters through this public hook."""
        return self._safe_filters(super().get_line_filters())

    def _register_themes(self) -> None:
        loaded = load_themes()
        for theme in loaded.themes.values():
            self.register_theme(theme)
        self.theme_sources = dict(loaded.sources)
        for problem in loaded.problems:
            self._pending_notices.append((problem, "theme file ignored"))
        for ignored in loaded.ignored:
            self._pending_notices.append((ignored, "theme"))
        if DEFAULT_THEME not in self.available_themes:  # no bundled themes found: a built-in fallback
            self.register_theme(Theme(name=DEFAULT_THEME, primary="#5f87ff", accent="#00d7ff", dark=True))
        name, problem = resolve_theme_name(
            self._theme_request or os.environ.get("LOOMTUI_THEME"), self.available_themes
        )
        if problem:
            self._pending_notices.append((problem, "theme"))
        self.theme = name

    def set_theme(self, name: str) -> None:
        if name in self.available_themes:
            self.theme = name
            self.notify(f"Theme: {name}", timeout=2)

    # startup -------------------------------------------------------------------------------
    def on_mount(self) -> None:
        self.collector.start(self)
        keymap_overrides, problems = load_user_keymap()
        self.user_keymap = keymap_overrides
        if keymap_overrides:
            self.set_keymap(keymap.textual_keymap(keymap_overrides))
        for problem in problems:
            self._pending_notices.append((problem, "keymap"))
        for message, title in self._pending_notices:
            self.notify(message, title=title, severity="warning", timeout=10)
        self._pending_notices.clear()
        if self.start_path:
            opening, self._start_opening = self._start_opening, None
            self.open_session_file(self.start_path, opening=opening)
        else:
            self.open_picker()

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < 100, "-narrow")

    def on_unmount(self) -> None:
        self.collector.stop()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.MouseDown, events.MouseScrollDown, events.MouseScrollUp)):
            self.collector.input_seen()
        await super().on_event(event)

    def open_picker(self) -> None:
        """The session picker (it lists the bundled samples when the machine has no sessions)."""
        from loomtui.app.screens.picker import PickerScreen

        self.push_screen(PickerScreen(self.sessions_dirs, only=self.only_dirs))

    def open_session_file(
        self, path: str, select_id: str | list[str] | None = None, opening: Opening | None = None
    ) -> BrowserScreen:
        """Open ``path`` in a new browser on top of the current screen (Esc returns); with
        ``select_id``, that entry (or its nearest visible ancestor) is selected once loaded. A
        bundled sample is never opened itself: the user's copy is (``app/samples.py``)."""
        if samples.is_bundled(path):
            if opening is not None:
                opening.cancel()
                opening = None
            path = samples.user_copy(path)
            self.notify(
                f"A bundled sample: opened your copy, {path}, so that nothing is written into loomtui itself.",
                title="Sample session",
                timeout=8,
            )
        screen = BrowserScreen(path, filter_mode=self.filter_mode, select_id=select_id, opening=opening)
        self.push_screen(screen)
        return screen

    def on_session_opened(self, event: SessionOpened) -> None:
        """Follow the file while it is open (``loomtui.app.watch``)."""
        if not self.follow_files:
            return
        from loomtui.app import watch

        try:
            watch.start(event.browser)
        except Exception as exc:
            self.log_error(exc)
            self.notify(f"Live follow is off: {exc}", severity="warning", timeout=6)

    def notify(self, message: str, *, title: str = "", **kwargs: Any) -> None:  # type: ignore[override]
        """Every notice made printable (it may quote a label, a path, an error about the file)
        and shown exactly as written, never as markup: ``[agents]`` or ``\\[`` stay what they are.
        The one place for it: a screen's or a widget's ``notify`` ends here, with ``markup=True``
        passed by Textual's ``Widget.notify`` whatever the caller said; loomtui's notices are
        plain text, so it is overridden here."""
        kwargs["markup"] = False
        super().notify(printable(str(message), keep_lines=True), title=printable(str(title)), **kwargs)

    def hold_notice(self, message: str, *, title: str = "") -> Notification:
        """A notice that stays until ``withdraw_notice`` (work that takes as long as it takes,
        such as writing the HTML page of a big session), plain text as ``notify``'s."""
        notice = Notification(printable(message, keep_lines=True), printable(title), "information", HELD, markup=False)
        self.post_message(Notify(notice))
        return notice

    def withdraw_notice(self, notice: Notification) -> None:
        """Let a ``hold_notice`` expire now: the next notice (the work's result, which follows at
        once) takes it off the screen, as Textual drops expired notices when one is added."""
        notice.timeout = max(0.0, time.time() - notice.raised_at)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Of Textual's own palette entries only the screenshot, worded as loomtui's are: its
        Theme and Quit are loomtui's theme and quit entries already, its Keys panel repeats F1's
        help, and Maximize (which nothing else undoes but the palette) is not a loomtui view."""
        yield SystemCommand(
            "screenshot: save the screen as an SVG picture",
            "in ~/Downloads, or the current directory without one",
            lambda: self.set_timer(0.1, self.deliver_screenshot),
        )

    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None:
        """The palette's Screenshot: saved in the Downloads folder, or in the current directory
        where there is none (a fresh home), and the notice says where it went."""
        from platformdirs import user_downloads_path

        where = path
        fallback = False
        if where is None:
            downloads = user_downloads_path()
            fallback = not downloads.is_dir()
            where = os.getcwd() if fallback else str(downloads)
        try:
            saved = self.save_screenshot(filename, where, time_format)
        except OSError as exc:
            self.notify(f"Screenshot not saved: {exc}", title="Screenshot", severity="error", timeout=8)
            return None
        note = " (there is no Downloads folder: saved in the current directory)" if fallback else ""
        self.notify(f"Saved the screenshot to {os.path.abspath(saved)}{note}", title="Screenshot", timeout=8)
        return saved

    # actions -------------------------------------------------------------------------------
    def action_help(self) -> None:
        from loomtui.app.screens.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            return
        self.push_screen(HelpScreen(self.user_keymap))

    async def action_quit(self) -> None:
        """Ctrl+Q: quit; with a leaf moved (Enter) and not persisted, ask first."""
        from loomtui.app.screens.dialogs import ConfirmDialog

        moved = [
            s
            for s in self.screen_stack
            if isinstance(s, BrowserScreen)
            and s.user_moved_leaf
            and s.model is not None
            and s.manager is not None
            and s.manager.path is not None
            and s.model.leaf_id != s.manager.index.leaf_id
        ]
        if not moved or any(isinstance(s, ConfirmDialog) for s in self.screen_stack):
            self.exit()
            return
        b = moved[-1]
        assert b.model is not None and b.manager is not None
        keys = keymap.said_keys(keymap.SPEC_BY_ID["browser.persist-leaf"], self.user_keymap)
        body = (
            f"The leaf was moved to {b.model.leaf_id or '(before the first entry)'} and not persisted: "
            f"pi will resume {os.path.basename(b.path)} at {b.manager.index.leaf_id}, its last entry.\n\n"
            f"Quit anyway? (Esc stays; {keys} persists the leaf)"
        )

        def done(yes: bool | None) -> None:
            if yes:
                self.exit()

        self.push_screen(ConfirmDialog("Quit without persisting the leaf?", body, "Quit"), done)

    # errors --------------------------------------------------------------------------------
    def log_error(self, exc: BaseException) -> Path | None:
        """Write a traceback to the log file (never to the screen)."""
        return self.log_text("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))

    def log_text(self, text: str) -> Path | None:
        try:
            d = log_dir()
            d.mkdir(parents=True, exist_ok=True)
            path = d / "errors.log"
            with open(path, "a", encoding="utf-8") as f:
                f.write(f"--- {datetime.now().isoformat()}\n")
                f.write(text if text.endswith("\n") else text + "\n")
            return path
        except OSError:
            return None

    def run(self, *args: Any, **kwargs: Any) -> int | None:
        """Run the app; after an unexpected exception, the traceback Textual prints on its error
        console (``error_console``, kept in memory here) goes to the log file, and the terminal
        gets one readable line."""
        result = super().run(*args, **kwargs)
        report = self._crash_report.getvalue()
        if report.strip():
            self._crash_report.seek(0)
            self._crash_report.truncate()
            where = self.log_text(report)
            last = next((ln.strip() for ln in reversed(report.splitlines()) if ln.strip()), "")
            msg = f"loomtui stopped after an internal error: {last}" if last else "loomtui stopped"
            print(msg + (f" (details in {where})" if where is not None else ""), file=sys.stderr)
        return result
