"""Ctrl+X copies what pi 1.6.0's /tree copies: ``message_copy_text`` against pi's own
``getEntryCopyText`` for every entry of the test sessions and of entries made to probe its edges."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from loomtui.view.blocks import message_copy_text
from tests.shared_material import needs

PEER = Path(os.environ.get("PI_PEER", "/tmp/peer"))
PI_DIST = PEER / "node_modules" / "@earendil-works" / "pi-coding-agent" / "dist"
NODE = shutil.which("node")

pytestmark = needs(
    "node and pi 1.6.0 in $PI_PEER (run ../shared/oracle/ensure_peer.sh)"
    if NODE is None or not (PI_DIST / "modes" / "interactive" / "components" / "tree-selector.js").exists()
    else None
)

#: asks pi's tree list what it copies for each entry of a session file (JSON: id -> text or null)
ORACLE = """
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
const dist = process.env.PI_DIST;
const load = (p) => import(pathToFileURL(join(dist, p)).href);
const { initTheme } = await load("modes/interactive/theme/theme.js");
const { TreeSelectorComponent } = await load("modes/interactive/components/tree-selector.js");
initTheme("dark");
const entries = readFileSync(process.argv[2], "utf8").split("\\n").filter(Boolean).map((l) => JSON.parse(l))
  .filter((e) => e.type !== "session");
const list = new TreeSelectorComponent([], null, 10, () => {}, () => {}, () => {}).getTreeList();
const out = {};
for (const e of entries) {
  const text = list.getEntryCopyText({ entry: e, children: [] });
  out[e.id] = text === undefined ? null : text;
}
console.log(JSON.stringify(out));
"""

#: entries at the edges of pi's rules
PROBES: list[dict[str, Any]] = [
    {
        "type": "message",
        "id": "p1",
        "message": {
            "role": "user",
            "content": [
                {"type": "text", "text": "one"},
                {"type": "image", "data": "x"},
                {"type": "text", "text": "two"},
            ],
        },
    },
    {"type": "message", "id": "p2", "message": {"role": "assistant", "content": [], "errorMessage": "boom"}},
    {
        "type": "message",
        "id": "p3",
        "message": {
            "role": "assistant",
            "content": [{"type": "thinking", "thinking": "hm"}, {"type": "text", "text": "  "}],
            "errorMessage": "late",
        },
    },
    {"type": "message", "id": "p4", "message": {"role": "user", "content": "   "}},
    {"type": "message", "id": "p5", "message": {"role": "bashExecution", "command": "ls -la", "output": "x"}},
    {"type": "message", "id": "p6", "message": {"role": "toolResult", "content": [{"type": "text", "text": "ok"}]}},
    {"type": "custom_message", "id": "p7", "content": "note", "customType": "x"},
    {"type": "custom_message", "id": "p8", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
    {"type": "compaction", "id": "p9", "summary": "sum"},
    {"type": "branch_summary", "id": "p10", "summary": ""},
    {"type": "custom", "id": "p11", "data": {"a": 1}},
    {"type": "label", "id": "p12", "label": "mine"},
    {"type": "model_change", "id": "p13", "modelId": "m"},
    {"type": "message", "id": "p14", "message": {"role": "user"}},
]


def pi_copies(path: Path) -> dict[str, str | None]:
    script = path.parent / "copy_oracle.mjs"
    script.write_text(ORACLE, encoding="utf-8")
    out = subprocess.run(
        [str(NODE), str(script), str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env={**os.environ, "PI_DIST": str(PI_DIST), "HOME": "/home/user"},
    )
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def sessions(shared_dir: Path, tmp_path: Path) -> list[Path]:
    probes = tmp_path / "probes.jsonl"
    probes.write_text("".join(json.dumps(e) + "\n" for e in PROBES), encoding="utf-8")
    app_fixtures = Path(__file__).resolve().parents[1] / "app" / "fixtures"
    return [probes, app_fixtures / "kinds.jsonl", *sorted((shared_dir / "fixtures" / "pi").glob("*.jsonl"))]


def test_ctrl_x_copies_what_pi_copies(shared_dir: Path, tmp_path: Path) -> None:
    checked = 0
    for path in sessions(shared_dir, tmp_path):
        work = tmp_path / path.name
        if path != work:
            shutil.copyfile(path, work)
        expected = pi_copies(work)
        for line in work.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            if not isinstance(entry, dict) or entry.get("type") == "session" or entry.get("id") not in expected:
                continue
            assert message_copy_text(entry) == expected[entry["id"]], (path.name, entry["id"])
            checked += 1
    assert checked > len(PROBES) + 20
