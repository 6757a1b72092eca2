"""The command palette (Ctrl+P): every action, titled with its current state, in one style
(lowercase, "…" where a dialog asks first), each with its keys where it has some."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from loomtui.app.keymap import SPEC_BY_ID, display_keys
from loomtui.app.screens.loom_tools import COMPARE_PROMPT

if TYPE_CHECKING:
    from loomtui.app.app import LoomApp


Command = tuple[str, Callable[[], object], str]

#: the binding of each of pi's filters (a source's own modes have none: Ctrl+O cycles to them)
FILTER_KEYS = {
    "default": "browser.filter-default",
    "no-tools": "browser.filter-no-tools",
    "user-only": "browser.filter-user-only",
    "labeled-only": "browser.filter-labeled-only",
    "all": "browser.filter-all",
}


class LoomCommands(Provider):
    """posting-style provider: the list is rebuilt from the screen's state each time."""

    @staticmethod
    def _with_note(keys: str, note: str) -> str:
        """A command's help: its keys first, then what is worth saying."""
        return "  ·  ".join(part for part in (keys, note) if part)

    def _keys(self, binding_id: str) -> str:
        app = cast("LoomApp", self.app)
        spec = SPEC_BY_ID.get(binding_id)
        return display_keys(spec, app.user_keymap) if spec else ""

    def commands(self) -> list[Command]:
        from loomtui.app.screens.browser import BrowserScreen

        app = cast("LoomApp", self.app)
        screen = self.screen
        out: list[Command] = []
        if isinstance(screen, BrowserScreen) and screen.model is not None:
            model = screen.model
            for mode in model.modes:
                current = model.mode == mode
                out.append(
                    (
                        f"{'● ' if current else '  '}filter: {mode}",
                        partial(screen.action_set_filter, mode),
                        self._with_note(
                            self._keys(FILTER_KEYS[mode]) if mode in FILTER_KEYS else "",
                            "the current filter" if current else "",
                        )
                        or f"{self._keys('browser.filter-next')} cycles the filters",
                    )
                )
            state = "on" if model.show_label_times else "off"
            out.append(
                (
                    f"label timestamps: {state} (toggle)",
                    screen.action_toggle_label_times,
                    self._keys("browser.label-times"),
                )
            )
            if model.selected_entry is not None:
                out += self._entry_commands(screen)
            out += self._loom_commands(screen)
            out += self._leaf_commands(screen)
            if model.query:
                out.append((f"clear the search ({model.query!r})", screen.action_escape, self._keys("browser.escape")))
            out += self._session_commands(screen)
            changes = screen.bookmark_changes()
            if changes is not None:
                out.append(
                    (
                        f"save bookmarks to the loom file ({changes} label change{'s' if changes != 1 else ''})…",
                        screen.action_save_bookmarks,
                        self._keys("browser.persist-leaf"),
                    )
                )
            from loomtui.app.screens.source_actions import palette_commands

            out.extend(palette_commands(screen))
            out.append(self._diagnostics_command(screen))
            out.append(
                ("expand truncated output in the detail pane", screen.action_expand_detail, self._keys("detail.expand"))
            )
            out.append(
                (
                    "open / close the thinking blocks in the detail pane",
                    screen.action_toggle_thinking,
                    self._keys("detail.thinking"),
                )
            )
            out.append(
                ("switch focus: tree / detail pane", screen.action_switch_focus, self._keys("browser.switch-focus"))
            )
            if screen.has_screen_below:
                out.append(("back to the session list", screen.action_back, self._keys("browser.escape")))
        for name in sorted(app.available_themes):
            mark = "● " if app.theme == name else "  "
            out.append(
                (
                    f"{mark}theme: {name}",
                    partial(app.set_theme, name),
                    "current theme" if app.theme == name else app.theme_sources.get(name, "built into Textual"),
                )
            )
        out.append(("help: every key", app.action_help, self._keys("app.help")))
        out.append(("quit", app.action_quit, self._keys("app.quit")))
        return out

    def _session_commands(self, screen: Any) -> list[Command]:
        """The parent session of a fork (or, in its help, why there is none)."""
        controller = screen.controller
        why = "" if screen.parent_ref() or controller is None else controller.not_a_fork
        return [
            ("open parent session", screen.action_open_parent, self._with_note(self._keys("browser.open-parent"), why))
        ]

    def _diagnostics_command(self, screen: Any) -> Command:
        """F2, with how many diagnostics the reader left, in the source's words."""
        manager = screen.manager
        said = manager.source.diagnostics_said(len(manager.diagnostics)) if manager is not None else "0"
        return (f"diagnostics: {said}", screen.action_show_diagnostics, self._keys("browser.diagnostics"))

    def _leaf_commands(self, screen: Any) -> list[Command]:
        """Persisting the leaf (a pi file only) and undoing Enter."""
        out: list[Command] = []
        leaf = screen.controller.shown_leaf  # the header's leaf, the one Ctrl+S names
        if screen.controller.source.can_append and screen.offered("persist_leaf"):
            out.append(
                (
                    f"persist the leaf ({leaf or 'before the first entry'}) so {screen.controller.agent} resumes there…",
                    screen.action_persist_leaf,
                    self._keys("browser.persist-leaf"),
                )
            )
        if screen.user_moved_leaf:
            out.append(
                (
                    "follow the file's leaf again",
                    screen.action_follow_file_leaf,
                    "undo Enter: the leaf follows the file's last entry",
                )
            )
        return out

    def _entry_commands(self, screen: Any) -> list[Command]:
        """What the selected entry offers; the branch export only where the source has one."""
        source = screen.controller.source if screen.controller is not None else None
        out: list[Command] = []
        if source is None or source.leaf_moves:  # else Enter opens what a row names (the source's commands)
            out.append(("move the leaf to the selected entry", screen.action_move_leaf, self._keys("browser.select")))
        if screen.offered("edit_label"):
            out.append(("edit the label of the selected entry…", screen.action_edit_label, self._keys("browser.label")))
        if screen.offered("export_branch"):
            out.append(
                (
                    f"export the branch ending at the selected entry as {screen.controller.source.export_as}…",
                    screen.action_export_branch,
                    self._keys("browser.export"),
                )
            )
        if screen.offered("resume_here"):
            out.append(
                (
                    "resume the agent at the selected entry (it runs in this terminal)…",
                    screen.action_resume_here,
                    self._keys("browser.resume"),
                )
            )
            out.append(
                (
                    "carry the marked branch onto the selected one (a branch summary)…",
                    screen.action_carry_branch,
                    self._keys("browser.carry"),
                )
            )
        out.append(("copy the selected message's text", screen.action_copy_message, self._keys("browser.copy-message")))
        out.append(
            ("copy the selected entry's text, whatever it is", screen.action_copy_text, self._keys("browser.copy"))
        )
        what = source.display_name if source is not None else "session"  # in its own words: "OCP run"
        out.append(
            (
                f"export HTML: the {what} as one page, opened at the selected entry",
                screen.action_export_html,
                self._keys("browser.export-html"),
            )
        )
        return out

    def _loom_commands(self, screen: Any) -> list[Command]:
        """Compare, go to, hoist, jumps, archive, reader, compact (app/screens/loom_tools.py)."""
        model = screen.model
        k = self._keys
        out: list[Command] = [
            (
                COMPARE_PROMPT,
                screen.action_compare_prompt,
                f"{k('browser.compare')} compares with the marked entry ({k('browser.mark')})",
            ),
            ("go to an entry by id or id prefix…", screen.action_goto, k("browser.goto")),
            (
                f"{'unmark' if model.marked_id == model.selected_id else 'mark'} the selected entry for a comparison",
                screen.action_mark,
                k("browser.mark"),
            ),
        ]
        if model.marked_id is not None and model.marked_id != model.selected_id:
            out.append(
                (
                    f"compare the marked entry ({model.marked_id}) with the selected one",
                    partial(screen.open_compare, model.marked_id, model.selected_id),
                    k("browser.compare"),
                )
            )
        if model.hoist_id is None:
            out.append(
                ("hoist: show only the subtree under the selected entry", screen.action_hoist, k("browser.hoist"))
            )
        else:
            out.append((f"unhoist (hoisted at {model.hoist_id})", screen.unhoist, k("browser.unhoist")))
        out += [
            ("next labelled entry", partial(screen.action_next_label, 1), k("browser.next-label")),
            ("previous labelled entry", partial(screen.action_next_label, -1), k("browser.prev-label")),
            ("next branch point", partial(screen.action_next_branch, 1), k("browser.next-branch")),
            ("previous branch point", partial(screen.action_next_branch, -1), k("browser.prev-branch")),
            ("back to the previous place", partial(screen.action_history, -1), k("browser.back")),
            ("forward to the next place", partial(screen.action_history, 1), k("browser.forward")),
            (
                f"compact indentation: {'on' if model.compact else 'off'} (toggle)",
                screen.action_compact,
                k("browser.compact"),
            ),
            ("reader mode: the active branch as one transcript", screen.action_reader, k("browser.reader")),
        ]
        if screen.offered("archive"):
            out.append(
                ("archive / restore the branch at the selected entry…", screen.action_archive, k("browser.archive"))
            )
        if screen.offered("archive") or model.archive.ids():
            out.append(
                (
                    f"archived branches: {'shown' if model.show_archived else 'hidden'} (toggle)",
                    screen.action_toggle_archived,
                    k("browser.show-archived"),
                )
            )
        return out

    async def discover(self) -> Hits:
        for title, callback, help_text in self.commands():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, callback, help_text in self.commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)
