"""gzip, then base64, for the page's embedded data (``html/export.py``): ISA-L's deflate where
``isal`` is installed (it is a dependency: the same gzip stream format, three to four times
faster than zlib's), else zlib's."""

from __future__ import annotations

import base64
import zlib

try:  # ISA-L's deflate: the same gzip format, three to four times faster than zlib's
    from isal import isal_zlib as deflate

    #: deflate levels (ISA-L has 0-3) of the records, the sidebar and the search texts: on the
    #: 10k-entry session level 3 writes the records 0.6% smaller than zlib's level 2 in a third
    #: of its time, the sidebar and the texts 10% bigger than zlib's 3 and 4 in a quarter
    LEVEL = SIDE_LEVEL = FIND_LEVEL = 3
except ImportError:  # pragma: no cover - isal is a dependency; zlib where it has no wheel
    deflate = zlib  # type: ignore[assignment]

    #: zlib level of the records: 2 takes a third less time than 3 for 8% more bytes, 3 is 2.7
    #: times faster than 6 for 20% more; of the sidebar and the search texts: on the 100k-entry
    #: session level 5 took 0.27 and 0.15 s, these 0.19 and 0.10 s for 0.2 MB more (level 4
    #: writes more than 3 for the sidebar, less for the texts; benchmarks/bench_html.py)
    LEVEL, SIDE_LEVEL, FIND_LEVEL = 2, 3, 4


def gzip_b64(data: bytes, level: int = LEVEL) -> bytes:
    """gzip (what ``DecompressionStream("gzip")`` reads), then base64."""
    gz = GzipB64(level)
    return gz.feed(data) + gz.close()


def zlib_gzip_b64(data: bytes, level: int) -> bytes:
    """``gzip_b64`` by zlib, at any of its levels."""
    c = zlib.compressobj(level, zlib.DEFLATED, 31)
    return base64.b64encode(c.compress(data) + c.flush())


#: the compressor is handed its input in pieces of this many bytes (the last one shorter),
#: however the caller cuts it: ISA-L, unlike zlib, writes a stream that depends on the cuts
DEFLATE_PIECE = 64 << 10


class GzipB64:
    """``gzip_b64`` a piece at a time: what ``feed`` and ``close`` return, joined, is
    ``gzip_b64`` of everything fed, however it was cut (the compressor always sees the same
    ``DEFLATE_PIECE`` pieces)."""

    def __init__(self, level: int = LEVEL) -> None:
        self._z = deflate.compressobj(level, deflate.DEFLATED, 31)
        self._rest = b""
        #: input not compressed yet (less than a piece)
        self._held = b""

    def _b64(self, z: bytes) -> bytes:
        z = self._rest + z if self._rest else z
        n = len(z) - len(z) % 3
        self._rest = z[n:]
        return base64.b64encode(z[:n]) if n else b""

    def feed(self, data: bytes) -> bytes:
        if self._held:
            data = self._held + data
        n = len(data)
        if n < DEFLATE_PIECE:
            self._held = data
            return b""
        whole = n - n % DEFLATE_PIECE
        compress = self._z.compress
        with memoryview(data) as view:
            out = [compress(view[i : i + DEFLATE_PIECE]) for i in range(0, whole, DEFLATE_PIECE)]
        self._held = data[whole:]
        return self._b64(b"".join(out))

    def close(self) -> bytes:
        z = self._z.compress(self._held) if self._held else b""
        self._held = b""
        tail = self._rest + z + self._z.flush()
        self._rest = b""
        return base64.b64encode(tail)
