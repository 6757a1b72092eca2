#!/usr/bin/env python3
"""Write a pi session (JSONL, version 3) whose bytes are mostly inline base64 images.

    uv run python benchmarks/gen_image_session.py OUT.jsonl --size 1G [--seed 1]
    uv run python benchmarks/gen_image_session.py OUT.jsonl --size 500M --hole

The shape is what pi writes when a user pastes screenshots and the agent reads image files
(docs/formats.md §5): user messages whose content is a text block followed by ``image`` blocks
(``{"type":"image","data":BASE64,"mimeType":"image/png"}``), assistant turns calling ``read`` or
``screenshot``, and tool results whose content is a text block plus an image block. Text-only
turns, a model change, labels and branches (a retry from an earlier user message) are mixed in.
Lines are written as ``JSON.stringify`` writes them (no spaces). Deterministic for a ``--seed``.

``--hole`` writes one user message near the middle whose image data is a file hole of most of
``--size`` (zeros on disk, read as NUL bytes, not valid JSON): an apparent-size giant that costs
almost no disk, for catalogue benchmarks that must never read the middle of a file.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

WORDS = (
    "the screenshot shows the layout broken on narrow screens fix the css grid button overlaps "
    "sidebar after resize compare with the design mockup image attached please check again "
    "render test failing because of font hinting crop the region around the dialog"
).split()
TOOLS = ("read", "screenshot", "bash", "edit")
#: image payload sizes in bytes (before base64): screenshots of 100 KB to 1.5 MB
IMAGE_MIN, IMAGE_MAX = 100_000, 1_500_000


def parse_size(s: str) -> int:
    s = s.strip().upper()
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1:], 1)
    return int(float(s.rstrip("KMG")) * mult)


def dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


class Writer:
    def __init__(self, out: Any, rng: random.Random, pool: str) -> None:
        self.out = out
        self.rng = rng
        self.pool = pool
        self.ids: set[str] = set()
        self.clock = 0
        self.t0 = datetime(2026, 2, 1, tzinfo=UTC)
        self.leaf: str | None = None
        self.path: list[str] = []
        self.entries = 0

    def new_id(self) -> str:
        while True:
            i = f"{self.rng.getrandbits(32):08x}"
            if i not in self.ids:
                self.ids.add(i)
                return i

    def ts(self) -> str:
        self.clock += self.rng.randint(500, 20_000)
        return (self.t0 + timedelta(milliseconds=self.clock)).isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def ms(self) -> int:
        return int(self.t0.timestamp() * 1000) + self.clock

    def text(self, lo: int, hi: int) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(self.rng.randint(lo, hi)))

    def image(self, size: int | None = None) -> dict[str, str]:
        """An image block whose base64 is a slice of the pool (valid base64, distinct slices)."""
        n = size if size is not None else self.rng.randint(IMAGE_MIN, IMAGE_MAX)
        n4 = (n * 4 // 3) // 4 * 4
        at = self.rng.randrange(0, max(1, len(self.pool) - n4)) // 4 * 4
        return {
            "type": "image",
            "data": self.pool[at : at + n4],
            "mimeType": self.rng.choice(("image/png", "image/jpeg")),
        }

    def emit(self, kind: str, **fields: Any) -> str:
        eid = self.new_id()
        e = {"type": kind, "id": eid, "parentId": self.leaf, "timestamp": self.ts(), **fields}
        self.out.write((dumps(e) + "\n").encode())
        self.entries += 1
        self.leaf = eid
        self.path.append(eid)
        return eid

    def header(self, cwd: str = "/home/user/webapp") -> None:
        self.out.write(
            (
                dumps(
                    {
                        "type": "session",
                        "version": 3,
                        "id": str(uuid.UUID(int=self.rng.getrandbits(128))),
                        "timestamp": self.ts(),
                        "cwd": cwd,
                    }
                )
                + "\n"
            ).encode()
        )

    def user(self, images: int) -> str:
        content: list[dict[str, Any]] = [{"type": "text", "text": self.text(4, 40)}]
        content += [self.image() for _ in range(images)]
        return self.emit("message", message={"role": "user", "content": content, "timestamp": self.ms()})

    def assistant(self, tool: str | None) -> str | None:
        content: list[dict[str, Any]] = [{"type": "text", "text": self.text(8, 80)}]
        cid = None
        if tool is not None:
            cid = "toolu_" + uuid.UUID(int=self.rng.getrandbits(128)).hex[:20]
            args = (
                {"path": f"/home/user/webapp/shots/{self.rng.choice(WORDS)}.png"}
                if tool != "bash"
                else {"command": self.text(2, 6)}
            )
            content.append({"type": "toolCall", "id": cid, "name": tool, "arguments": args})
        self.emit(
            "message",
            message={
                "role": "assistant",
                "content": content,
                "api": "anthropic-messages",
                "provider": "anthropic",
                "model": "claude-sonnet-4-5",
                "usage": {
                    "input": 3000,
                    "output": 400,
                    "cacheRead": 0,
                    "cacheWrite": 0,
                    "totalTokens": 3400,
                    "cost": {"input": 0.009, "output": 0.006, "cacheRead": 0, "cacheWrite": 0, "total": 0.015},
                },
                "stopReason": "toolUse" if tool else "stop",
                "timestamp": self.ms(),
            },
        )
        return cid

    def tool_result(self, cid: str, tool: str) -> None:
        if tool in ("read", "screenshot"):
            content: list[dict[str, Any]] = [{"type": "text", "text": "Read image file [image/png]"}, self.image()]
        else:
            content = [{"type": "text", "text": self.text(20, 200)}]
        self.emit(
            "message",
            message={
                "role": "toolResult",
                "toolCallId": cid,
                "toolName": tool,
                "content": content,
                "isError": False,
                "timestamp": self.ms(),
            },
        )

    def turn(self) -> None:
        """One user turn: the prompt (often with screenshots), tool calls, the answer."""
        rng = self.rng
        if len(self.path) > 6 and rng.random() < 0.05:  # a retry from an earlier point
            self.leaf = self.path[rng.randrange(len(self.path) - 6, len(self.path) - 1)]
        if rng.random() < 0.02:
            self.emit(
                "model_change", provider="anthropic", modelId=rng.choice(["claude-sonnet-4-5", "claude-opus-4-1"])
            )
        self.user(images=rng.choice((0, 1, 1, 2)))
        for _ in range(rng.randint(0, 3)):
            tool = rng.choice(TOOLS)
            cid = self.assistant(tool)
            assert cid is not None
            self.tool_result(cid, tool)
        self.assistant(None)
        if rng.random() < 0.03:
            self.emit("label", targetId=self.leaf, label=rng.choice(["looks right", "regression", "checkpoint"]))


def write_hole_message(w: Writer, f: Any, hole: int) -> None:
    """A user message whose image data is ``hole`` bytes of file hole."""
    eid = w.new_id()
    head = dumps(
        {
            "type": "message",
            "id": eid,
            "parentId": w.leaf,
            "timestamp": w.ts(),
            "message": {
                "role": "user",
                "content": [
                    {"type": "text", "text": "huge screenshot attached"},
                    {"type": "image", "mimeType": "image/png", "data": ""},
                ],
            },
        }
    )
    cut = head.index('"data":"') + len('"data":"')
    f.write(head[:cut].encode())
    f.seek(hole, os.SEEK_CUR)
    f.write((head[cut:-2] + f',"timestamp":{w.ms()}}}}}\n').encode())
    w.entries += 1
    w.leaf = eid
    w.path.append(eid)


def generate(out_path: str, size: int, seed: int = 1, hole: bool = False, cwd: str = "/home/user/webapp") -> int:
    """Write the session; returns its number of entries."""
    rng = random.Random(seed)
    pool = base64.b64encode(random.Random(seed + 7).randbytes(6 << 20)).decode()
    with open(out_path, "wb") as f:
        w = Writer(f, rng, pool)
        w.header(cwd)
        if hole:
            for _ in range(3):
                w.turn()
            write_hole_message(w, f, max(0, size - 8 * IMAGE_MAX))
            for _ in range(3):
                w.turn()
            f.truncate()
            return w.entries
        while f.tell() < size:
            w.turn()
    return w.entries


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--size", default="1G", help="about this many bytes (K, M, G suffixes)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hole", action="store_true", help="one giant image that is a file hole (sparse)")
    a = ap.parse_args()
    n = generate(a.out, parse_size(a.size), a.seed, a.hole)
    st = os.stat(a.out)
    print(f"{a.out}: {st.st_size / 1e6:.0f} MB ({st.st_blocks * 512 / 1e6:.0f} MB on disk), {n} entries")


if __name__ == "__main__":
    main()
