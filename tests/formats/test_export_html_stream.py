"""The HTML export of an image-heavy session holds one entry's data at a time: the session file
is read a piece at a time, records are compressed as they are made, chunks go to a spool file."""

from __future__ import annotations

import base64
import gc
import random
import tracemalloc
import types
import weakref
from pathlib import Path
from typing import Any

import orjson
import pytest

from loomtui.formats.detect import open_any
from loomtui.formats.html import export as X
from loomtui.formats.html import render as R
from tests.formats.test_export_html import blobs, records

IMAGE_BYTES = 50_000
TURNS = 60


def _image(k: int) -> str:
    """Distinct, valid base64 of bytes that do not compress (as a real PNG's do not)."""
    return base64.b64encode(random.Random(k).randbytes(IMAGE_BYTES)).decode()


def _write_session(path: Path) -> int:
    """A pi session of ``TURNS`` × (user message with an image, assistant calling ``read``, the
    result with an image); the number of images."""
    lines: list[Any] = [
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-02-01T00:00:00.000Z", "cwd": "/tmp"}
    ]
    parent = None
    images = 0
    for t in range(TURNS):
        ts = f"2026-02-01T00:{t:02d}:00.000Z"
        user = {
            "role": "user",
            "timestamp": 0,
            "content": [
                {"type": "text", "text": f"look at this {t}"},
                {"type": "image", "data": _image(images), "mimeType": "image/png"},
            ],
        }
        images += 1
        call = {
            "role": "assistant",
            "provider": "p",
            "model": "m",
            "stopReason": "toolUse",
            "timestamp": 0,
            "usage": {
                "input": 10,
                "output": 5,
                "cacheRead": 0,
                "cacheWrite": 0,
                "totalTokens": 15,
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0.01},
            },
            "content": [{"type": "toolCall", "id": f"c{t}", "name": "read", "arguments": {"path": f"{t}.png"}}],
        }
        result = {
            "role": "toolResult",
            "toolCallId": f"c{t}",
            "toolName": "read",
            "isError": False,
            "timestamp": 0,
            "content": [
                {"type": "text", "text": "Read image file [image/png]"},
                {"type": "image", "data": _image(images), "mimeType": "image/png"},
            ],
        }
        images += 1
        for k, msg in enumerate((user, call, result)):
            eid = f"e{t}-{k}"
            lines.append({"type": "message", "id": eid, "parentId": parent, "timestamp": ts, "message": msg})
            parent = eid
    path.write_bytes(b"\n".join(orjson.dumps(x) for x in lines) + b"\n")
    return images


class _Tracked(dict):  # type: ignore[type-arg]
    """A decoded entry the test can see die (a plain dict has no weak references)."""


def _has_image(obj: Any) -> bool:
    msg = obj.get("message") if isinstance(obj, dict) else None
    content = msg.get("content") if isinstance(msg, dict) else None
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "image" for b in content)


def _page(path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(X.secrets, "token_urlsafe", lambda n=16: "nonce")
    return X.build_page(open_any(str(path)))


def test_the_export_never_holds_two_decoded_image_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "img.jsonl"
    images = _write_session(path)
    want = _page(path, monkeypatch)  # as the export writes it with its usual limits

    # limits below one image: whatever the export keeps beyond one entry shows
    monkeypatch.setattr(R, "RECENT_BYTES", 1000)
    monkeypatch.setattr(X, "READ_BYTES", 1000)
    monkeypatch.setenv("LOOMTUI_JOBS", "1")
    alive: list[weakref.ref[_Tracked]] = []
    most = [0]

    def loads(raw: Any) -> Any:
        most[0] = max(most[0], sum(1 for r in alive if _has_image(r())))
        obj = orjson.loads(raw)
        if isinstance(obj, dict):
            obj = _Tracked(obj)
            alive.append(weakref.ref(obj))
        return obj

    monkeypatch.setattr(R, "orjson", types.SimpleNamespace(loads=loads, JSONDecodeError=orjson.JSONDecodeError))
    manager = open_any(str(path))
    X.build_page(manager)  # once, so the imports and caches are made
    gc.collect()  # that export's renderer (a reference cycle) and what it held
    alive.clear()  # count only what the measured export decodes
    most[0] = 0
    got = X.build_page(manager)
    # when an entry is decoded, at most one other decoded entry with an image is still alive
    # (the one being rendered: an assistant turn and the result of its call)
    assert most[0] == 1
    assert got == want
    data = blobs(got)
    shown = "".join(r[1] or "" for r in records(data))
    assert shown.count('<img class="inline"') == shown.count(' data-img="') == images
    assert 'src="data:' not in shown  # the page fills src in from the lines
    assert "\n".join(r[0] for r in records(data) if r[2] == 1).encode() == path.read_bytes()


def test_export_to_a_file_holds_no_more_than_a_few_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Written to a file, the page is never in memory: the peak is a few lines, far below the
    session (which the export once read whole, and whose chunks it held until the end)."""
    path = tmp_path / "img.jsonl"
    _write_session(path)
    monkeypatch.setattr(R, "RECENT_BYTES", 1000)
    monkeypatch.setattr(X, "READ_BYTES", 1000)
    monkeypatch.setenv("LOOMTUI_JOBS", "1")
    manager = open_any(str(path))
    X.export_html(manager, str(tmp_path / "warm.html"))
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        X.export_html(manager, str(tmp_path / "p.html"))
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    line = max(map(len, path.read_bytes().split(b"\n")))
    # a fixed part (the compressor's state, the tree model) and a few lines' worth (an entry's
    # line, text, HTML and row), far below the session's 8 MB
    assert peak < (1 << 20) + 20 * line < path.stat().st_size / 3, (peak, line)
    assert (tmp_path / "p.html").stat().st_size > path.stat().st_size


def test_a_forked_half_spools_the_same_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "img.jsonl"
    _write_session(path)
    monkeypatch.setattr(X, "CHUNK", 4)  # 16 chunks: over PARALLEL_MIN_CHUNKS
    monkeypatch.setenv("LOOMTUI_JOBS", "1")
    alone = _page(path, monkeypatch)
    monkeypatch.delenv("LOOMTUI_JOBS")
    forked: list[int] = []
    start = X.start_child
    monkeypatch.setattr(X, "start_child", lambda f: forked.append(1) or start(f))
    both = _page(path, monkeypatch)
    assert both == alone
    assert forked or not X.can_fork()
    assert len(blobs(both)["side"]["loc"]) == 3 * TURNS


def test_gzip_b64_in_pieces_is_gzip_b64() -> None:
    data = orjson.dumps([[str(i) * (i % 97), i] for i in range(5000)])
    for cut in (1, 2, 3, 1000, 65536):
        gz = X.GzipB64()
        out = b"".join(gz.feed(data[i : i + cut]) for i in range(0, len(data), cut)) + gz.close()
        assert out == X.gzip_b64(data), cut


def test_the_page_holds_each_images_base64_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each image's base64 is in the page once, in its entry's line (the JSONL download), and
    the rendered HTML names the entry and the image's index in its content instead."""
    path = tmp_path / "images.jsonl"
    images = _write_session(path)
    page = _page(path, monkeypatch)
    data = blobs(page)
    text = page + "".join(r[0] + (r[1] or "") for r in records(data))  # the page and its records, decoded
    for k in range(images):
        assert text.count(_image(k)) == 1
    shown = "".join(r[1] or "" for r in records(data))
    for t in range(TURNS):
        assert f'data-img="e{t}-0" data-i="1"' in shown  # the user's image
        assert f'data-img="e{t}-2" data-i="1"' in shown  # the result's, shown with its call
