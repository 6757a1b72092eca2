"""F1: every binding, with the keys in effect."""

from __future__ import annotations

import io

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from loomtui.app.keymap import SPEC_BY_ID, SPECS, display_keys, said_keys
from loomtui.app.keymap_file import keymap_path
from loomtui.view.compact import depth_tag
from loomtui.view.loom_state import ARCHIVED_TAG, MARK
from loomtui.view.text import HIDDEN_MARKS

#: the key column of a binding that lost its keys to another binding (keymap.toml)
NO_KEY_SHOWN = "(no key)"

SCOPES = (
    ("tree", "In the tree"),
    ("browser", "In the browser (tree or detail pane)"),
    ("detail", "In the detail pane"),
    ("compare", "Comparing two branches"),
    ("compare-screen", ""),
    ("reader", "Reader mode"),
    ("reader-screen", ""),
    ("picker", "In the session list"),
    ("app", "Everywhere"),
)


#: what the marks in the rows mean (the tree's are pi's), each drawn by the name the tree draws
#: it by; ``{name}`` is the key of ``_MARK_KEYS[name]`` in effect
MARKS = (
    ("›", "the cursor"),
    ("•", "on the active path: the conversation from the root to the leaf"),
    ("[text]", "a label ({label})"),
    (MARK.strip(), "the entry marked for a comparison ({mark}; {compare} compares another entry's branch with it)"),
    (ARCHIVED_TAG.strip(), "an archived entry, while archived branches are shown ({archived})"),
    ("├ └ │", "branches: an entry with more than one child starts them"),
    ("⊟ ⊞", "a branch point, unfolded / folded (Ctrl+←/→)"),
    (
        depth_tag(12),
        "compact indentation ({compact}): a row indented 12 levels, drawn with only its innermost levels "
        "(a level per branch point above it, so often fewer than its depth from the root in the detail pane)",
    ),
    (HIDDEN_MARKS["stray"].strip(), "an entry whose parent is missing (shown by the all filter)"),
    (
        HIDDEN_MARKS["from-parent"].strip(),
        "a line a forked session repeats from the session it was made from (shown by the all filter)",
    ),
    ("⑂ (sessions)", "a fork: a session made from another one (its parent session is elsewhere)"),
    ("└─ (sessions)", "a fork listed under the session it was made from"),
)
#: the keys the marks' meanings name
_MARK_KEYS = {
    "label": "browser.label",
    "mark": "browser.mark",
    "compare": "browser.compare",
    "archived": "browser.show-archived",
    "compact": "browser.compact",
}


def marks(keymap: dict[str, str]) -> list[tuple[str, str]]:
    """``MARKS`` naming the keys in effect."""
    keys = {name: said_keys(SPEC_BY_ID[binding_id], keymap) for name, binding_id in _MARK_KEYS.items()}
    return [(mark, meaning.format(**keys)) for mark, meaning in MARKS]


def help_table(keymap: dict[str, str], ids: bool = True) -> Group:
    """Every binding: keys, what it does and (``ids``, on wide screens) the id to remap it; one
    table per section under its title (a title never widens the key column)."""
    parts: list[RenderableType] = []

    def section(title: str, rows: list[tuple[str, str, str]]) -> None:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True, min_width=12)
        table.add_column()
        if ids:
            table.add_column(style="dim", no_wrap=True)
        for keys, what, spec_id in rows:
            # plain text, never markup: "[text]" (the label mark) and "[" keys are shown as written
            cells = (Text(keys), Text(what), Text(spec_id))
            table.add_row(*cells) if ids else table.add_row(*cells[:2])
        parts.append(Text(title, style="bold underline"))
        parts.append(table)
        parts.append(Text(""))

    # a scope without a title continues the section before it
    grouped: list[tuple[str, list[tuple[str, str, str]]]] = []
    for scope, title in SCOPES:
        rows = [
            (display_keys(spec, keymap) or NO_KEY_SHOWN, spec.description, spec.id)
            for spec in SPECS
            if spec.scope == scope and spec.id != "browser.switch-focus-back"
        ]
        if scope == "tree":
            rows += [
                (
                    "printable keys",
                    "type into the search, capitals and punctuation too (all words must "
                    "match); so does a paste, its lines joined by spaces",
                    "",
                ),
                ("Alt+letter", "the loom tools (below): keys that never type", ""),
                ("mouse", "click selects a row, the wheel scrolls", ""),
            ]
        if title or not grouped:
            grouped.append((title, rows))
        else:
            grouped[-1][1].extend(rows)
    for title, rows in grouped:
        if rows:
            section(title, rows)
    known = {scope for scope, _title in SCOPES}
    other = [spec for spec in SPECS if spec.scope not in known]
    if other:
        section("Other", [(display_keys(spec, keymap) or NO_KEY_SHOWN, spec.description, spec.id) for spec in other])
    section("Marks", [(mark, meaning, "") for mark, meaning in marks(keymap)])
    return Group(*parts)


def notes(keymap: dict[str, str]) -> str:
    """What the keys write and where the Alt keys come from, naming the keys in effect."""

    def k(binding_id: str) -> str:
        return said_keys(SPEC_BY_ID[binding_id], keymap)

    persist, label, export = k("browser.persist-leaf"), k("browser.label"), k("browser.export")
    return (
        f"{k('browser.select')} moves the in-memory leaf (as pi's /tree does); nothing is written until you "
        f"persist it with {persist}, which appends one label entry parented on the leaf so pi resumes there. "
        f"{label} writes a label entry. {export} writes a new session file. {k('browser.open-parent')} opens "
        "the session a fork was made from.\n"
        f"{k('browser.resume')} resumes the session's agent at the selected entry in this terminal and comes "
        f"back here when it exits; {k('browser.carry')} carries the marked branch ({k('browser.mark')}) onto "
        "the selected one as a pi branch summary (README: Carry on from a branch).\n"
        f"On an OpenLoom or socketteer loom, labels are bookmarks: after {label} (or with {persist}) loomtui "
        "offers to save them into the file, keeping the original as FILE.bak.\n"
        "On macOS the Alt keys need the terminal's “Use Option as Meta key” setting. Alt+B and Alt+F are "
        "never bound: terminals send them as Ctrl+← and Ctrl+→.\n"
        f"Remap any binding by id in {keymap_path()} ([keys] table, e.g. "
        '"browser.export" = "ctrl+n").'
    )


#: below this width the help leaves out the binding ids (the descriptions keep their room)
IDS_MIN_WIDTH = 100


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; background: $background 60%; }
    HelpScreen > Vertical {
        width: 90%; max-width: 110; height: 90%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    HelpScreen .title { text-style: bold; height: 1; margin-bottom: 1; }
    HelpScreen .muted { color: $text-muted; height: auto; }
    """
    BINDINGS = [Binding("escape,q,f1,question_mark", "close", "close", show=False)]

    def __init__(self, keymap: dict[str, str] | None = None) -> None:
        super().__init__()
        self.keymap = keymap or {}

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("loomtui keys (pi's /tree keys plus what a browser needs)", classes="title")
            with VerticalScroll():
                yield Static(help_table(self.keymap, self.app.size.width >= IDS_MIN_WIDTH), id="help-table")
                yield Static(Text(notes(self.keymap)), classes="muted")
            yield Static("Esc: close", classes="muted")

    @property
    def text(self) -> str:
        """The help as plain text (tests, copy)."""
        from rich.console import Console

        console = Console(width=200, record=True, file=io.StringIO())
        console.print(help_table(self.keymap))
        return console.export_text()

    def on_resize(self) -> None:
        self.query_one("#help-table", Static).update(help_table(self.keymap, self.app.size.width >= IDS_MIN_WIDTH))

    def action_close(self) -> None:
        self.dismiss(None)
