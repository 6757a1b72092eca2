"""The flattened tree kept beside the index (formats/opening/flat_cache.py): a reopen of the unchanged file
builds the same view model without flattening, and nothing else ever uses it."""

from __future__ import annotations

import json
from array import array
from pathlib import Path
from typing import Any

import pytest

from loomtui.formats.opening import Opening
from loomtui.formats.opening import flat_cache as flatcache
from loomtui.session import cache_files, cache_io
from loomtui.session.manager import SessionManager
from loomtui.session.migrate import migrated_bytes
from loomtui.view import flat as F
from loomtui.view.model import TreeModel


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("LOOMTUI_CACHE_DIR", str(d))
    monkeypatch.setenv("LOOMTUI_CACHE_MIN_BYTES", "0")
    monkeypatch.delenv("LOOMTUI_NO_CACHE", raising=False)
    return d


@pytest.fixture
def flattens(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """Leaves ``flat.flatten`` ran for (a cache hit runs none)."""
    seen: list[str | None] = []
    real = F.flatten

    def flatten(index, leaf_id, *a, **kw):  # type: ignore[no-untyped-def]
        seen.append(leaf_id)
        return real(index, leaf_id, *a, **kw)

    monkeypatch.setattr(F, "flatten", flatten)
    return seen


@pytest.fixture(params=["dnouri-browse-session", "pi-brain-mixed-boundaries", "large-v3"])
def session(request: pytest.FixtureRequest, pi_copy, pi_dir: Path, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    if request.param == "large-v3":
        dst = tmp_path / "large-v3.jsonl"
        dst.write_bytes(migrated_bytes(str(pi_dir / "pi-mono-large-session.jsonl"))[0])
        return dst
    return Path(pi_copy(request.param))


def model(path: Path, **kw: Any) -> TreeModel:
    flattener = Opening(str(path)).flattener  # the opener's: a reopen takes the kept tree
    m = TreeModel(SessionManager.open(str(path)), home="/home/user", flattener=flattener, **kw)
    cache_io.reap(block=True)  # side files are written by background children
    return m


def view(m: TreeModel) -> dict[str, Any]:
    flat = m.flat
    out: dict[str, Any] = {
        "order": [e.id for e in flat.entries],
        "ends": [flat.end(p) for p in range(len(flat))],
        "classes": bytes(flat.classes),
        "head": flat.head,
        "active": sorted(e.id for e in flat.active),
        "base": bytes(m.base_classes),
        "leaf at": flat.position(m.leaf_id) if m.leaf_id is not None else None,
    }
    for mode in m.modes:
        m.set_filter(mode)
        out[mode] = m.lines()
    return out


def plain(path: Path, monkeypatch: pytest.MonkeyPatch, **kw: Any) -> dict[str, Any]:
    with monkeypatch.context() as mp:
        mp.setenv("LOOMTUI_NO_CACHE", "1")
        return view(model(path, **kw))


def test_a_reopen_takes_the_flattened_tree_and_shows_the_same_rows(
    cache: Path, session: Path, flattens: list[str | None], monkeypatch: pytest.MonkeyPatch
) -> None:
    first = model(session)
    assert len(flattens) == 1
    expected = view(first)
    flattens.clear()
    again = model(session)
    assert flattens == []  # from the side file
    assert view(again) == expected == plain(session, monkeypatch)


def test_another_leaf_an_append_or_damage_flatten_anew(
    cache: Path,
    pi_copy,
    flattens: list[str | None],  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = Path(pi_copy("dnouri-browse-session"))
    model(path)
    flattens.clear()
    other = model(path, leaf_id="aa000002", use_manager_leaf=False)
    assert flattens == ["aa000002"]
    assert view(other) == plain(path, monkeypatch, leaf_id="aa000002", use_manager_leaf=False)
    model(path)  # the manager's leaf again: flattened (the side file held aa000002's)
    flattens.clear()
    model(path)
    assert flattens == []
    flattens.clear()
    last = json.loads(path.read_text().splitlines()[-1])
    with open(path, "a") as f:
        f.write(
            json.dumps(
                {
                    "type": "message",
                    "id": "zz000001",
                    "parentId": last["id"],
                    "timestamp": "2026-03-01T10:00:00.000Z",
                    "message": {"role": "user", "content": "appended"},
                }
            )
            + "\n"
        )
    grown = model(path)
    assert len(flattens) == 1 and "zz000001" in [e.id for e in grown.flat.entries]
    assert view(grown) == plain(path, monkeypatch)
    side = Path(cache_io.cache_path(str(path))[: -len(cache_files.SUFFIX)] + flatcache.SUFFIX)
    data = side.read_bytes()
    side.write_bytes(data[:-5] + bytes([data[-5] ^ 0x55]) + data[-4:])
    flattens.clear()
    damaged = model(path)
    assert len(flattens) == 1
    assert view(damaged) == plain(path, monkeypatch)
    # a valid envelope whose order points outside the entries
    key = flatcache._key(SessionManager.open(str(path)))
    n = len(grown.flat)
    good_order = array("i", [e.index for e in grown.flat.entries]).tobytes()
    good_ends = array("i", [grown.flat.end(p) for p in range(n)]).tobytes()
    base, classes = bytes(grown.base_classes), bytes(grown.flat.classes)
    path_len = len(grown.flat.active)
    for bad in [
        # a valid envelope whose order points outside the entries
        (
            flatcache.FORMAT,
            key,
            grown.leaf_id,
            n,
            b"\xff\xff\xff\x7f" * n,
            b"\x00\x00\x00\x00" * n,
            base,
            classes,
            path_len,
        ),
        # classes of another length, a path that does not end at the leaf, an older layout
        (flatcache.FORMAT, key, grown.leaf_id, n, good_order, good_ends, base[:-1], classes, path_len),
        (flatcache.FORMAT, key, grown.leaf_id, n, good_order, good_ends, base, classes, path_len - 1),
        (1, key, grown.leaf_id, n, good_order, good_ends),
    ]:
        cache_io.write_side(str(path), flatcache.SUFFIX, flatcache.MAGIC, bad)
        flattens.clear()
        refused = model(path)
        assert len(flattens) == 1
        assert view(refused) == plain(path, monkeypatch)
    # the same envelope with the right values is taken
    cache_io.write_side(
        str(path),
        flatcache.SUFFIX,
        flatcache.MAGIC,
        (flatcache.FORMAT, key, grown.leaf_id, n, good_order, good_ends, base, classes, path_len),
    )
    flattens.clear()
    taken = model(path)
    assert flattens == [] and view(taken) == plain(path, monkeypatch)


def test_nothing_is_kept_without_the_cache_or_for_small_files(
    cache: Path,
    pi_copy,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = Path(pi_copy("dnouri-browse-session"))
    side = Path(cache_io.cache_path(str(path))[: -len(cache_files.SUFFIX)] + flatcache.SUFFIX)
    monkeypatch.setenv("LOOMTUI_NO_CACHE", "1")
    model(path)
    assert not side.exists()
    monkeypatch.delenv("LOOMTUI_NO_CACHE")
    monkeypatch.setenv("LOOMTUI_CACHE_MIN_BYTES", str(1 << 30))
    model(path)
    assert not side.exists()


def test_where_no_child_may_start_the_caller_stores_it_later(
    cache: Path,
    pi_copy,
    flattens: list[str | None],  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The browser (threads running): loading only flattens; the screen stores it once painted."""
    path = Path(pi_copy("pi-brain-mixed-boundaries"))
    side = Path(cache_io.cache_path(str(path))[: -len(cache_files.SUFFIX)] + flatcache.SUFFIX)
    monkeypatch.setattr(flatcache, "can_fork", lambda: False)
    first = model(path)
    assert first.unsaved_flat is first.flat and not side.exists()
    flatcache.save(first.manager, first.unsaved_flat, first.base_classes)
    flattens.clear()
    again = model(path)
    assert flattens == [] and again.unsaved_flat is None
    assert view(again) == plain(path, monkeypatch)


def test_row_texts_are_kept_for_one_leaf_and_home(cache: Path, pi_copy, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from loomtui.view.text import display_segments

    path = Path(pi_copy("dnouri-browse-session"))
    m = model(path)
    assert flatcache.load_texts(m.manager, m.flat, "/home/user") is None
    job = flatcache.texts_job(m.manager, m.flat, "/home/user")
    assert job is not None
    job()
    texts = flatcache.load_texts(m.manager, m.flat, "/home/user")
    assert texts == [
        "".join(t for _s, t in display_segments(e, m.flat.tool_calls, "/home/user")) for e in m.manager.index.entries
    ]
    assert flatcache.load_texts(m.manager, m.flat, "/root") is None
    other = model(path, leaf_id="aa000002", use_manager_leaf=False)
    assert flatcache.load_texts(other.manager, other.flat, "/home/user") is None
    with open(path, "a") as f:
        f.write("\n")  # the file is not what was read any more: its next read has other texts
    assert flatcache.load_texts(m.manager, m.flat, "/home/user") == texts  # still this read's entries
    grown = model(path)
    assert flatcache.load_texts(grown.manager, grown.flat, "/home/user") is None


def test_a_reopen_makes_the_tool_call_map_only_when_asked(
    cache: Path, session: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reopen from the side file leaves the flat's tool-call map to its first use (printing
    rows whose texts were kept needs none); made then, it is the map a fresh flatten gives."""
    model(session)
    again = model(session)
    assert callable(again.flat._calls)  # not made yet: what makes it
    with monkeypatch.context() as mp:
        mp.setenv("LOOMTUI_NO_CACHE", "1")
        fresh = model(session)
    assert again.flat.tool_calls == fresh.flat.tool_calls
    assert isinstance(again.flat._calls, dict) and again.tool_call_ids_unique == fresh.tool_call_ids_unique
