"""Every key binding of the app, with an id, and user overrides from ``keymap.toml``.

The keys follow pi's /tree (docs/formats.md §9.6): in the tree, printable keys type into the
search query, so every action sits on a key a query cannot use (Shift+L and Shift+T are capital
letters pi never lets into the query either). Users remap a binding by id in
``~/.config/loomtui/keymap.toml``::

    [keys]
    "browser.export" = "ctrl+x"
    "tree.page-down" = "pagedown,ctrl+f"

(a top-level ``"id" = "keys"`` works too). Unknown ids and malformed values are reported, not
fatal.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from textual.binding import Binding

from loomtui.app.themes import config_dir


@dataclass(frozen=True)
class KeySpec:
    id: str
    keys: str
    action: str
    description: str
    #: where the binding lives: "app", "browser" (the browser screen), "tree", "detail"
    scope: str
    show: bool = False
    key_display: str | None = None
    priority: bool = False


SPECS: tuple[KeySpec, ...] = (
    # the tree (focused)
    KeySpec("tree.up", "up", "cursor(-1)", "move up (wraps)", "tree", key_display="↑"),
    KeySpec("tree.down", "down", "cursor(1)", "move down (wraps)", "tree", key_display="↓"),
    KeySpec("tree.page-up", "left,pageup,ctrl+b", "page(-1)", "page up", "tree", key_display="←/PgUp"),
    KeySpec("tree.page-down", "right,pagedown,ctrl+f", "page(1)", "page down", "tree", key_display="→/PgDn"),
    KeySpec("tree.home", "home", "home", "first row", "tree", key_display="Home"),
    KeySpec("tree.end", "end", "end", "last row", "tree", key_display="End"),
    KeySpec("tree.fold-or-up", "ctrl+left,alt+left", "fold_or_up", "fold, or jump to the previous branch segment",
            "tree", key_display="^←/Alt+←"),
    KeySpec("tree.unfold-or-down", "ctrl+right,alt+right", "unfold_or_down",
            "unfold, or jump to the next branch segment", "tree", key_display="^→/Alt+→"),
    KeySpec("tree.backspace", "backspace", "backspace", "delete the last search character", "tree",
            key_display="Backspace"),
    # the browser screen (tree or detail focused)
    KeySpec("browser.select", "enter", "move_leaf", "move the leaf here (a user message: to its parent)",
            "browser", show=True, key_display="Enter"),
    KeySpec("browser.label", "L,shift+l", "edit_label", "edit the label (empty clears)", "browser", show=True,
            key_display="⇧L"),
    KeySpec("browser.label-times", "T,shift+t", "toggle_label_times", "show label timestamps", "browser",
            key_display="⇧T"),
    KeySpec("browser.filter-default", "ctrl+d", "set_filter('default')", "filter: default", "browser",
            key_display="^D"),
    KeySpec("browser.filter-no-tools", "ctrl+t", "toggle_filter('no-tools')", "filter: no tool results ↔ default",
            "browser", key_display="^T"),
    KeySpec("browser.filter-user-only", "ctrl+u", "toggle_filter('user-only')", "filter: user messages ↔ default",
            "browser", key_display="^U"),
    KeySpec("browser.filter-labeled-only", "ctrl+l", "toggle_filter('labeled-only')",
            "filter: labeled entries ↔ default", "browser", key_display="^L"),
    KeySpec("browser.filter-all", "ctrl+a", "toggle_filter('all')", "filter: everything ↔ default", "browser",
            key_display="^A"),
    KeySpec("browser.filter-next", "ctrl+o", "cycle_filter(1)", "next filter", "browser", key_display="^O"),
    KeySpec("browser.filter-prev", "ctrl+shift+o", "cycle_filter(-1)", "previous filter", "browser",
            key_display="⇧^O"),
    KeySpec("browser.escape", "escape", "escape", "clear the search (else back to the session list)", "browser",
            key_display="Esc"),
    KeySpec("browser.export", "ctrl+e", "export_branch", "export the branch ending here to a new session",
            "browser", show=True, key_display="^E"),
    KeySpec("browser.export-html", "E,shift+e", "export_html", "export the session as an HTML page (at this entry)",
            "browser", key_display="⇧E"),
    KeySpec("browser.persist-leaf", "ctrl+s", "persist_leaf", "persist the leaf (pi resumes there)", "browser",
            show=True, key_display="^S"),
    KeySpec("browser.copy", "ctrl+y", "copy_text", "copy the entry's text", "browser", key_display="^Y"),
    KeySpec("browser.open-parent", "ctrl+g", "open_parent", "open the parent session of a fork",
            "browser", key_display="^G"),
    KeySpec("browser.diagnostics", "f2", "show_diagnostics", "list lines the reader repaired or skipped",
            "browser", key_display="F2"),
    KeySpec("browser.detail-wider", "shift+left", "resize_detail(4)", "widen the detail pane (or drag its border)",
            "browser", key_display="⇧←"),
    KeySpec("browser.detail-narrower", "shift+right", "resize_detail(-4)", "narrow the detail pane",
            "browser", key_display="⇧→"),
    KeySpec("browser.switch-focus", "tab", "switch_focus", "switch between tree and detail pane", "browser",
            key_display="Tab"),
    KeySpec("browser.switch-focus-back", "shift+tab", "switch_focus", "switch between tree and detail pane",
            "browser", key_display="⇧Tab"),
    # loom tools (browser). Printable keys act while the search is empty; with a query they type
    # into it (a query may start with a space to begin with one of them)
    KeySpec("browser.mark", "m", "mark", "mark the entry for a comparison (again: unmark)", "browser",
            key_display="m"),
    KeySpec("browser.compare", "c", "compare", "compare the marked entry's branch with this one", "browser",
            key_display="c"),
    KeySpec("browser.hoist", "h", "hoist", "hoist: show only the subtree under this entry", "browser",
            key_display="h"),
    KeySpec("browser.unhoist", "H,shift+h", "unhoist", "unhoist: the whole tree again (Esc too)", "browser", key_display="⇧H"),
    KeySpec("browser.next-label", "right_square_bracket", "next_label(1)", "next labelled entry", "browser",
            key_display="]"),
    KeySpec("browser.prev-label", "left_square_bracket", "next_label(-1)", "previous labelled entry", "browser",
            key_display="["),
    KeySpec("browser.next-branch", "right_curly_bracket", "next_branch(1)", "next branch point", "browser",
            key_display="}"),
    KeySpec("browser.prev-branch", "left_curly_bracket", "next_branch(-1)", "previous branch point", "browser",
            key_display="{"),
    KeySpec("browser.back", "less_than_sign", "history(-1)", "back to the previous place visited", "browser",
            key_display="<"),
    KeySpec("browser.forward", "greater_than_sign", "history(1)", "forward again", "browser", key_display=">"),
    KeySpec("browser.goto", "number_sign", "goto", "go to an entry by id (or id prefix)", "browser",
            key_display="#"),
    KeySpec("browser.archive", "A,shift+a", "archive", "archive this branch (hide it), or restore it", "browser",
            key_display="⇧A"),
    KeySpec("browser.show-archived", "alt+r", "toggle_archived", "show / hide archived branches", "browser",
            key_display="Alt+R"),
    KeySpec("browser.reader", "ctrl+r", "reader", "reader mode: the active branch as one transcript", "browser",
            key_display="^R"),
    KeySpec("browser.compact", "ctrl+w", "compact", "compact indentation: deep rows show their depth as a number",
            "browser", key_display="^W"),
    # the compare screen
    KeySpec("compare.up", "up", "cursor(-1)", "previous block", "compare", key_display="↑"),
    KeySpec("compare.down", "down", "cursor(1)", "next block", "compare", key_display="↓"),
    KeySpec("compare.page-up", "pageup,left", "page(-1)", "page up", "compare", key_display="PgUp"),
    KeySpec("compare.page-down", "pagedown,right,space", "page(1)", "page down", "compare", key_display="PgDn"),
    KeySpec("compare.home", "home", "home", "first block", "compare", key_display="Home"),
    KeySpec("compare.end", "end", "end", "last block", "compare", key_display="End"),
    KeySpec("compare.next-change", "n", "next_change(1)", "next change", "compare", key_display="n"),
    KeySpec("compare.prev-change", "p", "next_change(-1)", "previous change", "compare", key_display="p"),
    KeySpec("compare.activate", "enter", "activate", "open a fold / show a long entry whole", "compare",
            key_display="Enter"),
    KeySpec("compare.goto", "g", "goto_entry", "back to the tree at this entry", "compare-screen", key_display="g"),
    KeySpec("compare.close", "escape,q", "close", "back to the tree", "compare-screen", key_display="Esc"),
    # reader mode
    KeySpec("reader.up", "up", "scroll(-1)", "scroll up", "reader", key_display="↑"),
    KeySpec("reader.down", "down", "scroll(1)", "scroll down", "reader", key_display="↓"),
    KeySpec("reader.page-up", "pageup,left", "page(-1)", "page up", "reader", key_display="PgUp"),
    KeySpec("reader.page-down", "pagedown,right,space", "page(1)", "page down", "reader", key_display="PgDn"),
    KeySpec("reader.next", "n", "entry(1)", "next entry", "reader", key_display="n"),
    KeySpec("reader.prev", "p", "entry(-1)", "previous entry", "reader", key_display="p"),
    KeySpec("reader.home", "home", "home", "start of the branch", "reader", key_display="Home"),
    KeySpec("reader.end", "end", "end", "end of the branch", "reader", key_display="End"),
    KeySpec("reader.close", "escape,q,ctrl+r", "close", "back to the tree, at the entry read", "reader-screen",
            key_display="Esc"),
    # the detail pane (focused)
    KeySpec("detail.expand", "x", "expand_all", "show truncated outputs in full", "detail", key_display="x"),
    KeySpec("detail.thinking", "t", "toggle_folds", "open / close the thinking blocks", "detail", key_display="t"),
    # the session picker (printable keys type into its filter)
    KeySpec("picker.up", "up", "cursor(-1)", "previous session", "picker", key_display="↑"),
    KeySpec("picker.down", "down", "cursor(1)", "next session", "picker", key_display="↓"),
    KeySpec("picker.page-up", "pageup", "page(-1)", "page up", "picker", key_display="PgUp"),
    KeySpec("picker.page-down", "pagedown", "page(1)", "page down", "picker", key_display="PgDn"),
    KeySpec("picker.home", "ctrl+home", "home", "first session", "picker", key_display="^Home"),
    KeySpec("picker.end", "ctrl+end", "end", "last session", "picker", key_display="^End"),
    KeySpec("picker.search", "ctrl+f", "toggle_search", "search the text of all sessions", "picker", show=True,
            key_display="^F"),
    KeySpec("picker.open-parent", "ctrl+o", "open_parent", "open the parent session of a fork", "picker",
            show=True, key_display="^O"),
    KeySpec("picker.rescan", "ctrl+r", "rescan", "read the session directories again", "picker",
            key_display="^R"),
    KeySpec("picker.escape", "escape", "escape", "leave the search, else clear the filter", "picker",
            key_display="Esc"),
    # the whole app
    KeySpec("app.help", "f1", "help", "help: every key", "app", show=True, key_display="F1"),
    KeySpec("app.palette", "ctrl+p", "command_palette", "command palette", "app", show=True, key_display="^P",
            priority=True),
    KeySpec("app.quit", "ctrl+q", "quit", "quit", "app", show=True, key_display="^Q", priority=True),
)

SPEC_BY_ID = {s.id: s for s in SPECS}


def bindings(scope: str) -> list[Binding]:
    return [
        Binding(s.keys, s.action, s.description, show=s.show, key_display=s.key_display, priority=s.priority,
                id=s.id)
        for s in SPECS
        if s.scope == scope
    ]


def keymap_path() -> Path:
    return config_dir() / "keymap.toml"


def load_user_keymap(path: Path | None = None) -> tuple[dict[str, str], list[str]]:
    """The user's overrides (id → keys) and what was wrong with the file, if anything."""
    path = path or keymap_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, []
    except OSError as exc:
        return {}, [f"{path}: {exc.strerror or exc}"]
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        return {}, [f"{path.name}: not valid TOML ({exc}); using the default keys"]
    table = data.get("keys", data) if isinstance(data.get("keys"), dict) else data
    keymap: dict[str, str] = {}
    problems: list[str] = []
    for binding_id, keys in table.items():
        if binding_id == "keys":
            continue
        if binding_id not in SPEC_BY_ID:
            problems.append(f"{path.name}: unknown binding id {binding_id!r}")
            continue
        if isinstance(keys, list):
            keys = ",".join(str(k) for k in keys)
        if not isinstance(keys, str) or not keys.strip():
            problems.append(f"{path.name}: {binding_id} needs a key string like \"ctrl+x\"")
            continue
        keymap[binding_id] = ",".join(k.strip() for k in keys.split(",") if k.strip())
    return keymap, problems


def display_keys(spec: KeySpec, keymap: dict[str, str]) -> str:
    """The keys to show in help for ``spec``, honouring the user's keymap."""
    override = keymap.get(spec.id)
    if override:
        return ", ".join(override.split(","))
    return spec.key_display or spec.keys
