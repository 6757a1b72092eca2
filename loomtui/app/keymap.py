"""Every key binding of the app, with an id, and user overrides from ``keymap.toml``.

The keys follow pi's /tree (docs/formats.md §9.6): in the browser every printable key, capitals
and punctuation included, types into the search query, so every action sits on a key that never
types: Ctrl+letter (pi's filters), Alt+letter (the loom tools, named by their first letter where
it is free), F-keys and the cursor keys. Users remap a binding by id in
``~/.config/loomtui/keymap.toml``::

    [keys]
    "browser.export" = "ctrl+n"
    "tree.page-down" = "pagedown,ctrl+f"

(a top-level ``"id" = "keys"`` works too); ``keymap_file`` reads it. Unknown ids and malformed
values are reported, not fatal.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding
from textual.keys import key_to_character


@dataclass(frozen=True)
class KeySpec:
    id: str
    keys: str
    action: str
    description: str
    #: where the binding lives: "app", "browser" (the browser screen), "tree", "detail", "picker",
    #: "compare" / "compare-screen", "reader" / "reader-screen" (``SCREENS``)
    scope: str
    show: bool = False
    key_display: str | None = None
    priority: bool = False


SPECS: tuple[KeySpec, ...] = (
    # the tree (focused)
    KeySpec("tree.up", "up", "cursor(-1)", "move up (wraps)", "tree", key_display="↑"),
    KeySpec("tree.down", "down", "cursor(1)", "move down (wraps)", "tree", key_display="↓"),
    KeySpec("tree.page-up", "left,pageup,ctrl+b", "page(-1)", "page up", "tree", key_display="←/PgUp/^B"),
    KeySpec("tree.page-down", "right,pagedown,ctrl+f", "page(1)", "page down", "tree", key_display="→/PgDn/^F"),
    KeySpec("tree.home", "home", "home", "first row", "tree", key_display="Home"),
    KeySpec("tree.end", "end", "end", "last row", "tree", key_display="End"),
    KeySpec(
        "tree.fold-or-up",
        "ctrl+left,alt+left",
        "fold_or_up",
        "fold, or jump to the previous branch segment",
        "tree",
        key_display="^←/Alt+←",
    ),
    KeySpec(
        "tree.unfold-or-down",
        "ctrl+right,alt+right",
        "unfold_or_down",
        "unfold, or jump to the next branch segment",
        "tree",
        key_display="^→/Alt+→",
    ),
    KeySpec(
        "tree.backspace", "backspace", "backspace", "delete the last search character", "tree", key_display="Backspace"
    ),
    # the browser screen (tree or detail focused)
    KeySpec(
        "browser.select",
        "enter",
        "move_leaf",
        "move the leaf here (a user message: to its parent)",
        "browser",
        show=True,
        key_display="Enter",
    ),
    KeySpec(
        "browser.label",
        "alt+l",
        "edit_label",
        "edit the label (empty clears)",
        "browser",
        show=True,
        key_display="Alt+L",
    ),
    KeySpec(
        "browser.label-times", "alt+t", "toggle_label_times", "show label timestamps", "browser", key_display="Alt+T"
    ),
    KeySpec(
        "browser.filter-default", "ctrl+d", "set_filter('default')", "filter: default", "browser", key_display="^D"
    ),
    KeySpec(
        "browser.filter-no-tools",
        "ctrl+t",
        "toggle_filter('no-tools')",
        "filter: no tool results ↔ default",
        "browser",
        key_display="^T",
    ),
    KeySpec(
        "browser.filter-user-only",
        "ctrl+u",
        "toggle_filter('user-only')",
        "filter: user messages ↔ default",
        "browser",
        key_display="^U",
    ),
    KeySpec(
        "browser.filter-labeled-only",
        "ctrl+l",
        "toggle_filter('labeled-only')",
        "filter: labeled entries ↔ default",
        "browser",
        key_display="^L",
    ),
    KeySpec(
        "browser.filter-all",
        "ctrl+a",
        "toggle_filter('all')",
        "filter: everything ↔ default",
        "browser",
        key_display="^A",
    ),
    KeySpec("browser.filter-next", "ctrl+o", "cycle_filter(1)", "next filter", "browser", key_display="^O"),
    KeySpec("browser.filter-prev", "ctrl+shift+o", "cycle_filter(-1)", "previous filter", "browser", key_display="⇧^O"),
    KeySpec(
        "browser.escape",
        "escape",
        "escape",
        "clear the search, folds or hoist, else back to the list",
        "browser",
        key_display="Esc",
    ),
    KeySpec(
        "browser.export",
        "ctrl+e",
        "export_branch",
        "export the branch ending here to a new session",
        "browser",
        show=True,
        key_display="^E",
    ),
    KeySpec(
        "browser.export-html",
        "alt+e",
        "export_html",
        "export the session as an HTML page (at this entry)",
        "browser",
        key_display="Alt+E",
    ),
    KeySpec(
        "browser.persist-leaf",
        "ctrl+s",
        "persist_leaf",
        "persist the leaf (pi resumes there)",
        "browser",
        show=True,
        key_display="^S",
    ),
    KeySpec(
        "browser.copy-message",
        "ctrl+x",
        "copy_message",
        "copy the selected message's text",
        "browser",
        key_display="^X",
    ),
    KeySpec(
        "browser.copy",
        "ctrl+y",
        "copy_text",
        "copy the entry's text, whatever it is (tool calls, JSON)",
        "browser",
        key_display="^Y",
    ),
    KeySpec(
        "browser.open-parent", "ctrl+g", "open_parent", "open the parent session of a fork", "browser", key_display="^G"
    ),
    KeySpec(
        "browser.diagnostics",
        "f2",
        "show_diagnostics",
        "list lines the reader repaired or skipped",
        "browser",
        key_display="F2",
    ),
    KeySpec(
        "browser.detail-wider",
        "shift+left",
        "resize_detail(4)",
        "widen the detail pane (or drag its border)",
        "browser",
        key_display="⇧←",
    ),
    KeySpec(
        "browser.detail-narrower",
        "shift+right",
        "resize_detail(-4)",
        "narrow the detail pane",
        "browser",
        key_display="⇧→",
    ),
    KeySpec(
        "browser.switch-focus",
        "tab",
        "switch_focus",
        "switch between tree and detail pane",
        "browser",
        key_display="Tab",
    ),
    KeySpec(
        "browser.switch-focus-back",
        "shift+tab",
        "switch_focus",
        "switch between tree and detail pane",
        "browser",
        key_display="⇧Tab",
    ),
    # loom tools (browser): Alt+letter, never a key that types into the search
    KeySpec(
        "browser.mark",
        "alt+m",
        "mark",
        "mark the entry for a comparison (again: unmark)",
        "browser",
        key_display="Alt+M",
    ),
    KeySpec(
        "browser.compare",
        "alt+c",
        "compare",
        "compare the marked entry's branch with this one",
        "browser",
        key_display="Alt+C",
    ),
    KeySpec(
        "browser.resume",
        "alt+w",
        "resume_here",
        "resume the agent here (it runs in this terminal)",
        "browser",
        key_display="Alt+W",
    ),
    KeySpec(
        "browser.carry",
        "alt+s",
        "carry_branch",
        "carry the marked branch onto this one (a branch summary)",
        "browser",
        key_display="Alt+S",
    ),
    KeySpec(
        "browser.hoist",
        "alt+h",
        "hoist",
        "hoist: show only the subtree under this entry",
        "browser",
        key_display="Alt+H",
    ),
    KeySpec(
        "browser.unhoist", "alt+u", "unhoist", "unhoist: the whole tree again (Esc too)", "browser", key_display="Alt+U"
    ),
    KeySpec("browser.next-label", "alt+n", "next_label(1)", "next labelled entry", "browser", key_display="Alt+N"),
    KeySpec("browser.prev-label", "alt+p", "next_label(-1)", "previous labelled entry", "browser", key_display="Alt+P"),
    KeySpec("browser.next-branch", "alt+j", "next_branch(1)", "next branch point", "browser", key_display="Alt+J"),
    KeySpec("browser.prev-branch", "alt+k", "next_branch(-1)", "previous branch point", "browser", key_display="Alt+K"),
    KeySpec(
        "browser.back", "alt+o", "history(-1)", "back to the previous place visited", "browser", key_display="Alt+O"
    ),
    KeySpec("browser.forward", "alt+i", "history(1)", "forward again", "browser", key_display="Alt+I"),
    KeySpec("browser.goto", "alt+g", "goto", "go to an entry by id (or id prefix)", "browser", key_display="Alt+G"),
    KeySpec(
        "browser.archive",
        "alt+a",
        "archive",
        "archive this branch (hide it), or restore it",
        "browser",
        key_display="Alt+A",
    ),
    KeySpec(
        "browser.show-archived",
        "alt+r",
        "toggle_archived",
        "show / hide archived branches",
        "browser",
        key_display="Alt+R",
    ),
    KeySpec(
        "browser.reader",
        "ctrl+r",
        "reader",
        "reader mode: the active branch as one transcript",
        "browser",
        key_display="^R",
    ),
    KeySpec(
        "browser.compact",
        "ctrl+w",
        "compact",
        "compact indentation: deep rows show how many levels they are indented as a number",
        "browser",
        key_display="^W",
    ),
    # the compare screen
    KeySpec("compare.up", "up", "cursor(-1)", "previous block", "compare", key_display="↑"),
    KeySpec("compare.down", "down", "cursor(1)", "next block", "compare", key_display="↓"),
    KeySpec("compare.page-up", "pageup,left", "page(-1)", "page up", "compare", key_display="PgUp"),
    KeySpec("compare.page-down", "pagedown,right,space", "page(1)", "page down", "compare", key_display="PgDn"),
    KeySpec("compare.home", "home", "home", "first block", "compare", key_display="Home"),
    KeySpec("compare.end", "end", "end", "last block", "compare", key_display="End"),
    KeySpec("compare.next-change", "n", "next_change(1)", "next change", "compare", key_display="n"),
    KeySpec("compare.prev-change", "p", "next_change(-1)", "previous change", "compare", key_display="p"),
    KeySpec(
        "compare.activate", "enter", "activate", "open a fold / show a long entry whole", "compare", key_display="Enter"
    ),
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
    KeySpec(
        "reader.close",
        "escape,q,ctrl+r",
        "close",
        "back to the tree, at the entry read",
        "reader-screen",
        key_display="Esc",
    ),
    # the detail pane (focused)
    # the detail pane's (ids kept from when they were bound in the pane alone): from the tree too
    KeySpec(
        "detail.expand",
        "alt+x",
        "expand_detail",
        "detail pane: show truncated outputs in full",
        "browser",
        key_display="Alt+X",
    ),
    KeySpec(
        "detail.thinking",
        "alt+z",
        "toggle_thinking",
        "detail pane: open / close the thinking blocks",
        "browser",
        key_display="Alt+Z",
    ),
    # the session picker (printable keys type into its filter)
    KeySpec("picker.up", "up", "cursor(-1)", "previous session", "picker", key_display="↑"),
    KeySpec("picker.down", "down", "cursor(1)", "next session", "picker", key_display="↓"),
    KeySpec("picker.page-up", "pageup", "page(-1)", "page up", "picker", key_display="PgUp"),
    KeySpec("picker.page-down", "pagedown", "page(1)", "page down", "picker", key_display="PgDn"),
    KeySpec("picker.home", "ctrl+home", "home", "first session", "picker", key_display="^Home"),
    KeySpec("picker.end", "ctrl+end", "end", "last session", "picker", key_display="^End"),
    KeySpec(
        "picker.search",
        "ctrl+f",
        "toggle_search",
        "search the text of all sessions",
        "picker",
        show=True,
        key_display="^F",
    ),
    KeySpec(
        "picker.open-parent",
        "ctrl+o",
        "open_parent",
        "open the parent session of a fork",
        "picker",
        show=True,
        key_display="^O",
    ),
    KeySpec("picker.rescan", "ctrl+r", "rescan", "read the session directories again", "picker", key_display="^R"),
    KeySpec(
        "picker.escape", "escape", "escape", "leave the search, else clear the filter", "picker", key_display="Esc"
    ),
    # the whole app
    KeySpec("app.help", "f1", "help", "help: every key", "app", show=True, key_display="F1"),
    KeySpec(
        "app.palette", "ctrl+p", "command_palette", "command palette", "app", show=True, key_display="^P", priority=True
    ),
    KeySpec("app.quit", "ctrl+q", "quit", "quit", "app", show=True, key_display="^Q", priority=True),
)

SPEC_BY_ID = {s.id: s for s in SPECS}

#: the scopes whose bindings are live at once (the focused widget's, its screen's, the app's):
#: within each a key runs one binding
SCREENS = (
    ("tree", "browser", "app"),
    ("detail", "browser", "app"),
    ("compare", "compare-screen", "app"),
    ("reader", "reader-screen", "app"),
    ("picker", "app"),
)


#: what a printable key types into on the screens of ``SCREENS`` where it does, by the scope of
#: their focused widget (the detail pane types into the tree's search); the compare screen and
#: reader mode take no typing, so a printable key may act there
TYPED_INTO = {"tree": "the search", "detail": "the search", "picker": "the session filter"}


def typed_into(scope: str) -> list[str]:
    """What a printable key types into on the screens where a binding of ``scope`` is live (the
    app's: the search and the session filter); [] where it types on none of them."""
    return list(dict.fromkeys(TYPED_INTO[s[0]] for s in SCREENS if scope in s and s[0] in TYPED_INTO))


def on_one_screen(a: KeySpec, b: KeySpec) -> bool:
    """Whether a key can mean ``a`` and ``b`` at the same moment (so only one may have it)."""
    return any(a.scope in scopes and b.scope in scopes for scopes in SCREENS)


def bindings(scope: str) -> list[Binding]:
    return [
        Binding(s.keys, s.action, s.description, show=s.show, key_display=s.key_display, priority=s.priority, id=s.id)
        for s in SPECS
        if s.scope == scope
    ]


#: how the app writes a key that has no letter of its own (Textual's names as they are shown)
_KEY_NAMES = {
    "up": "↑",
    "down": "↓",
    "left": "←",
    "right": "→",
    "pageup": "PgUp",
    "pagedown": "PgDn",
    "home": "Home",
    "end": "End",
    "escape": "Esc",
    "enter": "Enter",
    "tab": "Tab",
    "backspace": "Backspace",
    "delete": "Del",
    "insert": "Ins",
    "space": "Space",
}


def key_name(key: str) -> str:
    """One Textual key name as the footer, help and notices write keys ("ctrl+n" → "^N",
    "alt+h" → "Alt+H", "shift+left" → "⇧←", "f5" → "F5"); a key on its own that types is
    written as it types ("j", "J", "?")."""
    *given, base = key.strip().split("+")
    mods = {m.lower() for m in given}
    char = key_to_character(base) if len(base) > 1 else None  # a character's name: question_mark
    if base.lower() in _KEY_NAMES:
        name = _KEY_NAMES[base.lower()]
    elif len(base) == 1:
        name = base.upper() if mods else base  # ^N, Alt+H; a bare j is j, as it types
    elif base[:1] in "fF" and base[1:].isdigit():
        name = base.upper()
    elif char is not None and char.isprintable():
        name = char
    else:
        name = base
    return ("Alt+" if "alt" in mods else "") + ("⇧" if "shift" in mods else "") + ("^" if "ctrl" in mods else "") + name


def first_key(spec: KeySpec, keymap: dict[str, str]) -> str:
    """The first key of ``spec`` in effect, as the footers write it ("" when it has none)."""
    keys = keymap[spec.id] if spec.id in keymap else spec.keys
    first = next((k for k in keys.split(",") if k.strip()), "")
    return key_name(first) if first else ""


def key_pair(keymap: dict[str, str], first: str, second: str, words: tuple[str, str, str]) -> str:
    """A footer's hint for two bindings that go together ("↑↓ scroll", "n/p next/previous
    entry"), by their first keys in effect; ``words`` say what both, the first alone and the
    second alone do. Only the one that has a key when the other has none; "" when neither has."""
    a, b = first_key(SPEC_BY_ID[first], keymap), first_key(SPEC_BY_ID[second], keymap)
    if a and b:
        keys, word = (a + b if a in _ARROWS and b in _ARROWS else f"{a}/{b}"), words[0]
    else:
        keys, word = a or b, words[1] if a else words[2]
    return f"{keys} {word}".rstrip() if keys else ""


_ARROWS = frozenset("↑↓←→")


def display_keys(spec: KeySpec, keymap: dict[str, str]) -> str:
    """The keys to show for ``spec`` (help, the footer, the palette, notices), honouring the
    user's keymap: a remapped key is written as the app writes its own; "" for a binding that
    lost its keys to another one."""
    override = keymap.get(spec.id)
    if override is not None:
        return "/".join(key_name(k) for k in override.split(",") if k.strip())
    return spec.key_display or spec.keys


def said_keys(spec: KeySpec, keymap: dict[str, str]) -> str:
    """``display_keys`` for a sentence ("press ^S"): a binding without keys is run from the
    command palette."""
    return display_keys(spec, keymap) or "the command palette"


#: what a binding without keys is bound to: a name no terminal sends (Textual keeps a binding's
#: default keys when the keymap gives it none)
NO_KEY = "<unbound>"


def textual_keymap(keymap: dict[str, str]) -> dict[str, str]:
    """The user's keymap as Textual's ``App.set_keymap`` takes it."""
    return {binding_id: keys or NO_KEY for binding_id, keys in keymap.items()}
