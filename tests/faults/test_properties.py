"""Property-based: real fixtures mutated (bytes, lines, JSON values, field types), then read,
drawn, summarised and written to.

* no exception escapes but loomtui's own one-line errors (LoomError);
* nothing from the file reaches the output unprintable;
* a refused write leaves the file byte for byte as it was;
* an accepted write leaves a file pi's own reader accepts with the same entries plus the new
  one (checked on every accepted write, with pi in one node process per test).

Example counts stay modest so the suite stays fast; the seed is random, so every run tries new
files.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from fault_helpers import needs_pi, pi_read
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loomtui.commands.info import render_text, summarize, to_json
from loomtui.formats.detect import open_any
from loomtui.session.errors import LoomError
from loomtui.session.jsonvalue import loads
from loomtui.session.manager import SessionManager
from loomtui.view.filter_modes import FILTER_MODES
from loomtui.view.model import TreeModel
from tests.shared_material import FIXTURES as SHARED
from tests.shared_material import needs_shared

PI_FILES = [
    SHARED / "pi" / f"{n}.jsonl"
    for n in ("dnouri-browse-session", "pi-brain-branch-summary", "pi-brain-mixed-boundaries")
]
LOOM_FILES = [
    SHARED / "loom" / "openloom-v1-existence-of-claude.openloom.json",
    SHARED / "loom" / "socketteer-loom_demo.json",
]
SETTINGS = settings(
    max_examples=30,
    deadline=None,
    derandomize=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# --- values a file may hold --------------------------------------------------------------------

ODD_TEXT = st.text(
    alphabet=st.sampled_from(
        [
            "a",
            " ",
            "\n",
            "\t",
            "\r",
            "\x1b",
            "\x07",
            "\x9b",
            "\x00",
            "\u2028",
            "é",
            "日",
            "\ud83d",
            "\ude00",
            "\\",
            '"',
            "[",
            "]",
        ]
    ),
    max_size=12,
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    ODD_TEXT,
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(ODD_TEXT, inner, max_size=3)),
    max_leaves=8,
)
RAW_VALUES = st.one_of(
    JSON_VALUES.map(lambda v: json.dumps(v)),
    st.sampled_from(
        [
            "1e999",
            "-1e999",
            "9" * 5000,
            '"\\ud83d"',
            "[" * 1500 + "]" * 1500,
            '{"a":' * 1200 + "1" + "}" * 1200,
            '"\\u001b]0;T\\u0007"',
        ]
    ),
)


class Doc(bytes):
    """Document bytes with a short repr (a failing example names its size, not its text)."""

    def __repr__(self) -> str:
        return f"<{len(self)} bytes: {bytes(self[:120])!r}…>"


def _dump_with(obj: dict[str, Any], key: str, raw: str) -> bytes:
    """``obj`` as JSON with ``key`` holding the raw JSON text ``raw``."""
    marker = "\u0000loomtui-marker\u0000"
    tmp = dict(obj)
    tmp[key] = marker
    # lone surrogates a mutation put in a value are written as such (invalid UTF-8: hostile too)
    return json.dumps(tmp, ensure_ascii=False).replace(json.dumps(marker), raw).encode("utf-8", "surrogatepass")


@st.composite
def mutated_session(draw: st.DrawFn) -> bytes:
    return Doc(draw(_mutated_session()))


@st.composite
def _mutated_session(draw: st.DrawFn) -> bytes:
    """A real pi fixture with a few mutations of its bytes, lines or values."""
    data = draw(st.sampled_from(PI_FILES)).read_bytes()
    for _ in range(draw(st.integers(1, 3))):
        lines = data.split(b"\n")
        kind = draw(st.sampled_from(["value", "value", "field-type", "bytes", "truncate", "line-op", "append"]))
        i = draw(st.integers(0, max(0, len(lines) - 2)))
        if kind in ("value", "field-type") and lines[i].strip():
            try:
                obj = json.loads(lines[i])
            except ValueError:
                continue
            if not isinstance(obj, dict) or not obj:
                continue
            if kind == "field-type" or draw(st.booleans()):
                key = draw(st.sampled_from(sorted(obj)))
            else:  # a field inside the message
                msg = obj.get("message")
                if not isinstance(msg, dict) or not msg:
                    continue
                key = draw(st.sampled_from(sorted(msg)))
                msg_raw = _dump_with(msg, key, draw(RAW_VALUES)).decode("utf-8", "surrogatepass")
                lines[i] = _dump_with(obj, "message", msg_raw)
                data = b"\n".join(lines)
                continue
            lines[i] = _dump_with(obj, key, draw(RAW_VALUES))
        elif kind == "bytes" and data:
            at = draw(st.integers(0, len(data) - 1))
            data = data[:at] + draw(st.binary(max_size=4)) + data[at + draw(st.integers(0, 3)) :]
            continue
        elif kind == "truncate" and data:
            data = data[: draw(st.integers(len(data) // 2, len(data)))]
            continue
        elif kind == "line-op" and len(lines) > 2:
            op = draw(st.sampled_from(["dup", "del", "swap", "join", "blank", "crlf"]))
            j = draw(st.integers(1, len(lines) - 1))
            if op == "dup":
                lines.insert(j, lines[i])
            elif op == "del" and i:
                del lines[i]
            elif op == "swap" and i:
                lines[i], lines[j] = lines[j], lines[i]
            elif op == "join" and i + 1 < len(lines):
                lines[i : i + 2] = [lines[i] + lines[i + 1]]
            elif op == "blank":
                lines.insert(j, b"   ")
            else:
                lines[i] = lines[i] + b"\r"
        elif kind == "append":
            lines.insert(len(lines) - 1, draw(RAW_VALUES).encode())
        data = b"\n".join(lines)
    return data


UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def _safe(text: str) -> bool:
    """Nothing a terminal would act on (what ``printable`` removes)."""
    return UNSAFE.search(text) is None


def _exercise_reading(manager: SessionManager) -> None:
    """Everything a reader does with a session: every filter's rows (plain and styled), a
    search, the info summary in both forms. All of it must be printable."""
    model = TreeModel(manager)
    for mode in FILTER_MODES:
        model.set_filter(mode)
        rows = list(model.plain_rows(120))
        assert all(_safe(r) for r in rows)
        for i in range(min(len(model), 30)):
            assert all(_safe(t) for _s, t in model.row_segments(i))
    model.set_filter("default")
    model.type_text("a")
    summary = summarize(manager)
    text = render_text(summary)
    assert _safe(text.replace("\n", ""))
    loads(to_json(summary))


def _file_in(tmp: Path, data: bytes, name: str = "s.jsonl") -> Path:
    path = tmp / name
    path.write_bytes(data)
    return path


@needs_shared()
@SETTINGS
@given(mutated_session())
def test_mutated_sessions_read_without_exceptions(data):
    with tempfile.TemporaryDirectory() as d:
        path = _file_in(Path(d), data)
        try:
            manager = open_any(str(path))
        except LoomError:
            return  # refused with one line: fine
        _exercise_reading(manager)


@needs_shared()
@needs_pi
def test_writes_to_mutated_sessions_are_all_or_nothing():
    """A label (or a persisted leaf) on a mutated session: refused with the file unchanged, or
    written so that pi reads the same entries plus the new one."""
    work = Path(tempfile.mkdtemp(prefix="loomtui-prop-"))
    accepted: list[tuple[Path, Path, str]] = []
    counter = [0]

    @SETTINGS
    @given(mutated_session(), st.integers(0, 10_000), st.sampled_from(["label", "clear", "persist"]), ODD_TEXT)
    def write_once(data: bytes, pick: int, action: str, text: str) -> None:
        counter[0] += 1
        path = _file_in(work, data, f"s{counter[0]}.jsonl")
        try:
            manager = SessionManager.open(str(path))
        except LoomError:
            assert path.read_bytes() == data
            return
        entries = manager.index.entries
        before = path.read_bytes()
        try:
            if not entries:
                raise LoomError("nothing to label")
            target = entries[pick % len(entries)].id
            if action == "persist":
                manager.branch(target)
                new_id = manager.append_label_change(target, manager.get_label(target) or "x")
            else:
                new_id = manager.append_label_change(target, None if action == "clear" else (text.strip() or "t"))
        except LoomError:
            assert path.read_bytes() == before
            return
        after = path.read_bytes()
        assert after.startswith(before) or after.startswith(before + b"\n")
        copy = work / f"before{counter[0]}.jsonl"
        copy.write_bytes(before)
        accepted.append((copy, path, new_id))

    try:
        write_once()
        assert accepted, "no write was accepted: the mutations are too harsh to test anything"
        results = pi_read(*[p for pair in accepted for p in pair[:2]])
        for (_before_path, after_path, new_id), pi_before, pi_after in zip(accepted, results[::2], results[1::2]):
            if not pi_before["ok"]:
                continue  # a file pi itself does not open (e.g. a non-object before the header)
            assert pi_after["ok"], after_path
            if pi_before["version"] in (None, 1) or not isinstance(pi_before["version"], (int, float)):
                # pi migrated in memory (random ids): compare counts
                assert len(pi_after["ids"]) == len(pi_before["ids"]) + 1
                continue
            assert pi_after["ids"] == pi_before["ids"] + [new_id], after_path
    finally:
        shutil.rmtree(work, ignore_errors=True)


@needs_shared()
@SETTINGS
@given(st.data())
def test_writes_refused_after_a_concurrent_rewrite_leave_the_file_as_rewritten(data):
    """The file changes between reading and writing (rewritten in place, truncated, replaced
    by another session, or appended to): the label is refused with the file as the other
    program left it, or — after a plain append — written after the other program's lines."""
    src = data.draw(st.sampled_from(PI_FILES)).read_bytes()
    with tempfile.TemporaryDirectory() as d:
        path = _file_in(Path(d), src)
        manager = SessionManager.open(str(path))
        target = manager.index.entries[data.draw(st.integers(0, len(manager.index.entries) - 1))].id
        change = data.draw(st.sampled_from(["flip", "truncate", "other", "append"]))
        if change == "flip":
            at = data.draw(st.integers(0, len(src) - 1))
            new = src[:at] + bytes([src[at] ^ 0x20]) + src[at + 1 :]
        elif change == "truncate":
            new = src[: data.draw(st.integers(0, len(src) - 1))]
        elif change == "other":
            new = data.draw(st.sampled_from([p for p in PI_FILES])).read_bytes()
        else:
            new = src + b'{"type":"custom","customType":"x","id":"zzzz0001","parentId":null,"timestamp":"t"}\n'
        with open(path, "r+b") as f:  # in place: same inode
            f.write(new)
            f.truncate(len(new))
        try:
            manager.append_label_change(target, "mine")
        except LoomError:
            assert path.read_bytes() == new
            return
        # accepted: the header and the line parented on were still what was read; the label is
        # one whole line after the other program's bytes, parented on an entry of the file
        after = path.read_bytes()
        assert after.startswith(new) and after.endswith(b"\n")
        added = after[len(new) :].strip(b"\n")
        assert b"\n" not in added
        entry = json.loads(added)
        assert entry["type"] == "label" and entry["targetId"] == target
        reread = SessionManager.open(str(path))
        assert entry["id"] in reread.index.by_id and entry["parentId"] in reread.index.by_id
        assert reread.get_header() == manager.get_header()


@st.composite
def mutated_loom(draw: st.DrawFn) -> tuple[Path, bytes]:
    path = draw(st.sampled_from(LOOM_FILES))
    doc = json.loads(path.read_bytes())
    # walk to a random dict inside the document and change one field's value or type
    for _ in range(draw(st.integers(1, 3))):
        node: Any = doc
        for _depth in range(draw(st.integers(1, 6))):
            if isinstance(node, dict) and node:
                node = node[draw(st.sampled_from(sorted(node)))]
            elif isinstance(node, list) and node:
                node = node[draw(st.integers(0, len(node) - 1))]
            else:
                break
        if isinstance(node, dict) and node:
            node[draw(st.sampled_from(sorted(node)))] = draw(JSON_VALUES)
    return path, Doc(json.dumps(doc, indent=2).encode())


@needs_shared()
@SETTINGS
@given(mutated_loom(), st.integers(0, 10_000))
def test_mutated_looms_read_and_save_bookmarks_value_for_value(loom, pick):
    from loomtui.formats.looms.bookmarks import save_bookmarks

    original, data = loom
    with tempfile.TemporaryDirectory() as d:
        path = _file_in(Path(d), data, original.name)
        try:
            manager = open_any(str(path))
        except LoomError:
            return
        _exercise_reading(manager)
        entries = manager.index.entries
        if not entries:
            return
        manager.append_label_change(entries[pick % len(entries)].id, "prop")
        try:
            result = save_bookmarks(manager)
        except LoomError:
            assert path.read_bytes() == data and not (Path(d) / (original.name + ".bak")).exists()
            return
        if result.backup is None:
            return
        assert Path(result.backup).read_bytes() == data
        before, after = json.loads(data), json.loads(path.read_bytes())
        assert _strip_bookmarks(before) == _strip_bookmarks(after)


def _strip_bookmarks(v: Any) -> Any:
    """The document without the fields a bookmark save may change."""
    skip = {
        "bookmark",
        "bookmarked",
        "bookmarkLabel",
        "isBookmarked",
        "bookmarkTitle",
        "bookmarkedNodes",
        "loomtui_label",
        "tags",
        "meta",
    }
    if isinstance(v, dict):
        return {k: _strip_bookmarks(x) for k, x in v.items() if k not in skip}
    if isinstance(v, list):
        return [_strip_bookmarks(x) for x in v]
    return v


@needs_shared()
@pytest.mark.parametrize("path", PI_FILES, ids=lambda p: p.stem)
def test_the_unmutated_fixtures_pass_the_same_checks(path):
    _exercise_reading(SessionManager.open(str(path)))


@SETTINGS
@given(JSON_VALUES)
def test_the_iterative_parser_reads_what_the_stdlib_reads(value):
    """The parser for documents nested beyond the C codec's reach gives the same values."""
    from loomtui.session.jsonvalue import iterative_loads

    for text in (json.dumps(value), json.dumps(value, indent=2), json.dumps(value, ensure_ascii=False)):
        assert iterative_loads(text) == json.loads(text)
    deep = "[" * 50_000 + json.dumps(value) + "]" * 50_000
    got = iterative_loads(deep)
    for _ in range(50_000):
        assert isinstance(got, list) and len(got) == 1
        got = got[0]
    assert got == json.loads(json.dumps(value))  # an escaped surrogate pair reads as one character
