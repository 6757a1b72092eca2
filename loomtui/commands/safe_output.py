"""Every subcommand's stdout and stderr, made safe for a terminal on the way out.

Each command makes the text it takes from a file printable where it builds it
(``view/printable.py``); this is the net under all of them: whatever reaches the streams,
through ``write`` or straight into ``buffer``, has its control characters shown as visible
pictures (C0 but newline and tab, DEL, C1, their surrogate-escaped bytes). The only escape
sequences let through are colour codes (SGR, ``ESC [ … m``), which loomtui writes itself
after making the text around them printable.
"""

from __future__ import annotations

import re
import sys
from typing import Any, TextIO

from loomtui.view.printable import printable

#: loomtui's own colour codes, else one unsafe character (C1 also as surrogate-escaped bytes)
_UNSAFE_SGR = re.compile("\x1b\\[[0-9;]*m|[\x00-\x08\x0b-\x1f\x7f-\x9f\udc80-\udc9f]")
#: the same when the command writes no colour: no escape at all gets through
_UNSAFE_PLAIN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\udc80-\udc9f]")
_unsafe = [_UNSAFE_PLAIN]
_UNSAFE_BYTES = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _picture(m: re.Match[str]) -> str:
    s = m.group()
    if len(s) > 1:
        return s  # SGR: colour only
    if "\udc80" <= s <= "\udc9f":
        return "\ufffd"
    return printable(s)


def clean_text(s: str) -> str:
    unsafe = _unsafe[0]
    return s if not s or unsafe.search(s) is None else unsafe.sub(_picture, s)


def clean_bytes(b: bytes | bytearray | memoryview) -> bytes:
    data = bytes(b)
    if _UNSAFE_BYTES.search(data) is None:
        return data
    return clean_text(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")


class _SafeBuffer:
    """A binary stream's ``write`` through ``clean_bytes``; everything else as the stream's."""

    def __init__(self, raw: Any) -> None:
        self._raw = raw

    def write(self, data: bytes | bytearray | memoryview) -> int:
        self._raw.write(clean_bytes(data))
        return len(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


class SafeStream:
    """A text stream whose ``write`` (and ``buffer.write``) show control characters as pictures."""

    def __init__(self, raw: TextIO) -> None:
        self._raw = raw
        #: the stream itself, for the few control sequences loomtui writes on purpose
        self.unguarded = raw
        buffer = getattr(raw, "buffer", None)
        if buffer is not None:
            self.buffer = _SafeBuffer(buffer)

    def write(self, s: str) -> int:
        self._raw.write(clean_text(s))
        return len(s)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


def guarded(run: Any, colour: bool = False) -> int:
    """``run()`` with stdout and stderr guarded (restored afterwards); ``colour``: the command
    may write colour codes (it was not asked for ``--color never``)."""
    _unsafe[0] = _UNSAFE_SGR if colour else _UNSAFE_PLAIN
    old = sys.stdout, sys.stderr
    sys.stdout = SafeStream(old[0])  # type: ignore[assignment]
    sys.stderr = SafeStream(old[1])  # type: ignore[assignment]
    try:
        return int(run())
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        if isinstance(sys.stdout, SafeStream):
            sys.stdout = old[0]
        if isinstance(sys.stderr, SafeStream):
            sys.stderr = old[1]
