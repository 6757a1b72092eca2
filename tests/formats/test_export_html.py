"""`loomtui export-html` without a browser: the command, the embedded data, the rendering."""

from __future__ import annotations

import base64
import gzip
import json
import re
from pathlib import Path
from typing import Any

import pytest

from loomtui.cli import main
from loomtui.formats.detect import open_any
from loomtui.formats.html.export import CHUNK, build_page, default_output
from loomtui.view.filter_modes import FILTER_MODES
from loomtui.view.model import TreeModel
from tests.shared_material import SHARED, needs_shared, shared_params

PI = SHARED / "fixtures" / "pi"
LOOM = SHARED / "fixtures" / "loom"
BROWSE = PI / "dnouri-browse-session.jsonl"


def blobs(page: str) -> dict[str, Any]:
    """The page's embedded data, decoded: ``side`` and ``find`` (JSON), ``c<k>`` chunks (lists of
    records ``[line, html, in_file, kind, head]``), ``orig`` bytes."""
    out: dict[str, Any] = {}
    for m in re.finditer(r'<script type="application/gzip\+base64" id="d-([^"]+)">([^<]*)</script>', page):
        raw = gzip.decompress(base64.b64decode(m.group(2)))
        name = m.group(1)
        if name == "orig":
            out[name] = raw
        elif name.startswith("c") and name[1:].isdigit():
            parts = raw.decode("utf-8").split("\n")
            out[name] = [[parts[i], *json.loads(parts[i + 1])] for i in range(0, len(parts) - 1, 2)]
        else:
            out[name] = json.loads(raw)
    return out


def records(data: dict[str, Any]) -> list[list[Any]]:
    return [r for k in range(data["side"]["chunks"]) for r in data[f"c{k}"]]


def test_code_colours_are_what_pygments_writes() -> None:
    """The code styles' CSS the page carries (assets beside ``html/theme.py``, read instead of
    loading Pygments for every export) is what the installed Pygments writes for them."""
    from loomtui.formats.html import theme

    for dark, style in theme.CODE_STYLES.items():
        assert theme._code_css(dark) == theme.code_css_of(style), style


def test_a_page_without_code_loads_no_pygments(tmp_path: Path) -> None:
    """An export whose session has no code to highlight leaves Pygments and markdown-it alone."""
    import subprocess
    import sys

    session = tmp_path / "s.jsonl"
    header = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/"}
    user = {
        "type": "message",
        "id": "u1",
        "parentId": None,
        "timestamp": "2026-01-01T00:00:01Z",
        "message": {"role": "user", "content": "hello there"},
    }
    session.write_text(json.dumps(header) + "\n" + json.dumps(user) + "\n")
    code = (
        "import sys; from loomtui.cli import main; main(['export-html', sys.argv[1], '-o', sys.argv[2]]); "
        "print(sorted(m for m in sys.modules if m.startswith(('pygments', 'markdown_it'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(session), str(tmp_path / "p.html")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip().splitlines()[-1] == "[]"


@needs_shared()
def test_command_writes_a_new_page_and_never_overwrites(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "page.html"
    assert main(["export-html", str(BROWSE), "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>")
    # self-contained: nothing is fetched from anywhere
    assert not re.search(r'(src|href)="(https?:)?//', page)
    assert "Content-Security-Policy" in page
    before = out.read_bytes()
    assert main(["export-html", str(BROWSE), "-o", str(out)]) == 2
    assert out.read_bytes() == before
    assert "exists" in capsys.readouterr().err


def test_unknown_leaf_or_theme_is_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.html"
    assert main(["export-html", str(BROWSE), "-o", str(out), "--leaf", "nope"]) == 2
    assert main(["export-html", str(BROWSE), "-o", str(out), "--theme", "no-such-theme"]) == 2
    err = capsys.readouterr().err.strip().split("\n")
    assert len(err) == 2 and all(line.startswith("loomtui: ") for line in err)
    assert not out.exists()


@needs_shared()
def test_without_o_the_page_goes_where_the_apps_alt_e_writes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One rule for both: the current directory, under the session file's name (``NAME-2.html``
    when taken). The command wrote beside the file (inside ~/.claude/projects for Claude Code),
    Alt+E into the current directory."""
    from loomtui.formats.html.export import export_session_to_free_name, page_directory

    source = tmp_path / "sessions" / BROWSE.name
    source.parent.mkdir()
    source.write_bytes(BROWSE.read_bytes())
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    assert page_directory() == str(here)
    assert main(["export-html", str(source)]) == 0
    first = here / (source.stem + ".html")
    assert capsys.readouterr().out.startswith(f"wrote {first}: ")
    app_page = export_session_to_free_name(open_any(str(source)), str(source), page_directory())
    assert app_page == str(here / (source.stem + "-2.html"))  # the same place, the next free name
    assert main(["export-html", str(source)]) == 0
    assert (here / (source.stem + "-3.html")).exists()
    assert sorted(p.name for p in source.parent.iterdir()) == [source.name]  # nothing beside the session


def test_default_output_name() -> None:
    assert default_output("/a/s.jsonl") == "/a/s.html"
    assert default_output("/a/doc.openloom.json") == "/a/doc.openloom.html"


@pytest.mark.parametrize("name", shared_params(sorted(p.name for p in PI.glob("*.jsonl"))))
def test_records_rebuild_the_file_byte_for_byte(name: str) -> None:
    path = PI / name
    data = blobs(build_page(open_any(str(path))))
    recs = records(data)
    raw = "\n".join(r[0] for r in recs if r[2] == 1).encode()
    assert raw == path.read_bytes()


def test_records_hold_lines_as_text_the_page_can_split(write_session: Any) -> None:
    """A chunk is the lines and their rendered parts one per line: a line that is not valid
    UTF-8 is held decoded (U+FFFD for the bad bytes, as the page's decoder reads it), a CRLF
    line keeps its carriage return."""
    user = {
        "type": "message",
        "id": "u1",
        "parentId": None,
        "timestamp": "2026-01-01T00:00:00.000Z",
        "message": {"role": "user", "content": "héllo"},
    }
    bad = (
        b'{"type": "message", "id": "u2", "parentId": "u1", "timestamp": "2026-01-01T00:00:01.000Z", '
        b'"message": {"role": "user", "content": "caf\xe9 \xff"}}\n'
    )
    crlf = (
        b'{"type": "message", "id": "u3", "parentId": "u2", "timestamp": "2026-01-01T00:00:02.000Z", '
        b'"message": {"role": "user", "content": "line"}}\r\n'
    )
    path = write_session([user, bad, crlf])
    recs = records(blobs(build_page(open_any(str(path)))))
    assert [r[0] for r in recs if r[2] == 1] == path.read_bytes().decode("utf-8", errors="replace").split("\n")
    assert "caf\ufffd \ufffd" in recs[2][0] and recs[3][0].endswith("\r")
    assert [r[3] for r in recs] == ["", "user", "user", "user", ""]


@needs_shared()
def test_sidebar_rows_are_the_tree_models_rows() -> None:
    manager = open_any(str(BROWSE))
    side = blobs(build_page(manager))["side"]
    for mode in FILTER_MODES:
        model = TreeModel(open_any(str(BROWSE)), filter_mode=mode)
        want = [model.row_text(i, cursor=False) for i in range(len(model))]
        rows = side["filters"][mode]
        got = []
        for p, k in zip(rows["pos"], rows["pre"]):
            label = side["labels"].get(str(p))
            mark = "• " if side["marks_path"] and p in set(_path(side, side["leaf"])) else ""
            text = "".join(side["segs"][p][1::2])
            got.append(side["prefixes"][k] + mark + (f"[{label}] " if label is not None else "") + text)
        assert got == want, mode


def _path(side: dict[str, Any], p: int) -> list[int]:
    out = []
    while p >= 0:
        out.append(p)
        p = side["parent"][p]
    return out


@needs_shared()
def test_every_entry_has_a_record_and_html() -> None:
    manager = open_any(str(PI / "pi-mono-large-session.jsonl"))
    data = blobs(build_page(manager))
    side, recs = data["side"], records(data)
    assert len(side["loc"]) == len(manager.index.entries)
    for p, eid in enumerate(side["ids"]):
        rec = recs[side["loc"][p]]
        assert json.loads(rec[0])["id"] == eid
        assert rec[4][0]  # the header's title (the page writes the header from it)
    assert data["side"]["chunks"] == (len(recs) + CHUNK - 1) // CHUNK


@needs_shared()
def test_header_has_models_tokens_and_cost() -> None:
    page = build_page(open_any(str(PI / "pi-mono-large-session.jsonl")))
    head = page[page.index('<header id="head">') : page.index("</header>")]
    assert "anthropic/claude-sonnet-4-5" in head and "openai/gpt-5.1-codex" in head
    assert "$30.3302" in head  # the sum of every turn's cost
    assert "cwd /Users/badlogic/workspaces/pi-mono" in head


def test_rendering_markdown_code_thinking_tools_diff_and_images(write_session: Any) -> None:
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 20).decode()
    path = write_session(
        [
            {
                "type": "message",
                "id": "u1",
                "parentId": None,
                "timestamp": "2026-01-01T00:00:01Z",
                "message": {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "**bold** and\n\n```python\nx = 1\n```"},
                        {"type": "image", "mimeType": "image/png", "data": png},
                    ],
                },
            },
            {
                "type": "message",
                "id": "a1",
                "parentId": "u1",
                "timestamp": "2026-01-01T00:00:02Z",
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "let me think"},
                        {
                            "type": "toolCall",
                            "id": "c1",
                            "name": "edit",
                            "arguments": {"path": "a.py", "oldText": "x", "newText": "y"},
                        },
                    ],
                    "stopReason": "toolUse",
                },
            },
            {
                "type": "message",
                "id": "r1",
                "parentId": "a1",
                "timestamp": "2026-01-01T00:00:03Z",
                "message": {
                    "role": "toolResult",
                    "toolCallId": "c1",
                    "toolName": "edit",
                    "content": [{"type": "text", "text": "\n".join(f"line {i}" for i in range(30))}],
                    "details": {"diff": "-1 x\n+1 y"},
                    "isError": False,
                },
            },
            {
                "type": "compaction",
                "id": "k1",
                "parentId": "r1",
                "timestamp": "2026-01-01T00:00:04Z",
                "summary": "the *summary*",
                "firstKeptEntryId": "u1",
                "tokensBefore": 1234,
            },
            {
                "type": "model_change",
                "id": "m1",
                "parentId": "k1",
                "timestamp": "2026-01-01T00:00:05Z",
                "provider": "p",
                "modelId": "big",
            },
            {
                "type": "thinking_level_change",
                "id": "t1",
                "parentId": "m1",
                "timestamp": "2026-01-01T00:00:06Z",
                "thinkingLevel": "high",
            },
        ]
    )
    data = blobs(build_page(open_any(str(path))))
    side, recs = data["side"], records(data)
    html = {eid: recs[side["loc"][p]][1] for p, eid in enumerate(side["ids"])}
    head = {eid: recs[side["loc"][p]][4] for p, eid in enumerate(side["ids"])}
    assert "<strong>bold</strong>" in html["u1"]
    assert 'class="hl"' in html["u1"] and '<span class="n">x</span>' in html["u1"]  # Pygments
    # the image: filled in by the page from the entry's line (its base64 is in the page once)
    assert 'data-img="u1" data-i="1"' in html["u1"] and "src=" not in html["u1"]
    # thinking and tool output: the page fills them in from the entries' own lines
    assert '<details class="thinking">' in html["a1"] and 'data-think="a1" data-k="0"' in html["a1"]
    assert 'class="tool-out ' in html["a1"] and 'data-state="preview"' in html["a1"]  # 30 lines: preview
    assert 'data-out="r1"' in html["a1"]  # the result, with its call
    assert 'class="gd"' in html["a1"] and 'class="gi"' in html["a1"]  # the diff, through Pygments
    # shown with its call: no body (null), which the page reads as "hide this entry"
    assert head["r1"][0] == "tool result (shown with its call)" and html["r1"] is None
    assert head["a1"][1] is None  # the time as the line has it: the page reads it there
    assert "<em>summary</em>" in html["k1"] and "1,234 tokens before" in html["k1"]
    assert head["m1"][0] == "model change: p/big" and head["t1"][0] == "thinking level: high"


@needs_shared()
def test_openloom_page_embeds_the_original_file(tmp_path: Path) -> None:
    src = LOOM / "openloom-v1-existence-of-claude.openloom.json"
    data = blobs(build_page(open_any(str(src)), source_name=src.name))
    assert data["orig"] == src.read_bytes()
    assert data["side"]["original"] == src.name


def test_no_system_context_leaves_out_system_prompts(write_session: Any) -> None:
    path = write_session(
        [
            {
                "type": "custom_message",
                "id": "s1",
                "parentId": None,
                "timestamp": "2026-01-01T00:00:01Z",
                "customType": "system",
                "content": "SECRET SYSTEM PROMPT",
                "display": False,
            },
            {
                "type": "message",
                "id": "u1",
                "parentId": "s1",
                "timestamp": "2026-01-01T00:00:02Z",
                "message": {"role": "user", "content": "hello"},
            },
            {
                "type": "session_init",
                "id": "i1",
                "parentId": "u1",
                "timestamp": "2026-01-01T00:00:03Z",
                "systemPrompt": "SECRET INIT PROMPT",
                "task": "the task",
            },
        ],
        header={
            "type": "session",
            "version": 3,
            "id": "x",
            "timestamp": "2026-01-01T00:00:00Z",
            "cwd": "/",
            "systemPrompt": "SECRET HEADER PROMPT",
        },
    )
    with_ctx = build_page(open_any(str(path)))
    assert "SECRET SYSTEM PROMPT" in json.dumps(records(blobs(with_ctx)))
    assert "SECRET INIT PROMPT" in json.dumps([r[1] for r in records(blobs(with_ctx))])  # rendered, too
    page = build_page(open_any(str(path)), no_system_context=True)
    data = blobs(page)
    everything = json.dumps(records(data)) + json.dumps(data["side"]) + page
    assert "SECRET" not in everything


def _two_branches(write_session: Any) -> Path:
    """u1 → a1, then two branches: u3 → a3, a3b (the older, off the file's leaf) and u2 → a2
    (the file's leaf, last in the file)."""

    def m(eid: str, parent: str | None, role: str, second: int) -> dict[str, Any]:
        return {
            "type": "message",
            "id": eid,
            "parentId": parent,
            "timestamp": f"2026-01-01T00:00:{second:02d}.000Z",
            "message": {"role": role, "content": [{"type": "text", "text": eid}]},
        }

    return write_session(
        [
            m("u1", None, "user", 1),
            m("a1", "u1", "assistant", 2),
            m("u3", "a1", "user", 3),
            m("a3", "u3", "assistant", 4),
            m("a3b", "u3", "assistant", 5),
            m("u2", "a1", "user", 6),
            m("a2", "u2", "assistant", 7),
        ],
        name="two.jsonl",
    )


def _opened_at(page: Path) -> tuple[str, str]:
    side = blobs(page.read_text())["side"]
    return side["ids"][side["leaf"]], side["ids"][side["target"]]


def test_a_target_off_the_leafs_branch_opens_the_page_on_a_branch_through_it(
    write_session: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--target` alone opens the page on a branch that holds the target: the file's leaf when
    its branch does, else the newest leaf below the target (what a click on its row opens)."""
    path = _two_branches(write_session)
    assert main(["export-html", str(path), "--target", "u3", "-o", str(tmp_path / "off.html")]) == 0
    assert _opened_at(tmp_path / "off.html") == ("a3b", "u3")
    assert main(["export-html", str(path), "--target", "a1", "-o", str(tmp_path / "on.html")]) == 0
    assert _opened_at(tmp_path / "on.html") == ("a2", "a1")
    assert main(["export-html", str(path), "--leaf", "a3", "--target", "u3", "-o", str(tmp_path / "l.html")]) == 0
    assert _opened_at(tmp_path / "l.html") == ("a3", "u3")
    # an explicit --leaf whose branch does not hold the target is refused, not ignored
    capsys.readouterr()
    assert main(["export-html", str(path), "--leaf", "a2", "--target", "u3", "-o", str(tmp_path / "no.html")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("loomtui: ") and "--target u3" in err[0] and "--leaf a2" in err[0]
    assert not (tmp_path / "no.html").exists()
    # the page builder (the app's Alt+E) opens on the target's branch whatever leaf it is given
    assert _side_leaf(build_page(open_any(str(path)), leaf_id="a2", target_id="u3")) == "a3b"


def _side_leaf(page: str) -> str:
    side = blobs(page)["side"]
    return side["ids"][side["leaf"]]  # type: ignore[no-any-return]


def test_an_unknown_theme_names_the_themes_the_help_promises(
    write_session: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--help` says light, dark or a theme file's name: the refusal lists those spellings."""
    path = _two_branches(write_session)
    assert main(["export-html", str(path), "--theme", "bogus", "-o", str(tmp_path / "t.html")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("loomtui: no theme named 'bogus'"), err
    assert "light, dark or a theme file's name (loom-dark, loom-light)" in err[0]
    for name in ("light", "dark", "loom-light"):
        assert main(["export-html", str(path), "--theme", name, "-o", str(tmp_path / f"{name}.html")]) == 0
