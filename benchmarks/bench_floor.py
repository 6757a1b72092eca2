#!/usr/bin/env python3
"""The floor under opening a pi session: what reading its bytes and scanning its JSON cost.

    uv run python benchmarks/bench_floor.py [--entries 100000] [--repeat 3]

In this one process, best of ``--repeat`` (CPU seconds, ``time.process_time``), on the
generated session:

* read: the file's bytes into memory (one ``read``);
* lines: those bytes split at the newlines;
* orjson: every line decoded whole (``orjson.loads``) and let go, what ``session/reader.py``
  does today;
* msgspec skeleton: every line decoded into typed structs holding only the fields the tree
  needs before its first screen (id, parent, type, timestamp, role, stop reason, tool name),
  every other field skipped while scanning;
* msgspec skeleton + texts: the same with the message content kept (decoded), what a row's
  text is made from;
* loomtui typed scan: ``session/typed_scan.py`` on every entry line, the structs alone and
  with the skeletons made of them (what the open's parse does per line);
* loomtui open: ``SessionManager.open`` (read, parse, index), for comparison.

Then the memory: bytes per entry of the loaded skeleton (``tracemalloc``), and the size of one
``Entry`` and of its strings (``sys.getsizeof``).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
import tracemalloc
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import msgspec  # noqa: E402
import orjson  # noqa: E402

from benchmarks.common import load_average, session_file  # noqa: E402
from loomtui.session import typed_scan  # noqa: E402


class Message(msgspec.Struct):
    role: Any = None
    stopReason: Any = None  # noqa: N815  (pi's field names)
    toolName: Any = None  # noqa: N815


class Skeleton(msgspec.Struct):
    type: Any = None
    id: Any = None
    parentId: Any = None  # noqa: N815
    timestamp: Any = None
    message: Message | None = None


class MessageWithContent(msgspec.Struct):
    role: Any = None
    content: Any = None
    stopReason: Any = None  # noqa: N815
    toolName: Any = None  # noqa: N815


class SkeletonWithContent(msgspec.Struct):
    type: Any = None
    id: Any = None
    parentId: Any = None  # noqa: N815
    timestamp: Any = None
    message: MessageWithContent | None = None


def cpu(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    path = session_file(a.entries)
    print(f"session: {path} ({path.stat().st_size / 1e6:.0f} MB); {load_average()}")
    data = path.read_bytes()
    lines = data.split(b"\n")
    skeleton = msgspec.json.Decoder(Skeleton)
    with_content = msgspec.json.Decoder(SkeletonWithContent)
    figures = {
        "read the bytes": lambda: path.read_bytes(),
        "split into lines": lambda: data.split(b"\n"),
        "orjson, every line whole": lambda: [None for x in lines if x and orjson.loads(x) is None],
        "msgspec skeleton structs": lambda: [skeleton.decode(x) for x in lines if x],
        "msgspec skeleton + content": lambda: [with_content.decode(x) for x in lines if x],
        "loomtui typed scan, structs": lambda: [typed_scan.decode(x) for x in lines[1:] if x],
        "loomtui typed scan, skeletons": lambda: [typed_scan.entry(typed_scan.decode(x)) for x in lines[1:] if x],
    }
    for name, fn in figures.items():
        print(f"  {name:<30}{cpu(fn, a.repeat):7.3f} s CPU")
    os.environ["LOOMTUI_NO_CACHE"] = "1"
    os.environ["LOOMTUI_JOBS"] = "1"
    from loomtui.session.manager import SessionManager

    print(f"  {'loomtui SessionManager.open':<30}{cpu(lambda: SessionManager.open(str(path)), a.repeat):7.3f} s CPU")

    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    sm = SessionManager.open(str(path))
    gc.collect()
    used = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    entries = sm.index.entries
    n = len(entries)
    print(
        f"loaded skeleton (index included): {used / 1e6:.1f} MB traced, {used / n:.0f} bytes an entry, "
        f"{used / path.stat().st_size:.2f} bytes per input byte"
    )
    e = entries[len(entries) // 2]
    parts = {slot: getattr(e, slot) for slot in type(e).__slots__}
    sizes = {k: sys.getsizeof(v) for k, v in parts.items() if v is not None and not isinstance(v, (bool, int))}
    print(
        f"one Entry: {sys.getsizeof(e)} bytes of slots; its own objects: "
        + ", ".join(f"{k} {v}" for k, v in sizes.items())
    )
    texts = sum(sys.getsizeof(x.text) for x in entries if x.text is not None)
    print(f"row texts kept in the skeleton: {texts / 1e6:.1f} MB ({texts / n:.0f} bytes an entry)")
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    kept = [skeleton.decode(x) for x in lines if x]
    used = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    print(f"msgspec skeleton structs alone: {used / len(kept):.0f} bytes an entry")


if __name__ == "__main__":
    main()
