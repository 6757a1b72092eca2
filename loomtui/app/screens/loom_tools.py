"""Loom tools in the browser: compare, hoist, jumps and history, archive, reader, compact.

A mixin of ``BrowserScreen``: it uses the screen's ``model``, ``manager`` and ``tree`` and its
``_rows_changed``/``_refresh_bars``/``_update_detail`` hooks; the rules themselves live in
``view`` (``compare``, ``jumps``, ``archive``, ``compact``, ``reader``, the model's hoist).

Their keys never type (Alt+letter, ``app/keymap.py``): every printable key goes into the
search, as in pi's /tree, so a query may start with any letter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widgets import Static

from loomtui.session.errors import LoomError
from loomtui.view.jumps import (
    AmbiguousPrefix,
    History,
    next_branch_point,
    next_label,
    not_shown_words,
    resolve_prefix,
)
from loomtui.view.printable import printable

#: the palette's entry that compares the selected entry's branch with one named by id (the
#: Alt+C notice quotes it, so the words typed into the palette find it)
COMPARE_PROMPT = "compare the selected entry's branch with another, named by id…"

if TYPE_CHECKING:
    from loomtui.app.widgets.tree_view import TreeView
    from loomtui.session.manager import SessionManager
    from loomtui.view.model import TreeModel


def _cut(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


class LoomTools:
    """Actions and state of the loom tools (mixed into the browser screen)."""

    model: TreeModel | None
    manager: SessionManager | None
    tree: TreeView
    _history: History | None = None

    if TYPE_CHECKING:  # hooks of the screen the mixin is part of
        controller: Any

        def _apply(self, outcome: Any) -> None: ...
        def _rows_changed(self) -> None: ...
        def _refresh_bars(self) -> None: ...
        def _update_detail(self, *, immediate: bool = False, force: bool = False) -> None: ...
        def _keys(self, binding_id: str) -> str: ...
        def notify(self, message: str, **kw: Any) -> None: ...

    @property
    def history(self) -> History:
        if self._history is None:
            self._history = History()
        return self._history

    def _ui(self) -> Any:
        return self  # the screen (Textual's app, push_screen, query_one)

    # marking and comparing ----------------------------------------------------------------
    def action_mark(self) -> None:
        model = self.model
        assert model is not None
        marked = model.toggle_mark()
        self.tree.model_changed()
        if marked is None:
            self.notify("Mark cleared.", timeout=3)
        else:
            carry = self._ui().offered("carry_branch")
            also = f" ({self._keys('browser.carry')} carries it onto that branch)" if carry else ""
            self.notify(
                f"Marked {marked} for a comparison: select another entry and press {self._keys('browser.compare')}"
                f"{also}.",
                timeout=5,
            )

    def action_compare(self) -> None:
        model = self.model
        assert model is not None
        sel = model.selected_id
        if model.marked_id is None or sel is None:
            self.notify(
                f"Mark an entry with {self._keys('browser.mark')} first, then select another and press "
                f"{self._keys('browser.compare')} (or use “{COMPARE_PROMPT}” in the command palette).",
                severity="warning",
                timeout=6,
            )
            return
        if sel == model.marked_id:
            self.notify("Select an entry other than the marked one to compare with.", severity="warning", timeout=5)
            return
        self.open_compare(model.marked_id, sel)

    def action_compare_prompt(self) -> None:
        """The palette's ``COMPARE_PROMPT``: the selected entry's branch with one named by id."""
        from loomtui.app.screens.prompt import PromptDialog

        model = self.model
        if model is None or model.selected_id is None:
            return
        first = model.marked_id if model.marked_id not in (None, model.selected_id) else None

        def done(value: str | None) -> None:
            if not value:
                return
            entry = self._resolve(value)
            if entry is not None:
                assert model.selected_id is not None
                self.open_compare(model.selected_id, entry.id)

        hint = f" (Enter alone: the marked entry {first})" if first else ""
        self._ui().app.push_screen(
            PromptDialog("Compare with the branch ending at…", f"entry id or id prefix{hint}", first or ""), done
        )

    def open_compare(self, a_id: str, b_id: str) -> None:
        from loomtui.app.screens.compare import CompareScreen
        from loomtui.view.compare import compare
        from loomtui.view.text import display_text

        manager = self.manager
        assert manager is not None and self.model is not None
        try:
            cmp = compare(manager, a_id, b_id)
        except (KeyError, LoomError, OSError) as exc:
            self.notify(f"Cannot compare: {exc}", severity="error", timeout=8)
            return
        index = manager.index
        tool_calls = self.model.flat.tool_calls

        def text(eid: str) -> str:
            e = index.by_id.get(eid)
            return display_text(e, tool_calls) if e is not None else eid

        def done(entry_id: str | None) -> None:
            if entry_id:
                self.jump_to_id(entry_id)

        self._ui().app.push_screen(CompareScreen(cmp, text(a_id), text(b_id)), done)

    # hoist -------------------------------------------------------------------------------
    def action_hoist(self) -> None:
        model = self.model
        assert model is not None
        sel = model.selected_id
        if sel is None:
            return
        if model.hoist_id == sel:
            self.notify(
                f"Already hoisted here; {self._keys('browser.unhoist')} or Esc shows the whole tree.", timeout=4
            )
            return
        model.hoist(sel)
        self._rows_changed()
        self._show_breadcrumb()

    def action_unhoist(self) -> None:
        if not self.unhoist():
            self.notify("Nothing is hoisted.", timeout=3)

    def unhoist(self) -> bool:
        model = self.model
        if model is None or model.hoist_id is None:
            return False
        was = model.selected_id
        model.hoist(None)
        if was is not None:
            model.select_id(was)
        self._rows_changed()
        self.tree.scroll_to_selected(center=True)
        self._show_breadcrumb()
        return True

    def breadcrumb(self, limit: int = 3) -> str:
        """The hoisted entry and the conversation above it (bookkeeping entries left out)."""
        from loomtui.view.compare import SKIPPED_TYPES
        from loomtui.view.text import display_text

        model = self.model
        if model is None or model.hoist_id is None:
            return ""
        path = [
            e
            for e in model.index.path_to(model.hoist_id)
            if e.type not in SKIPPED_TYPES and e.role != "toolResult" and e.id != model.hoist_id
        ]
        path.append(model.index.by_id[model.hoist_id])
        crumbs = [_cut(display_text(e, model.flat.tool_calls), 28) for e in path[-limit:-1]]
        crumbs.append(_cut(display_text(path[-1], model.flat.tool_calls), 60) if path else model.hoist_id)
        if len(path) > limit:
            crumbs.insert(0, "…")
        return printable(" › ".join(crumbs))

    def _show_breadcrumb(self) -> None:
        """The path above the hoisted entry, on a line above the tree (gone when unhoisted)."""
        ui = self._ui()
        bars = ui.query("#hoist-bar")
        text = self.breadcrumb()
        if not text:
            for bar in bars:
                bar.remove()
            return
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append("hoisted: ", style="bold")
        line.append(text)
        line.append(f"   ({self._keys('browser.unhoist')} or Esc: the whole tree)", style="dim")
        if bars:
            bars.first(Static).update(line)
        else:
            bar = Static(line, id="hoist-bar")
            bar.styles.height = 1
            bar.styles.padding = (0, 1)
            ui.mount(bar, before=ui.query_one("#main"))

    # jumps -------------------------------------------------------------------------------
    def action_next_label(self, step: int) -> None:
        model = self.model
        assert model is not None
        row = next_label(model, step)
        if row is None:
            self.notify("No other labelled entry in this view.", timeout=3)
            return
        self.jump_to_row(row)

    def action_next_branch(self, step: int) -> None:
        model = self.model
        assert model is not None
        row = next_branch_point(model, step)
        if row is None:
            self.notify("No other branch point in this view.", timeout=3)
            return
        self.jump_to_row(row)

    def action_history(self, step: int) -> None:
        model = self.model
        assert model is not None
        target = self.history.back(model.selected_id) if step < 0 else self.history.forward(model.selected_id)
        if target is None:
            self.notify("Nothing further back." if step < 0 else "Nothing further forward.", timeout=3)
            return
        self._select(target)

    def action_goto(self) -> None:
        from loomtui.app.screens.prompt import PromptDialog

        def done(value: str | None) -> None:
            if value:
                entry = self._resolve(value)
                if entry is not None:
                    self.jump_to_id(entry.id)

        self._ui().app.push_screen(PromptDialog("Go to entry", "entry id or id prefix"), done)

    def _resolve(self, value: str) -> Any:
        assert self.manager is not None
        try:
            return resolve_prefix(self.manager.index, value)
        except AmbiguousPrefix as exc:
            self.notify(str(exc), severity="warning", timeout=8)
        except KeyError:
            self.notify(f"No entry {value.strip()!r} in this session.", severity="warning", timeout=5)
        return None

    def jump_to_row(self, row: int) -> None:
        model = self.model
        assert model is not None
        before = model.selected_id
        model.select_row(row)
        self.history.jumped(before, model.selected_id)
        self.tree.selection_changed()

    def jump_to_id(self, entry_id: str) -> None:
        """Select ``entry_id``, recorded in the history; a hoist it is outside of is lifted."""
        model = self.model
        assert model is not None
        before = model.selected_id
        if model.row_of(entry_id) is None and model.hoist_id is not None:
            self.unhoist()
        self._select(entry_id)
        self.history.jumped(before, model.selected_id)

    def _select(self, entry_id: str) -> None:
        model = self.model
        assert model is not None
        model.select_id(entry_id)
        if model.selected_id != entry_id:
            self.notify(not_shown_words(model, entry_id), timeout=5)
        self.tree.model_changed(center=True)
        self._refresh_bars()
        self._update_detail(immediate=True)

    # archive -----------------------------------------------------------------------------
    def action_archive(self) -> None:
        """Alt+A: the controller says first what cannot be archived, then asks (its words)."""
        model = self.model
        e = model.selected_entry if model is not None else None
        if e is not None:
            self._apply(self.controller.archive_intent(e.id))

    def action_toggle_archived(self) -> None:
        """Alt+R: the controller toggles (or says why there is nothing to toggle)."""
        if self.model is None or self.controller is None:
            return
        out = self.controller.toggle_archived()
        if out.rows:  # only the rows shown changed: no bars, no detail
            self._rows_changed()
            out.rows = False
        self._apply(out)

    # reader and compact ------------------------------------------------------------------
    def action_reader(self) -> None:
        from loomtui.app.screens.reader import ReaderScreen
        from loomtui.view.reader import Transcript

        model, manager = self.model, self.manager
        if model is None or manager is None:
            return
        # rows without a conversation leaf (an OCP run, the loom map): the selected row's branch
        # and the rows under it
        under = not manager.source.leaf_moves
        selected = model.selected_entry
        leaf_id = selected.id if under and selected is not None else model.leaf_id
        transcript = Transcript(manager, leaf_id, under=under)

        def follow(entry_id: str) -> None:
            model.select_id(entry_id)

        def done(_result: None) -> None:
            self.tree.model_changed(center=True)
            self._refresh_bars()
            self._update_detail(immediate=True)

        # the header's own name for the session (its name, title or file: Claude Code's path is its own)
        controller = self.controller
        title = controller.title_parts(self.path)[0] if controller is not None else (manager.path or "")
        self._ui().app.push_screen(ReaderScreen(transcript, model.selected_entry, follow, title), done)

    def action_compact(self) -> None:
        model = self.model
        if model is None:
            return
        model.compact = not model.compact
        self.tree.remember_compact(model.compact)
        self.tree.model_changed()
        self.notify(
            "Compact indentation on: deep rows show how many levels they are indented as ⋯N."
            if model.compact
            else "Compact indentation off: pi's rows.",
            timeout=3,
        )
