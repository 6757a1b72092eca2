"""Hostile and odd loom files: symlinks, values that must survive a rewrite, unsafe or
unreadable ZIP members, media that expand to far more than the bundle."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import pytest
from loomkit import PNG, write_json

from loomtui.cli import main
from loomtui.formats.detect import open_any
from loomtui.formats.looms.bookmarks import save_bookmarks
from loomtui.session.errors import LoomError, WriteRefused


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- symlinks -----------------------------------------------------------------------------------


def test_bookmark_save_through_a_symlink_writes_the_target_and_keeps_the_link(tmp_path, v2doc):
    real_dir = tmp_path / "real"
    real_dir.mkdir()
    target = write_json(real_dir / "doc.json", v2doc)
    original = target.read_bytes()
    link = tmp_path / "link.json"
    link.symlink_to(target)
    sm = open_any(str(link))
    sm.append_label_change("a", "via link")
    result = save_bookmarks(sm)
    assert link.is_symlink() and os.readlink(link) == str(target)
    saved = json.loads(target.read_bytes())
    assert saved["trees"][0]["nodes"]["a"]["meta"]["bookmarkLabel"] == "via link"
    assert result.backup == str(target) + ".bak" and (real_dir / "doc.json.bak").read_bytes() == original
    assert sorted(os.listdir(tmp_path)) == ["link.json", "real"]


def test_migrate_through_a_symlink_migrates_the_target(tmp_path, capsys):
    target = tmp_path / "old.jsonl"
    target.write_text(
        json.dumps({"type": "session", "id": "o", "timestamp": "t", "cwd": "/"})
        + "\n"
        + json.dumps({"type": "message", "timestamp": "t", "message": {"role": "user", "content": "hi"}})
        + "\n"
    )
    original = target.read_bytes()
    link = tmp_path / "link.jsonl"
    link.symlink_to(target.name)
    code, out, err = run(capsys, "migrate", str(link))
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == "old.jsonl"
    assert json.loads(target.read_text().splitlines()[0])["version"] == 3
    assert (tmp_path / "old.jsonl.bak").read_bytes() == original


def test_dangling_symlink_is_refused(tmp_path, capsys):
    link = tmp_path / "gone.jsonl"
    link.symlink_to(tmp_path / "nowhere.jsonl")
    code, out, err = run(capsys, "migrate", str(link))
    assert code == 2 and err.count("\n") == 1 and link.is_symlink()


def test_export_never_writes_through_a_symlink(tmp_path, capsys, pi_dir):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    out = tmp_path / "out.json"
    out.symlink_to(victim)
    code, _, err = run(capsys, "export-openloom", str(pi_dir / "dnouri-browse-session.jsonl"), "-o", str(out))
    assert code == 2 and "already exists" in err and victim.read_text() == "keep me"


# --- values that must come back as they were ------------------------------------------------------------


def test_bookmark_save_keeps_huge_integers_and_other_values_exactly(tmp_path, v2doc):
    v2doc["x-big"] = {
        "u128": 2**100,
        "neg": -(2**70),
        "digits": int("7" * 4200),
        "f": 0.1,
        "e": 1e300,
        "s": "\ud83d\ude00 \u001b",
    }
    v2doc["trees"][0]["nodes"]["a"]["x-count"] = 18446744073709551617
    p = write_json(tmp_path / "doc.json", v2doc)
    sm = open_any(str(p))
    sm.append_label_change("a", "x")
    save_bookmarks(sm)
    old = json.loads((tmp_path / "doc.json.bak").read_text())
    new = json.loads(p.read_text())
    assert new["x-big"] == old["x-big"] and type(new["x-big"]["u128"]) is int
    assert new["trees"][0]["nodes"]["a"]["x-count"] == 18446744073709551617
    new["trees"][0]["nodes"]["a"].pop("meta", None)
    old["trees"][0]["nodes"]["a"].pop("meta", None)
    assert new == old  # only the bookmark changed


def test_bookmark_save_refuses_a_number_it_cannot_write_back(tmp_path, v2doc):
    p = write_json(tmp_path / "doc.json", v2doc)
    text = p.read_text().replace('"version": "2.0"', '"version": "2.0", "x-huge": 1e999')
    p.write_text(text)
    sm = open_any(str(p))
    sm.append_label_change("a", "x")
    with pytest.raises(WriteRefused):
        save_bookmarks(sm)
    assert p.read_text() == text and not (tmp_path / "doc.json.bak").exists()


def test_loom_with_lone_surrogates_and_deep_values_opens(tmp_path, v2doc, capsys):
    p = write_json(tmp_path / "doc.json", v2doc)
    deep = "[" * 3000 + "]" * 3000
    text = p.read_text().replace('"version": "2.0"', f'"version": "2.0", "x-s": "cut \\ud83d", "x-deep": {deep}')
    p.write_text(text)
    sm = open_any(str(p))
    assert len(sm.index.entries) > 3
    code, out, err = run(capsys, "tree", str(p))
    assert code == 0 and err == ""
    code, out, err = run(capsys, "export-openloom", str(p), "-o", str(tmp_path / "o.json"))
    assert code == 0, err
    from loomtui.session.jsonvalue import loads

    assert loads((tmp_path / "o.json").read_bytes())["format"] == "open-loom"


@pytest.mark.parametrize("value", [["a", "b"], {"k": 1}, 7, None, True])
def test_odd_openloom_field_types_do_not_crash(tmp_path, v2doc, value, capsys):
    node = v2doc["trees"][0]["nodes"]["a"]
    for key in ("role", "agentId", "createdAt", "type"):
        node[key] = value
    for block in node.get("content", []):
        if isinstance(block, dict):
            block["text"] = value
    v2doc["trees"][0]["title"] = value
    p = write_json(tmp_path / "doc.json", v2doc)
    for argv in (
        ("tree", str(p), "--filter", "all"),
        ("info", str(p)),
        ("info", str(p), "--json"),
        ("export-openloom", str(p), "-o", str(tmp_path / "o.json")),
    ):
        code, out, err = run(capsys, *argv)
        assert "Traceback" not in err and (code == 0 or err.count("\n") == 1), (argv, err)
        (tmp_path / "o.json").unlink(missing_ok=True)


# --- ZIP members ------------------------------------------------------------------------------------------


def _bundle(path: Path, doc: dict, members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", method) as z:
        z.writestr("tree.openloom", json.dumps(doc))
        for name, data in members.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = method
            z.writestr(info, data)
    return path


def test_unsafe_member_names_are_never_carried_into_an_export(tmp_path, v2doc, capsys):
    v2doc["trees"][0]["nodes"]["a"]["content"].append(
        {"type": "image", "ref": "../../evil.png", "mimeType": "image/png"}
    )
    bad = ["../../evil.png", "/etc/evil", "a/../../b", "C:/win", "back\\slash", "./dot"]
    src = _bundle(tmp_path / "in.zip", v2doc, {**{n: PNG for n in bad}, "media/ok.png": PNG})
    sm = open_any(str(src))
    notes = " ".join(d.reason for d in sm.diagnostics)
    assert "unsafe name" in notes
    code, out, err = run(capsys, "export-openloom", str(src), "-o", str(tmp_path / "out.zip"))
    assert code == 0, err
    with zipfile.ZipFile(tmp_path / "out.zip") as z:
        names = z.namelist()
    assert "media/ok.png" in names and not set(bad) & set(names)
    from loomtui.formats.looms.media import read_member, safe_member_name

    assert all(safe_member_name(n) for n in names)
    with pytest.raises(LoomError):
        read_member(str(src), "../../evil.png")


def test_safe_member_name():
    from loomtui.formats.looms.media import safe_member_name

    assert safe_member_name("media/a.png") and safe_member_name("a")
    for bad in ("", "/a", "../a", "a/..", "a//b", "./a", "a\\b", "c:x", "a\x00b"):
        assert not safe_member_name(bad), bad


def _patch_method(path: Path, member: str, method: int) -> None:
    """Mark ``member`` as compressed with ``method`` (in both headers) without changing data."""
    data = bytearray(path.read_bytes())
    name = member.encode()
    for sig, off in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        at = 0
        while (at := data.find(sig, at)) >= 0:
            name_at = at + (30 if sig == b"PK\x03\x04" else 46)
            if data[name_at : name_at + len(name)] == name:
                data[at + off : at + off + 2] = method.to_bytes(2, "little")
            at += 4
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("problem", ["deflate64", "encrypted", "damaged"])
def test_unreadable_media_members_are_reported_not_raised(tmp_path, v2doc, problem, capsys):
    v2doc["trees"][0]["nodes"]["a"]["content"].append({"type": "image", "ref": "media/x.png", "mimeType": "image/png"})
    src = _bundle(tmp_path / "in.zip", v2doc, {"media/x.png": PNG * 50})
    if problem == "deflate64":
        _patch_method(src, "media/x.png", 9)
    elif problem == "encrypted":
        data = bytearray(src.read_bytes())
        for sig, off in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
            at = data.find(sig, data.find(b"media/x.png") - 60)
            at = data.rfind(sig, 0, data.find(b"media/x.png", at if at >= 0 else 0) + 1)
            data[at + off] |= 1
        src.write_bytes(bytes(data))
    else:
        data = bytearray(src.read_bytes())
        at = data.find(b"media/x.png") + len(b"media/x.png")
        data[at + 2 : at + 12] = b"\xff" * 10
        src.write_bytes(bytes(data))
    for argv in (
        ("info", str(src)),
        ("tree", str(src)),
        ("export-openloom", str(src), "-o", str(tmp_path / "o.zip")),
        ("export-openloom", str(src), "-o", str(tmp_path / "o.json")),
    ):
        code, out, err = run(capsys, *argv)
        assert "Traceback" not in err and (code == 0 or err.count("\n") == 1), (argv, err)
    from loomtui.formats.looms.media import read_member

    with pytest.raises(LoomError):
        read_member(str(src), "media/x.png")


def test_damaged_document_member_is_one_line(tmp_path, v2doc, capsys):
    src = _bundle(tmp_path / "in.zip", v2doc, {})
    _patch_method(src, "tree.openloom", 9)
    code, out, err = run(capsys, "info", str(src))
    assert code == 2 and "compression method" in err and err.count("\n") == 1


def test_bundle_media_are_streamed_with_a_budget(tmp_path, v2doc):
    """A small bundle whose member expands to far more: copied in chunks, and refused past the
    budget with nothing written."""
    from loomtui.formats.looms.media import copy_members

    big = b"\0" * (8 << 20)
    src = _bundle(tmp_path / "in.zip", v2doc, {"media/big.bin": big})
    assert src.stat().st_size < 100_000
    out = tmp_path / "o.zip"
    with zipfile.ZipFile(out, "w") as z:
        copy_members(str(src), ["media/big.bin"], z, lambda n: False, budget=16 << 20)
    with zipfile.ZipFile(out) as z:
        assert z.getinfo("media/big.bin").file_size == len(big)
    with zipfile.ZipFile(tmp_path / "o2.zip", "w") as z, pytest.raises(LoomError, match="beyond"):
        copy_members(str(src), ["media/big.bin"], z, lambda n: False, budget=1 << 20)
