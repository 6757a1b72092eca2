"""The page's chunks spooled to an unnamed temporary file while the rest of the page is made
(``html/export.py``): an image-heavy session's chunks are as big as its file."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator

from loomtui.session.errors import LoomError


class Spool:
    """Bytes written to an unnamed temporary file (the chunks, which for an image-heavy session
    are as big as the file), read back a piece at a time when the page is written."""

    def __init__(self) -> None:
        self.file = tempfile.TemporaryFile()
        self.size = 0

    def write(self, data: bytes) -> None:
        if data:
            self.file.write(data)
            self.size += len(data)

    def pieces(self, piece_bytes: int) -> Iterator[bytes]:
        """The bytes written, ``piece_bytes`` at most at a time."""
        self.file.flush()
        fd = self.file.fileno()
        at = 0
        while at < self.size:
            piece = os.pread(fd, min(piece_bytes, self.size - at), at)
            if not piece:
                raise LoomError("the export's temporary file shrank")
            at += len(piece)
            yield piece

    def __len__(self) -> int:
        return self.size
