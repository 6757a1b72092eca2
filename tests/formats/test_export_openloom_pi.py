"""A pi session exported to OpenLoom: every node carries its text as OpenLoom blocks, and
loomtui reopening the export shows the rows the pi session showed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from loomkit import check_invariants

from loomtui.cli import main
from loomtui.formats.detect import open_any
from loomtui.formats.looms.export import export_openloom
from loomtui.session.manager import SessionManager
from loomtui.view.model import TreeModel
from loomtui.view.text import display_text

PI160 = Path(__file__).parents[1] / "fixtures" / "pi160" / "written-by-pi-1.6.0.jsonl"


def rows_by_id(sm: SessionManager) -> dict[str, str]:
    """Each entry's row text (every filter's rows), by entry id."""
    model = TreeModel(sm, filter_mode="all")
    return {e.id: display_text(e, model.flat.tool_calls, "") for e in sm.index.entries}


def exported(sm: SessionManager, out: Path, **kw: Any) -> tuple[dict[str, Any], SessionManager]:
    export_openloom(sm, str(out), **kw)
    doc = json.loads(out.read_bytes())
    check_invariants(doc)
    return doc, open_any(str(out))


def line(**kw: Any) -> str:
    return json.dumps(kw)


def odd_session(tmp_path: Path) -> Path:
    """Tool results of every shape: answered by content, by an ``output`` list (another
    writer's field), an orphan, an error; a bash execution, an aborted and an errored reply."""

    def msg(eid: str, parent: str | None, minute: int, **message: Any) -> str:
        return line(
            type="message", id=eid, parentId=parent, timestamp=f"2026-03-01T09:{minute:02d}:00.000Z", message=message
        )

    lines = [
        line(type="session", version=3, id="odd-1", timestamp="2026-03-01T08:59:00.000Z", cwd="/srv/demo"),
        msg("u1", None, 0, role="user", content="Why is my build failing?"),
        msg(
            "a1",
            "u1",
            1,
            role="assistant",
            content=[
                {"type": "text", "text": "Checking."},
                {"type": "toolCall", "id": "tc1", "name": "read", "arguments": {"path": "/srv/demo/app.py"}},
                {"type": "toolCall", "id": "tc2", "name": "bash", "arguments": {"command": "tail build.log"}},
            ],
            stopReason="toolUse",
        ),
        msg(
            "r1",
            "a1",
            2,
            role="toolResult",
            toolCallId="tc1",
            toolName="read",
            content=[{"type": "text", "text": "x = 1"}],
        ),
        msg(
            "r2",
            "r1",
            3,
            role="toolResult",
            toolCallId="tc2",
            toolName="bash",
            output=[{"type": "text", "text": "linker failed"}],
        ),
        msg(
            "r3",
            "r2",
            4,
            role="toolResult",
            toolCallId="tc404",
            toolName="orphanTool",
            content=[{"type": "text", "text": "unknown tool call"}],
            isError=True,
        ),
        msg("b1", "r3", 5, role="bashExecution", command="make", output="", exitCode=2),
        msg("a2", "b1", 6, role="assistant", content=[], stopReason="aborted"),
        msg("a3", "a2", 7, role="assistant", content=[], stopReason="error", errorMessage="rate limit"),
    ]
    p = tmp_path / "odd.jsonl"
    p.write_text("\n".join(lines) + "\n")
    return p


def test_tool_results_carry_their_text_and_calls_read_as_text(tmp_path):
    doc, _back = exported(open_any(str(odd_session(tmp_path))), tmp_path / "odd.openloom.json")
    nodes = doc["trees"][0]["nodes"]
    assert nodes["r1"]["content"] == [{"type": "text", "text": "x = 1"}]
    assert nodes["r2"]["content"] == [{"type": "text", "text": "linker failed"}]
    assert nodes["r3"]["content"] == [{"type": "text", "text": "unknown tool call"}]
    assert nodes["b1"]["content"] == [{"type": "text", "text": "$ make"}]
    # a tool call is written as the row pi shows for it: OpenLoom knows text, image and audio blocks
    assert nodes["a1"]["content"] == [
        {"type": "text", "text": "Checking."},
        {"type": "text", "text": "\n[read: /srv/demo/app.py]"},
        {"type": "text", "text": "\n[bash: tail build.log]"},
    ]
    assert all(b["type"] == "text" for n in nodes.values() for b in n["content"])
    # pi's blocks stay in the node for the round trip
    assert nodes["a1"]["extensions"]["loomtui"]["piBlocks"]["1"]["type"] == "toolCall"


def test_reopened_export_shows_the_pi_sessions_rows(tmp_path):
    sm = open_any(str(odd_session(tmp_path)))
    _doc, back = exported(sm, tmp_path / "odd.openloom.json")
    assert rows_by_id(back) == rows_by_id(sm)
    assert rows_by_id(back)["r1"] == "[read: /srv/demo/app.py]"
    assert rows_by_id(back)["a3"] == "assistant: rate limit"


def test_reopened_export_of_a_file_pi_wrote_shows_its_rows(tmp_path):
    sm = open_any(str(PI160))
    doc, back = exported(sm, tmp_path / "pi160.openloom.json")
    nodes = doc["trees"][0]["nodes"]
    original = rows_by_id(sm)
    reopened = rows_by_id(back)
    assert set(reopened) == set(nodes)
    assert {nid: reopened[nid] for nid in nodes} == {nid: original[nid] for nid in nodes}
    results = [nid for nid in nodes if nodes[nid]["extensions"]["pi"].get("message", {}).get("role") == "toolResult"]
    assert results and all(nodes[nid]["content"] for nid in results)
    assert not [b for n in nodes.values() for b in n["content"] if b["type"] == "toolCall"]


def test_a_node_edited_after_the_export_reads_as_its_text(tmp_path):
    sm = open_any(str(odd_session(tmp_path)))
    doc, _back = exported(sm, tmp_path / "odd.openloom.json")
    nodes = doc["trees"][0]["nodes"]
    nodes["r1"]["content"] = [{"type": "text", "text": "edited elsewhere"}]
    nodes["a1"]["content"][2] = {"type": "text", "text": " and then some"}
    edited = tmp_path / "edited.openloom.json"
    edited.write_text(json.dumps(doc))
    back = open_any(str(edited))
    rows = rows_by_id(back)
    # a reply no longer as exported is read as the node it now is: its calls are gone, and
    # their results show their tool's name, as pi shows a result without its call
    assert rows["a1"] == "assistant: Checking. [read: /srv/demo/app.py] and then some"
    assert (rows["r1"], rows["r2"]) == ("[read]", "[bash]")
    # an edited result is still a tool result, with the new text
    assert back.get_entry("r1")["message"]["content"] == [{"type": "text", "text": "edited elsewhere"}]


def test_reexport_of_the_reopened_export_is_the_same_document(tmp_path):
    doc, back = exported(open_any(str(odd_session(tmp_path))), tmp_path / "one.openloom.json")
    again, _ = exported(back, tmp_path / "two.openloom.json")
    for d in (doc, again):
        d.pop("exportedAt", None)
        d["trees"][0].pop("updatedAt", None)
    assert again == doc


def test_a_claude_code_call_is_written_as_its_row(tmp_path, monkeypatch):
    """Another tool's calls are written as the tree shows them (Claude Code's ``Bash`` as pi's
    ``bash``); its nodes read back as nodes: they are not a pi session's entries."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))

    def claude(uuid: str, parent: str | None, kind: str, content: Any) -> str:
        msg: dict[str, Any] = {"role": kind, "content": content}
        if kind == "assistant":
            msg.update({"id": f"msg_{uuid}", "model": "m", "usage": {"input_tokens": 1, "output_tokens": 1}})
        return line(
            parentUuid=parent,
            isSidechain=False,
            sessionId="s-1",
            type=kind,
            message=msg,
            uuid=uuid,
            timestamp=f"2026-01-01T00:00:0{len(uuid)}Z",
        )

    f = tmp_path / "s-1.jsonl"
    f.write_text(
        "\n".join(
            [
                claude("p1", None, "user", "list it"),
                claude(
                    "c1",
                    "p1",
                    "assistant",
                    [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls -la"}}],
                ),
                claude("r1", "c1", "user", [{"type": "tool_result", "tool_use_id": "t1", "content": "total 12"}]),
            ]
        )
        + "\n"
    )
    sm = open_any(str(f))
    assert rows_by_id(sm)["r1"] == "[bash: ls -la]"
    doc, back = exported(sm, tmp_path / "cc.openloom.json")
    nodes = doc["trees"][0]["nodes"]
    assert nodes["c1"]["content"] == [{"type": "text", "text": "[bash: ls -la]"}]
    assert nodes["r1"]["content"] == [{"type": "text", "text": "total 12"}]
    rows = rows_by_id(back)
    assert (rows["c1"], rows["r1"]) == ("assistant: [bash: ls -la]", "[system]: total 12")


# labels and the header -----------------------------------------------------------------------
def labelled_session(tmp_path: Path) -> Path:
    """Labels set, cleared and set again after the header's time, as pi appends them."""

    def label(eid: str, parent: str, second: int, target: str, text: str | None) -> str:
        fields: dict[str, Any] = {"label": text} if text is not None else {}
        return line(
            type="label",
            id=eid,
            parentId=parent,
            timestamp=f"2026-03-01T09:20:{second:02d}.000Z",
            targetId=target,
            **fields,
        )

    lines = [
        line(type="session", version=3, id="lab-1", timestamp="2026-03-01T08:59:00.000Z", cwd="/srv/demo"),
        line(
            type="message",
            id="u1",
            parentId=None,
            timestamp="2026-03-01T09:00:00.000Z",
            message={"role": "user", "content": "hi"},
        ),
        line(
            type="message",
            id="a1",
            parentId="u1",
            timestamp="2026-03-01T09:01:00.000Z",
            message={"role": "assistant", "content": [{"type": "text", "text": "hello"}], "stopReason": "stop"},
        ),
        label("l1", "a1", 0, "u1", "checkpoint"),
        label("l2", "l1", 10, "u1", None),
        label("l3", "l2", 20, "u1", "restored"),
        label("l4", "l3", 40, "a1", "final-answer"),
    ]
    p = tmp_path / "lab.jsonl"
    p.write_text("\n".join(lines) + "\n")
    return p


def test_labels_keep_their_own_time_and_info_shows_the_cwd(tmp_path, capsys):
    sm = open_any(str(labelled_session(tmp_path)))
    out = tmp_path / "lab.openloom.json"
    doc, back = exported(sm, out)
    nodes = doc["trees"][0]["nodes"]
    assert nodes["u1"]["meta"] == {"bookmarked": True, "bookmarkLabel": "restored"}
    assert nodes["u1"]["extensions"]["loomtui"]["bookmark"] == {
        "label": "restored",
        "timestamp": "2026-03-01T09:20:20.000Z",
    }
    assert back.index.labels == {
        "u1": ("restored", "2026-03-01T09:20:20.000Z"),
        "a1": ("final-answer", "2026-03-01T09:20:40.000Z"),
    }
    assert main(["info", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "u1        restored  (2026-03-01T09:20:20.000Z)" in shown
    assert "a1        final-answer  (2026-03-01T09:20:40.000Z)" in shown
    assert "cwd           /srv/demo" in shown
    assert "08:59:00" not in shown.split("\nlabels")[1]


def test_a_bookmark_without_a_time_shows_none(tmp_path, capsys):
    """A bookmark set or changed by another tool keeps no time: none is shown, not the tree's."""
    sm = open_any(str(labelled_session(tmp_path)))
    doc, _ = exported(sm, tmp_path / "lab.openloom.json")
    nodes = doc["trees"][0]["nodes"]
    nodes["u1"]["meta"]["bookmarkLabel"] = "renamed elsewhere"
    nodes["a1"]["extensions"].pop("loomtui", None)
    other = tmp_path / "other.openloom.json"
    other.write_text(json.dumps(doc))
    back = open_any(str(other))
    assert back.index.labels == {"u1": ("renamed elsewhere", None), "a1": ("final-answer", None)}
    assert main(["info", str(other)]) == 0
    shown = capsys.readouterr().out
    assert "u1        renamed elsewhere\n" in shown and "(2026-03-01T08:59:00.000Z)" not in shown


def test_a_label_changed_in_loomtui_keeps_its_new_time(tmp_path):
    sm = open_any(str(labelled_session(tmp_path)))
    _doc, back = exported(sm, tmp_path / "lab.openloom.json")
    back.append_label_change("u1", "again")
    when = back.index.labels["u1"][1]
    assert isinstance(when, str) and when > "2026-03-01T09:20:20.000Z"
    doc, again = exported(back, tmp_path / "again.openloom.json")
    assert doc["trees"][0]["nodes"]["u1"]["extensions"]["loomtui"]["bookmark"] == {"label": "again", "timestamp": when}
    assert again.index.labels["u1"] == ("again", when)
    # saved into the file as a bookmark: the export's time was of another label, and is dropped
    from loomtui.formats.looms.bookmarks import save_bookmarks

    save_bookmarks(back)
    saved = json.loads((tmp_path / "lab.openloom.json").read_bytes())["trees"][0]["nodes"]["u1"]
    assert saved["meta"]["bookmarkLabel"] == "again" and "loomtui" not in saved["extensions"]
    assert open_any(str(tmp_path / "lab.openloom.json")).index.labels["u1"] == ("again", None)
