"""Keys and pastes into a search, taken in the order they came (the tree's query, the
picker's filter box).

Textual hands a key to the focused widget first; a key the widget does not take bubbles up the
DOM, one message queue at a time, and its binding runs only when it reaches the app. A burst of
keys (a paste without bracketed paste, a slow link, a loaded machine) was split in two that way:
the characters the widget typed at once, and the bound keys, run later, after characters that
came behind them (``summary`` became ``suarymm`` while ``m`` was bound). Here a bound key runs in
the widget, at once (``run_binding``), and a character always types (``typed_character``), so
every key of a burst takes effect in the order it came.

A key that never types puts no text in: an Alt key the widget has no binding for is not typed as
its letter (``SearchInput``), and ESC with a letter, digit or punctuation mark (what xterm, tmux
and the Linux console send for Alt+Q, Alt+1, Alt+.) is read as that Alt key at once
(``read_alt_sequences_as_alt``), not as the character macOS's Option makes of it, the bare mark,
or "^" and the letter. Those characters typed as such (a UK keyboard's "£", Option+1's "¡" where
Option is not Meta) still go in.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import cast

from textual import events
from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
from textual.keys import _character_to_key
from textual.widget import Widget
from textual.widgets import Input

#: keys with these modifiers never type (Textual reports Alt+m as ``alt+m`` with character ``m``)
MODIFIERS = ("ctrl+", "alt+", "super+", "meta+", "hyper+")

#: ESC and a character that is the Alt key of it here: the letters, digits, the space and the
#: punctuation that starts no sequence of its own (not CSI ``[``, OSC ``]``, ST ``\\``, PM ``^``,
#: APC ``_``, SS2 ``N``, SS3 ``O``, DCS ``P``, SOS ``X``)
ALT_CHARACTERS = "".join(
    c for c in string.ascii_letters + string.digits + string.punctuation + " §" if c not in "[]\\^_NOPX"
)


@dataclass(frozen=True)
class _Key:
    """A key as Textual's table of escape sequences names one (its ``Keys`` have a ``value``)."""

    value: str


def alt_key(ch: str) -> str:
    """The Alt key of ``ch`` as Textual names it (``alt+x``, ``alt+shift+x``, ``alt+full_stop``)."""
    name = _character_to_key(ch)
    return f"alt+shift+{ch.lower()}" if ch.isupper() else f"alt+{name}"


def read_alt_sequences_as_alt() -> None:
    """ESC and one of ``ALT_CHARACTERS`` is that Alt key at once, with no character. Textual's
    table reads ESC and a digit, "-", "=" or "§" as the character macOS's Option makes (Alt+1
    typed "¡"); ESC and another character waits for the escape delay, and is then the bare
    mark (Alt+. typed "."), or, when another ESC came first, "^" and the letter (Alt+Q Alt+V
    typed "^q"). Textual's own keys there (ESC b, ESC f: Ctrl+←, Ctrl+→) stay."""
    for ch in ALT_CHARACTERS:
        if not isinstance(ANSI_SEQUENCES_KEYS.get(f"\x1b{ch}"), tuple):
            ANSI_SEQUENCES_KEYS[f"\x1b{ch}"] = (_Key(alt_key(ch)),)  # type: ignore[assignment]


read_alt_sequences_as_alt()


def typed_character(event: events.Key) -> str | None:
    """What ``event`` types into a search: a printable character (capitals and punctuation too),
    None for a key that never types (Ctrl, Alt, F-keys, cursor keys, Enter, Tab)."""
    ch = event.character
    if not ch or not event.is_printable or event.key.startswith(MODIFIERS):
        return None
    return ch


def pasted_text(text: str) -> str:
    """A paste as search text: line breaks and tabs become spaces (the search matches words),
    other control characters are left out."""
    out: list[str] = []
    for ch in text.replace("\r\n", "\n"):
        code = ord(ch)
        if ch in "\r\n\t":
            out.append(" ")
        elif code >= 32 and code != 0x7F and not 0x80 <= code <= 0x9F:
            out.append(ch)
    return "".join(out)


async def run_binding(widget: Widget, event: events.Key) -> bool:
    """Run the binding of ``event`` now, from ``widget`` (the focused one), as the app would
    once the key had bubbled up to it; True if it ran (the key then goes no further).

    Priority bindings ran before the key reached the widget; a binding its ``check_action``
    refuses is left to Textual (a binding further out may take the key)."""
    active = widget.screen.active_bindings.get(event.key)
    if active is None or active.binding.priority or not active.enabled:
        return False
    if await widget.app.run_action(active.binding.action, active.node):
        event.stop()
        event.prevent_default()
        return True
    return False


class TypesIntoSearch:
    """A pane where typing searches (the tree, and the detail beside it): every printable key and
    every paste goes to ``take_typed`` in the order they came; any other key runs its binding at
    once (``run_binding``), so a command key between two letters stays between them."""

    def accepts_typing(self) -> bool:
        return True

    def take_typed(self, text: str) -> None:
        raise NotImplementedError

    async def on_key(self, event: events.Key) -> None:
        if not self.accepts_typing():
            return
        ch = typed_character(event)
        if ch is None:
            await run_binding(cast(Widget, self), event)
            return
        event.stop()
        event.prevent_default()
        self.take_typed(ch)

    def on_paste(self, event: events.Paste) -> None:
        """A bracketed paste whole (one refilter), its lines joined by spaces."""
        event.stop()
        text = pasted_text(event.text)
        if text and self.accepts_typing():
            self.take_typed(text)


class SearchInput(Input, inherit_bindings=False):
    """An ``Input`` for a search: bound keys (Backspace, Enter, Esc…) act in the order they were
    typed, and a paste goes in whole, its lines joined by spaces (``Input`` keeps the first).

    Only ``Input``'s own bindings: the scroll keys it inherits (↑/↓, PgUp/PgDn) do nothing on one
    line, and a binding that does nothing let the key bubble to the screen after the keys behind
    it (Down, Down, Enter in one read opened the row the cursor had left)."""

    BINDINGS = list(Input.BINDINGS)

    async def _on_key(self, event: events.Key) -> None:
        if typed_character(event) is None:  # else Input types it, at once
            if not await run_binding(self, event) and event.is_printable:
                event.prevent_default()  # an unbound Alt+letter: Input would type the letter

    def _on_paste(self, event: events.Paste) -> None:
        event.stop()
        event.prevent_default()  # not Input's paste as well
        text = pasted_text(event.text)
        if not text:
            return
        if self.selection.is_empty:
            self.insert_text_at_cursor(text)
        else:
            self.replace(text, *self.selection)
