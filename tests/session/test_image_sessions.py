"""Sessions swollen by inline base64 images: the skeleton keeps no image data, the full entry
is read from disk only when it is shown (and does not pile up), and no search ever matches the
base64 text. Structural checks on small files; the memory figures of 1-2 GB sessions are in
benchmarks/bench_huge.py."""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path
from typing import Any

import pytest

from loomtui.session import cache_io, fulltext
from loomtui.session import manager as manager_mod
from loomtui.session.entries import Entry
from loomtui.session.manager import SessionManager
from loomtui.view import blocks as B
from loomtui.view.model import TreeModel

#: bytes of one image before base64
IMAGE_BYTES = 90_000
#: images in the session ``write_image_session`` writes (6 turns: 1 or 2 pasted, 1 read)
IMAGES = 15


def _line(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


def _image(rnd: random.Random) -> dict[str, str]:
    return {"type": "image", "data": base64.b64encode(rnd.randbytes(IMAGE_BYTES)).decode(), "mimeType": "image/png"}


def write_image_session(path: Path, turns: int = 6) -> list[str]:
    """A pi session as pi writes screenshots: user text + images, an assistant reading an image
    file (and uploading base64 through a tool argument), its result holding the image, an
    answer. Returns the base64 of every image, then of every upload argument."""
    rnd = random.Random(7)
    lines = [
        _line(
            {
                "type": "session",
                "version": 3,
                "id": "img-session",
                "timestamp": "2026-02-01T00:00:00.000Z",
                "cwd": "/home/user/webapp",
            }
        )
    ]
    payloads: list[str] = []
    uploads: list[str] = []
    parent = None
    n = 0

    def emit(message: dict[str, Any]) -> None:
        nonlocal parent, n
        n += 1
        eid = f"e{n:07d}"
        lines.append(
            _line(
                {
                    "type": "message",
                    "id": eid,
                    "parentId": parent,
                    "timestamp": f"2026-02-01T00:{n // 60:02d}:{n % 60:02d}.000Z",
                    "message": message,
                }
            )
        )
        parent = eid

    for t in range(turns):
        images = [_image(rnd) for _ in range(1 + t % 2)]
        payloads += [i["data"] for i in images]
        emit({"role": "user", "content": [{"type": "text", "text": f"the sidebar overlaps, turn {t}"}, *images]})
        # a tool call whose argument is itself base64 (an upload tool): pi shows 50 units of it
        upload = base64.b64encode(rnd.randbytes(3000)).decode()
        uploads.append(upload)
        emit(
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Let me look at the screenshot file."},
                    {"type": "toolCall", "id": f"call_{t}", "name": "read", "arguments": {"path": f"/tmp/shot{t}.png"}},
                    {"type": "toolCall", "id": f"up_{t}", "name": "upload", "arguments": {"data": upload}},
                ],
                "stopReason": "toolUse",
            }
        )
        shot = _image(rnd)
        payloads.append(shot["data"])
        emit(
            {
                "role": "toolResult",
                "toolCallId": f"call_{t}",
                "toolName": "read",
                "content": [{"type": "text", "text": "Read image file [image/png]"}, shot],
                "isError": False,
            }
        )
        emit(
            {
                "role": "toolResult",
                "toolCallId": f"up_{t}",
                "toolName": "upload",
                "content": [{"type": "text", "text": "uploaded"}],
                "isError": False,
            }
        )
        emit(
            {
                "role": "assistant",
                "content": [{"type": "text", "text": f"The grid column is too narrow ({t})."}],
                "stopReason": "stop",
            }
        )
    path.write_bytes(b"".join(lines))
    return payloads + uploads


@pytest.fixture
def image_session(tmp_path: Path) -> tuple[Path, list[str]]:
    path = tmp_path / "images.jsonl"
    return path, write_image_session(path)


def _slot_values(e: Entry) -> list[Any]:
    return [getattr(e, s) for s in Entry.__struct_fields__]


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(k) + _strings(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings(v)]
    return []


def test_the_skeleton_of_an_image_entry_keeps_no_image_data(image_session: tuple[Path, list[str]]) -> None:
    path, payloads = image_session
    sm = SessionManager.open(str(path))
    assert len(sm.index.entries) == 30
    for e in sm.index.entries:
        kept = [s for v in _slot_values(e) for s in _strings(v)]
        assert e.data is None
        # at most a tool argument's first 400 characters (what pi's one-line text can show)
        assert sum(len(s) for s in kept) < 1000, e
        for p in payloads:
            assert all(p[:400] not in s or len(s) <= 400 for s in kept)
            assert all(p[1000:1064] not in s for s in kept)
    user = sm.index.entries[0]
    assert (user.role, user.text, user.has_text) == ("user", "the sidebar overlaps, turn 0", True)
    upload = sm.index.entries[1].tool_calls
    assert upload is not None and upload[1][2] == {"data": payloads[IMAGES][:400]}


def test_opening_decodes_no_full_entry_and_the_detail_pane_reads_one_from_disk(
    image_session: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, payloads = image_session
    reads: list[tuple[int, int]] = []
    real_pread = manager_mod.os.pread

    def pread(fd: int, n: int, offset: int) -> bytes:
        reads.append((n, offset))
        return real_pread(fd, n, offset)

    sm = SessionManager.open(str(path))
    model = TreeModel(sm)
    model.set_filter("all")
    assert len(model) == 30
    assert not sm._cache  # nothing decoded in full by the open, the layout or the filter
    monkeypatch.setattr(manager_mod.os, "pread", pread)
    user = sm.index.entries[5]  # turn 1: two images
    blocks = B.entry_blocks(sm, user, model.flat.tool_calls)
    assert reads == [(user.size, user.offset)]  # exactly the entry's own line
    images = [b for b in B.walk(blocks) if isinstance(b, B.Image)]
    assert images == [B.Image("image/png", size=IMAGE_BYTES), B.Image("image/png", size=IMAGE_BYTES)]
    assert all(p not in repr(blocks) for p in payloads)
    result = sm.index.entries[5 + 2]
    shown = B.entry_blocks(sm, result, model.flat.tool_calls)
    assert B.Image("image/png", size=IMAGE_BYTES) in B.walk(shown)


def test_full_entries_read_for_display_are_bounded_by_bytes(
    image_session: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, _ = image_session
    sm = SessionManager.open(str(path))
    big = [e for e in sm.index.entries if e.size > IMAGE_BYTES]
    assert len(big) == 12  # 6 prompts with screenshots, 6 image results
    monkeypatch.setattr(manager_mod, "LOAD_CACHE_BYTES", 3 * big[0].size)
    for e in sm.index.entries * 2:
        assert sm.load(e)["id"] == e.id
        assert sm._cache_bytes == sum(size for _obj, size in sm._cache.values())
        assert sm._cache_bytes <= 3 * big[0].size + max(x.size for x in big)
    monkeypatch.setattr(manager_mod, "LOAD_CACHE_BYTES", 32 << 20)
    monkeypatch.setattr(manager_mod, "LOAD_CACHE_ENTRIES", 4)
    for e in sm.index.entries:
        sm.load(e)
    assert list(sm._cache) == [e.id for e in sm.index.entries[-4:]]
    # an entry still cached is the same object, a dropped one is read again
    last = sm.index.entries[-1]
    assert sm.load(last) is sm.load(last)


def test_search_never_matches_the_base64_of_an_image(
    image_session: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, payloads = image_session
    sm = SessionManager.open(str(path))
    model = TreeModel(sm)
    model.set_filter("all")
    probes = [p[500:512] for p in payloads]
    for probe in probes:
        model.set_query(probe.lower())
        assert len(model) == 0, probe
    model.set_query("sidebar overlaps")
    assert len(model) == 6
    # the picker's full-text search: text and tool names match, image data never does, and a
    # line is not even decoded when the query's bytes occur only in an image's base64
    decoded: list[bytes] = []
    real_loads = fulltext.loads

    def loads(raw: bytes) -> Any:
        decoded.append(raw)
        return real_loads(raw)

    monkeypatch.setattr(fulltext, "loads", loads)
    hits = [
        h
        for probe in probes[:IMAGES]
        for h in fulltext.search_sessions([str(path)], probe)
        if isinstance(h, fulltext.SearchHit)
    ]
    assert hits == [] and decoded == []
    upload = probes[IMAGES]  # a tool argument's base64 is text a search reads
    assert [h.entry_id for h in fulltext.search_sessions([str(path)], upload) if isinstance(h, fulltext.SearchHit)] == [
        "e0000002"
    ]
    assert len(decoded) == 1
    found = [h for h in fulltext.search_sessions([str(path)], "grid column") if isinstance(h, fulltext.SearchHit)]
    assert len(found) == 6


def test_the_persistent_index_of_an_image_session_holds_no_image_data(
    image_session: tuple[Path, list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, payloads = image_session
    cache = tmp_path / "cache"
    monkeypatch.setenv("LOOMTUI_CACHE_DIR", str(cache))
    monkeypatch.setenv("LOOMTUI_CACHE_MIN_BYTES", "0")
    cold = SessionManager.open(str(path))
    cache_io.reap(block=True)
    files = list(cache.iterdir())
    assert len(files) == 1
    stored = files[0].read_bytes()
    assert len(stored) < path.stat().st_size / 50
    assert all(p[1000:1064].encode() not in stored for p in payloads)
    warm = SessionManager.open(str(path))
    assert [_slot_values(e) for e in warm.index.entries] == [_slot_values(e) for e in cold.index.entries]


def test_a_branch_export_is_written_a_piece_at_a_time(
    image_session: tuple[Path, list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from loomtui.session import store

    path, _ = image_session
    sm = SessionManager.open(str(path))
    leaf = sm.index.entries[-1]
    pieces: list[int] = []
    real = store.write_fully

    def write_fully(fd: int, data: bytes) -> None:
        pieces.append(len(data))
        real(fd, data)

    monkeypatch.setattr(store, "write_fully", write_fully)
    monkeypatch.setattr(manager_mod, "WRITE_PIECE", 200_000)
    out = sm.create_branched_session(leaf.id, out=str(tmp_path / "branch.jsonl"))
    longest = max(e.size for e in sm.index.entries)
    assert len(pieces) > 5 and max(pieces) < 200_000 + longest + 2
    written = Path(out).read_bytes().split(b"\n")
    assert json.loads(written[0])["parentSession"] == str(path)
    source = path.read_bytes()
    assert written[1:-1] == [source[e.offset : e.offset + e.size] for e in sm.index.path_to(leaf.id)]


def test_reader_mode_and_compare_keep_one_decoded_entry_at_a_time(
    image_session: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    import weakref

    from loomtui.view import compare
    from loomtui.view.reader import Transcript

    class Decoded(dict):  # type: ignore[type-arg]
        """A decoded entry that can be watched for being freed."""

    alive: list[weakref.ref[Decoded]] = []
    most = [0]
    real = compare.decode_line

    def decode_line(raw: bytes) -> Any:
        obj = Decoded(real(raw))
        alive.append(weakref.ref(obj))
        most[0] = max(most[0], sum(1 for r in alive if r() is not None))
        return obj

    monkeypatch.setattr(compare, "decode_line", decode_line)
    path, payloads = image_session
    sm = SessionManager.open(str(path))
    leaf = sm.index.entries[-1].id
    transcript = Transcript(sm, leaf)
    transcript.layout(80)
    while not transcript.advance(1.0):  # laid out as the reader does it, after its first screen
        pass
    assert len(alive) == 30 and most[0] <= 3
    assert all(p[:100] not in it.text for it in transcript.all_items() for p in payloads)
    alive.clear()
    most[0] = 0
    other = sm.index.entries[14].id  # an earlier point of the same branch
    result = compare.compare(sm, leaf, other)
    assert len(alive) == 15 and most[0] <= 3
    assert len(result.a_items) > 0


def test_a_line_longer_than_many_chunks_is_gathered_once(
    image_session: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    from loomtui.session import reader

    path, _ = image_session
    plain = SessionManager.open(str(path))
    feeds: list[int] = []
    real_feed = reader.LineParser.feed

    def feed(self: Any, buf: bytes, base: int, final: bool, stop: int | None = None) -> int:
        feeds.append(len(buf) if stop is None else stop)
        return real_feed(self, buf, base, final, stop)

    monkeypatch.setattr(reader.LineParser, "feed", feed)
    monkeypatch.setattr(reader, "CHUNK", 4096)  # an image line spans ~30 chunks
    monkeypatch.setenv("LOOMTUI_NO_CACHE", "1")
    chunked = SessionManager.open(str(path))
    assert [_slot_values(e) for e in chunked.index.entries] == [_slot_values(e) for e in plain.index.entries]
    chunks = -(-path.stat().st_size // 4096)
    lines = path.read_bytes().count(b"\n")
    # fed once per chunk that ends a line, not once per chunk: each long line is copied once
    assert len(feeds) <= lines + 1 < chunks / 10
