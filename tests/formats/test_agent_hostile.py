"""Claude Code and Codex files with odd values anywhere: reading, drawing, the detail pane's
entries, info, exports, the picker's summary and search never raise anything but a LoomError,
and the file itself is never changed."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from loomtui.commands.info import summarize
from loomtui.formats.detect import open_any
from loomtui.session.catalog import summarize as catalog_summary
from loomtui.session.errors import LoomError
from loomtui.session.fulltext import search_sessions
from loomtui.view.blocks import entry_blocks
from loomtui.view.model import TreeModel

ODD: list[Any] = [
    None,
    1,
    "x",
    [],
    {},
    [1, None, "s"],
    {"type": "tool_result"},
    True,
    -5,
    [{"type": None}],
    [{"type": "tool_use", "id": ["x"]}],
    [{"type": "text", "text": 5}],
    {"a": [{}]},
]


def _mutate(rng: random.Random, value: Any, depth: int = 0) -> None:
    if isinstance(value, dict) and value:
        key = rng.choice(list(value))
        if rng.random() < 0.5 or depth > 3:
            value[key] = rng.choice(ODD)
        else:
            _mutate(rng, value[key], depth + 1)
    elif isinstance(value, list) and value:
        i = rng.randrange(len(value))
        if rng.random() < 0.5 or depth > 3:
            value[i] = rng.choice(ODD)
        else:
            _mutate(rng, value[i], depth + 1)


@pytest.mark.parametrize("seed", range(8))
def test_odd_values_never_crash_and_never_write(
    shared_dir: Path, tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    rng = random.Random(seed)
    sources = sorted((shared_dir / "fixtures" / "claude").glob("*.jsonl")) + sorted(
        (shared_dir / "fixtures" / "codex").glob("*.jsonl")
    )
    out = tmp_path / "exports"
    out.mkdir()
    for n in range(6):
        src = rng.choice(sources)
        rows = []
        for raw in src.read_text(encoding="utf-8").splitlines()[:150]:
            obj = json.loads(raw)
            if rng.random() < 0.35:
                _mutate(rng, obj)
            rows.append(json.dumps(obj))
        if rng.random() < 0.3:
            rows.insert(rng.randrange(len(rows)), '{"cut": ')
        f = tmp_path / f"{n}.jsonl"
        f.write_text("\n".join(rows) + "\n")
        before = hashlib.sha256(f.read_bytes()).hexdigest()
        try:
            sm = open_any(str(f))
        except LoomError:
            continue
        summarize(sm)
        for mode in ("default", "no-tools", "user-only", "all"):
            list(TreeModel(sm, filter_mode=mode).plain_rows(120))
        for e in sm.index.entries[:60]:
            entry_blocks(sm, e)
        leaf = sm.get_leaf_id()
        if leaf is not None:
            for export in (sm.export_pi, sm.create_branched_session):
                try:
                    export(leaf, dir=str(out))
                except LoomError:
                    pass
            try:
                sm.append_label_change(leaf, "odd")
            except LoomError:
                pass
        catalog_summary(str(f))
        list(search_sessions([str(f)], "the"))
        assert hashlib.sha256(f.read_bytes()).hexdigest() == before
