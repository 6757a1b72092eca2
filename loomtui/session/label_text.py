"""The one rule for the text of a label a user gives: the ``label`` command's TEXT and what the
browser's label dialog (Alt+L) returns.

A label is one line of printable text, as pi's label editor takes it: its input drops every
control character typed (C0, DEL, C1) and pi trims the value with JavaScript's ``trim``. A
control character inside a label would be drawn raw by pi's tree (an ESC sequence recolours
the user's terminal, a newline splits the row) and as a picture (␛, ␊) by loomtui, so the same
file would read differently in the two. loomtui therefore refuses such a label, saying which
character it holds; it never strips one silently. A tab is refused too: pi's editor cannot
type one (its paste turns a tab into spaces), and a raw tab draws at a different width in pi's
tree than loomtui's ␉ (docs/formats.md §12).

A label read from a file is never checked here: whatever another program wrote is shown made
printable (``view/printable.py``) and re-stated as it is.
"""

from __future__ import annotations

import re

from loomtui.session.errors import LoomError
from loomtui.session.jsstr import js_trim

#: what pi's label input refuses to take: C0 controls (tab and newline among them), DEL, C1
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")

#: the controls a user may recognise by name
_NAMES = {
    "\t": "a tab",
    "\n": "a newline",
    "\r": "a carriage return",
    "\x1b": "an escape character (ESC)",
    "\x7f": "a delete character (DEL)",
}


def trim_label(given: str | None) -> str | None:
    """``given`` trimmed as pi trims a label; None when nothing is left (no label: a clear)."""
    return js_trim(given or "") or None


def check_label(label: str) -> None:
    """Refuse (``LoomError``) a label holding a control character, naming the first one."""
    m = _CONTROL.search(label)
    if m is None:
        return
    c = m.group()
    name = _NAMES.get(c, "a control character")
    raise LoomError(
        f"the label holds {name} (U+{ord(c):04X}); a label is one line of printable text, as pi's label "
        "editor takes it; nothing was written"
    )


def unchanged_label(entry_id: str, current: object, label: str | None) -> str | None:
    """Why giving ``entry_id`` (labelled ``current``) the label ``label`` (None: a clear) would
    write nothing, in the words every command and screen says it; None: the label changes."""
    if label != (None if current is None else str(current)):
        return None
    if label is None:
        return f"{entry_id} has no label; nothing written"
    return f"{entry_id} already has the label [{label}]; nothing written"
