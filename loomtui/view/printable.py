"""The one function that makes text from a file safe to show on a terminal.

A session or loom file can hold any character: ESC, OSC and CSI sequences, BEL, backspace,
carriage return, C1 controls, lone surrogates. Printed raw, they would run on the user's
terminal (recolour it, set its window title, move the cursor, hide text). Everything that comes
from a file passes through ``printable`` before it reaches a terminal — the `tree` rows (with
any ``--color``), `info`, and every widget of the app (docs/architecture.md, "Bad input").

Each unsafe character becomes one visible, one-column character, so widths stay what they were:
C0 controls their Unicode "control picture" (ESC → ␛, BEL → ␇), DEL ␡, C1 controls and lone
surrogates U+FFFD.
"""

from __future__ import annotations

import re

#: C0 controls, DEL, C1 controls and lone surrogates
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
#: the same without newline and tab (multi-line text: the detail pane)
_UNSAFE_KEEP_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def _picture(m: re.Match[str]) -> str:
    c = ord(m.group())
    if c < 0x20:
        return chr(0x2400 + c)
    if c == 0x7F:
        return "\u2421"
    return "\ufffd"


#: complete ANSI sequences (CSI, OSC, two-byte ESC): dropped where the text is read, not inspected
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_BREAKS = re.compile(r"[\t\n\r\v\f]")


def printable(s: str, *, keep_lines: bool = False, blank_breaks: bool = False, strip_ansi: bool = False) -> str:
    """``s`` with every character a terminal would act on replaced by a visible one.

    ``keep_lines`` keeps newlines and tabs (text shown on several lines; CRLF becomes LF);
    ``blank_breaks`` shows tabs and line breaks as spaces (a one-line title); otherwise they
    are shown as ␉ and ␊ too, so one value stays on one line. ``strip_ansi`` drops complete
    ANSI sequences first (colored tool output reads as its text).
    """
    if s.isprintable():
        return s
    if strip_ansi and "\x1b" in s:
        s = _ANSI.sub("", s)
    if keep_lines:
        if "\r\n" in s:
            s = s.replace("\r\n", "\n")
        return _UNSAFE_KEEP_LINES.sub(_picture, s)
    if blank_breaks:
        s = _BREAKS.sub(" ", s)
    return _UNSAFE.sub(_picture, s)


def printable_value(v: object) -> str:
    """``str(v)`` made printable (for values of any type read from a file)."""
    return printable(v if isinstance(v, str) else str(v))
